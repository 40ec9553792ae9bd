"""The portal's JSON API (``portal.md``, "HTTP API"): tasks, submissions, regrades, the gradebook.

Every call but ``/healthz`` needs ``Authorization: Token <token>`` (401 without a valid one; 403
with a sentence while its account is still on the one-time password ``users import`` or ``users
password`` printed: a token works only once its owner has chosen a password of their own).
Students see only their own submissions (another's is 404, as is one that does not exist);
instructors (``is_staff``) see all. A hidden case shows its name, verdict and hint only. The list
of submissions comes a page at a time, newest first (``?limit=``, ``&before=ID``), the next page's
address in a ``Link`` header; the answer stays the JSON list ``portal.md`` describes.

Added to ``portal.md`` (nothing of it changes meaning): ``POST /api/submissions`` takes, besides
``task`` and ``file``, the other exercise files the task imports as repeated ``also`` files, each
named by its file name (``ui.py``; at most as many as the task imports), graded with ``file`` in
place of the student's earlier hand-ins of them; a submission (and the 202 answer) says ``files``,
the names of the files handed in, its own first; a task says ``uses_files``, the tasks whose files
it imports (what ``also`` takes, as ``<task>.py``); a graded submission says ``cause``, the line
``check`` prints under a task not accepted ("" when nothing failed), beside its ``known_mistake``.
"""

from __future__ import annotations

from functools import wraps
from typing import List, Optional, Tuple, Union

from django.http import HttpResponse, JsonResponse
from django.utils.timezone import get_current_timezone_name, localtime
from django.views.decorators.csrf import csrf_exempt

from grader.report.exports import gradebook_csv
from grader.report.pages import MESSAGE_CHARS
from grader.report.shown import clipped
from grader.web.enrolment import DROPPED_SENTENCE, TA_REFUSED, is_instructor
from grader.web.marks.class_marks import class_marks, roster_people
from grader.web.marks.gradescope_export import gradescope_zip
from grader.web.marks.policies import whole_number
from grader.web.models import DONE, QUEUED, ApiToken, FirstSignIn, Submission
from grader.web.site.companions import file_names, names_by_submission
from grader.web.site.handin import hand_in, read_upload, read_uploads
from grader.web.site.handin import regrade as regrade_task
from grader.web.site.landing import cause_line
from grader.web.usernames import find_account
from grader.web.worker.course_state import CourseUnavailable, course_tasks

PAGE_SIZE, MAX_PAGE_SIZE = 50, 200  # submissions in one answer of GET /api/submissions
_LARGEST_ID = 2**63 - 1  # a submission's id is a 64-bit integer in every database


def _error(status: int, message: str, **headers) -> JsonResponse:
    response = JsonResponse({"error": message}, status=status)
    for name, value in headers.items():
        response[name.replace("_", "-")] = value
    return response


def token_user(request):
    header = request.headers.get("Authorization", "")
    kind, _, token = header.partition(" ")
    if kind != "Token" or not token.strip():
        return None
    # (with the account's FirstSignIn row or its absence, in the same query: ``_on_one_time_password``)
    tokens = ApiToken.objects.select_related("user", "user__first_sign_in")
    found = tokens.filter(digest=ApiToken.digest_of(token.strip())).first()
    return found.user if found is not None and found.user.is_active else None


def _dropped_token(request) -> bool:
    """Whether the request's token is a dropped student's (``enrolment``: refused, with a sentence)."""
    token = request.headers.get("Authorization", "").partition(" ")[2].strip()
    return bool(token) and ApiToken.objects.filter(digest=ApiToken.digest_of(token), user__is_active=False).exists()


def _on_one_time_password(user) -> bool:
    """Whether the account has not yet chosen a password of its own (``FirstSignIn``)."""
    try:
        return user.first_sign_in is not None
    except FirstSignIn.DoesNotExist:
        return False


