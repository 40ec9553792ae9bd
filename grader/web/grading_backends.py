"""Where the portal's grading runs: this machine's runner, or a Dask cluster (``serve --dask``).

In: a unit of work (``StudentWork``). Out: its ``TaskResult`` values. Both go through the grader's
own paths: here ``grade_work`` with one shared fork server, as ``grade`` does without an executor;
on Dask, ``grade_remote`` with a ``WorkerSetup``, as ``grade --dask`` does, so a worker needs the
grader and the course folder (at the same path), never the portal's database. A unit whose worker
died (Dask gave up on it, or the scheduler went away) raises ``WorkLost``: the dispatcher queues
it again rather than calling it the student's result.
"""

from __future__ import annotations

import sys
from typing import Optional, Protocol, Tuple

from grader.classrun.grade_class import StudentWork, WorkerSetup, grade_remote, grade_work
from grader.course.course_checkers import course_checkers
from grader.course.layout import Course
from grader.errors import UsageError
from grader.grade.grading import GradingContext
from grader.model import TaskResult


class WorkLost(Exception):
    """The worker grading a unit was lost before it answered."""


class Grading(Protocol):
    where: str  # shown on the queue page: "this machine" or the scheduler's address

    def grade(self, work: StudentWork) -> Tuple[TaskResult, ...]: ...

    def close(self) -> None: ...


def grading_context(runner, course: Course) -> GradingContext:
    """The context the portal grades with: the course's checkers, this interpreter, ``runner``;
    each submission's cases one at a time (the dispatcher grades ``--workers`` submissions at once);
    as ``check`` does, the cases after a file's second time-out are not run, so a looping file
    holds a grader for two time limits, not for every case's."""
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


class LocalGrading:
    """Grading on this machine with one runner (its fork server) shared by the dispatcher's threads."""

    where = "this machine"

    def __init__(self, context: GradingContext) -> None:
        self.context = context

    def grade(self, work: StudentWork) -> Tuple[TaskResult, ...]:
        return grade_work(self.context, work)

    def close(self) -> None:
        pass


class DaskGrading:
    """Grading on the Dask cluster at ``address``; its workers need the course at ``course``'s path."""

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
        from distributed import KilledWorker
        from distributed.comm.core import CommClosedError

        future = self.client.submit(grade_remote, self.setup, work, pure=False)
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
