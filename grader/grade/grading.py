"""Grading: for each case execute → check → ``CaseResult``; for a file, the ``TaskResult``.

Verdicts are decided here from the facts a runner reports (timeouts, exit status, output) and from
the case's checker. A wrong answer is a result, never an exception.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Mapping, Optional, Sequence, Tuple

from grader.check.random_answers import answer_key
from grader.check.registry import CheckerRegistry
from grader.check.text import first_difference, significant_lines
from grader.course import reference
from grader.grade import diagnose, shrink
from grader.grade.quick_feedback import TimeoutGate
from grader.grade.repeats import run_repeats
from grader.model import (
    Case,
    CaseResult,
    CheckOutcome,
    Difference,
    Mistake,
    RunResult,
    Task,
    TaskResult,
    Verdict,
)
from grader.run.execute import Program, Runner, SubprocessRunner
from grader.submission.files import FileRead, Kind, read_files, staged
from grader.submission.problems import all_cases, companion_notes, unusable_file
from grader.submission.source import inspect_source, main_block_advice


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
    course: Optional[Path] = None  # where the exercise files (stubs) are, to compare with
    task_ids: Tuple[str, ...] = ()  # every task of the course (for messages about imports)
    shrink: bool = True  # look for a smaller failing input when a generated case fails
    stop_when_random: bool = True  # a repeated case stops once it has seen min_distinct right answers
    quick_feedback: bool = False  # check only: after two time-outs in a task, its other cases are not_run


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
    companions = [f"{name}.py" for name in task.uses_files]
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
    run_name = f"{task.id}.py"
    usable = [c for c in companions if c.kind is Kind.READ and c.name != run_name]
    notes = companion_notes(shown, companions)
    task = reference.with_answers(task, context)
    if not data.strip():
        notes += ("Your file is empty: start from the exercise file, which has the main block the grader talks to.",)
    todo = [case for case in task.cases if case.name not in known]
    gate = TimeoutGate(task.cases, known, context.quick_feedback)
    with staged({run_name: data, **{c.name: c.data for c in usable}}) as folder:
        program = Program(
            python=context.python,
            script=folder / run_name,
            run_name=run_name,
            companions=tuple(folder / c.name for c in usable),
            own_modules=task.uses_files,
            seed=content_seed([(run_name, data), *((c.name, c.data) for c in usable)]),
        )
        with ThreadPoolExecutor(max_workers=max(1, context.case_jobs or context.jobs)) as pool:
            ran = gate.kept(todo, pool.map(lambda c: gate.run(c, lambda: grade_case(c, program, context, shown)), todo))
        ran = _with_shrunk(task, ran, program, context, shown)
    results = [ran.get(c.name) or known.get(c.name) or gate.not_run(c) for c in task.cases]
    if any(r.verdict is Verdict.NO_OUTPUT for r in results):
        results = _explain_silence(results, data, _stub(context, task))
    return TaskResult(task=task, file=shown, cases=tuple(results), notes=notes)


def content_seed(files: Sequence[Tuple[str, bytes]]) -> str:
    """A submission's seed: a digest of its files (names and bytes), so the same files always get it."""
    digest = hashlib.sha256()
    for name, data in files:
        digest.update(b"%d:%s%d:" % (len(name.encode()), name.encode(), len(data)) + data)
    return digest.hexdigest()


def run_seed(seed: str, case: Case, run_index: int) -> str:
    """One run's seed (``seeded_randomness``): the submission's, the case and the repeat's index.

    The same file gets the same randomness, hence the same marks, on every run and machine;
    repeats of a case each get their own.
    """
    text = f"{seed}\0{case.name}\0{case.input}\0{run_index}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


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
        if found is not None:
            smaller, outcome = found
            message = f"{result.message} A smaller input that fails too: {smaller.strip()!r}. There: {outcome.message}"
            result = replace(result, message=message)
        shrunk[name] = result
    return shrunk


def _stub(context: GradingContext, task: Task) -> Optional[bytes]:
    if context.course is None:
        return None
    try:
        return (context.course / "exercises" / f"{task.id}.py").read_bytes()
    except OSError:
        return None


def _explain_silence(results, data: bytes, stub: Optional[bytes]) -> list:
    """Cases with no output get the reason when the main block is missing or changed."""
    advice = main_block_advice(data, stub)
    if not advice:
        return results
    return [replace(r, message=advice) if r.verdict is Verdict.NO_OUTPUT else r for r in results]