def token_required(view):
    """The view with ``request.user`` the token's owner; 401 when the token is missing or wrong,
    403 while its owner has not chosen a password of their own."""

    @csrf_exempt
    @wraps(view)
    def checked(request, *args, **kwargs):
        user = token_user(request)
        if user is None and _dropped_token(request):
            return _error(403, DROPPED_SENTENCE)
        if user is None:
            return _error(401, "a valid API token is needed: Authorization: Token <token>")
        if _on_one_time_password(user):
            return _error(
                403,
                f"{user.username} is still on the one-time password: sign in on the portal's pages and "
                "choose your own password first, then make a new token on your account page (/account/)",
            )
        request.user = user
        return view(request, *args, **kwargs)

    return checked


def healthz(request):
    return JsonResponse({"ok": True})


@token_required
def tasks(request):
    if request.method != "GET":
        return _error(405, "GET only")
    found = course_tasks()
    listed = [
        {"id": t.id, "title": t.title, "max_score": t.max_score, "uses_files": [u for u in t.uses_files if u != t.id]}
        for t in found.values()
    ]
    return JsonResponse(listed, safe=False)


def _cases(results) -> Optional[list]:
    """The cases as kept, each message cut to its start and end as the grader keeps it now (a row
    graded by an older grader may hold a longer one)."""
    if results is None:
        return None
    return [
        dict(case, message=clipped(case["message"], MESSAGE_CHARS, "both"))
        if isinstance(case, dict) and isinstance(case.get("message"), str)
        else case
        for case in results
    ]


def document(submission: Submission, also: Optional[List[str]] = None) -> dict:
    """A submission as the API shows it (hidden cases: name, verdict and hint only; each case's
    message at most ``MESSAGE_CHARS`` characters, its start and end); ``also``: the names of the
    files handed in with it, when the caller has them (``names_by_submission``), else read here."""
    done = submission.status == DONE
    return {
        "id": submission.id,
        "task": submission.task,
        "student": submission.student.username,
        "files": file_names(submission, also),
        "status": submission.status,
        "submitted_at": submission.submitted_at.isoformat(),
        # (added) the same moment on the course's clock, with its offset, and the zone's IANA name
        "submitted_at_local": localtime(submission.submitted_at).isoformat(),
        "time_zone": get_current_timezone_name(),
        "late": submission.late,
        "verdict": submission.verdict if done else None,
        "score": submission.score if done else None,
        "max_score": submission.max_score if done else None,
        "cases": _cases(submission.results) if done else None,
        "notes": submission.notes if done else None,
        "known_mistake": _known_mistake(submission.mistake) if done else None,
        # (added) the first failing case's cause in one line, as ``check`` prints it under its row
        "cause": _cause(submission) if done else None,
        "report_url": f"/submissions/{submission.id}/report" if done else None,
        # graded on the public cases only: each hidden case is not_run until the student's deadline
        "public_only": submission.public_only if done else None,
    }


def _known_mistake(mistake) -> Optional[dict]:
    """The known mistake a graded submission's answers match, as ``check --json`` gives it (None: none)."""
    if not isinstance(mistake, dict) or not mistake.get("student"):
        return None
    return {"mistake": mistake["student"], "matched": mistake.get("matched"), "failing": mistake.get("failing")}


def _cause(submission: Submission) -> Optional[str]:
    """The line ``check`` prints under a task not accepted (``landing.cause_line``: "" when nothing
    failed); None while the course cannot be loaded or no longer has the task."""
    try:
        task = course_tasks().get(submission.task)
    except CourseUnavailable:
        return None
    return cause_line(submission, task)


def _visible(request, queryset):
    return queryset if request.user.is_staff else queryset.filter(student=request.user)


@token_required
def submission(request, number: int):
    if request.method != "GET":
        return _error(405, "GET only")
    found = _visible(request, Submission.objects.select_related("student")).defer("data", "report")
    found = found.filter(id=number).first()
    if found is None:
        return _error(404, f"there is no submission {number} of yours")
    return JsonResponse(document(found))


