"""Grading a whole class: every student's folder, every task, on any executor, resumable.

``grade_class`` reads each student's files, looks up what the result cache already knows of them,
and hands the rest to an executor as one unit of work per student (``StudentWork``: the files'
bytes, the tasks, the known results). A unit's results are cached, written to the student's own
reports and reduced to marks as soon as they come back, so memory does not grow with the class,
and a run that is stopped goes on where it stopped when run again.

With no executor, a pool of threads shares the caller's ``GradingContext`` (one fork server for
the whole run). Students are the unit of parallelism: ``jobs`` of them are graded at once, each
running its cases one at a time, so no more than ``jobs`` programs run at a time. Any other
``concurrent.futures`` executor (processes, a Dask cluster) gets ``grade_remote`` and a picklable
``WorkerSetup``; each unit then sets up its own runner where it runs (its cases, too, one at a
time), so a worker needs the grader installed and the course folder at the same path.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from grader.classrun.folders import ClassFolder, StudentFolder, scan_class
from grader.classrun.outputs import STUDENTS_CSV, ClassWriter
from grader.classrun.progress import Progress
from grader.classrun.result_cache import ResultCache
from grader.course import reference
from grader.errors import GraderError
from grader.grade.grading import GradingContext
from grader.grade.mistakes.known_mistakes import MistakeSignature
from grader.grade.result_key import interpreter_identity, result_key, run_key, run_parts, task_digest
from grader.grade.unit_of_work import StudentWork, WorkerSetup, grade_remote, grade_work
from grader.marks import CaseTally, StudentMarks
from grader.model import CaseResult, Task, TaskResult, Verdict
from grader.submission.files import Kind, read_files
from grader.submission.problems import missing_file

# Where the results cache lives in the output folder unless told otherwise.
CACHE_NAME = "grading-cache.sqlite"
# Files of the class overview (and the cache's side files): a student folder by one of these names
# would collide with them.
CLASS_FILES = (
    "index.html",
    "gradebook.csv",
    "cases.csv",
    "junit.xml",
    STUDENTS_CSV,
    CACHE_NAME,
    *(CACHE_NAME + side for side in ("-wal", "-shm", "-journal")),
)


@dataclass(frozen=True)
class ClassOutcome:
    """What a class run leaves to its caller: marks by student name, item analysis, trouble."""

    students: Tuple[StudentMarks, ...]
    tallies: Tuple[CaseTally, ...]
    grader_failures: Tuple[str, ...]  # students the grader itself failed on (one sentence each)
    summary: str
    skipped: Tuple[str, ...] = ()  # entries of the class folder not graded, a sentence each
    renamed: Tuple[str, ...] = ()  # students whose output folder or name is not their own, a sentence each


def students_in(class_dir: Path) -> ClassFolder:
    """The students of a class folder (every folder, hidden ones too), and what was skipped and why."""
    return scan_class(class_dir, CLASS_FILES)


def _read_work(
    student: StudentFolder, tasks: Sequence[Task]
) -> Tuple[Dict[str, bytes], Tuple[str, ...], Dict[str, str]]:
    """The files of ``student`` that the tasks need: those read, those too large, those refused (why).

    Each is read as a regular file of the student's own folder, never through a link, and the
    folder itself must not be a link (``submission_files``).
    """
    names = sorted({f"{task.id}.py" for task in tasks} | {f"{m}.py" for task in tasks for m in task.uses_files})
    found = read_files(student.path, names, follow_folder=False, shown=student.name).values()
    files = {f.name: f.data for f in found if f.kind is Kind.READ}
    too_large = tuple(f.name for f in found if f.kind is Kind.TOO_LARGE)
    return files, too_large, {f.name: f.reason for f in found if f.kind is Kind.REFUSED}


class _Keys:
    """The key of each task's results for one student (``result_key``), by task id: of exactly what
    grading is given for that task (``StudentWork.given``)."""

    def __init__(self, run: str, digests: Mapping[str, str], work: StudentWork) -> None:
        """``digests``: each task's ``task_digest`` by id (the same for every student)."""
        self.by_task = {task.id: result_key(run, digests[task.id], *work.given(task)) for task in work.tasks}

    def known(self, cache: Optional[ResultCache], task: Task) -> Dict[str, CaseResult]:
        return cache.known(self.by_task[task.id], task.cases) if cache is not None else {}

    def keep(self, cache: Optional[ResultCache], work: StudentWork, results: Sequence[TaskResult]) -> None:
        """Keep the results of the tasks that were graded (not those taken from the cache)."""
        if cache is None:
            return
        for result in results:
            if not work.known.get(result.task.id):
                cache.store(self.by_task[result.task.id], result.cases)


