"""Where the portal's grading runs: this machine's runner, or a Dask cluster (``serve --dask``).

In: a unit of work (``StudentWork``). Out: its ``TaskResult`` values. Both go through
the grader's own paths: here ``grade_work`` with one shared fork server, as ``grade`` does without
an executor; on Dask, ``grade_remote`` with a ``WorkerSetup``, as ``grade --dask`` does, so a
worker needs the grader and the course folder (at the same path), never the portal's database. A
unit whose worker died (Dask gave up on it, or the scheduler went away) raises ``WorkLost``: the
dispatcher queues it again rather than calling it the student's result.
"""

from __future__ import annotations

import logging
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Dict, Mapping, Optional, Protocol, Tuple

from grader.authoring.mistake_signatures import course_signatures
from grader.course import reference
from grader.course.course_checkers import course_checkers
from grader.course.layout import Course
from grader.errors import UsageError
from grader.grade.grading import GradingContext
from grader.grade.mistakes.known_mistakes import MistakeSignature
from grader.grade.unit_of_work import StudentWork, WorkerSetup, grade_remote, grade_work
from grader.model import Task, TaskResult
from grader.web.worker.course_state import cases_fingerprint, loaded_from

log = logging.getLogger("grader.web.worker.dispatcher")


class WorkLost(Exception):
    """The worker grading a unit was lost before it answered."""


class Grading(Protocol):
    where: str  # shown on the queue page: "this machine" or the scheduler's address
    answered: AnsweredTasks

    def grade(self, work: StudentWork) -> Tuple[TaskResult, ...]: ...

    def close(self) -> None: ...


def grading_context(runner, course: Course) -> GradingContext:
    """The context the portal grades with: the course's checkers, this interpreter, ``runner``;
    each submission's cases one at a time (the dispatcher grades ``--workers`` submissions at once);
    as ``check`` does, the cases after a file's second time-out are not run, so a looping file
    holds a grader for two time limits, not for every case's. Failures are shrunk in the same
    grading, before any hidden case runs (``grade/hand_in.py``)."""
    return GradingContext(
        checkers=course_checkers(course.root),
        python=sys.executable,
        runner=runner,
        case_jobs=1,
        course=course.root,
        task_ids=course.task_ids(),
        quick_feedback=True,
        not_run_advice="then hand the file in again.",
    )


class AnsweredTasks:
    """The course's tasks with their generated cases answered by the reference solution, once per
    task and per load of the course (``course_state.course_tasks`` gives a new mapping when a file
    of the course changes), with each one's fingerprint and its known mistakes' signatures, and
    the context to grade them with: the course's checkers as that load found them (``checkers.py``
    run again), never those of an earlier load. Answered here, where the course is: a Dask worker
    gets the answers with the unit and never runs the reference solution; results are matched to
    known mistakes here too."""

    def __init__(self, context: GradingContext) -> None:
        self.context = context
        self._lock = threading.Lock()
        self._source: Optional[Mapping[str, Task]] = None
        self._done: Dict[str, Tuple[Task, str]] = {}
        self._signatures: Dict[str, Tuple[MistakeSignature, ...]] = {}
        self._making: Dict[str, threading.Lock] = {}  # one per task: making one waits for no other

    def get(self, tasks: Mapping[str, Task], task_id: str) -> Optional[Tuple[Task, str]]:
        """(the task answered, its fingerprint), or None when the course has no such task."""
        if task_id not in tasks:
            return None
        with self._lock:
            self._follow(tasks)
            if task_id not in self._done:
                answered = reference.with_answers(tasks[task_id], self.context)
                self._done[task_id] = (answered, cases_fingerprint(answered))
            return self._done[task_id]

    def signatures(self, tasks: Mapping[str, Task], task_id: str) -> Tuple[MistakeSignature, ...]:
        """The signatures of the task's known mistakes (``grade/mistakes/known_mistakes.py``): kept on disk by
        ``verify`` or ``grade``, else made here once per load of the course (it grades the task's
        known-wrong solutions: seconds, once). None can be made: none, and the error log says why."""
        if task_id not in tasks:
            return ()
        with self._lock:
            self._follow(tasks)
            making = self._making.setdefault(task_id, threading.Lock())
        with making:
            with self._lock:
                if self._source is tasks and task_id in self._signatures:
                    return self._signatures[task_id]
            try:
                said = lambda text: log.info("%s", text)  # noqa: E731
                course = self.context.course
                assert course is not None  # (the portal's grading context has its course: grading_context)
                made = course_signatures(course, [tasks[task_id]], self.context, said=said).get(task_id, ())
            except Exception:  # the known-wrong files or the cache: no diagnosis, never a lost grading
                log.exception("%s: its known mistakes could not be recognised", task_id)
                made = ()
            with self._lock:
                if self._source is tasks:
                    self._signatures[task_id] = made
            return made

    def _follow(self, tasks: Mapping[str, Task]) -> None:
        """Forget what was made for an earlier load of the course, its checkers too (the caller holds
        ``_lock``)."""
        if self._source is not tasks:
            # the folder of the version these tasks come from: its reference solutions answer the
            # generated cases, its checkers check (a version's folder never changes after)
            folder = loaded_from(tasks) or self.context.course
            if folder is not None:
                try:
                    root = Path(folder)
                    self.context = replace(
                        self.context, course=root, checkers=course_checkers(root), task_ids=Course(root).task_ids()
                    )
                # checkers.py is the course's code: broken since the course last loaded (sys.exit()
                # in it too), the checkers of the last good load stay, as its tasks do
                except (Exception, SystemExit, KeyboardInterrupt):
                    log.exception("the course's checkers.py failed to load: the last good checkers stay")
            self._source, self._done, self._signatures, self._making = tasks, {}, {}, {}

    def grading_context(self) -> GradingContext:
        """The context to grade with: that of the course's latest load (``get``)."""
        with self._lock:
            return self.context


