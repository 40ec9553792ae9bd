"""Grading: for each case execute → check → ``CaseResult``; for a file, the ``TaskResult``.

The flow only: which cases run (and which results are already known), how many at once, how often
a case repeats, and shrinking a failed generated case. The submission is staged as a program by
``submitted_program``; each run's verdict and the sentence that explains it are ``verdicts``'s. A
wrong answer is a result, never an exception.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Mapping, Optional, Sequence, Tuple

from grader.check.registry import Checker, CheckerRegistry, GameChecker
from grader.course import reference
from grader.course.layout import Course
from grader.grade import hints, shared_cases, shrink
from grader.grade.quick_feedback import TimeoutGate
from grader.grade.repeats import run_repeats
from grader.grade.submitted_program import companion_names, run_seed, staged_program
from grader.grade.verdicts import explain_silence, repeats_result, run_result, with_smaller_input
from grader.model import Case, CaseResult, SourceProblem, Task, TaskResult, Verdict
from grader.run.execute import Program, Runner, SubprocessRunner
from grader.run.streams import Session
from grader.submission import stubs
from grader.submission.files import FileRead, Kind, read_files
from grader.submission.problems import all_cases, companion_notes, unusable_file
from grader.submission.source import inspect_source


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
    # A file's cases first run one after another in one process where the runner can (``shared_cases``);
    # what is not accepted there runs again alone.
    share_process: bool = True


def grade_file(
    task: Task,
    path: Path,
    context: GradingContext,
    shown: Optional[str] = None,
    known: Optional[Mapping[str, CaseResult]] = None,
) -> TaskResult:
    """Grade one submission file against every case of ``task``.

    The file and the exercise files it may import (``task.uses_files``, from the same folder) are
    read as regular files of that folder, never through a link (``submission_files``). ``known``
    holds results already known for this very file (by case name, e.g. from a cache): those cases
    are not run again.
    """
    companions = companion_names(task)
    found = read_files(path.parent, [path.name, *companions], follow_folder=True)
    return grade_submission(task, found[path.name], [found[n] for n in companions], context, shown or str(path), known)


def grade_submission(
    task: Task,
    main: FileRead,
    companions: Sequence[FileRead],
    context: GradingContext,
    shown: str,
    known: Optional[Mapping[str, CaseResult]] = None,
) -> TaskResult:
    """Grade a submission already read: ``main`` and the exercise files it may import.

    Their bytes are staged in a private folder and the program runs from there, so the runner only
    copies the grader's own files. A file that could not be used is that task's result, with why.
    With ``context.quick_feedback`` (``check``), the cases after the second that runs out of time
    are ``not_run`` (``quick_feedback``).
    """
    known = known or {}
    if main.kind is not Kind.READ:
        return unusable_file(task, shown, main)
    data = main.data
    problem = inspect_source(data, task.rules)
    if problem is not None:
        return all_cases(task, shown, problem)
    stub = _stub(context, task)
    unwritten = stubs.untouched(data, stub) if context.stubs_score_zero else ()
    if unwritten:  # what its empty functions pass by accident says nothing of the student's work
        return all_cases(task, shown, SourceProblem(Verdict.WRONG_ANSWER, stubs.stub_message(unwritten)))
    notes = companion_notes(shown, companions)
    task = reference.with_answers(task, context)
    if not data.strip():
        notes += ("Your file is empty: start from the exercise file, which has the main block the grader talks to.",)
    todo = [case for case in task.cases if case.name not in known]
    gate = TimeoutGate(task.cases, known, context.quick_feedback, context.not_run_advice)
    with staged_program(task, data, companions, context.python) as program:
        shared = shared_cases.accepted_together(todo, program, context, shown) if context.share_process else {}

        def grade(case: Case) -> CaseResult:
            if case.name in shared:
                return shared[case.name]
            return grade_case(case, program, context, shown, context.repeat_jobs)

        with ThreadPoolExecutor(max_workers=max(1, context.case_jobs or context.jobs)) as pool:
            ran = gate.kept(todo, pool.map(lambda c: gate.run(c, lambda: grade(c)), todo))
        ran = dict(zip(ran, hints.resolve(list(ran.values()), known)))
        ran = _with_shrunk(task, ran, program, context, shown)
    results = [ran.get(c.name) or known.get(c.name) or gate.not_run(c) for c in task.cases]
    broken = next((r for r in results if r.verdict is Verdict.RULE_VIOLATION), None)
    if broken is not None:  # a rule broken while running breaks it for the whole file, as the static check does
        return all_cases(task, shown, SourceProblem(Verdict.RULE_VIOLATION, broken.message))
    if any(r.verdict is Verdict.NO_OUTPUT for r in results):
        results = explain_silence(results, data, stub)
    return TaskResult(task=task, file=shown, cases=tuple(results), notes=notes)


def _with_shrunk(
    task: Task, ran: Mapping[str, CaseResult], program: Program, context: GradingContext, shown: str
) -> Dict[str, CaseResult]:
    """The results by case name, each failed generated case's message with the smallest failing
    input that shrinking found. The file's shrinks share one budget of run time, in case order."""
    if not context.shrink:
        return dict(ran)
    budget = shrink.ShrinkBudget()
    shrunk = {}
    for name, result in ran.items():
        found = None if result.accepted else shrink.shrink(task, result, program, context, shown, grade_case, budget)
        shrunk[name] = result if found is None else with_smaller_input(result, *found)
    return shrunk


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
    return run_result(case, checker, run, session, program, context.task_ids, shown)