def grade_class(
    class_dir: Path,
    tasks: Sequence[Task],
    out: Path,
    context: GradingContext,
    *,
    executor: Optional[Executor] = None,
    workers: Optional[int] = None,
    cache: Optional[ResultCache] = None,
    progress: Optional[Progress] = None,
    note: str = "",
    signatures: Optional[Mapping[str, Sequence[MistakeSignature]]] = None,
    absent: Sequence[str] = (),
) -> ClassOutcome:
    """Grade every student folder of ``class_dir`` on every task and write all outputs to ``out``.

    ``executor``: None grades on threads sharing ``context``; any other executor gets
    ``grade_remote`` units, ``workers`` of them in flight at a time (default: twice ``context.jobs``).
    ``cache`` (optional) supplies known results and keeps new ones as each student finishes.
    A ``KeyboardInterrupt`` stops the run; what finished is in the cache and the student reports.
    ``signatures`` (by task id): the known mistakes a student's results are matched to, for their
    reports and the overview's common mistakes. ``absent``: students of the roster with no folder
    (``class_roster.match_roster``), each graded as having handed nothing in (every task
    ``not_handed_in``, 0 points), so every export has their row.
    """
    listing = students_in(class_dir)
    students = listing.students
    tasks = [reference.with_answers(task, context) for task in tasks]
    # what every student's results share: the grader, the interpreter, checkers.py, protections, settings
    parts = run_parts(context, interpreter_identity(context.python))
    run = run_key(parts)
    progress = progress or Progress(len(students))
    writer = ClassWriter(out, tasks, note, signatures or {}, {s.name: s.folder for s in students})
    failures: List[str] = []
    if executor is None:
        pool: Executor = ThreadPoolExecutor(max_workers=max(1, context.jobs))
        # jobs programs at once, not jobs squared: jobs students at once, each one case at a time;
        # a class smaller than that shares the cores out among its students' cases
        each = replace(context, case_jobs=max(1, context.jobs // max(1, len(students))))
        submit: Callable[[StudentWork], Future] = lambda work: pool.submit(grade_work, each, work)  # noqa: E731
    else:
        pool = executor
        setup = WorkerSetup(
            course=str(Path(context.course or ".").resolve()),
            python=context.python,
            jobs=context.jobs,
            task_ids=context.task_ids,
            shrink=context.shrink,
            quick_feedback=context.quick_feedback,
            not_run_advice=context.not_run_advice,
            protections=context.runner.protections(context.python),
            run_parts=tuple(parts.items()),  # a worker that would grade otherwise refuses
        )
        submit = lambda work: pool.submit(grade_remote, setup, work)  # noqa: E731
    limit = max(1, workers or 2 * context.jobs)
    pending: Dict[Future, Tuple[StudentWork, _Keys]] = {}
    units = _units(students, tasks, run, cache, context)
    try:
        for work, keys in units:
            if not work.runs_needed():
                _finish(work, keys, grade_work(context, work), writer, cache, progress)
                continue
            pending[submit(work)] = (work, keys)
            while len(pending) >= limit:
                _collect(pending, writer, cache, progress, failures)
        while pending:
            _collect(pending, writer, cache, progress, failures)
    except BaseException:
        for future in pending:
            future.cancel()
        writer.abandon()
        raise
    finally:
        if executor is None:
            pool.shutdown(wait=True, cancel_futures=True)
    for name in absent:
        writer.add(name, [missing_file(task, f"{name}/{task.id}.py") for task in tasks])
    students_marks, tallies = writer.finish()
    return ClassOutcome(
        tuple(students_marks), tuple(tallies), tuple(failures), progress.finish(), listing.skipped, listing.renamed
    )


def _units(
    students: Sequence[StudentFolder],
    tasks: Sequence[Task],
    run: str,
    cache: Optional[ResultCache],
    context: GradingContext,
) -> Iterator:
    """Each student's unit of work and its keys, read one student at a time (as the pool frees up)."""
    digests = {task.id: task_digest(task, context) for task in tasks}
    for student in students:
        files, too_large, refused = _read_work(student, tasks)
        work = StudentWork(student.name, tuple(tasks), files, {}, too_large, refused)
        keys = _Keys(run, digests, work)
        known = {task.id: keys.known(cache, task) for task in tasks}
        yield replace(work, known={task_id: found for task_id, found in known.items() if found}), keys


def _collect(pending, writer, cache, progress, failures) -> None:
    """Wait for at least one unit, then cache, write and count each one finished."""
    done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
    for future in done:
        work, keys = pending.pop(future)
        try:
            results = future.result()
        except GraderError:
            raise  # the setup is wrong (e.g. a worker without the course): no student is to blame
        except Exception as error:  # the grader's own fault on this student: record it, go on
            failures.append(f"{work.student}: the grader failed ({type(error).__name__}: {error})")
            results = _not_graded(work, error)
            _finish(work, keys, results, writer, None, progress)
            continue
        _finish(work, keys, results, writer, cache, progress)


def _finish(work: StudentWork, keys: _Keys, results, writer: ClassWriter, cache, progress: Progress) -> None:
    keys.keep(cache, work, results)
    marks = writer.add(work.student, results)
    progress.student_done(marks, sum(len(known) for known in work.known.values()))


def _not_graded(work: StudentWork, error: Exception) -> Tuple[TaskResult, ...]:
    message = (
        f"The grader failed on your files ({type(error).__name__}), so they were not graded; "
        "this is not your mistake: tell your instructor."
    )
    return tuple(
        TaskResult(
            task=task,
            file=f"{work.student}/{task.id}.py",
            cases=tuple(CaseResult(case=c, verdict=Verdict.RUNTIME_ERROR, message=message) for c in task.cases),
        )
        for task in work.tasks
    )
