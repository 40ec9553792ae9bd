"""The roster as it changes during a term, and comments: dropping and restoring a student, and an
instructor's or TA's comment on a submission.

In: requests of signed-in staff (``enrolment``): dropping and restoring are an instructor's
(``instructor_required``: a TA's or student's POST is a 403 with a sentence); a comment is any
staff member's (instructor or TA). Out: dropping is two steps, as a regrade is: a GET (or a POST
without ``confirm``) shows the sentence saying what dropping does, with the button that POSTs
``confirm=yes``; that POST drops the student and comes back to /teach/ with a sentence. Restoring is
one POST (it loses nothing). A comment POST stores the comment (1 to ``MAX_COMMENT`` characters) and comes back to
the submission's page, where its student reads it; an empty or longer one is refused there with a
sentence saying why, nothing stored.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from grader.web.enrolment import drop as drop_student
from grader.web.enrolment import instructor_required
from grader.web.enrolment import restore as restore_student
from grader.web.models import Comment, Submission
from grader.web.site.views_instructor import staff_required
from grader.web.usernames import find_account

MAX_COMMENT = 2000  # characters of one comment: a paragraph or two, not a file


def _account(username: str):
    found = find_account(username)
    if found is None:
        raise Http404("no such student")
    return found


@require_http_methods(["GET", "POST"])
@instructor_required
def drop(request, username: str):
    """Drop a student: the confirmation page, then (``confirm=yes``) the drop."""
    found = _account(username)
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        messages.success(request, drop_student(found))
        return redirect("teach")
    return render(request, "web/drop.html", {"who": found})


@require_POST
@instructor_required
def restore(request, username: str):
    """Bring a dropped student back, every hand-in and result as it was."""
    messages.success(request, restore_student(_account(username)))
    return redirect("teach")


@require_POST
@staff_required
def comment(request, number: int):
    """An instructor's or TA's comment on submission ``number``, shown to its student on its page."""
    row = Submission.objects.filter(id=number).only("id").first()
    if row is None:
        raise Http404("no such submission")
    text = request.POST.get("text", "").replace("\r\n", "\n").strip()
    if not text or len(text) > MAX_COMMENT:
        why = "The comment is empty" if not text else f"The comment is longer than {MAX_COMMENT} characters"
        messages.error(request, f"{why}: nothing was saved.")
        return redirect("submission", number=number)
    Comment.objects.create(submission=row, text=text, made_by=request.user.username, made_at=timezone.now())
    messages.success(request, "Your comment is saved: the student reads it on this page.")
    return redirect("submission", number=number)
