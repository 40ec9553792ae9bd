"""Grading: for each case execute → check → ``CaseResult``; for a file, the ``TaskResult``.

The flow only: which cases run (and which results are already known), how many at once, how often
a case repeats; the order of a hand-in's runs (every visible one before the first hidden one) and
shrinking a failed generated case are ``hand_in``'s. The submission is staged as a program by
``submitted_program``; each run's verdict and the sentence that explains it are ``verdicts``'s. A
wrong answer is a result, never an exception.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import List, Mapping, Optional, Sequence, Tuple

from grader.check.registry import Checker, CheckerRegistry, GameChecker
from grader.course.layout import Course
from grader.grade import hand_in
from grader.grade.hand_in import Submitted
from grader.grade.mistakes.crash_causes import exercise_functions
from grader.grade.repeats import run_repeats
from grader.grade.submitted_program import companion_names, run_seed
from grader.grade.verdicts import repeats_result, run_result
from grader.model import Case, CaseResult, Task, TaskResult
from grader.run.execute import Program, Runner, SubprocessRunner
from grader.run.streams import Session
from grader.submission.files import FileRead, read_files


@dataclass(frozen=True)
class GradingContext:
    """What grading needs besides the task and the file: checkers, a runner, an interpreter."""

    checkers: CheckerRegistry
    python: str
    runner: Runner = field(default_factory=SubprocessRunner)
    jobs: int = field(default_factory=lambda: os.cpu_count() or 1)
    # Cases of one file run at once (None: ``jobs``). A class run grades ``jobs`` students at once
    # and sets 1 here, so that no more than ``jobs`` programs run at a time.
    case_jobs: Optional[int] = None
    # Runs of one repeated case at once. 1 stops a case at the same run on every machine; the test
    # suite of the reference solutions, which must pass every run anyway, sets ``jobs`` to go faster.
    repeat_jobs: int = 1
    course: Optional[Path] = None  # where the exercise files (stubs) are, to compare with
    task_ids: Tuple[str, ...] = ()  # every task of the course (for messages about imports)
    shrink: bool = True  # look for a smaller failing input when a generated case fails
    stop_when_random: bool = True  # a repeated case stops once it has seen min_distinct right answers
    quick_feedback: bool = False  # check and the portal: after two time-outs in a task, its other cases are not_run
    not_run_advice: str = ""  # what those not_run cases advise (default: check's)
    # A file that is still the exercise file (its functions as handed out) scores 0 without running;
    # verify sets False to see whether the cases themselves reject the stub.
    stubs_score_zero: bool = True


def grade_file(
    task: Task,
    path: Path,
    context: GradingContext,
    shown: Optional[str] = None,
    known: Optional[Mapping[str, CaseResult]] = None,
) -> TaskResult:
    """Grade one submission file against every case of ``task`` (a hand-in of one file).

    The file and the exercise files it may import (``task.uses_files``, from the same folder) are
    read as regular files of that folder, never through a link (``submission_files``). ``known``
    holds results already known for this very file (by case name, e.g. from a cache): those cases
    are not run again.
    """
    return grade_hand_in([submitted_file(task, path, shown, known)], context)[0]


def submitted_file(
    task: Task, path: Path, shown: Optional[str] = None, known: Optional[Mapping[str, CaseResult]] = None
) -> Submitted:
    """The file at ``path`` and the exercise files beside it that ``task`` may import, read as a
    ``Submitted`` (regular files of that folder, never through a link)."""
    companions = companion_names(task)
    found = read_files(path.parent, [path.name, *companions], follow_folder=True)
    return Submitted(task, found[path.name], tuple(found[n] for n in companions), shown or str(path), known or {})


def grade_submission(
    task: Task,
    main: FileRead,
    companions: Sequence[FileRead],
    context: GradingContext,
    shown: str,
    known: Optional[Mapping[str, CaseResult]] = None,
) -> TaskResult:
    """Grade a submission already read: ``main`` and the exercise files it may import (a hand-in
    of one file; ``grade_hand_in`` for several)."""
    return grade_hand_in([Submitted(task, main, tuple(companions), shown, known or {})], context)[0]


def grade_hand_in(items: Sequence[Submitted], context: GradingContext) -> List[TaskResult]:
    """Grade the files of one hand-in, a ``TaskResult`` each, in order (``hand_in``): every run a
    student can see the output of ends before the first hidden case starts.

    Each file's bytes are staged in a private folder and the program runs from there, so the runner
    only copies the grader's own files. A file that could not be used is that task's result, with
    why. With ``context.quick_feedback`` (``check``), the cases after the second that runs out of
    time are ``not_run`` (``quick_feedback``).
    """
    return hand_in.grade_in_order(items, context, grade_case, lambda task: _stub(context, task))


def _stub(context: GradingContext, task: Task) -> Optional[bytes]:
    """The exercise file the student started from (None without a course, or when it cannot be read)."""
    if context.course is None:
        return None
    try:
        return Course(context.course).exercise(task.id).read_bytes()
    except OSError:
        return None


def grade_case(case: Case, program: Program, context: GradingContext, shown: str, parallel_runs: int = 1) -> CaseResult:
    """Run ``program`` on one case (up to ``repeat`` times, up to ``parallel_runs`` at once) and decide.

    Every run is checked, and the first run that is not accepted decides. With ``min_distinct``,
    the runs stop as soon as that many different right answers have appeared (``repeats``); a
    program that gives fewer over all ``repeat`` runs gets wrong_answer.
    """
    checker = context.checkers.get(case.checker)

    def one(run_index: int) -> CaseResult:
        return _one_run(case, checker, program, context, shown, run_index)

    return repeats_result(case, run_repeats(one, case, parallel_runs, context.stop_when_random))


def _one_run(
    case: Case, checker: Optional[Checker], program: Program, context: GradingContext, shown: str, run_index: int = 0
) -> CaseResult:
    """One run of ``program`` on ``case`` (the ``run_index``-th of its repeats, from 0), checked."""
    program = replace(program, seed=run_seed(program.seed, case, run_index))
    session: Optional[Session] = None
    if isinstance(checker, GameChecker):
        session = checker.start(case.checker_options)
        run = context.runner.interact(program, session, case.limits)
    else:
        run = context.runner.run(program, case.input.encode("utf-8"), case.limits)
    functions = exercise_functions(str(context.course) if context.course is not None else None)
    return run_result(case, checker, run, session, program, context.task_ids, shown, functions)
