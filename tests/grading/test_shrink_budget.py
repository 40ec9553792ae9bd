"""Shrinking a failed generated case costs little: only failures a smaller input can explain
quickly are shrunk, within a budget of run time per file, and a loop is never run again.

Costs are counted in runs of the student's program (a counting runner around the real one), never
in seconds measured by the test.
"""

from __future__ import annotations

import json
import threading
from dataclasses import replace

import pytest

from grader.course.generators import render
from grader.grade.grading import grade_file
from grader.model import Generated, Verdict


class CountingRunner:
    """A runner that counts the runs of the student's program (not the reference's), around a real one."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.runs = 0
        self.reference_runs = 0
        self._lock = threading.Lock()

    def _count(self, program) -> None:
        with self._lock:
            if program.trusted:
                self.reference_runs += 1
            else:
                self.runs += 1

    def run(self, program, stdin, limits):
        self._count(program)
        return self.inner.run(program, stdin, limits)

    def interact(self, program, session, limits):
        self._count(program)
        return self.inner.interact(program, session, limits)

    def protections(self, python):
        return self.inner.protections(python)


def board_case(course, board, name, time_s):
    """A visible generated nim_sum case on ``board`` (its answer from the reference solution)."""
    base = next(c for c in course["nim_sum"].cases if c.generated is not None)
    fields = {
        "board": board,
        "board_json": json.dumps(board),
        "board_spaced": " ".join(map(str, board)),
        "rows": len(board),
    }
    template = base.generated.template
    return replace(
        base,
        name=name,
        input=render(template, fields) + "\n",
        expected=(),
        hidden=False,
        hint="",
        mistakes=(),
        limits=replace(base.limits, time_s=time_s),
        generated=Generated(base.generated.generator, json.dumps(fields), template),
    )


def grade_with_count(tmp_path, course, context, source, cases):
    """Grade ``source`` as nim_sum.py on ``cases`` only: (TaskResult, the counting runner)."""
    task = replace(course["nim_sum"], cases=tuple(cases))
    path = tmp_path / "nim_sum.py"
    path.write_text(source, encoding="utf-8")
    counting = CountingRunner(context.runner)
    result = grade_file(task, path, replace(context, runner=counting, jobs=1))
    return result, counting


def shrunk_part(message: str):
    """(the smaller input shown, what happened on it) from a case's message, or None."""
    if "A smaller input that fails too: " not in message:
        return None
    rest = message.split("A smaller input that fails too: ", 1)[1]
    shown, there = rest.split(". There: ", 1)
    return shown, there


READS_BOARD = "import json\nimport sys\n\nboard = json.loads(sys.stdin.read())['input']\n"


@pytest.mark.parametrize(
    "source, verdict",
    [
        ("while True:\n    pass\n", Verdict.TIME_LIMIT_EXCEEDED),
        ("while True:\n    print('x' * 1000)\n", Verdict.OUTPUT_LIMIT_EXCEEDED),
        ("data = bytearray(2 ** 40)\n", Verdict.MEMORY_LIMIT_EXCEEDED),
        ("import sys\nsys.stdin.read()\n", Verdict.NO_OUTPUT),
    ],
    ids=["loops", "floods", "out-of-memory", "prints-nothing"],
)
def test_a_failure_a_smaller_input_cannot_explain_costs_one_run(tmp_path, course, context, source, verdict):
    case = board_case(course, [3, 2, 5], "a board of three rows", time_s=0.5)
    result, counting = grade_with_count(tmp_path, course, context, source, [case])
    (outcome,) = result.cases
    assert outcome.verdict is verdict
    assert counting.runs == 1  # the case itself, and no shrink runs
    assert counting.reference_runs == 1  # the case's own expected answer
    assert "A smaller input" not in outcome.message


def test_a_wrong_answer_is_shrunk_and_a_candidate_that_times_out_is_not_the_answer(tmp_path, course, context):
    # Wrong on every board (a sum, not a nim-sum), a little slowly; a board of one row loops.
    source = (
        READS_BOARD + "import time\n\ntime.sleep(0.05)\nif len(board) == 1:\n    while True:\n        pass\n"
        "print(json.dumps(sum(board)))\n"
    )
    case = board_case(course, [3, 3, 3], "a board of three threes", time_s=2)
    result, counting = grade_with_count(tmp_path, course, context, source, [case])
    (outcome,) = result.cases
    assert outcome.verdict is Verdict.WRONG_ANSWER
    found = shrunk_part(outcome.message)
    assert found is not None, outcome.message
    shown, there = found
    assert len(shown) < len(case.input.strip())
    assert "[3, 3]" in shown  # a row fewer, still wrong; one row would loop
    assert "stopped after" not in there  # what is shown is a wrong answer, not a time-out


def test_a_slow_failure_stops_shrinking_when_the_file_budget_is_spent(tmp_path, course, context):
    # 0.3 s then a wrong answer, on every board: each shrink could go on for many smaller boards.
    source = READS_BOARD + "import time\n\ntime.sleep(0.3)\nprint(json.dumps(-1))\n"
    cases = [board_case(course, [40, 40, 40], f"big board {n}", time_s=2) for n in (1, 2)]
    result, counting = grade_with_count(tmp_path, course, context, source, cases)
    assert [r.verdict for r in result.cases] == [Verdict.WRONG_ANSWER] * 2
    # The two cases, then at most 1 s of shrinking for the whole file: three 0.3 s candidates and a
    # fourth stopped at the time left. Without the budget each case tries ten smaller boards.
    assert counting.runs <= 2 + 4
    first = shrunk_part(result.cases[0].message)
    assert first is not None  # the budget ran out, yet the smallest failing input so far is shown
    assert len(first[0]) < len(cases[0].input.strip())
