"""The class as the course counts it: for each student and task, the graded submission that counts
(latest, best or the student's choice, through the task's late rule) and what it counts for.

In: the database's submissions, the course's tasks, its choice of marks (``policies``), each task's
late rule and each instructor's adjustment. Out: the submission that counts and its ``Standing``
per student and task (``counted_work``, by ``counting.pick``, the one rule, over the few rows the
database finds any rule may pick: a bounded read per student and task, whatever their history), then each student's
``TaskResult`` per task read from the task records the rows keep (``row_records``; "not handed in"
where none is graded yet, every student of the roster), and ``StudentMarks`` and a ``CaseTally``
per case made from them by ``grade``'s own functions (``marks_of`` applies the standing), so the
portal's CSV, class page, Gradescope zip and a student's own pages agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from django.contrib.auth import get_user_model
from django.db.models import F, Value, Window
from django.db.models.functions import Coalesce, RowNumber

from grader.counting import BEST, Adjusted, Graded, LateRule, Standing, counted_points, pick, standing
from grader.marks import CaseTally, StudentMarks, Tallies, marks_of
from grader.model import Task, TaskResult
from grader.web.enrolment import class_members, left_out
from grader.web.marks.policies import marks_from
from grader.web.models import DONE, Adjustment, Submission, TaskPolicy
from grader.web.row_records import row_result


@dataclass(frozen=True)
class Counted:
    """A student's task as the course counts it: the row whose result is shown (the one that
    counts; when none may count, the latest late one; None when nothing is graded), its
    ``Standing``, and under "latest" or "chosen" a graded row that would earn more (else None)."""

    row: Optional[Submission]
    standing: Standing
    better: Optional[Submission] = None


def late_rules() -> Dict[str, LateRule]:
    """Each task's late rule, by task id (a task without a policy accepts late work)."""
    return {p.task: LateRule(p.late_rule, p.late_penalty) for p in TaskPolicy.objects.all()}


def adjustments(student=None, task_id: Optional[str] = None) -> Dict[Tuple[str, str], Adjusted]:
    """Every instructor's adjustment by (username, task); with ``student`` or ``task_id``, theirs only."""
    found = Adjustment.objects.select_related("student")
    found = found if student is None else found.filter(student=student)
    found = found if task_id is None else found.filter(task=task_id)
    return {(a.student.username, a.task): Adjusted(a.points, a.comment) for a in found}


# The columns ``counting.pick`` needs of a graded row: no record, no file (read for the rows shown only)
PICKED = ("id", "student_id", "task", "score", "late", "chosen")


def _candidates(rows) -> List[Submission]:
    """Of the graded ``rows``, those any rule may pick, found in the database: per student, task
    and lateness, the latest, the latest chosen one and the latest of the best score (window
    functions, one query each). ``pick`` over these gives what it gives over every row, since each
    rule picks the latest, the latest chosen or the latest best of those that may count, and late
    work may count or not only as a whole; so a page reads a bounded number of rows per student
    and task, however many they handed in. Only the ``PICKED`` columns are read."""
    group = [F("student_id"), F("task"), F("late")]
    orders = (
        [F("id").desc()],
        [F("chosen").desc(), F("id").desc()],
        [Coalesce(F("score"), Value(0.0)).desc(), F("id").desc()],
    )
    found: Dict[int, Submission] = {}
    for order in orders:
        ranked = rows.annotate(rank=Window(RowNumber(), partition_by=group, order_by=order))
        for row in ranked.filter(rank=1).only(*PICKED):
            found.setdefault(row.id, row)
    return sorted(found.values(), key=lambda row: row.id)