def grade_case(case: Case, program: Program, context: GradingContext, shown: str, parallel_runs: int = 1) -> CaseResult:
    """Run ``program`` on one case (up to ``repeat`` times, up to ``parallel_runs`` at once) and decide.

    Every run is checked, and the first run that is not accepted decides. With ``min_distinct``,
    the runs stop as soon as that many different right answers have appeared (``repeats``); a
    program that gives fewer over all ``repeat`` runs gets wrong_answer.
    """
    checker = context.checkers.get(case.checker)

    def one(run_index: int) -> CaseResult:
        return _one_run(case, checker, program, context, shown, run_index)

    results = run_repeats(one, case, parallel_runs, context.stop_when_random)
    for run, result in enumerate(results, start=1):
        if not result.accepted:
            if case.repeat > 1 and not case.hidden:
                result = replace(result, message=f"Run {run} of {case.repeat}: {result.message}")
            return result
    result = results[-1]
    if case.min_distinct <= 1:
        return result  # (an answer's key would re-read outputs of megabytes for nothing)
    distinct = sorted({answer_key(r.actual) for r in results})
    if len(distinct) < case.min_distinct:
        if case.hidden:
            message = _hidden_message(Verdict.WRONG_ANSWER, answer_found=False)
        else:
            message = (
                f"All {case.repeat} runs gave a right answer, but only {len(distinct)} different "
                f"one{'s' if len(distinct) != 1 else ''} ({', '.join(distinct[:5])}); this case has several "
                f"right answers and needs at least {case.min_distinct} different ones over the runs. Choose "
                "at random among all the right answers (for example with random.choice)."
            )
        if case.hint:
            message = f"{message} Hint: {case.hint}"
        return replace(result, verdict=Verdict.WRONG_ANSWER, message=message)
    return result


def _one_run(
    case: Case, checker, program: Program, context: GradingContext, shown: str, run_index: int = 0
) -> CaseResult:
    """One run of ``program`` on ``case`` (the ``run_index``-th of its repeats, from 0), checked."""
    program = replace(program, seed=run_seed(program.seed, case, run_index))
    if checker.interactive:
        session = checker.function(**case.checker_options)
        run = context.runner.interact(program, session, case.limits)
    else:
        session = None
        run = context.runner.run(program, case.input.encode("utf-8"), case.limits)
    actual, note = _decode(run.stdout)
    if run.output_limit_hit:
        note = (
            f"Your program printed at least {run.stdout_bytes:,} bytes before it was stopped; only the "
            "start and the end are shown. " + note
        )
    stderr, _ = _decode(run.stderr)
    hint_applies = True
    answer_found = False  # the right answer is among other lines the program printed
    difference = None
    if session is not None:
        actual = session.transcript
        problem = session.outcome(run)
        if problem is not None:
            verdict, message = problem.verdict, problem.message
            difference = Difference(line=problem.line, column=0)  # the whole line
        else:
            verdict, message, hint_applies = _run_verdict(run, stderr, case, program, context)
            verdict = verdict or Verdict.ACCEPTED
    else:
        verdict, message, hint_applies = _run_verdict(run, stderr, case, program, context)
        if verdict is None:
            outcome = _check(case, actual, checker)
            verdict, message = outcome.verdict, outcome.message
            answer_found = outcome.answer_found
            hint_applies = not outcome.answer_found and verdict is not Verdict.PRESENTATION_ERROR
    if case.hidden and verdict is not Verdict.ACCEPTED:
        crash = diagnose.find_crash(stderr, run.workdir) if verdict is Verdict.RUNTIME_ERROR else None
        message = _hidden_message(
            verdict, answer_found, crash=crash.exception if crash else "", printed=bool(run.stdout.strip())
        )
    known = _known_mistake(case, actual) if verdict is not Verdict.ACCEPTED else None
    if known is not None:
        message = f"{message} This is a common mistake: {known.hint}"
        hint_applies = False
    if case.hint and hint_applies and verdict is not Verdict.ACCEPTED:
        message = f"{message} Hint: {case.hint}"
    expected = case.expected[0] if case.expected else ""
    if difference is None and verdict is not Verdict.ACCEPTED and case.expected:
        difference = first_difference(expected, actual)
    return CaseResult(
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
    )


def _known_mistake(case: Case, actual: str) -> Optional[Mistake]:
    """The first of the case's known mistakes that this output matches."""
    if not actual.strip():
        return None
    normal = "\n".join(significant_lines(actual))
    for mistake in case.mistakes:
        if mistake.output is not None and normal == "\n".join(significant_lines(mistake.output)):
            return mistake
        if mistake.pattern is not None and re.search(mistake.pattern, actual):
            return mistake
    return None


