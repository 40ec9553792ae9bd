"""The students' pages: the exercises, a task's hand-in form and history, a submission, its file.

In: a signed-in user's requests. Out: server-rendered pages (``templates/web``). A student sees
only their own submissions (another's, or one that does not exist, is 404); instructors see all.
Handing in goes through ``handin.hand_in``, as the API's POST does, and answers with the task page
and a sentence (the status code the API would give), the text the student pasted kept in the form.
A submission still owed grading reloads once, when it is graded (``waiting_page``: one script).
The exercises are listed in the handout's order (``course.handout``) under the student's total; each
says which submission's marks count (the course's rule, late rule and adjustments:
``class_marks.student_marks``) and for how many points. A task's page says so too: a refused
hand-in's sentence at its top, then the hand-in form and the student's submissions of it, then the
exercise's statement.
A submission's page, where a student lands after handing in, shows the cause first (``landing``: the
known mistake, what to fix first), the failing cases by hint, and its file with line numbers (up to
``SHOWN_LINES`` lines), its module docstring folded above the student's own code. A task that
imports other exercise files (``uses_files``) takes them in the same hand-in (``also``, several
files); the submission's page lists every file handed in and shows any of them (``?name=ui.py``,
as ``/file?name=ui.py`` downloads it), a name looked up among the submission's own files only.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Count, Max, Q
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from grader.marks import plain_number
from grader.model import Verdict
from grader.safe_text import for_page, plural
from grader.web.marks.class_marks import student_marks
from grader.web.marks.policies import deadline_for, limits_in_words, marks_from
from grader.web.models import CHOSEN, DONE, NOT_COUNTED, Submission, SubmissionFile, TaskPolicy
from grader.web.site.companions import file_names, names_taken
from grader.web.site.handin import hand_in, read_upload, read_uploads
from grader.web.site.history import LISTED, before_id, numbers, page
from grader.web.site.landing import docstring_lines, landing
from grader.web.site.waiting_page import WAIT_POLICY, WAIT_SCRIPT, waits
from grader.web.worker.course_state import course_tasks, exercise_statement, handout_order
from grader.web.worker.hidden_results import hidden_words

SHOWN_LINES = 2000  # a handed-in file longer than this is shown cut on its page (the file link has it all)


def visible(user, queryset=None):
    """The submissions ``user`` may see: their own, or everyone's for an instructor."""
    queryset = Submission.objects.all() if queryset is None else queryset
    return queryset if user.is_staff else queryset.filter(student=user)


def _owned(request, number: int) -> Submission:
    found = visible(request.user, Submission.objects.select_related("student")).filter(id=number).first()
    if found is None:
        raise Http404("no such submission of yours")
    return found


def verdict_label(value) -> str:
    try:
        return Verdict(value).label
    except ValueError:
        return value or ""


def line(row, number=None) -> dict:
    """A submission as a line of a list: the row, its number among its student's hand-ins of its
    task (``history.numbers``), its score and verdict in words ("" until done)."""
    done = row.status == DONE and row.score is not None
    public = done and row.public_only  # graded on its public cases: its hidden ones wait (``hidden_results``)
    verdict = verdict_label(row.verdict) if done else ""
    if public:
        verdict = "public cases accepted" if row.verdict == Verdict.NOT_RUN.value else f"{verdict} (public case)"
    return {
        "row": row,
        "number": number,
        "score": (f"{row.score:g} / {row.max_score:g}" + (" so far" if public else "")) if done else "",
        "points": (f"{row.score:g} / {row.max_score:g} points" + (" so far" if public else "")) if done else "",
        "verdict": verdict,
        # graded on the public cases: "accepted" when none of them failed (its verdict is then ``not_run``)
        "accepted": row.verdict == (Verdict.NOT_RUN if public else Verdict.ACCEPTED).value and done,
    }


def counted(student, tasks) -> dict:
    """Per task id, how the student's task counts (``counted_and_total``'s first)."""
    return counted_and_total(student, tasks)[0]


def counted_and_total(student, tasks) -> tuple:
    """(per task id, how the student's task counts; their total in words, "31 / 180": the points that
    count now, every task's, out of the course's whole). Per task (``class_marks.student_marks``: the
    course's rule, late rule and adjustments): ``{"counts": line or None, "better": line or None, "points": "24 / 37",
    "changed": what changed the graded points, in words ("" for nothing), "late_only": every graded one
    is late work that does not count}``;
    ``better`` is a graded one that would earn more than the one that counts (under "latest" or
    "chosen"). Tasks with nothing graded and no adjustment are absent."""
    marks, found = student_marks(student, list(tasks.values()))
    by_task = {mark.task: mark for mark in marks.tasks}
    rows = [c.row for c in found.values() if c.row is not None] + [c.better for c in found.values() if c.better]
    numbered = numbers(rows)
    said = {}
    for task_id, how in found.items():
        mark = by_task.get(task_id)
        if mark is None:  # a task no longer in the course
            continue
        counts = how.row if how.row is not None and not how.standing.late_only else None
        said[task_id] = {
            "counts": line(counts, numbered[counts.id]) if counts is not None else None,
            "better": line(how.better, numbered[how.better.id]) if how.better is not None else None,
            "points": f"{plain_number(mark.score, 4)} / {plain_number(mark.max_score, 4)}",
            "changed": mark.changed,
            "late_only": how.standing.late_only,  # graded, but none may count (not: none graded yet)
        }
    return said, f"{plain_number(marks.score, 4)} / {plain_number(marks.max_score, 4)}"


