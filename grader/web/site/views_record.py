"""One student's record, as an instructor keeps it: their marks task by task as the course counts
them, their history, and the forms that grant an extension or make an adjustment with a comment.

In: requests of signed-in instructors (``views_instructor.staff_required``). Out: the student's
page (``/teach/class/NAME/index.html``, where the class overview's links lead); a POST of either
form (CSRF-protected) stores it and comes back to the page with a sentence, or, when a value is
wrong, answers 400 with the page and the sentence saying why (nothing is stored then).
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from grader.marks import plain_number
from grader.web.enrolment import instructor_required, is_ta
from grader.web.local_time import course_zone, deadline_words
from grader.web.marks.class_marks import student_marks
from grader.web.marks.late_work import (
    EVERY_TASK,
    late_change_words,
    parse_adjustment,
    parse_extension,
    store_adjustment,
    store_extension,
)
from grader.web.models import Adjustment, Extension, Submission, TaskPolicy
from grader.web.site.history import before_id, numbers, page
from grader.web.site.views_instructor import staff_required
from grader.web.site.views_student import line
from grader.web.usernames import find_account
from grader.web.worker.course_state import course_tasks, handout_order
from grader.web.worker.hidden_results import release_due


def _student(username: str):
    """The account ``username`` names, letter case aside (``usernames.find_account``), or 404."""
    found = find_account(username)
    if found is None:
        raise Http404("no such student")
    return found


def record_rows(student, tasks) -> list:
    """A line per task (handout order) of ``student``'s record: points counted and graded, what
    changed them, their deadline (an extension said so) and the adjustment's comment."""
    marks, counted = student_marks(student, tasks)
    by_task = {mark.task: mark for mark in marks.tasks}
    policies = {p.task: p for p in TaskPolicy.objects.all()}
    extended = {e.task: e for e in Extension.objects.filter(student=student)}
    adjusted = {a.task: a for a in Adjustment.objects.filter(student=student)}
    zone = course_zone()
    rows = []
    for task in tasks:
        mark = by_task[task.id]
        extension = extended.get(task.id)
        policy = policies.get(task.id)
        deadline = extension.deadline if extension else (policy.deadline if policy else None)
        rows.append(
            {
                "task": task,
                "mark": mark,
                "counted": f"{plain_number(mark.score, 4)} / {plain_number(mark.max_score, 4)}",
                "graded": plain_number(mark.graded, 4) if mark.graded is not None else None,
                "row": counted[task.id].row if task.id in counted else None,
                "deadline": deadline_words(deadline, zone) if deadline is not None else "",
                "extension": extension,
                "adjustment": adjusted.get(task.id),
            }
        )
    return rows


@staff_required
def student(request, username: str, problem: str = "", status: int = 200):
    """One student's record: marks per task as they count, extensions, adjustments, their
    submissions newest first, a page at a time (``?before=``); ``problem`` is why a form was refused."""
    found = _student(username)
    tasks = handout_order(course_tasks())
    history, older = page(Submission.objects.filter(student=found), before_id(request.GET.get("before", "")))
    numbered = numbers(history)
    context = {
        "who": found,
        "record": record_rows(found, tasks),
        "tasks": tasks,
        "every_task": EVERY_TASK,
        "problem": problem,
        "history": [line(r, numbered[r.id]) for r in history],
        "older": older,
        "is_ta": is_ta(request.user),
    }
    return render(request, "web/student.html", context, status=status)


@require_POST
@instructor_required
def extension(request, username: str):
    """Grant, change or (with no deadline) take back a student's extension of a task or of every
    task; their submissions are marked late or not by it at once."""
    found = _student(username)
    change = parse_extension(request.POST, course_tasks())
    if isinstance(change, str):
        return student(request, username, problem=f"Extension: {change}; nothing was changed.", status=400)
    changed = late_change_words(*store_extension(found, change, request.user.username))
    release_due()  # taken back, or moved into the past: the hidden cases that waited for it run
    which = "every task" if len(change.tasks) > 1 else change.tasks[0]
    if change.deadline is None:
        messages.success(request, f"{found.username}: the extension of {which} is taken back.{changed}")
    else:
        deadline = deadline_words(change.deadline, course_zone())
        messages.success(request, f"{found.username}: {which} is due {deadline} for them.{changed}")
    return redirect("student", username=found.username)


@require_POST
@instructor_required
def adjustment(request, username: str):
    """Make, change or (with no points) remove an adjustment of a student's points on a task, with
    the comment the student reads beside their marks."""
    found = _student(username)
    change = parse_adjustment(request.POST, course_tasks())
    if isinstance(change, str):
        return student(request, username, problem=f"Adjustment: {change}; nothing was changed.", status=400)
    store_adjustment(found, change, request.user.username)
    (task_id,) = change.tasks
    if change.points is None:
        messages.success(request, f"{found.username}: the adjustment of {task_id} is removed.")
    else:
        messages.success(request, f"{found.username}: {task_id} adjusted by {change.points:+g} ({change.comment}).")
    return redirect("student", username=found.username)
