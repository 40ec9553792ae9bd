"""What a class run keeps of each student once their reports are written: marks, not outputs.

A student's full results (outputs, messages) go to their own report and are then dropped, so the
memory a class run needs does not grow with what students print. The class-wide files (gradebook,
item analysis, overview) are made from these small values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from grader.counting import Standing
from grader.model import TaskResult, Verdict


def plain_number(value: float, digits: Optional[int] = None) -> Union[int, float]:
    """A number as a file should show it: an int when whole (``4``, not ``4.0``), else the value,
    rounded to ``digits`` places when given (JSON and YAML written for people and other tools)."""
    if float(value).is_integer():
        return int(value)
    return round(value, digits) if digits is not None else value


@dataclass(frozen=True)
class TaskMark:
    """One student's mark on one task: verdict, points, and how many cases failed."""

    task: str
    verdict: Verdict
    score: float
    max_score: float
    failed: int
    cases: int
    missing: bool = False  # the file was not handed in
    mistake: str = ""  # the known mistake its answers match, in the instructor's words ("" for none)
    graded: Optional[float] = None  # the graded points, when a late rule or an adjustment changed them
    late: str = ""  # "" on time; "late", "late -20 %" or "late, not counted" (the portal's late rule)
    adjustment: str = ""  # an instructor's adjustment, "+3: comment" ("" for none)
    not_counted: bool = False  # every graded submission was late and late work does not count
    late_lost: float = 0.0  # the graded points the late rule took (all of them when not counted)

    @property
    def accepted(self) -> bool:
        """Accepted, and counted: late work that does not count earns nothing, whatever its verdict,
        so it is not "all accepted" on the class page, nor left out of who needs help."""
        return self.verdict is Verdict.ACCEPTED and not self.not_counted

    @property
    def changed(self) -> str:
        """What made ``score`` differ from the graded points, in words ("" when nothing did)."""
        return "; ".join(part for part in (self.late, f"adjusted {self.adjustment}" if self.adjustment else "") if part)


@dataclass(frozen=True)
class StudentMarks:
    """One student's marks, a TaskMark per task of the course (in task order)."""

    student: str
    tasks: Tuple[TaskMark, ...]

    @property
    def score(self) -> float:
        return sum(t.score for t in self.tasks)

    @property
    def max_score(self) -> float:
        return sum(t.max_score for t in self.tasks)

    @property
    def share(self) -> float:
        """The share of the points earned, 0 to 1 (1 when there is nothing to earn)."""
        return self.score / self.max_score if self.max_score else 1.0

    @property
    def not_accepted(self) -> Tuple[TaskMark, ...]:
        """The tasks that are not accepted, fewest points earned first."""
        failed = [t for t in self.tasks if not t.accepted]
        return tuple(sorted(failed, key=lambda t: (t.score / t.max_score if t.max_score else 1.0, t.task)))


@dataclass(frozen=True)
class CaseTally:
    """Item analysis of one case: how many students passed it, out of how many (those who handed
    its task in)."""

    task: str
    case: str
    hidden: bool
    passed: int
    students: int

    @property
    def pass_rate(self) -> float:
        return self.passed / self.students if self.students else 0.0


def marks_of(
    student: str, results: Sequence[TaskResult], standings: Optional[Mapping[str, Standing]] = None
) -> StudentMarks:
    """The marks of ``results`` (one TaskResult per task) for ``student``; ``standings`` (by task
    id, the portal's: ``counting``) are the late rule and adjustment each task's points go through
    (none: the graded points, as ``grade`` gives them)."""
    standings = standings or {}
    return StudentMarks(
        student=student, tasks=tuple(_task_mark(r, standings.get(r.task.id, Standing())) for r in results)
    )


def _task_mark(result: TaskResult, standing: Standing) -> TaskMark:
    score = standing.counted(result.score, result.max_score)
    late = ""
    if standing.late_only:
        late = "late, not counted"
    elif standing.late:
        late = f"late -{standing.rule.percent} %" if standing.late_points(result.score) else "late"
    adjusted = standing.adjusted
    return TaskMark(
        task=result.task.id,
        verdict=result.verdict,
        score=score,
        max_score=result.max_score,
        failed=sum(1 for c in result.cases if not c.accepted),
        cases=len(result.cases),
        missing=not result.handed_in and not standing.late_only,
        mistake=result.mistake.instructor_text if result.mistake else "",
        graded=result.score if score != result.score or late or adjusted else None,
        late=late,
        adjustment=f"{adjusted.points:+g}: {adjusted.comment}" if adjusted is not None else "",
        not_counted=standing.late_only,
        late_lost=result.score if standing.late_only else standing.late_points(result.score),
    )


class Tallies:
    """Pass counts of every case, added up one student at a time (in first-seen order)."""

    def __init__(self) -> None:
        self._counts: Dict[Tuple[str, str], List[int]] = {}
        self._hidden: Dict[Tuple[str, str], bool] = {}

    def add(self, results: Iterable[TaskResult]) -> None:
        """Count one student's results: the cases of the tasks they handed in (a task not handed in
        says nothing of its cases, so a case's pass rate is out of those who handed its task in)."""
        for task in results:
            if not task.handed_in:
                continue
            for case in task.cases:
                key = (task.task.id, case.case.name)
                counts = self._counts.setdefault(key, [0, 0])
                counts[0] += 1 if case.accepted else 0
                counts[1] += 1
                self._hidden[key] = case.case.hidden

    def tallies(self) -> List[CaseTally]:
        """Every case seen, in the order first seen (task order, then case order)."""
        return [
            CaseTally(task=key[0], case=key[1], hidden=self._hidden[key], passed=passed, students=students)
            for key, (passed, students) in self._counts.items()
        ]


def needs_help(students: Sequence[StudentMarks], limit: int = 10) -> List[StudentMarks]:
    """The students to help first: lowest share of points, then most tasks not accepted, by name.

    Students with every task accepted are never listed.
    """
    struggling = [s for s in students if s.not_accepted]
    ordered = sorted(struggling, key=lambda s: (s.share, -len(s.not_accepted), s.student))
    return ordered[:limit]


def score_histogram(students: Sequence[StudentMarks], bins: int = 10) -> List[int]:
    """How many students' share of the points falls in each of ``bins`` equal ranges of 0–100 %.

    The last range includes 100 %.
    """
    counts = [0] * bins
    for student in students:
        index = min(int(student.share * bins), bins - 1)
        counts[index] += 1
    return counts