def rule_in_words() -> str:
    if marks_from() == CHOSEN:
        return "The graded submission you choose counts (your latest until you choose one)"
    return f"Your {marks_from()} graded submission counts"


@login_required
@require_POST
def choose(request, number: int):
    """Make a graded submission of the student's own the one that counts for its task (where the
    course lets students choose: 403 otherwise); back to the task's page with a sentence."""
    row = visible(request.user, Submission.objects.filter(student=request.user)).filter(id=number).first()
    if row is None:
        raise Http404("no such submission of yours")
    if marks_from() != CHOSEN:
        return render(request, "web/forbidden.html", status=403)
    if row.status != DONE:
        messages.error(request, "Only a graded submission can count: wait until it is graded.")
        return redirect("task", task_id=row.task)
    policy = TaskPolicy.objects.filter(task=row.task).first()
    if row.late and policy is not None and policy.late_rule == NOT_COUNTED:
        # ``counting.pick`` would pass it over for an on-time one: saying "now counts" would be untrue
        messages.error(request, f"Late work of {row.task} does not count: choose one handed in on time.")
        return redirect("task", task_id=row.task)
    with transaction.atomic():
        Submission.objects.filter(student=request.user, task=row.task, chosen=True).update(chosen=False)
        Submission.objects.filter(id=row.id).update(chosen=True)
    number_shown = numbers([row])[row.id]
    messages.success(request, f"Your submission #{number_shown} of {row.task} now counts.")
    return redirect("task", task_id=row.task)


@login_required
def home(request):
    """Every task in the handout's order, with its deadline and points, the student's latest status,
    best score and the submission that counts; the student's total (points that count of the course's)."""
    if request.user.is_staff:
        return redirect("teach")
    tasks = course_tasks()
    # per task, in the database: how many handed in, the latest, the best graded score
    mine = Submission.objects.filter(student=request.user)
    totals = {
        found["task"]: found
        for found in mine.values("task").annotate(
            handed=Count("id"), newest=Max("id"), top=Max("score", filter=Q(status=DONE))
        )
    }
    latest = {row.task: row for row in mine.filter(id__in=[t["newest"] for t in totals.values()]).only(*LISTED)}
    count = {task_id: found["handed"] for task_id, found in totals.items()}
    best = {task_id: found["top"] for task_id, found in totals.items() if found["top"] is not None}
    policies = {policy.task: policy for policy in TaskPolicy.objects.all()}
    deadlines = {task_id: deadline_for(request.user, task_id, policies.get(task_id)) for task_id in tasks}
    counts, total = counted_and_total(request.user, tasks)
    entries = [
        {
            "number": index,
            "task": task,
            "deadline": deadlines.get(task.id),
            "latest": line(latest[task.id], count[task.id]) if task.id in latest else None,
            "best": best.get(task.id),
            "counts": counts.get(task.id),
        }
        for index, task in enumerate(handout_order(tasks), 1)
    ]
    return render(request, "web/home.html", {"entries": entries, "rule": rule_in_words(), "total": total})


def _pasted(request):
    text = request.POST.get("text", "")
    return text.replace("\r\n", "\n").encode("utf-8", "surrogatepass") if text.strip() else None