class LocalGrading:
    """Grading on this machine with one runner (its fork server) shared by the dispatcher's threads."""

    where = "this machine"

    def __init__(self, context: GradingContext) -> None:
        self.context = context
        self.answered = AnsweredTasks(context)

    def grade(self, work: StudentWork) -> Tuple[TaskResult, ...]:
        """``work``'s results, with the course's checkers as its latest load found them."""
        return grade_work(self.answered.grading_context(), work)

    def close(self) -> None:
        pass


class DaskGrading:
    """Grading on the Dask cluster at ``address``; its workers need the live version's folder (under the
    portal's data folder) at the same path."""

    def __init__(self, address: str, context: GradingContext, timeout_s: float = 15) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise UsageError("--dask needs Dask's distributed package: pip install 'nim-grader[dask]'.") from None
        try:
            self.client = Client(address, timeout=timeout_s)
        except OSError as error:
            raise UsageError(f"--dask {address}: cannot reach the Dask scheduler ({error}).") from None
        self.where = f"Dask at {address}"
        self.answered = AnsweredTasks(context)
        self.setup = WorkerSetup(
            course=str(context.course),
            python=context.python,
            jobs=1,
            task_ids=context.task_ids,
            quick_feedback=context.quick_feedback,
            not_run_advice=context.not_run_advice,
            protections=context.runner.protections(context.python),
        )

    def threads(self) -> int:
        """How many units the cluster grades at once now (0: no worker yet)."""
        return sum(self.client.nthreads().values())

    def grade(self, work: StudentWork) -> Tuple[TaskResult, ...]:
        """``work``'s results from a worker (``WorkLost`` when it died)."""
        from distributed import KilledWorker
        from distributed.comm.core import CommClosedError

        # the workers read the course at the folder of the version being graded (under the data folder)
        context = self.answered.grading_context()
        setup = replace(self.setup, course=str(context.course), task_ids=context.task_ids)
        future = self.client.submit(grade_remote, setup, work, pure=False)
        try:
            return future.result()
        except (KilledWorker, CommClosedError, ConnectionError, TimeoutError) as error:
            raise WorkLost(str(error)) from None
        finally:
            future.release()

    def close(self) -> None:
        self.client.close()


def backend(dask_address: Optional[str], context: GradingContext) -> Grading:
    """This machine's grading, or the Dask cluster's at ``dask_address``."""
    return DaskGrading(dask_address, context) if dask_address else LocalGrading(context)
