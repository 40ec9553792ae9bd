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

import socket
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from grader.classrun.folders import ClassFolder, StudentFolder, scan_class
from grader.classrun.outputs import ClassWriter
from grader.classrun.progress import Progress
from grader.classrun.result_cache import (
    ResultCache,
    case_fingerprint,
    case_key,
    run_fingerprint,
    submission_fingerprint,
)
from grader.course import reference
from grader.course.course_checkers import course_checkers
from grader.course.layout import Course
from grader.errors import GraderError, UsageError
from grader.grade.grading import GradingContext, grade_submission
from grader.grade.known_mistakes import MistakeSignature
from grader.marks import CaseTally, StudentMarks
from grader.model import CaseResult, Task, TaskResult, Verdict
from grader.run.forkserver import best_runner
from grader.run.sandbox import Protections
from grader.submission.files import MAX_SOURCE_BYTES, FileRead, Kind, read_files

# Where the results cache lives in the output folder unless told otherwise.
CACHE_NAME = "grading-cache.sqlite"
# Files of the class overview (and the cache's side files): a student folder by one of these names
# would collide with them.
CLASS_FILES = (
    "index.html",
    "gradebook.csv",
    "cases.csv",
    "junit.xml",
    CACHE_NAME,
    *(CACHE_NAME + side for side in ("-wal", "-shm", "-journal")),
)


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


@dataclass(frozen=True)
class ClassOutcome:
    """What a class run leaves to its caller: marks by student name, item analysis, trouble."""

    students: Tuple[StudentMarks, ...]
    tallies: Tuple[CaseTally, ...]
    grader_failures: Tuple[str, ...]  # students the grader itself failed on (one sentence each)
    summary: str
    skipped: Tuple[str, ...] = ()  # entries of the class folder not graded, a sentence each


def students_in(class_dir: Path) -> ClassFolder:
    """The students of a class folder (every folder, hidden ones too), and what was skipped and why."""
    return scan_class(class_dir, CLASS_FILES)


def grade_work(context: GradingContext, work: StudentWork) -> Tuple[TaskResult, ...]:
    """Grade one student's unit of work with ``context``: a TaskResult per task, in task order.

    The unit carries the files' bytes, so a worker needs no access to the class folder; the
    reports name them as ``student/task.py``.
    """
    results = []
    for task in work.tasks:
        name = f"{task.id}.py"
        companions = [work.file(f"{module}.py") for module in task.uses_files]
        shown = f"{work.student}/{name}"
        results.append(grade_submission(task, work.file(name), companions, context, shown, work.known.get(task.id)))
    return tuple(results)


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
        return grade_work(context, work)


def _as_protected(here: Protections, wanted: Optional[Protections]) -> None:
    """Raise ``GraderError`` when this worker lacks a protection the first machine has."""
    missing = [words for words in here.missing() if wanted is not None and words not in wanted.missing()]
    if missing:
        raise GraderError(
            f"the worker {socket.gethostname()} lacks protections the grading machine has ({', '.join(missing)}), "
            "so it did not grade: give every worker the same set-up (root, bubblewrap installed)."
        )


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
    """The cache keys of one student's cases, by task id, then case name."""

    def __init__(self, run: str, cases: Mapping[str, Mapping[str, str]], tasks: Sequence[Task], files) -> None:
        """``cases``: each case's ``case_fingerprint`` by task id and case name (the same for all)."""
        self.by_task: Dict[str, Dict[str, str]] = {}
        for task in tasks:
            submission = submission_fingerprint(task, files)
            self.by_task[task.id] = {
                case.name: case_key(run, submission, cases[task.id][case.name]) for case in task.cases
            }

    def pairs(self, task: Task):
        keys = self.by_task[task.id]
        return [(keys[case.name], case) for case in task.cases]

    def results(self, result: TaskResult, skip: Mapping[str, CaseResult]):
        """The (key, result) pairs to keep: not ``not_run`` ones, which say what the other cases did,
        not what this one does (a run with ``--all`` must run them)."""
        keys = self.by_task[result.task.id]
        kept = [r for r in result.cases if r.case.name not in skip and r.verdict is not Verdict.NOT_RUN]
        return [(keys[r.case.name], r) for r in kept]


def grade_class(
    class_dir: Path,
    tasks: Sequence[Task],
    out: Path,
    context: GradingContext,
    *,
    python_version: str,
    executor: Optional[Executor] = None,
    workers: Optional[int] = None,
    cache: Optional[ResultCache] = None,
    progress: Optional[Progress] = None,
    note: str = "",
    signatures: Optional[Mapping[str, Sequence[MistakeSignature]]] = None,
) -> ClassOutcome:
    """Grade every student folder of ``class_dir`` on every task and write all outputs to ``out``.

    ``executor``: None grades on threads sharing ``context``; any other executor gets
    ``grade_remote`` units, ``workers`` of them in flight at a time (default: twice ``context.jobs``).
    ``cache`` (optional) supplies known results and keeps new ones as each student finishes.
    A ``KeyboardInterrupt`` stops the run; what finished is in the cache and the student reports.
    ``signatures`` (by task id): the known mistakes a student's results are matched to, for their
    reports and the overview's common mistakes.
    """
    listing = students_in(class_dir)
    students = listing.students
    tasks = [reference.with_answers(task, context) for task in tasks]
    run = run_fingerprint(python_version, context.course)
    progress = progress or Progress(len(students))
    writer = ClassWriter(out, tasks, note, signatures or {})
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
        )
        submit = lambda work: pool.submit(grade_remote, setup, work)  # noqa: E731
    limit = max(1, workers or 2 * context.jobs)
    pending: Dict[Future, Tuple[StudentWork, _Keys]] = {}
    units = _units(students, tasks, run, cache)
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
    students_marks, tallies = writer.finish()
    return ClassOutcome(tuple(students_marks), tuple(tallies), tuple(failures), progress.finish(), listing.skipped)


def _units(
    students: Sequence[StudentFolder], tasks: Sequence[Task], run: str, cache: Optional[ResultCache]
) -> Iterator:
    """Each student's unit of work and its keys, read one student at a time (as the pool frees up)."""
    cases = {task.id: {case.name: case_fingerprint(case) for case in task.cases} for task in tasks}
    for student in students:
        files, too_large, refused = _read_work(student, tasks)
        keys = _Keys(run, cases, tasks, files)
        known = {task.id: cache.known(keys.pairs(task)) for task in tasks} if cache is not None else {}
        yield StudentWork(student.name, tuple(tasks), files, known, too_large, refused), keys


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
    if cache is not None:
        cache.store(pair for result in results for pair in keys.results(result, work.known.get(result.task.id, {})))
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
