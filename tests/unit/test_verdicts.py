"""The verdict rules, from the facts of a run alone: no program runs here.

Each row is what a runner could report (exit, signal, outputs, limits hit) and what the student
must then read: the verdict and words of the sentence. The rules are applied in order: a time-out
before a flood, a flood before a crash, a crash before an empty output, and only then the checker.
"""

from __future__ import annotations

import signal
from dataclasses import replace
from pathlib import Path

import pytest

from grader.check.registry import generic_checkers
from grader.grade.mistakes import hints
from grader.grade.verdicts import run_result
from grader.model import Case, CaseResult, Limits, Rule, Task, TaskResult, Verdict
from grader.run.child.child_program import RULE_BROKEN
from grader.run.execute import Program
from grader.run.run_facts import ChildCrash, Frame, RunResult

WORKDIR = "/tmp/nim-grader-run-x"
CASE = Case("three rows", "3 4 5\n", ("2\n",), "text", {}, Limits(time_s=2.0), hint="XOR the rows.")
PROGRAM = Program("python3", Path("/nowhere/nim_sum.py"), "nim_sum.py")
TRACEBACK = (
    "Traceback (most recent call last):\n"
    f'  File "{WORKDIR}/nim_sum.py", line 7, in <module>\n'
    "    print(total / 0)\n"
    "ZeroDivisionError: division by zero\n"
)


CRASH = ChildCrash("ZeroDivisionError", True, "division by zero", (Frame("nim_sum.py", 7, "<module>"),))


def _run(stdout=b"", stderr=b"", exit_code=0, signal_number=None, **facts) -> RunResult:
    return RunResult(
        exit_code=exit_code,
        signal=signal_number,
        stdout=stdout,
        stderr=stderr,
        stdout_bytes=len(stdout),
        stderr_bytes=len(stderr),
        time_s=0.01,
        workdir=WORKDIR,
        **facts,
    )


ROWS = [
    # (what happened, the run, verdict, words the message must hold)
    ("the right answer", _run(b"2\n"), Verdict.ACCEPTED, []),
    ("a wrong answer, with the case's hint", _run(b"12\n"), Verdict.WRONG_ANSWER, ["XOR the rows."]),
    ("trailing spaces and blank lines", _run(b"2  \n\n"), Verdict.ACCEPTED, []),
    ("a space before the answer", _run(b" 2\n"), Verdict.PRESENTATION_ERROR, ["spacing differs on line 1"]),
    ("nothing printed", _run(b""), Verdict.NO_OUTPUT, ["printed nothing", "main block"]),
    ("only blank lines", _run(b"\n \n"), Verdict.NO_OUTPUT, ["printed nothing"]),
    (
        "out of time, even after the right answer",
        _run(b"2\n", timed_out=True, exit_code=None, signal_number=signal.SIGKILL),
        Verdict.TIME_LIMIT_EXCEEDED,
        ["stopped after 2 seconds of processor time (the time limit for this case)."],
    ),
    (
        "a flood of output",
        _run(b"2\n" * 10, output_limit_hit=True, exit_code=None, signal_number=signal.SIGKILL),
        Verdict.OUTPUT_LIMIT_EXCEEDED,
        ["more than 1,000,000 bytes", "print inside a loop"],
    ),
    (
        "a flood on the error output",
        _run(b"2\n", stderr_limit_hit=True, exit_code=None, signal_number=signal.SIGKILL),
        Verdict.OUTPUT_LIMIT_EXCEEDED,
        ["error output limit"],
    ),
    (
        "a crash after the right answer",
        _run(b"2\n", TRACEBACK.encode(), exit_code=1, crash=CRASH),
        Verdict.RUNTIME_ERROR,
        ["ZeroDivisionError", "line 7"],
    ),
    (
        "a traceback printed by the program itself is no crash: the record says how it ended",
        _run(b"2\n", TRACEBACK.encode(), exit_code=1),
        Verdict.RUNTIME_ERROR,
        ["exit status 1"],
    ),
    (
        "out of memory",
        _run(b"", exit_code=1, crash=ChildCrash("MemoryError", builtin=True)),
        Verdict.MEMORY_LIMIT_EXCEEDED,
        ["512 MiB"],
    ),
    (
        "a class of the program's own named MemoryError is a crash like any other",
        _run(b"", exit_code=1, crash=ChildCrash("MemoryError", builtin=False, frames=CRASH.frames)),
        Verdict.RUNTIME_ERROR,
        ["MemoryError", "line 7"],
    ),
    (
        "the run's processes together over the memory limit",
        _run(b"", exit_code=None, signal_number=signal.SIGKILL, memory_exceeded=True),
        Verdict.MEMORY_LIMIT_EXCEEDED,
        ["512 MiB", "together"],
    ),
    (
        "out of time: the line it was on, from the stack the program's process wrote",
        _run(b"", timed_out=True, exit_code=None, signal_number=signal.SIGKILL, stack_at_stop=CRASH.frames),
        Verdict.TIME_LIMIT_EXCEEDED,
        ["line 7"],
    ),
    (
        "the CPU time limit",
        _run(b"", exit_code=None, signal_number=signal.SIGXCPU),
        Verdict.TIME_LIMIT_EXCEEDED,
        ["more than 3 seconds of processor time"],
    ),
    (
        "killed by another signal",
        _run(b"2\n", exit_code=None, signal_number=signal.SIGSEGV),
        Verdict.RUNTIME_ERROR,
        ["signal 11 (SIGSEGV)"],
    ),
    ("a right answer, then exit(3)", _run(b"2\n", exit_code=3), Verdict.RUNTIME_ERROR, ["exit status 3"]),
]