@login_required
@require_http_methods(["GET", "POST"])
def task(request, task_id: str):
    """A task's hand-in form (a file, or its text pasted) and the student's submissions of it."""
    tasks = course_tasks()
    if task_id not in tasks:
        raise Http404("no such task")
    status, problem, retry, pasted = 200, "", 0, ""
    if request.method == "POST":
        upload = request.FILES.get("file")
        data = read_upload(upload) if upload is not None else _pasted(request)
        also = read_uploads(request.FILES.getlist("also"), task_id)
        outcome = hand_in(request.user, task_id, data, too_large=upload is not None and data is None, companions=also)
        if outcome.row is not None:
            messages.success(request, f"Handed in {task_id}: it is queued for grading.")
            return redirect("submission", number=outcome.row.id)
        status, retry = outcome.status, outcome.retry_after
        problem = outcome.message[0].upper() + outcome.message[1:]
        problem += "" if problem.endswith((".", "?", "!")) else "."
        if upload is None and outcome.status != 413:  # kept in the form to mend (not a text over the limit)
            pasted = request.POST.get("text", "")
    history, older = page(
        Submission.objects.filter(student=request.user, task=task_id), before_id(request.GET.get("before", ""))
    )
    numbered = numbers(history)
    cases = tasks[task_id].cases
    hidden = sum(1 for case in cases if case.hidden)
    context = {
        "task": tasks[task_id],
        "statement": exercise_statement(task_id),
        "cases": f"{plural(len(cases), 'case')}: {len(cases) - hidden} public, {hidden} hidden",
        "counts": counted(request.user, tasks).get(task_id),
        "rule": rule_in_words(),
        "history": [line(row, numbered[row.id]) for row in history],
        "older": older,
        "problem": problem,
        "pasted": pasted,
        "limits": limits_in_words(task_id, request.user) + hidden_words(request.user, tasks[task_id]),
        "choosing": marks_from() == CHOSEN,
        "takes": _listed(names_taken(tasks[task_id])),
    }
    response = render(request, "web/task.html", context, status=status)
    if retry:
        response["Retry-After"] = str(retry)
    return response


def _listed(names) -> str:
    """``names`` in a sentence: "a.py, b.py and c.py" ("" for none)."""
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def _shown_file(request, row) -> tuple:
    """(name, bytes) of the file ``?name=`` asks for among ``row``'s own (its file when none is
    asked for); 404 for a name that is not one of them (never a path: looked up, not opened)."""
    name = request.GET.get("name", "")
    if not name or name == row.file_name:
        return row.file_name, bytes(row.data)
    data = SubmissionFile.objects.filter(submission=row, name=name).values_list("data", flat=True).first()
    if data is None:
        raise Http404("no such file in this submission")
    return name, bytes(data)


@login_required
def submission(request, number: int):
    """One submission: its status (refreshing while owed grading), verdict, score and cases, the
    files handed in, and one of them (``?name=``, its own by default) with its line numbers."""
    row = _owned(request, number)
    shown_name, shown_data = _shown_file(request, row)
    task = course_tasks().get(row.task)
    number = numbers([row])[row.id]
    source = source_lines(shown_data)
    folded = docstring_lines(shown_data.decode("utf-8", errors="replace")) if not source["cut"] else 0
    done = row.status == DONE
    context = {
        "row": row,
        "title": task.title if task else row.task,
        "shown": line(row, number),
        "refresh": waits(row),
        "wait_script": WAIT_SCRIPT,
        # the cause first, then the failing cases by hint (``landing``); a task no longer in the
        # course: its cases as kept, each message with every control, format and separator
        # character as its marker (``safe_text``)
        "landing": landing(row, task) if done and task is not None else None,
        "cases": [
            dict(case, label=verdict_label(case["verdict"]), message=for_page(case.get("message") or ""))
            for case in row.results or ()
        ]
        if done and task is None
        else None,
        "error": for_page(row.error or ""),
        "notes": [for_page(note) for note in row.notes or ()],
        "source": source,
        "docstring": source["lines"][:folded],  # folded above the student's own code
        "code": source["lines"][folded:],
        "shown_name": shown_name,
        "files": file_names(row),
        "comments": list(row.comments.order_by("id")),  # an instructor's or TA's (``views_roster``)
    }
    response = render(request, "web/submission.html", context)
    if context["refresh"]:  # its one script, by its hash (``waiting_page``)
        response["Content-Security-Policy"] = WAIT_POLICY
    return response


@login_required
def submission_status(request, number: int):
    """Whether the signed-in user's submission ``number`` still waits to be graded, as JSON
    (``{"waiting": true}``): what its page asks while it waits (404 for another's)."""
    row = visible(request.user, Submission.objects.all()).filter(id=number).only("status", "pending").first()
    if row is None:
        raise Http404("no such submission of yours")
    return JsonResponse({"waiting": waits(row)})


def source_lines(data: bytes) -> dict:
    """A handed-in file as numbered lines to show (its first ``SHOWN_LINES``), and how many it has;
    a bidirectional override or any other control, format or separator character in it is shown as its
    marker, so the page shows the code as Python reads it ("Trojan Source")."""
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()
    shown = [(number, for_page(line)) for number, line in enumerate(lines[:SHOWN_LINES], 1)]
    return {"lines": shown, "total": len(lines), "cut": len(lines) > SHOWN_LINES}


@login_required
def submission_file(request, number: int):
    """The file as it was handed in (``?name=``: one handed in with it), as plain text to download
    (never rendered as a page)."""
    row = _owned(request, number)
    name, data = _shown_file(request, row)
    response = HttpResponse(data, content_type="text/plain; charset=utf-8")
    # the name is one stored with the row, "<task>.py" of a course task: nothing to quote in it
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
