"""The class as its latest (or best, as the course sets) graded submissions show it, in the grader's
own values.

In: the database's submissions, the course's tasks and its choice of marks (``policies``). Out:
each student's ``TaskResult`` per task, read from the task records the rows keep (``row_records``;
"not handed in" where none is graded yet, every student of the roster), then ``StudentMarks`` and
a ``CaseTally`` per case made from them by ``grade``'s own functions, so the portal's CSV, class
page and Gradescope zip are the same as a class run's.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

from django.contrib.auth import get_user_model

from grader.marks import CaseTally, StudentMarks, Tallies, marks_of
from grader.model import Task, TaskResult
from grader.web.models import BEST, DONE, Submission
from grader.web.policies import marks_from
from grader.web.row_records import row_result


def counted_done(best: bool = False, student=None) -> Dict[Tuple[str, str], Submission]:
    """Each student's latest graded submission of each task, by (username, task); with ``best``,
    the one with the highest score (the later of equal ones). With ``student``, theirs only."""
    chosen: Dict[Tuple[str, str], Submission] = {}
    rows = Submission.objects.filter(status=DONE)
    rows = rows if student is None else rows.filter(student=student)
    rows = rows.select_related("student").defer("data", "report").order_by("id")
    for row in rows:
        key = (row.student.username, row.task)
        if not best or key not in chosen or (row.score or 0.0) >= (chosen[key].score or 0.0):
            chosen[key] = row
    return chosen


def counted_in_words() -> str:
    """Where the marks come from, for the pages that show them."""
    return f"everyone's {marks_from()} graded submissions"


def class_results(tasks: List[Task]) -> Dict[str, List[TaskResult]]:
    """Every student's results (by name; every student of the roster, handed in or not), one per
    task, read from the records of their latest (or best, as the course sets) graded work."""
    latest = counted_done(best=marks_from() == BEST)
    roster = get_user_model().objects.filter(is_staff=False).values_list("username", flat=True)
    students = sorted(set(roster) | {student for student, _ in latest})
    return {s: [row_result(latest.get((s, task.id)), task) for task in tasks] for s in students}


def class_marks(tasks: List[Task]) -> Tuple[List[StudentMarks], List[CaseTally]]:
    """Every student's marks and every case's pass count, made by ``grade``'s own functions
    (``marks_of``, ``Tallies``) from the same records, so the portal's gradebook, class page and
    Gradescope zip agree with each other and with a class run."""
    tallies = Tallies()
    marks = []
    for student, results in class_results(tasks).items():
        tallies.add(results)
        marks.append(marks_of(student, results))
    return marks, tallies.tallies()


def roster_people() -> Dict[str, Tuple[str, str]]:
    """Every account's name and email from the roster, by username: (full name, email), either
    empty when the roster gave none; for the portal's gradebook columns."""
    users = get_user_model().objects.values_list("username", "first_name", "last_name", "email")
    return {username: (f"{first} {last}".strip(), email) for username, first, last, email in users}
