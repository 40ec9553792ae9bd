"""The portal's JSON API (``portal.md``, "HTTP API"): tasks, submissions, regrades, the gradebook.

Every call but ``/healthz`` needs ``Authorization: Token <token>`` (401 without a valid one).
Students see only their own submissions (another's is 404, as is one that does not exist);
instructors (``is_staff``) see all. A hidden case shows its name, verdict and hint only.
"""

from __future__ import annotations

import math
from datetime import timedelta
from functools import wraps

from django.db import transaction
from django.http import HttpResponse, JsonResponse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt

from grader.classrun.exports import gradebook_csv
from grader.marks import StudentMarks, TaskMark
from grader.model import Verdict
from grader.submission.files import MAX_SOURCE_BYTES
from grader.web.course_state import course_tasks
from grader.web.models import DONE, QUEUED, ApiToken, Submission, TaskPolicy


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
    found = ApiToken.objects.select_related("user").filter(digest=ApiToken.digest_of(token.strip())).first()
    return found.user if found is not None and found.user.is_active else None


def token_required(view):
    """The view with ``request.user`` the token's owner; 401 when the token is missing or wrong."""

    @csrf_exempt
    @wraps(view)
    def checked(request, *args, **kwargs):
        user = token_user(request)
        if user is None:
            return _error(401, "a valid API token is needed: Authorization: Token <token>")
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
    return JsonResponse([{"id": t.id, "title": t.title, "max_score": t.max_score} for t in found.values()], safe=False)


def document(submission: Submission) -> dict:
    """A submission as the API shows it (hidden cases: name, verdict and hint only)."""
    done = submission.status == DONE
    return {
        "id": submission.id,
        "task": submission.task,
        "student": submission.student.username,
        "status": submission.status,
        "submitted_at": submission.submitted_at.isoformat(),
        "late": submission.late,
        "verdict": submission.verdict if done else None,
        "score": submission.score if done else None,
        "max_score": submission.max_score if done else None,
        "cases": submission.results if done else None,
        "report_url": f"/submissions/{submission.id}/report" if done else None,
    }


def _visible(request, queryset):
    return queryset if request.user.is_staff else queryset.filter(student=request.user)


@token_required
def submission(request, number: int):
    if request.method != "GET":
        return _error(405, "GET only")
    found = _visible(request, Submission.objects.select_related("student")).filter(id=number).first()
    if found is None:
        return _error(404, f"there is no submission {number} of yours")
    return JsonResponse(document(found))


@token_required
def submissions(request):
    if request.method == "POST":
        return _hand_in(request)
    if request.method != "GET":
        return _error(405, "GET or POST only")
    found = _visible(request, Submission.objects.select_related("student")).order_by("-id")
    if request.GET.get("task"):
        found = found.filter(task=request.GET["task"])
    if request.user.is_staff and request.GET.get("student"):
        found = found.filter(student__username=request.GET["student"])
    return JsonResponse([document(s) for s in found[:500]], safe=False)


def _too_soon(policy, student, task, now):
    """Seconds to wait before this student may hand in this task again, or 0."""
    if policy is None:
        return 0
    mine = Submission.objects.filter(student=student, task=task)
    if policy.max_count is not None and mine.count() >= policy.max_count:
        return -1
    if policy.min_interval_s:
        last = mine.order_by("-submitted_at").values_list("submitted_at", flat=True).first()
        if last is not None:
            wait = (last + timedelta(seconds=policy.min_interval_s) - now).total_seconds()
            if wait > 0:
                return max(1, math.ceil(wait))
    return 0


def _hand_in(request):
    task_id = request.POST.get("task", "")
    upload = request.FILES.get("file")
    known = course_tasks()
    if task_id not in known:
        return _error(400, f"unknown task {task_id!r}; the tasks are: {', '.join(known)}")
    if upload is None:
        return _error(400, "no file: send the exercise file as the multipart field 'file'")
    if upload.size > MAX_SOURCE_BYTES:
        return _error(413, f"the file is {upload.size:,} bytes, over the limit of {MAX_SOURCE_BYTES:,} bytes")
    data = upload.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        return _error(413, f"the file is over the limit of {MAX_SOURCE_BYTES:,} bytes")
    with transaction.atomic():  # the limits are checked where the row is written: no race between two uploads
        now = timezone.now()
        policy = TaskPolicy.objects.filter(task=task_id).first()
        wait = _too_soon(policy, request.user, task_id, now)
        if wait < 0:
            return _error(429, f"you have handed in {task_id} the {policy.max_count} times the course allows")
        if wait > 0:
            return _error(429, f"hand in {task_id} again in {wait} s", Retry_After=str(wait))
        row = Submission.objects.create(
            student=request.user,
            task=task_id,
            file_name=f"{task_id}.py",
            data=data,
            sha256=Submission.digest(data),
            submitted_at=now,
            late=bool(policy and policy.deadline and now > policy.deadline),
        )
    return JsonResponse({"id": row.id, "status": QUEUED, "url": f"/api/submissions/{row.id}"}, status=202)


@token_required
def regrade(request, task_id: str):
    if request.method != "POST":
        return _error(405, "POST only")
    if not request.user.is_staff:
        return _error(403, "only instructors may regrade")
    if task_id not in course_tasks():
        return _error(404, f"there is no task {task_id!r}")
    latest = {}
    for row in Submission.objects.filter(task=task_id).order_by("id").values("id", "student_id"):
        latest[row["student_id"]] = row["id"]
    Submission.objects.filter(id__in=latest.values()).update(pending=True)  # old results stay until then
    return JsonResponse({"queued": len(latest)}, status=202)


@token_required
def gradebook(request):
    if request.method != "GET":
        return _error(405, "GET only")
    if not request.user.is_staff:
        return _error(403, "only instructors may export the gradebook")
    tasks_by_id = course_tasks()
    latest = {}
    for row in Submission.objects.filter(status=DONE).select_related("student").order_by("id"):
        latest[(row.student.username, row.task)] = row
    students = sorted({student for student, _ in latest})
    marks = []
    for student in students:
        rows = []
        for task in tasks_by_id.values():
            found = latest.get((student, task.id))
            if found is None:
                rows.append(TaskMark(task.id, Verdict.NO_OUTPUT, 0.0, task.max_score, 0, 0, missing=True))
                continue
            failed = sum(1 for case in found.results or () if case["verdict"] != Verdict.ACCEPTED.value)
            verdict = Verdict(found.verdict)
            rows.append(
                TaskMark(task.id, verdict, found.score or 0.0, task.max_score, failed, len(found.results or ()))
            )
        marks.append(StudentMarks(student, tuple(rows)))
    response = HttpResponse(gradebook_csv(marks, list(tasks_by_id.values())), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="gradebook.csv"'
    return response
