"""The class as its latest (or best, as the course sets) graded submissions show it, in the grader's
own values.

In: the database's submissions, the course's tasks and its choice of marks (``policies``). Out:
``StudentMarks`` per student (a ``TaskMark`` per task, "not handed in" where none is graded yet)
and a ``CaseTally`` per case, the values ``grade`` makes the gradebook and the class overview from,
so the portal's CSV and class page are the same as a class run's.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

from grader.marks import CaseTally, StudentMarks, TaskMark
from grader.model import Task, Verdict
from grader.web.models import BEST, DONE, Submission
from grader.web.policies import marks_from


def counted_done(best: bool = False) -> Dict[Tuple[str, str], Submission]:
    """Each student's latest graded submission of each task, by (username, task); with ``best``,
    the one with the highest score (the later of equal ones)."""
    chosen: Dict[Tuple[str, str], Submission] = {}
    rows = Submission.objects.filter(status=DONE).select_related("student").defer("data", "report").order_by("id")
    for row in rows:
        key = (row.student.username, row.task)
        if not best or key not in chosen or (row.score or 0.0) >= (chosen[key].score or 0.0):
            chosen[key] = row
    return chosen


def counted_in_words() -> str:
    """Where the marks come from, for the pages that show them."""
    return f"everyone's {marks_from()} graded submissions"


def _mark(task: Task, row) -> TaskMark:
    if row is None:
        return TaskMark(task.id, Verdict.NOT_HANDED_IN, 0.0, task.max_score, 0, 0, missing=True)
    cases = row.results or ()
    failed = sum(1 for case in cases if case["verdict"] != Verdict.ACCEPTED.value)
    mistake = row.mistake.get("instructor", "") if isinstance(row.mistake, dict) else ""
    score = row.score or 0.0
    return TaskMark(task.id, Verdict(row.verdict), score, task.max_score, failed, len(cases), mistake=mistake)


def class_marks(tasks: List[Task]) -> Tuple[List[StudentMarks], List[CaseTally]]:
    """Every student's marks (by name) and every case's pass count, from the latest (or best, as the
    course sets) graded work."""
    latest = counted_done(best=marks_from() == BEST)
    students = sorted({student for student, _ in latest})
    marks = [StudentMarks(s, tuple(_mark(t, latest.get((s, t.id))) for t in tasks)) for s in students]
    counts: Dict[Tuple[str, str], List] = {}
    for task in tasks:
        for (_, task_id), row in sorted(latest.items()):
            if task_id != task.id:
                continue
            for case in row.results or ():
                tally = counts.setdefault((task.id, case["name"]), [0, 0, bool(case.get("hidden"))])
                tally[0] += case["verdict"] == Verdict.ACCEPTED.value
                tally[1] += 1
    tallies = [CaseTally(task, case, hidden, passed, seen) for (task, case), (passed, seen, hidden) in counts.items()]
    return marks, tallies
