"""Verdicts: the facts of a case's runs → its ``CaseResult``, with the sentence that says why.

``run_result`` decides one run from what the runner reported (time-out, limits, exit status, what
was printed, an interactive session's outcome) and the case's checker; ``repeats_result`` decides
a case from its runs in order; ``explain_silence`` says why cases printed nothing, and
``with_smaller_input`` adds the smaller failing input that shrinking found. A failed run keeps the
course's hints whose conditions on it hold (``hints.choices``); which one its message ends with is
chosen once every case of the file is graded (``hints.resolve``). Every message is
for a first-year student: what happened and what to fix (a hidden case's result leaves grading
concealed: ``CaseResult.concealed``). How a program crashed, where it was at the time limit and a
rule it broke come from the records of the process that ran it (``RunResult.crash``...), never
from its standard error. Nothing here runs a program (the student's staged file is read only to quote the line a
time-out stopped on, and to tell a loop that never ends from slow work: ``time_outs``).
"""

from __future__ import annotations

import signal
from dataclasses import replace
from pathlib import Path
from typing import Mapping, Optional, Sequence, Tuple

from grader.check.random_answers import answer_key
from grader.check.registry import Checker, OutputChecker
from grader.check.text import first_difference
from grader.grade import diagnose
from grader.grade.mistakes import companion_cause, evidence, hints, time_outs
from grader.grade.mistakes.returns import returns_nothing_message
from grader.model import Case, CaseResult, CheckOutcome, Difference, Verdict
from grader.rules.static_check import rule_message
from grader.run.child.child_program import RULE_BROKEN
from grader.run.execute import Program
from grader.run.run_clock import wall_backstop
from grader.run.run_facts import RuleBreak, RunResult
from grader.run.streams import Session
from grader.submission.source import main_block_advice


def run_result(
    case: Case,
    checker: Optional[Checker],
    run: RunResult,
    session: Optional[Session],
    program: Program,
    task_ids: Sequence[str],
    shown: str,
    functions: Mapping[str, Tuple[str, ...]] = {},
) -> CaseResult:
    """One run of ``program`` on ``case``, decided: its verdict, message and what the report shows.

    ``checker`` is the case's registry entry; ``session`` the interactive session the run talked to
    (None for a fixed input); ``task_ids`` every task of the course (for messages about imports);
    ``shown`` how the student's file is named to them; ``functions`` the functions the course's
    exercise files ask for (``crash_causes.exercise_functions``), for the advice on a crash.
    """
    actual, note = _decode(run.stdout)
    if run.output_limit_hit:
        note = (
            f"Your program printed at least {run.stdout_bytes:,} bytes before it was stopped; only the "
            "start and the end are shown. " + note
        )
    stderr, _ = _decode(run.stderr)
    hint_applies = True
    advice = ""
    difference = None
    conjecture = None
    if session is not None:
        actual = session.transcript
        problem = session.outcome(run)
        if problem is not None:
            verdict, message = problem.verdict, problem.message
            difference = Difference(line=problem.line, column=0)  # the whole line
            source = _student_source(program, program.run_name)
            companions = tuple(path.name for path in program.companions)
            about = getattr(problem, "about", "")  # the function of another exercise it is about, if any
            named = companion_cause.named(message, about, source, companions, program.run_name)
            hint_applies = named == message  # the cause is in another file: a hint about this case is noise
            message = named
        else:
            verdict, message, hint_applies, advice = _run_verdict(run, case, program, task_ids, functions)
            verdict = verdict or Verdict.ACCEPTED
    else:
        verdict, message, hint_applies, advice = _run_verdict(run, case, program, task_ids, functions)
        if verdict is None:
            outcome = _check(case, actual, checker)
            verdict, message, conjecture = outcome.verdict, outcome.message, outcome.conjecture
            hint_applies = not outcome.answer_found
    if session is None and verdict is Verdict.WRONG_ANSWER:
        # None printed where an answer was due: name the function that returned nothing, and why
        source = _student_source(program, program.run_name)
        nothing, _ = returns_nothing_message(source, case.input, actual, case.expected)
        if nothing:  # the grader names the cause (a function that gives back None): it speaks alone
            message, hint_applies = nothing, False
            conjecture = None
    crash = run.crash if verdict is Verdict.RUNTIME_ERROR else None
    time_out = time_out_kind(run, program) if verdict is Verdict.TIME_LIMIT_EXCEEDED else ""
    choices = hints.choices(case, verdict, actual, crash, time_out) if hint_applies else ()
    if advice and not choices:  # no course hint can speak: what the exception usually means does
        message, advice = f"{message} {advice}", ""
    expected = case.expected[0] if case.expected else ""
    if difference is None and verdict is not Verdict.ACCEPTED and case.expected:
        difference = first_difference(expected, actual)
    result = CaseResult(
        case=case,
        verdict=verdict,
        message=message,
        time_s=round(run.time_s, 4),
        actual=actual,
        stderr=diagnose.student_traceback(stderr, run.workdir, shown, program.run_name),
        expected=expected,
        difference=difference,
        actual_note=note,
        game=session is not None,
        hint_choices=choices,
        failure=evidence.failure_key(verdict, message, crash),
        conjecture=conjecture,
        advice=advice,
    )
    return hints.decided(result)


