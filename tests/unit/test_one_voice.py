"""The one rule of ``grade/mistakes``: of a failure's explanations, the first whose evidence is there
speaks, and no other (the grader's cause read from the code; else the course's hint; else what the
exception usually means; else the facts). From the facts of runs alone: no program runs here.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from grader.check.registry import generic_checkers
from grader.grade.mistakes import evidence, hints
from grader.grade.verdicts import run_result, with_smaller_input
from grader.model import Case, CaseResult, Conjecture, Hint, Limits, Verdict, When
from grader.run.execute import Program
from grader.run.run_facts import ChildCrash, Frame, RunResult, StackSample

WORKDIR = "/tmp/nim-grader-run-x"
HALVING = """\
import sys


def to_binary(n):
    if n == 0:
        return ""
    return to_binary(n / 2) + str(n % 2)


print(to_binary(int(sys.stdin.read())))
"""
DIVIDING = """\
import sys

rows = [int(x) for x in sys.stdin.read().split()]
print(sum(rows) // (len(rows) - 3))
"""
RETURNS_NOTHING = """\
import json
import sys


def nim_sum(board):
    total = 0
    for row in board:
        total = total ^ row
    if total > 100:
        return total


if __name__ == "__main__":
    print(json.dumps(nim_sum(json.loads(sys.stdin.read()))))
"""
ENDLESS = """\
import sys

board = [int(x) for x in sys.stdin.read().split()]
while True:
    total = 0
"""
HINT = "the course's own words for this case"


def _program(tmp_path: Path, source: str) -> Program:
    path = tmp_path / "task.py"
    path.write_text(source, encoding="utf-8")
    return Program("python3", path, "task.py")


def _case(*hints_: Hint, given: str = "3 4 5\n") -> Case:
    return Case("three rows", given, ("2\n",), "text", {}, Limits(time_s=2.0), hints=tuple(hints_))


def _run(stdout: bytes = b"", **facts) -> RunResult:
    facts = {"exit_code": 0, "signal": None, "time_s": 0.01, **facts}
    return RunResult(stdout=stdout, stderr=b"", stdout_bytes=len(stdout), stderr_bytes=0, workdir=WORKDIR, **facts)


def _crash_run(exception: str, text: str, line: int, function: str = "<module>") -> RunResult:
    return _run(exit_code=1, crash=ChildCrash(exception, True, text, (Frame("task.py", line, function),)))


def _graded(case: Case, run: RunResult, program: Program) -> CaseResult:
    checker = generic_checkers()[case.checker]
    return hints.resolve(evidence.settle([run_result(case, checker, run, None, program, (), "task.py")]))[0]


def test_a_cause_read_from_the_code_speaks_alone_even_where_a_course_hint_is_tied_to_its_exception(tmp_path):
    case = _case(Hint(HINT, When(verdicts=(Verdict.RUNTIME_ERROR,), exception="RecursionError")))
    run = _crash_run("RecursionError", "maximum recursion depth exceeded", 7, "to_binary")
    result = _graded(case, run, _program(tmp_path, HALVING))
    assert "calls itself with n / 2" in result.message
    assert HINT not in result.message and result.hint == ""


def test_a_course_hint_on_the_exception_speaks_instead_of_what_the_exception_usually_means(tmp_path):
    case = _case(Hint(HINT, When(verdicts=(Verdict.RUNTIME_ERROR,), exception="ZeroDivisionError")))
    result = _graded(
        case, _crash_run("ZeroDivisionError", "integer division or modulo by zero", 4), _program(tmp_path, DIVIDING)
    )
    assert f"Hint: {HINT}" in result.message
    assert "divided by zero: check the values" not in result.message


def test_without_a_course_hint_what_the_exception_usually_means_is_said(tmp_path):
    result = _graded(
        _case(), _crash_run("ZeroDivisionError", "integer division or modulo by zero", 4), _program(tmp_path, DIVIDING)
    )
    assert result.message.endswith("Something was divided by zero: check the values before dividing.")


def test_a_function_that_gives_back_none_is_said_alone_not_with_the_courses_hint_for_null(tmp_path):
    case = _case(Hint(HINT, When(output="null")), given="[3, 4, 5]")
    run = _run(b"null\n")
    result = _graded(case, run, _program(tmp_path, RETURNS_NOTHING))
    assert "nim_sum" in result.message and "return" in result.message
    assert HINT not in result.message


@pytest.mark.parametrize("names_the_kind", [False, True], ids=["hint names no kind", "hint names loop"])
def test_a_time_out_told_to_be_a_loop_gets_only_a_hint_that_names_that_kind(tmp_path, names_the_kind):
    when = When(verdicts=(Verdict.TIME_LIMIT_EXCEEDED,), time_out=("loop",) if names_the_kind else ())
    looks = tuple(StackSample((Frame("task.py", 5, "<module>"),), ("s",)) for _ in range(2))
    run = _run(exit_code=None, signal=signal.SIGKILL, time_s=2.0, timed_out=True, stack_samples=looks)
    result = _graded(_case(Hint(HINT, when)), run, _program(tmp_path, ENDLESS))
    assert "in a loop that never ends" in result.message
    assert (HINT in result.message) is names_the_kind


def test_a_confirmed_shift_speaks_alone_not_with_the_courses_hint():
    shift = Conjecture("zero_based", "Rows count from 1: your move would be right as [2, 1].")
    hint = (Hint(HINT, When()), False)
    failed = [
        CaseResult(
            Case(f"board {n}", "[1, 2]", ("[2, 1]",), "text", {}, Limits()),
            Verdict.WRONG_ANSWER,
            "Your move [1, 1] is illegal.",
            failure=("wrong_answer", "kind", f"detail {n}"),
            conjecture=shift,
            hint_choices=(hint,),
        )
        for n in range(3)
    ]
    for result in hints.resolve(evidence.settle(failed)):
        assert "Rows count from 1" in result.message
        assert HINT not in result.message


def test_a_smaller_failing_input_says_its_facts_not_the_explanation_again():
    advice = "Rows count from 1, but Python lists count from 0: row r is board[r - 1]."
    case = Case("random move 2", "[1, 4]", ("[1, 4]",), "text", {}, Limits())
    failed = CaseResult(case, Verdict.RUNTIME_ERROR, f"Your program crashed with IndexError on line 63. {advice}")
    smaller = CaseResult(case, Verdict.RUNTIME_ERROR, f"Your program crashed with IndexError on line 63. {advice}")
    message = with_smaller_input(failed, '{"board": [2]}', smaller).message
    assert message.count(advice) == 1
    assert message.endswith("There: Your program crashed with IndexError on line 63.")