def counted_work(student=None, task_id: Optional[str] = None, full: bool = True) -> Dict[Tuple[str, str], Counted]:
    """Every (username, task) with a graded submission or an adjustment, and how it counts; with
    ``student``, theirs only; with ``task_id``, that task's only (a regrade reads no other task's
    records). The rows are picked among ``_candidates`` (a bounded number per student and task);
    only those shown (``row``, ``better``) are read whole (without the file and the page), and with
    ``full`` False not even those (their ``PICKED`` columns: a regrade needs their ids only)."""
    rows = Submission.objects.filter(status=DONE)
    rows = rows if student is None else rows.filter(student=student)
    rows = rows if task_id is None else rows.filter(task=task_id)
    names = dict(get_user_model().objects.values_list("id", "username"))
    grouped: Dict[Tuple[str, str], List[Submission]] = {}
    for row in _candidates(rows):
        grouped.setdefault((names[row.student_id], row.task), []).append(row)
    rules, changes, choice = late_rules(), adjustments(student, task_id), marks_from()
    picked: Dict[Tuple[str, str], Tuple[Optional[int], Optional[int], Standing]] = {}
    for key in sorted(set(grouped) | set(changes)):
        graded = [Graded(row.id, row.score or 0.0, row.late, row.chosen) for row in grouped.get(key, [])]
        rule = rules.get(key[1], LateRule())
        counts = pick(graded, choice, rule)
        top = pick(graded, BEST, rule)
        better = top if counts is not None and top is not None and top.number != counts.number else None
        if better is not None and counts is not None and counted_points(better, rule) <= counted_points(counts, rule):
            better = None
        shown = counts if counts is not None else (graded[-1] if graded else None)
        picked[key] = (
            shown.number if shown is not None else None,
            better.number if better is not None else None,
            standing(graded, counts, rule, changes.get(key)),
        )
    wanted = {number for shown, better, _ in picked.values() for number in (shown, better) if number is not None}
    if full:
        read = Submission.objects.filter(id__in=sorted(wanted)).defer("data", "report")
    else:
        read = Submission.objects.filter(id__in=sorted(wanted)).only(*PICKED)
    by_id = {row.id: row for row in read}
    return {
        key: Counted(
            row=by_id[shown] if shown is not None else None,
            standing=standing_now,
            better=by_id[better] if better is not None else None,
        )
        for key, (shown, better, standing_now) in picked.items()
    }


def _row(counted: Optional[Counted]):
    """The row shown for a student's task (None: nothing graded, or nothing handed in)."""
    return counted.row if counted is not None else None


def counted_in_words() -> str:
    """Where the marks come from, for the pages that show them."""
    return f"everyone's {marks_from()} graded submissions"


def class_results(tasks: List[Task]) -> Dict[str, Tuple[List[TaskResult], Dict[str, Standing]]]:
    """Every student's results (by name; every student of the class, ``enrolment.class_members``,
    handed in or not, and any other account not dropped that handed in), one per task, read from
    the records of the submissions that count, with each task's ``Standing``. A dropped student is
    left out, their work kept."""
    counted = counted_work()
    dropped = left_out()
    students = sorted(set(class_members()) | {student for student, _ in counted if student not in dropped})
    found = {}
    for name in students:
        mine = {task.id: counted.get((name, task.id)) for task in tasks}
        results = [row_result(_row(mine[task.id]), task) for task in tasks]
        found[name] = (results, {task_id: c.standing for task_id, c in mine.items() if c is not None})
    return found


def class_marks(tasks: List[Task]) -> Tuple[List[StudentMarks], List[CaseTally]]:
    """Every student's marks and every case's pass count, made by ``grade``'s own functions
    (``marks_of``, ``Tallies``) from the same records, so the portal's gradebook, class page and
    Gradescope zip agree with each other and with a class run."""
    tallies = Tallies()
    marks = []
    for student, (results, standings) in class_results(tasks).items():
        tallies.add(results)
        marks.append(marks_of(student, results, standings))
    return marks, tallies.tallies()


def roster_people() -> Dict[str, Tuple[str, str]]:
    """Every account's name and email from the roster, by username: (full name, email), either
    empty when the roster gave none; for the portal's gradebook columns."""
    users = get_user_model().objects.values_list("username", "first_name", "last_name", "email")
    return {username: (f"{first} {last}".strip(), email) for username, first, last, email in users}


def student_marks(student, tasks: List[Task]) -> Tuple[StudentMarks, Dict[str, Counted]]:
    """One student's marks, task by task as the course counts them (the same rule and records as
    ``class_marks``), and how each task counts (by task id; a task with nothing graded is absent)."""
    counted = {task_id: c for (_, task_id), c in counted_work(student).items()}
    results = [row_result(counted[t.id].row if t.id in counted else None, t) for t in tasks]
    standings = {task_id: c.standing for task_id, c in counted.items()}
    return marks_of(student.username, results, standings), counted