def repeats_result(case: Case, results: Sequence[CaseResult]) -> CaseResult:
    """A case decided from its runs in run order (``repeats.run_repeats``).

    The first run that is not accepted decides. With ``min_distinct``, a program that gave fewer
    different right answers over its runs gets wrong_answer.
    """
    for run, result in enumerate(results, start=1):
        if not result.accepted:
            if case.repeat > 1:
                result = replace(result, message=f"Run {run} of {case.repeat}: {result.message}")
            return result
    result = results[-1]
    if case.min_distinct <= 1:
        return result  # (an answer's key would re-read outputs of megabytes for nothing)
    distinct = sorted({answer_key(r.actual) for r in results})
    if len(distinct) < case.min_distinct:
        message = (
            f"All {case.repeat} runs gave a right answer, but only {len(distinct)} different "
            f"one{'s' if len(distinct) != 1 else ''} ({', '.join(distinct[:5])}); this case has several "
            f"right answers and needs at least {case.min_distinct} different ones over the runs. Choose "
            "at random among all the right answers (for example with random.choice)."
        )
        # a wrong answer over the runs as a whole: no one output to look at, so hints tied to one do not apply
        choices = hints.choices(case, Verdict.WRONG_ANSWER, None, None)
        failure = evidence.failure_key(Verdict.WRONG_ANSWER, message)
        result = replace(result, verdict=Verdict.WRONG_ANSWER, message=message, hint_choices=choices, failure=failure)
        return hints.decided(result)
    return result


def explain_silence(results: Sequence[CaseResult], data: bytes, stub: Optional[bytes]) -> list:
    """Cases with no output get the reason when the main block is missing or changed.

    ``data`` is the submitted file, ``stub`` the exercise file it started from (None if unknown).
    """
    advice = main_block_advice(data, stub)
    if not advice:
        return list(results)
    return [replace(r, message=advice) if r.verdict is Verdict.NO_OUTPUT else r for r in results]


def with_smaller_input(result: CaseResult, smaller: str, outcome: CaseResult) -> CaseResult:
    """``result`` (a failed generated case) with the smaller failing input that shrinking found,
    and what went wrong there (``outcome``), added to its message: its facts, without the sentences
    it ends with that ``result``'s message ends with too (it fails the same way: its explanation is
    the one already said)."""
    there = _without_shared_end(outcome.message, result.message)
    message = f"{result.message} A smaller input that fails too: {smaller.strip()!r}. There: {there}"
    return replace(result, message=message)


def _without_shared_end(message: str, other: str) -> str:
    """``message`` without its last sentences where ``other`` ends with the same ones (its first
    sentence is always kept)."""
    for start in (index + 2 for index in range(len(message) - 1) if message[index : index + 2] == ". "):
        if other.endswith(message[start:]):
            return message[:start].rstrip()
    return message


def _decode(data: bytes):
    """Bytes → text; undecodable bytes become U+FFFD and a note says so."""
    try:
        return data.decode("utf-8"), ""
    except UnicodeDecodeError:
        return (
            data.decode("utf-8", errors="replace"),
            "Your program printed bytes that are not UTF-8 text; they are shown as \ufffd.",
        )