def _hidden_message(verdict: Verdict, answer_found: bool, crash: str = "", printed: bool = False) -> str:
    """What a hidden case may say: the kind of failure, never its input or expected output.

    ``answer_found``: the right answer was among other lines printed; ``crash``: the exception a
    crash ended with; ``printed``: the program printed something before it stopped.
    """
    if answer_found:
        return (
            "This hidden case was not accepted: your program printed other lines besides the "
            "answer (leftover debug prints?)."
        )
    if verdict is Verdict.RUNTIME_ERROR and crash:
        before = "before it finished its answer" if printed else "before it printed an answer"
        return f"This hidden case was not accepted: your program stopped with an error ({crash}) {before}."
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


def _source_text(source: str, line: int) -> str:
    lines = source.splitlines()
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return f" ({text})" if text else ""


def _run_verdict(run: RunResult, stderr: str, case: Case, program: Program, context: GradingContext):
    """(verdict, message, hint_applies) when the run itself failed, or (None, "", True) when its
    output is to be checked. ``hint_applies`` is False where the case's hint would be noise (a
    crash caused by how the file is set up, not by the case's logic)."""
    limits = case.limits
    if run.timed_out:
        file, line = diagnose.stopped_at(stderr, run.workdir)
        stopped = f"Your program was stopped after {limits.time_s:g} seconds (the time limit for this case)"
        if line:
            path = _file_of(program, file)
            source = _read_source(path) if path is not None else ""
            of = f" of {file}" if file != program.run_name else ""
            return (
                Verdict.TIME_LIMIT_EXCEEDED,
                f"{stopped} while running line {line}{of}{_source_text(source, line)}: is that inside a loop "
                "that never ends?",
                True,
            )
        return (
            Verdict.TIME_LIMIT_EXCEEDED,
            f"{stopped}. Is it waiting for more input than the case gives, or in a loop that never ends?",
            True,
        )
    if run.output_limit_hit:
        return (
            Verdict.OUTPUT_LIMIT_EXCEEDED,
            f"Your program printed more than {limits.output_bytes:,} bytes (the output limit) and was "
            "stopped. Is there a print inside a loop that never ends?",
            True,
        )
    if run.stderr_limit_hit:
        return (
            Verdict.OUTPUT_LIMIT_EXCEEDED,
            f"Your program wrote more than {limits.stderr_bytes:,} bytes to its error output (the error "
            "output limit) and was stopped. Is something printing to sys.stderr, or warning, in a loop?",
            True,
        )
    if diagnose.is_memory_error(stderr):
        return (
            Verdict.MEMORY_LIMIT_EXCEEDED,
            f"Your program ran out of memory (the limit is {limits.memory_mib} MiB). Is it building a "
            "list that keeps growing, or a very large number of copies of the board?",
            True,
        )
    if run.exit_code != 0:
        crash = diagnose.find_crash(stderr, run.workdir)
        if crash is not None:
            limit = diagnose.limit_hint(crash, limits)
            if limit:
                return (
                    Verdict.RUNTIME_ERROR,
                    f"{limit} {diagnose.crash_message(crash, run_name=program.run_name)}",
                    False,
                )
            message = diagnose.crash_message(crash, program.own_modules, context.task_ids, program.run_name)
            return Verdict.RUNTIME_ERROR, message, crash.exception not in diagnose.SETUP_CRASHES
        if run.signal == getattr(signal, "SIGXCPU", None):
            return (
                Verdict.TIME_LIMIT_EXCEEDED,
                f"Your program used more than {int(limits.time_s) + 1} seconds of processor time (the CPU "
                "time limit). Is there a loop that never ends?",
                True,
            )
        if run.signal is not None:
            return (
                Verdict.RUNTIME_ERROR,
                f"Your program was stopped by signal {run.signal} ({_signal_name(run.signal)}).",
                True,
            )
        return (
            Verdict.RUNTIME_ERROR,
            f"Your program ended with exit status {run.exit_code} instead of 0. "
            "Do not call sys.exit() or exit() with a number; let the program end normally.",
            True,
        )
    if not run.stdout or run.stdout.isspace():
        return (
            Verdict.NO_OUTPUT,
            "Your program printed nothing. Is the main block at the end of the file still there "
            "and unchanged (compare with the exercise file), and does your function return its answer "
            "rather than print it?",
            False,
        )
    return None, "", True


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown signal"


def _check(case: Case, actual: str, checker) -> CheckOutcome:
    """The best outcome over the acceptable answers (the first one's message when none fits)."""
    outcomes = [checker(actual, expected, case.input, case.checker_options) for expected in case.expected or ("",)]
    for wanted in (Verdict.ACCEPTED, Verdict.PRESENTATION_ERROR):
        for outcome in outcomes:
            if outcome.verdict is wanted:
                return outcome
    return outcomes[0]
