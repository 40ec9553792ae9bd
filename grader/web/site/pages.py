"""The portal's HTML pages. For now: a submission's report, the page ``check`` writes for its task.

Its top links lead back to the submission's page and to the student's exercises (``graded_row.REPORT_LINKS``,
where ``check``'s page links the ``index.html`` beside it); a report kept before those links, whose
"All tasks" is ``index.html`` beside the report, is led to the exercises by ``report_index``.
Served to its student (signed in, or with their API token) and to instructors; another student's,
or one that does not exist, is 404; a browser signed out is sent to the sign-in page, a script gets
401. The page is self-contained, so it is served with a Content-Security-Policy that allows nothing
but its own inline style: no script, no request out.
"""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpResponse, HttpResponseRedirect

from grader.web.models import DONE, Submission
from grader.web.site.api import token_user

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


def report_index(request, number: int):
    """``/submissions/N/index.html``, where an older report's "All tasks" leads: the exercises (the
    start page: a student's tasks, an instructor's class), whatever N is."""
    return HttpResponseRedirect("/")
