"""A unit of work: one student's files and the tasks to grade them on, graded here or anywhere.

In: a ``StudentWork`` (the files' bytes, the tasks, the results already known) and a grading
context, or a picklable ``WorkerSetup`` on a worker of any executor (a process, a Dask cluster).
Out: the unit's ``TaskResult`` values, one per task. The same unit is what ``grade`` makes for a
student of a class folder and what the portal makes for a submission (with the student's other
files it imports), so both grade alike. The unit is one hand-in (``grading.grade_hand_in``): every
visible run of all its tasks ends before the first hidden case starts.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Optional, Tuple

from grader.course.course_checkers import course_checkers
from grader.course.layout import Course
from grader.errors import GraderError, UsageError
from grader.grade.grading import GradingContext, grade_hand_in
from grader.grade.hand_in import Submitted
from grader.grade.result_key import interpreter_identity, run_parts
from grader.model import CaseResult, Task, TaskResult
from grader.run.forkserver import best_runner
from grader.run.sandbox import Protections
from grader.submission.files import MAX_SOURCE_BYTES, FileRead, Kind


@dataclass(frozen=True)
class StudentWork:
    """One student's unit of work: their files' bytes, the tasks to grade, what is already known.

    ``student`` is the name every output shows (and their folder's name in the output);
    ``files`` maps a file name (``nim_sum.py``) to its content, for the files handed in;
    ``known`` maps a task id to the results already known of its cases, by case name;
    ``refused`` maps a file name to why it was not read (a link, a FIFO, a folder: a sentence).
    """

    student: str
    tasks: Tuple[Task, ...]
    files: Mapping[str, bytes]
    known: Mapping[str, Mapping[str, CaseResult]]
    too_large: Tuple[str, ...] = ()  # task files not read: larger than a submission can be
    refused: Mapping[str, str] = field(default_factory=dict)

    def file(self, name: str) -> FileRead:
        """What was found of the file ``name`` in the student's folder."""
        if name in self.files:
            return FileRead(name, Kind.READ, data=self.files[name])
        if name in self.too_large:
            return FileRead(
                name, Kind.TOO_LARGE, reason=f"{name} is larger than {MAX_SOURCE_BYTES // 1024 // 1024} MiB."
            )
        if name in self.refused:
            return FileRead(name, Kind.REFUSED, reason=self.refused[name])
        return FileRead(name, Kind.MISSING)

    def given(self, task: Task) -> Tuple[FileRead, Tuple[FileRead, ...], str]:
        """What grading is given of this unit for ``task``: the task's file, each exercise file it
        may import (``uses_files``), and the name the student's files are shown by."""
        return (
            self.file(f"{task.id}.py"),
            tuple(self.file(f"{module}.py") for module in task.uses_files),
            f"{self.student}/{task.id}.py",
        )

    def runs_needed(self) -> bool:
        """True when some case of a handed-in file has no known result (so a runner is needed)."""
        return any(
            f"{task.id}.py" in self.files and len(self.known.get(task.id, {})) < len(task.cases) for task in self.tasks
        )


@dataclass(frozen=True)
class WorkerSetup:
    """What a worker in another process or on another machine needs to grade: it pickles."""

    course: str
    python: str
    jobs: int
    task_ids: Tuple[str, ...]
    shrink: bool = True
    quick_feedback: bool = False  # after a second time-out, the other cases are not run (all but --all)
    not_run_advice: str = ""
    # What the machine that runs grade has (and its reports' header claims): a worker with less refuses.
    protections: Optional[Protections] = None
    # What the results are kept under (``result_key.run_parts``): a worker that would grade otherwise
    # (another grader, interpreter, checkers.py, protections or setting) refuses. Empty: not checked.
    run_parts: Tuple[Tuple[str, str], ...] = ()


def grade_work(context: GradingContext, work: StudentWork) -> Tuple[TaskResult, ...]:
    """Grade one student's unit of work with ``context``: a TaskResult per task, in task order.

    The unit carries the files' bytes, so a worker needs no access to the class folder; the
    reports name them as ``student/task.py``.
    """
    items = [Submitted(task, *work.given(task), work.known.get(task.id) or {}) for task in work.tasks]
    return tuple(grade_hand_in(items, context))


def grade_remote(setup: WorkerSetup, work: StudentWork) -> Tuple[TaskResult, ...]:
    """``grade_work`` on a worker of any executor: sets up its own runner for the unit."""
    course = Path(setup.course)
    if not Course(course).is_course():
        raise UsageError(
            f"the course folder {course} is not on the worker {socket.gethostname()}: every worker needs "
            "the course (testcases/, solutions/, exercises/) at the same path as the machine that runs grade."
        )
    with best_runner(private=(course,)) as runner:
        _as_protected(runner.protections(setup.python), setup.protections)
        context = GradingContext(
            checkers=course_checkers(course),
            python=setup.python,
            runner=runner,
            jobs=setup.jobs,
            case_jobs=1,  # the executor runs students side by side: their cases run one at a time
            course=course,
            task_ids=setup.task_ids,
            shrink=setup.shrink,
            quick_feedback=setup.quick_feedback,
            not_run_advice=setup.not_run_advice,
        )
        _as_kept(context, setup.run_parts)
        return grade_work(context, work)


def _as_kept(context: GradingContext, wanted: Tuple[Tuple[str, str], ...]) -> None:
    """Raise ``GraderError`` when this worker would grade otherwise than the results are kept as."""
    if not wanted:
        return
    here = run_parts(context, interpreter_identity(context.python))
    differ = [name for name, value in wanted if here.get(name) != value]
    if differ:
        raise GraderError(
            f"the worker {socket.gethostname()} would grade with another {', '.join(differ)} than the machine "
            "that keeps the results, so it did not grade: give every worker the same grader, interpreter and "
            "packages, and the same course at the same path."
        )


def _as_protected(here: Protections, wanted: Optional[Protections]) -> None:
    """Raise ``GraderError`` when this worker lacks a protection the first machine has."""
    missing = [words for words in here.missing() if wanted is not None and words not in wanted.missing()]
    if missing:
        raise GraderError(
            f"the worker {socket.gethostname()} lacks protections the grading machine has ({', '.join(missing)}), "
            "so it did not grade: give every worker the same set-up (root, bubblewrap installed)."
        )