@token_required
def submissions(request):
    if request.method == "POST":
        return _hand_in(request)
    if request.method != "GET":
        return _error(405, "GET or POST only")
    # (never the file's bytes nor the report page: a page of 200 would read hundreds of megabytes)
    found = _visible(request, Submission.objects.select_related("student")).defer("data", "report").order_by("-id")
    if request.GET.get("task"):
        found = found.filter(task=request.GET["task"])
    if request.user.is_staff and request.GET.get("student"):  # (letter case aside: zed is Zed)
        found = found.filter(student=find_account(request.GET["student"]))
    page = _page(request.GET)
    if isinstance(page, str):
        return _error(400, page)
    limit, before = page
    if before is not None:
        found = found.filter(id__lt=before)
    rows = list(found[: limit + 1])  # one more than asked: is there a next page?
    also = names_by_submission([s.id for s in rows[:limit]])  # one query for the page, not one a row
    response = JsonResponse([document(s, also.get(s.id, [])) for s in rows[:limit]], safe=False)
    if len(rows) > limit:
        following = request.GET.copy()
        following["limit"], following["before"] = str(limit), str(rows[limit - 1].id)
        response["Link"] = f'<{request.build_absolute_uri(request.path)}?{following.urlencode()}>; rel="next"'
    return response


def _page(query) -> Union[Tuple[int, Optional[int]], str]:
    """(how many, below which id) from ``?limit=`` (default ``PAGE_SIZE``) and ``&before=ID`` (none:
    from the newest), or the sentence saying what is wrong with them."""
    limit = whole_number(query.get("limit") or str(PAGE_SIZE), "limit", 1, MAX_PAGE_SIZE)
    if isinstance(limit, str):
        return f"{limit} (submissions a page; the default is {PAGE_SIZE})"
    if not query.get("before"):
        return limit, None
    before = whole_number(query["before"], "before id", 1, _LARGEST_ID)
    if isinstance(before, str):
        return before + " (the id of a submission: the list goes on with those older than it)"
    return limit, before


def _hand_in(request):
    upload = request.FILES.get("file")
    data = None if upload is None else read_upload(upload)
    task_id = request.POST.get("task", "")
    also = read_uploads(request.FILES.getlist("also"), task_id)  # none read beyond what the task takes
    outcome = hand_in(request.user, task_id, data, too_large=upload is not None and data is None, companions=also)
    if outcome.row is None:
        extra = {"Retry_After": str(outcome.retry_after)} if outcome.retry_after else {}
        return _error(outcome.status, outcome.message, **extra)
    row = outcome.row
    answer = {"id": row.id, "status": QUEUED, "url": f"/api/submissions/{row.id}", "late": row.late}
    answer["files"] = [row.file_name, *(name for name, _ in also)]  # as stored: every one sent, or none
    return JsonResponse(answer, status=202)


@token_required
def regrade(request, task_id: str):
    if request.method != "POST":
        return _error(405, "POST only")
    if not is_instructor(request.user):
        return _error(403, "only instructors may regrade" + (f": {TA_REFUSED}" if request.user.is_staff else ""))
    if task_id not in course_tasks():
        return _error(404, f"there is no task {task_id!r}")
    return JsonResponse({"queued": regrade_task(task_id, by=request.user.username)}, status=202)


@token_required
def gradebook(request):
    if request.method != "GET":
        return _error(405, "GET only")
    if not request.user.is_staff:
        return _error(403, "only instructors may export the gradebook")
    tasks_by_id = course_tasks()
    marks, _ = class_marks(list(tasks_by_id.values()))
    text = gradebook_csv(marks, list(tasks_by_id.values()), roster_people())
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="gradebook.csv"'
    return response


@token_required
def gradescope(request):
    """Instructors: every student's Gradescope ``results.json``, in a zip (``USERNAME/results.json``)."""
    if request.method != "GET":
        return _error(405, "GET only")
    if not request.user.is_staff:
        return _error(403, "only instructors may export marks")
    response = HttpResponse(gradescope_zip(list(course_tasks().values())), content_type="application/zip")
    response["Content-Disposition"] = 'attachment; filename="gradescope.zip"'
    return response