def _read_source(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _file_of(program: Program, name: str) -> Optional[Path]:
    """The student's file that is ``name`` in the run folder: the program itself, a companion, or
    None (a file the program wrote itself)."""
    if name == program.run_name:
        return program.script
    return next((path for path in program.companions if path.name == name), None)


def _student_source(program: Program, name: str) -> str:
    """The text of the student's file ``name`` (as in the run folder), "" for any other file."""
    path = _file_of(program, name)
    return _read_source(path) if path is not None else ""


def broken_rule_message(broken: RuleBreak, program: Program, hidden: bool = False) -> str:
    """The sentence for a rule of the task broken while the program ran, as the static check says it.

    From a hidden case it names no line: where a program breaks a rule is its own choice, and could
    tell the case's input.
    """
    if not 0 <= broken.index < len(program.rules):
        return "Your program broke a rule of this exercise while it ran."
    rule = program.rules[broken.index]
    if hidden:
        return rule_message(rule, 0) + " (Found while it ran a hidden case.)"
    other = broken.file if broken.file and broken.file != program.run_name else ""
    text = rule_message(rule, broken.line, other)
    source = _source_text(_student_source(program, broken.file or program.run_name), broken.line)
    return f"{text} (Found while it ran{': ' + source.strip(' ()') if source else ''}.)"


def _source_text(source: str, line: int) -> str:
    lines = source.splitlines()
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return f" ({text})" if text else ""


def _run_verdict(
    run: RunResult, case: Case, program: Program, task_ids: Sequence[str], functions: Mapping[str, Tuple[str, ...]]
):
    """(verdict, message, hint_applies, advice) when the run itself failed, or (None, "", True, "")
    when its output is to be checked. ``hint_applies`` is False where the grader's message names the
    cause (a crash's, read from the code; a rule broken) or a course's hint would be noise (a crash
    caused by how the file is set up); ``advice`` is what the crash's exception usually means, said
    only where no course hint speaks (``mistakes/hints.resolve``)."""
    limits = case.limits
    if run.rule_broken is not None:
        return Verdict.RULE_VIOLATION, broken_rule_message(run.rule_broken, program, case.hidden), False, ""
    if program.rules and run.exit_code == RULE_BROKEN:  # its record lost: the program closed its channel
        return Verdict.RULE_VIOLATION, "Your program broke a rule of this exercise while it ran.", False, ""
    if run.memory_exceeded:
        return (
            Verdict.MEMORY_LIMIT_EXCEEDED,
            f"Your program and the processes it started used more than {limits.memory_mib} MiB of memory "
            "together (the memory limit is for the whole run) and were stopped. Does it start processes, "
            "or build a list that keeps growing?",
            True,
            "",
        )
    if run.timed_out and run.waited:  # the wall-clock backstop: it slept or waited, it did not compute
        return (
            Verdict.TIME_LIMIT_EXCEEDED,
            f"Your program was stopped after {wall_backstop(limits.time_s):g} seconds on the clock, in which it "
            f"used only {run.time_s:.2f} seconds of processor time (the limit is {limits.time_s:g}): it was "
            "sleeping or waiting for something. Does it call time.sleep, or wait for input the case never gives?",
            True,
            "",
        )
    if run.timed_out:
        return Verdict.TIME_LIMIT_EXCEEDED, _time_out_message(run, limits.time_s, program), True, ""
    if run.output_limit_hit:
        return (
            Verdict.OUTPUT_LIMIT_EXCEEDED,
            f"Your program printed more than {limits.output_bytes:,} bytes (the output limit) and was "
            "stopped. Is there a print inside a loop: one left from debugging, or in a loop that does not end?",
            True,
            "",
        )
    if run.stderr_limit_hit:
        return (
            Verdict.OUTPUT_LIMIT_EXCEEDED,
            f"Your program wrote more than {limits.stderr_bytes:,} bytes to its error output (the error "
            "output limit) and was stopped. Is something printing to sys.stderr, or warning, in a loop?",
            True,
            "",
        )
    if diagnose.is_memory_error(run.crash):
        return (
            Verdict.MEMORY_LIMIT_EXCEEDED,
            f"Your program ran out of memory (the limit is {limits.memory_mib} MiB). Is it building a "
            "list that keeps growing, or a very large number of copies of the board?",
            True,
            "",
        )
    if run.exit_code != 0:
        crash = diagnose.crash_of(run.crash, lambda name: _student_source(program, name))
        if crash is not None:
            limit = diagnose.limit_hint(crash, limits)
            if limit:
                return (
                    Verdict.RUNTIME_ERROR,
                    f"{limit} {diagnose.crash_said(crash, run_name=program.run_name).whole}",
                    False,
                    "",
                )
            # the input's shape may be told of a visible case only (a hidden one shows nothing of its input)
            board = None if case.hidden else diagnose.input_board(case.input)
            said = diagnose.crash_said(crash, program.own_modules, task_ids, program.run_name, board, functions)
            if said.cause or diagnose.is_setup_crash(crash):  # the grader names the cause: it speaks alone
                return Verdict.RUNTIME_ERROR, said.whole, False, ""
            return Verdict.RUNTIME_ERROR, said.facts, True, said.advice
        if run.signal == getattr(signal, "SIGXCPU", None):
            return (
                Verdict.TIME_LIMIT_EXCEEDED,
                f"Your program used more than {limits.cpu_seconds} seconds of processor time (the CPU "
                "time limit) and was stopped.",
                True,
                "",
            )
        if run.signal is not None:
            return (
                Verdict.RUNTIME_ERROR,
                f"Your program was stopped by signal {run.signal} ({_signal_name(run.signal)}).",
                True,
                "",
            )
        return (
            Verdict.RUNTIME_ERROR,
            f"Your program ended with exit status {run.exit_code} instead of 0. "
            "Do not call sys.exit() or exit() with a number; let the program end normally.",
            True,
            "",
        )
    if not run.stdout or run.stdout.isspace():
        return (
            Verdict.NO_OUTPUT,
            "Your program printed nothing. Is the main block at the end of the file still there "
            "and unchanged (compare with the exercise file), and does your function return its answer "
            "rather than print it?",
            False,
            "",
        )
    return None, "", True, ""


def time_out_kind(run: RunResult, program: Program) -> str:
    """What the looks at a run stopped at its time limit show (``time_outs.examine``: ``loop``,
    ``slow``, ``unclear``); "" for a run that waited rather than computed."""
    if not run.timed_out or run.waited:
        return ""
    return time_outs.examine(run.stack_samples, lambda name: _student_source(program, name)).kind


def _time_out_message(run: RunResult, time_s: float, program: Program) -> str:
    """The sentence for a run stopped at its time limit: the facts (the limit, the line it was on),
    and what the looks at it show when they tell a loop from slow work (``time_outs``)."""
    at = run.stack_at_stop[0] if run.stack_at_stop else None
    found = time_outs.examine(run.stack_samples, lambda name: _student_source(program, name))
    where = ""
    if at is not None and at.line:
        of = f" of {at.file}" if at.file != program.run_name else ""
        where = f" while running line {at.line}{of}{_source_text(_student_source(program, at.file), at.line)}"
    seconds = f"{time_s:g} second{'' if time_s == 1 else 's'} of processor time"
    if found.kind == time_outs.SLOW:
        return (
            f"Your program did not finish within {seconds} on this input (the time limit for this case); it was "
            f"stopped{where}. {found.sentence}"
        )
    stopped = f"Your program was stopped after {seconds} (the time limit for this case)"
    if found.kind == time_outs.LOOP:
        return f"{stopped}{where}, in a loop that never ends: {found.sentence}."
    return f"{stopped}{where}."


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown signal"


def _check(case: Case, actual: str, checker: Optional[Checker]) -> CheckOutcome:
    """The best outcome over the acceptable answers (the first one's message when none fits)."""
    if not isinstance(checker, OutputChecker):  # a game's run comes with its session
        raise TypeError(f"the case '{case.name}' was run without the session of its checker '{case.checker}'")
    outcomes = [checker(actual, expected, case.input, case.checker_options) for expected in case.expected or ("",)]
    for wanted in (Verdict.ACCEPTED, Verdict.PRESENTATION_ERROR):
        for outcome in outcomes:
            if outcome.verdict is wanted:
                return outcome
    return outcomes[0]