def test_a_rule_broken_whose_record_was_lost_is_still_a_rule_violation():
    """A program that closed its channel before breaking a rule: its exit status says enough."""
    ruled = replace(PROGRAM, rules=(Rule("name", "bin"),))
    run = _run(b"", exit_code=RULE_BROKEN)
    result = run_result(CASE, generic_checkers().get("text"), run, None, ruled, (), "nim_sum.py")
    assert result.verdict is Verdict.RULE_VIOLATION and "broke a rule" in result.message
    plain = run_result(CASE, generic_checkers().get("text"), run, None, PROGRAM, (), "nim_sum.py")
    assert plain.verdict is Verdict.RUNTIME_ERROR  # a task without rules: that status is no rule


@pytest.mark.parametrize("run, verdict, words", [row[1:] for row in ROWS], ids=[row[0] for row in ROWS])
def test_a_run_gets_the_verdict_its_facts_call_for(run, verdict, words):
    result = run_result(CASE, generic_checkers().get("text"), run, None, PROGRAM, ("nim_sum",), "nim_sum.py")
    (result,) = hints.resolve([result])  # its hint chosen, as once every case of the file is graded
    assert result.verdict is verdict, result.message
    for word in words:
        assert word in result.message
    if verdict is Verdict.ACCEPTED:
        assert result.message == "" and result.difference is None


def test_a_hidden_case_tells_the_kind_of_mistake_and_its_hint_but_not_the_case():
    hidden = Case("secret", "9 9\n", ("0\n",), "text", {}, Limits(), hidden=True, hint="Empty rows count too.")
    task = Task("nim_sum", "Nim sum", (hidden,))
    graded = run_result(hidden, generic_checkers().get("text"), _run(b"18\n"), None, PROGRAM, (), "nim_sum.py")
    (graded,) = hints.resolve([graded])  # a plain hint is chosen once every case of the file is graded
    (result,) = TaskResult(task, "nim_sum.py", (graded,)).cases
    assert result.verdict is Verdict.WRONG_ANSWER
    assert (
        result.message
        == "This hidden case was not accepted: your program gave a wrong answer. Hint: Empty rows count too."
    )
    assert (result.actual, result.stderr, result.expected, result.time_s, result.difference) == ("", "", "", 0.0, None)
    # a crash gets no hint about the logic: the plain hint explains a wrong answer only
    run = _run(b"18\n", TRACEBACK.replace("division by zero", "9 9").encode(), exit_code=1, crash=CRASH)
    graded = run_result(hidden, generic_checkers().get("text"), run, None, PROGRAM, (), "nim_sum.py")
    (result,) = TaskResult(task, "nim_sum.py", (graded,)).cases
    assert result.verdict is Verdict.RUNTIME_ERROR
    assert result.message == "This hidden case was not accepted: your program crashed."


@pytest.mark.parametrize("verdict", [v for v in Verdict if v not in (Verdict.ACCEPTED, Verdict.NOT_RUN)])
def test_a_hidden_case_has_one_fixed_sentence_per_verdict_whatever_the_run(verdict):
    hidden = Case("secret", "1 2\n", ("3\n",), "text", {}, Limits(), hidden=True)
    shown = CaseResult(hidden, verdict, "your input was 1 2", time_s=1.234, actual="1 2", stderr="1 2")
    (result,) = TaskResult(Task("t", "t", (hidden,)), "t.py", (shown,)).cases
    assert result.message.startswith("This hidden case was not")
    assert "1 2" not in result.message and result.time_s == 0.0 and not result.actual and not result.stderr


def test_a_crash_shows_the_students_own_traceback_with_the_run_folder_left_out():
    result = run_result(
        CASE, generic_checkers().get("text"), _run(b"", TRACEBACK.encode(), 1), None, PROGRAM, (), "s.py"
    )
    assert WORKDIR not in result.stderr
    assert 'File "s.py", line 7' in result.stderr
