"""The portal's HTML pages. For now: a submission's report, the page ``check`` writes for its task.

Served to its student (signed in, or with their API token) and to instructors; another student's,
or one that does not exist, is 404; a browser signed out is sent to the sign-in page, a script gets
401. The page is self-contained, so it is served with a Content-Security-Policy that allows nothing
but its own inline style: no script, no request out.
"""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponse

from grader.web.api import token_user
from grader.web.models import DONE, Submission

REPORT_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"


def report(request, number: int):
    user = request.user if request.user.is_authenticated else token_user(request)
    if user is None and "text/html" in request.headers.get("Accept", ""):
        return redirect_to_login(request.get_full_path())  # a browser: to the sign-in page
    if user is None:
        return HttpResponse("Sign in first.", status=401, content_type="text/plain; charset=utf-8")
    found = Submission.objects.filter(id=number, status=DONE)
    if not user.is_staff:
        found = found.filter(student=user)
    row = found.first()
    if row is None:
        raise Http404("no such report of yours")
    response = HttpResponse(row.report, content_type="text/html; charset=utf-8")
    response["Content-Security-Policy"] = REPORT_POLICY
    response["X-Content-Type-Options"] = "nosniff"
    response["Referrer-Policy"] = "no-referrer"
    return response
