"""Grading: for each case execute → check → ``CaseResult``; for a file, the ``TaskResult``.

Verdicts are decided here from the facts a runner reports (timeouts, exit status, output) and from
the case's checker. A wrong answer is a result, never an exception.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from grader import diagnose
from grader.checkers import CheckerRegistry, significant_lines
from grader.execute import Program, Runner, SubprocessRunner
from grader.model import (
    Case,
    CaseResult,
    CheckOutcome,
    Difference,
    RunResult,
    SourceProblem,
    Task,
    TaskResult,
    Verdict,
)
from grader.source import inspect_source


@dataclass(frozen=True)
class GradingContext:
    """What grading needs besides the task and the file: checkers, a runner, an interpreter."""

    checkers: CheckerRegistry
    python: str
    runner: Runner = field(default_factory=SubprocessRunner)
    jobs: int = field(default_factory=lambda: os.cpu_count() or 1)


def grade_file(task: Task, path: Path, context: GradingContext, shown: Optional[str] = None) -> TaskResult:
    """Grade one submission file against every case of ``task``."""
    shown = shown or str(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        problem = SourceProblem(Verdict.RUNTIME_ERROR, f"The file could not be read: {error.strerror}.")
        return _all_cases(task, shown, problem)
    problem = inspect_source(data, task.rules)
    if problem is not None:
        return _all_cases(task, shown, problem)
    notes = ()
    if not data.strip():
        notes = ("Your file is empty: start from the exercise file, which has the main block the grader talks to.",)
    program = Program(python=context.python, script=path, run_name=f"{task.id}.py")
    with ThreadPoolExecutor(max_workers=max(1, context.jobs)) as pool:
        results = list(pool.map(lambda case: grade_case(case, program, context, shown), task.cases))
    return TaskResult(task=task, file=shown, cases=tuple(results), notes=notes)


def _all_cases(task: Task, shown: str, problem: SourceProblem) -> TaskResult:
    """Every case gets the verdict of a file that could not run."""
    message = problem.message
    cases = tuple(CaseResult(case=c, verdict=problem.verdict, message=message) for c in task.cases)
    return TaskResult(task=task, file=shown, cases=cases, problem=problem)


def grade_case(case: Case, program: Program, context: GradingContext, shown: str) -> CaseResult:
    """Run ``program`` on one case and decide its verdict."""
    run = context.runner.run(program, case.input.encode("utf-8"), case.limits)
    actual, note = _decode(run.stdout)
    if run.stdout_bytes > len(run.stdout):
        note = f"Only the first {len(run.stdout):,} of {run.stdout_bytes:,} bytes are shown. " + note
    stderr, _ = _decode(run.stderr)
    verdict, message = _run_verdict(run, stderr, case)
    hint_applies = True
    if verdict is None:
        outcome = _check(case, actual, context.checkers)
        verdict, message = outcome.verdict, outcome.message
        hint_applies = not outcome.answer_found and verdict is not Verdict.PRESENTATION_ERROR
    if case.hidden and verdict is not Verdict.ACCEPTED:
        message = _hidden_message(verdict, answer_found=not hint_applies)
    if case.hint and hint_applies and verdict is not Verdict.ACCEPTED:
        message = f"{message} Hint: {case.hint}"
    expected = case.expected[0]
    return CaseResult(
        case=case,
        verdict=verdict,
        message=message,
        time_s=round(run.time_s, 4),
        actual=actual,
        stderr=diagnose.student_traceback(stderr, run.workdir, shown),
        expected=expected,
        difference=first_difference(expected, actual) if verdict is not Verdict.ACCEPTED else None,
        actual_note=note,
    )


def _hidden_message(verdict: Verdict, answer_found: bool) -> str:
    """What a hidden case may say: the kind of failure, never its input or expected output."""
    if answer_found:
        return (
            "This hidden case was not accepted: your program printed other lines besides the "
            "answer (leftover debug prints?)."
        )
    return f"This hidden case was not accepted: your program {verdict.what_happened}."


def _decode(data: bytes):
    """Bytes → text; undecodable bytes become U+FFFD and a note says so."""
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        return (
            data.decode("utf-8", errors="replace"),
            "Your program printed bytes that are not UTF-8 text; they are shown as \ufffd.",
        )


def _run_verdict(run: RunResult, stderr: str, case: Case):
    """(verdict, message) when the run itself failed, or (None, "") when its output is to be checked."""
    limits = case.limits
    if run.timed_out:
        return Verdict.TIME_LIMIT_EXCEEDED, (
            f"Your program was stopped after {limits.time_s:g} seconds (the time limit for this case). "
            "Is it waiting for more input than the case gives, or in a loop that never ends?"
        )
    if run.output_limit_hit:
        return Verdict.OUTPUT_LIMIT_EXCEEDED, (
            f"Your program printed more than {limits.output_bytes:,} bytes (the output limit) and was "
            "stopped. Is there a print inside a loop that never ends?"
        )
    if diagnose.is_memory_error(stderr):
        return Verdict.MEMORY_LIMIT_EXCEEDED, (
            f"Your program ran out of memory (the limit is {limits.memory_mib} MiB). Is it building a "
            "list that keeps growing, or a very large number of copies of the board?"
        )
    if run.exit_code != 0:
        crash = diagnose.find_crash(stderr, run.workdir)
        if crash is not None:
            return Verdict.RUNTIME_ERROR, diagnose.crash_message(crash)
        if run.signal is not None:
            return (
                Verdict.RUNTIME_ERROR,
                f"Your program was stopped by signal {run.signal} ({_signal_name(run.signal)}).",
            )
        return Verdict.RUNTIME_ERROR, (
            f"Your program ended with exit status {run.exit_code} instead of 0. "
            "Do not call sys.exit() or exit() with a number; let the program end normally."
        )
    if not run.stdout.strip():
        return Verdict.NO_OUTPUT, (
            "Your program printed nothing. Is the main block at the end of the file still there "
            "and unchanged (compare with the exercise file), and does your function return its answer "
            "rather than print it?"
        )
    return None, ""


def _signal_name(number: int) -> str:
    import signal

    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown signal"


def _check(case: Case, actual: str, checkers: CheckerRegistry) -> CheckOutcome:
    """The best outcome over the acceptable answers (the first one's message when none fits)."""
    checker = checkers.get(case.checker)
    outcomes = [checker(actual, expected, case.input, case.checker_options) for expected in case.expected]
    for wanted in (Verdict.ACCEPTED, Verdict.PRESENTATION_ERROR):
        for outcome in outcomes:
            if outcome.verdict is wanted:
                return outcome
    return outcomes[0]


def first_difference(expected: str, actual: str) -> Optional[Difference]:
    """The first (line, column) where ``actual`` departs from ``expected``, both 1-based.

    Lines compare as the text checker does (trailing white space ignored); None when equal.
    """
    want, got = significant_lines(expected), significant_lines(actual)
    for number in range(max(len(want), len(got))):
        mine = got[number] if number < len(got) else None
        theirs = want[number] if number < len(want) else None
        if mine == theirs:
            continue
        if mine is None or theirs is None:
            return Difference(line=number + 1, column=1)
        column = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
        return Difference(line=number + 1, column=column + 1)
    return None
