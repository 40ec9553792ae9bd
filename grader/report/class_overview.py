"""Class marks → the class overview page: a summary, who to help first, the hardest cases, the table.

Pure functions of StudentMarks, CaseTally and Task values, returning frozen dataclasses the template
(``templates/class.html``) only loops over; ``class_overview`` gathers them, with the charts
(``class_charts``), in the order the page shows them. No I/O, and no HTML: the template escapes
every text (student and case names are untrusted).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from grader.marks import CaseTally, StudentMarks, TaskMark, needs_help
from grader.model import Task
from grader.report.class_charts import (
    Histogram,
    TaskChart,
    chart_anchor,
    handed_in_text,
    histogram,
    percent_text,
    rate_text,
    task_charts,
    tone,
)
from grader.report.common_mistakes import CommonMistake, common_mistakes


@dataclass(frozen=True)
class HardCase:
    """A case few students passed, for the "hardest cases" list."""

    tally: CaseTally
    task_title: str
    text: str  # "passed/students (xx %)"
    tone: str
    anchor: str  # of its task's chart


@dataclass(frozen=True)
class WeakTask:
    """A task a student has not got accepted, and what went wrong in a word."""

    task: str
    title: str
    problem: str  # the verdict's label, "not handed in" or "late, not counted"
    score: float
    max_score: float


@dataclass(frozen=True)
class HelpEntry:
    """A student to help first: their total and their weakest tasks (fewest points first)."""

    student: str
    score: float
    max_score: float
    share_text: str
    weakest: Tuple[WeakTask, ...]
    more: int  # further tasks not accepted, beyond those listed


@dataclass(frozen=True)
class MarksRow:
    """A row of the full table: a cell per task column (None where the student has no mark for it)."""

    student: str
    cells: Tuple[Optional[TaskMark], ...]
    score: float
    max_score: float
    share_text: str


@dataclass(frozen=True)
class Summary:
    """The one-line summary: how many students, their mean and median share, how many are done."""

    students: int
    mean_text: str
    median_text: str
    all_accepted: int


@dataclass(frozen=True)
class ClassOverview:
    """Everything the class overview page shows, in the order it shows it."""

    summary: Summary
    help: Tuple[HelpEntry, ...]
    histogram: Histogram
    hardest: Tuple[HardCase, ...]
    charts: Tuple[TaskChart, ...]
    tasks: Tuple[Task, ...]
    rows: Tuple[MarksRow, ...]
    mistakes: Tuple[CommonMistake, ...] = ()  # known mistakes students' answers match, most students first


def hardest_cases(tallies: Sequence[CaseTally], tasks: Sequence[Task], limit: int = 5) -> List[HardCase]:
    """The ``limit`` cases with the lowest pass rate (ties in task and case order); cases all passed are left out."""
    titles = {task.id: task.title for task in tasks}
    ran = [(index, t) for index, t in enumerate(tallies) if t.students and t.passed < t.students]
    ordered = sorted(ran, key=lambda pair: (pair[1].pass_rate, pair[0]))[:limit]
    return [
        HardCase(t, titles.get(t.task, t.task), rate_text(t), tone(t.pass_rate), chart_anchor(t.task))
        for _, t in ordered
    ]


def _problem(mark: TaskMark) -> str:
    """What is wrong with a task in a word or two (an accepted one is wrong when it does not count)."""
    if mark.missing:
        return "not handed in"
    return "late, not counted" if mark.not_counted else mark.verdict.label


def help_entries(
    students: Sequence[StudentMarks], tasks: Sequence[Task], limit: int = 10, shown: int = 3
) -> List[HelpEntry]:
    """Up to ``limit`` students to help first (see ``needs_help``), each with ``shown`` weakest tasks."""
    titles = {task.id: task.title for task in tasks}
    entries = []
    for student in needs_help(students, limit):
        weak = student.not_accepted
        entries.append(
            HelpEntry(
                student=student.student,
                score=student.score,
                max_score=student.max_score,
                share_text=percent_text(student.share),
                weakest=tuple(
                    WeakTask(
                        task=t.task,
                        title=titles.get(t.task, t.task),
                        problem=_problem(t),
                        score=t.score,
                        max_score=t.max_score,
                    )
                    for t in weak[:shown]
                ),
                more=max(len(weak) - shown, 0),
            )
        )
    return entries


def marks_rows(students: Sequence[StudentMarks], tasks: Sequence[Task]) -> List[MarksRow]:
    """The full table's rows, lowest share first (then by name), a cell per task of ``tasks``."""
    rows = []
    for student in sorted(students, key=lambda s: (s.share, s.student)):
        marks = {mark.task: mark for mark in student.tasks}
        rows.append(
            MarksRow(
                student=student.student,
                cells=tuple(marks.get(task.id) for task in tasks),
                score=student.score,
                max_score=student.max_score,
                share_text=percent_text(student.share),
            )
        )
    return rows


def summary(students: Sequence[StudentMarks]) -> Summary:
    """How many students, the mean and median share of points ("" with none), how many have all accepted."""
    shares = [s.share for s in students]
    return Summary(
        students=len(students),
        mean_text=percent_text(statistics.mean(shares)) if shares else "",
        median_text=percent_text(statistics.median(shares)) if shares else "",
        all_accepted=sum(1 for s in students if not s.not_accepted),
    )


def handed_in(students: Sequence[StudentMarks], tasks: Sequence[Task]) -> Dict[str, str]:
    """Each task's ``handed_in_text`` by id: of the class, how many handed it in (late work that
    does not count was handed in): the students its cases' pass rates are out of."""
    counts = {task.id: 0 for task in tasks}
    for student in students:
        for mark in student.tasks:
            if mark.task in counts and not mark.missing:
                counts[mark.task] += 1
    return {task_id: handed_in_text(count, len(students)) for task_id, count in counts.items()}


def class_overview(
    students: Sequence[StudentMarks], tallies: Sequence[CaseTally], tasks: Sequence[Task]
) -> ClassOverview:
    """Everything the overview page shows, from the class's marks, case tallies and tasks."""
    return ClassOverview(
        summary=summary(students),
        help=tuple(help_entries(students, tasks)),
        histogram=histogram(students),
        hardest=tuple(hardest_cases(tallies, tasks)),
        charts=tuple(task_charts(tallies, tasks, handed_in(students, tasks))),
        tasks=tuple(tasks),
        rows=tuple(marks_rows(students, tasks)),
        mistakes=tuple(common_mistakes(students, tasks)),
    )
