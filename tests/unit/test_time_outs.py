"""A time-out told apart (``grade/mistakes/time_outs.py``), from looks a runner could report and the student's
code alone: no program runs here. And the looks as the program's process writes them
(``child_program.state_record``), read back (``child_records``).
"""

from __future__ import annotations

import json
import sys

import pytest

from grader.grade.mistakes.time_outs import LOOP, SLOW, UNCLEAR, examine
from grader.run.child import child_program
from grader.run.child_records import read_records
from grader.run.run_facts import Frame, StackSample

ENDLESS_TRUE = """\
def f(board):
    while True:
        total = 0
        for row in board:
            total += row
"""
NO_STEP = """\
def f(board):
    total = 0
    i = 0
    while i < len(board):
        total = total ^ board[i]
    return total
"""
STEP_IN_IF = """\
def f(board):
    i = 0
    text = ""
    while i < len(board):
        if board[i] > 0:
            text = text + "X"
            i = i + 1
    return text
"""
RANDOM_SEARCH = """\
import random
def f(board):
    while True:
        row = random.randrange(len(board))
        if board[row] > 5:
            return row
"""
MINIMAX = """\
def wins(board):
    for row in range(len(board)):
        for take in range(1, board[row] + 1):
            after = list(board)
            after[row] -= take
            if not wins(after):
                return True
    return False
"""
COUNTING = """\
def f(board):
    text = ""
    i = 0
    while i < len(board):
        text = text + "\\n" + str(board[i])
        i += 1
    return text
"""
WHILE_SEARCH = """\
def wins(board):
    row = 0
    while row < len(board):
        take = 1
        while take <= board[row]:
            board[row] -= take
            other = wins(board)
            board[row] += take
            if not other:
                return True
            take = take + 1
        row = row + 1
    return False
"""
STUCK_ON_ITEM = """\
def f(board):
    row = 0
    while board[row] == 0:
        row + 1
    return row
"""
ITEM_BY_ALIAS = """\
def f(board):
    row = 0
    rows = board
    while board[row] == 0:
        rows[row] = 1
    return row
"""
GROWING_FOR = """\
def f(board):
    for row in board:
        board.append(row)
"""


def _looks(source_lines, states=None, name="f", looks=2):
    """Looks at a program in ``name`` on each of ``source_lines`` (one per look, innermost frame)."""
    result = []
    for index in range(looks):
        line = source_lines[index % len(source_lines)]
        frames = (Frame("p.py", line, name), Frame("p.py", 90, "<module>"))
        result.append(StackSample(frames, (states[index], "m") if states else ()))
    return result


@pytest.mark.parametrize(
    "source, lines, states, kind, words",
    [
        (ENDLESS_TRUE, [5], None, LOOP, "its condition is always true"),
        (NO_STEP, [5], None, LOOP, "nothing in it changes what its condition tests"),
        (STEP_IN_IF, [5], ["a", "a"], LOOP, "the same values"),
        (STEP_IN_IF, [5], ["a", "b"], UNCLEAR, ""),  # it changed: not shown stuck, not shown finite
        (STEP_IN_IF, [5], None, UNCLEAR, ""),  # no state told: the plain facts
        (RANDOM_SEARCH, [4, 5], None, LOOP, "draws at random"),
        (COUNTING, [5], ["a", "b"], SLOW, "too slow for an input this size"),
        (GROWING_FOR, [3], None, UNCLEAR, ""),
        (STUCK_ON_ITEM, [4], None, LOOP, "nothing in it changes what its condition tests"),
        (ITEM_BY_ALIAS, [5], None, UNCLEAR, ""),  # the item is set through another name
    ],
    ids=[
        "while True",
        "no step",
        "stuck state",
        "changing state",
        "no state",
        "random",
        "counting",
        "growing for",
        "stuck on an item",
        "item set by an alias",
    ],
)
def test_the_looks_and_the_code_tell_a_loop_from_slow_work(source, lines, states, kind, words):
    found = examine(_looks(lines, states), lambda name: source if name == "p.py" else "")
    assert found.kind == kind
    assert words in found.sentence


def test_a_recursive_search_in_for_loops_is_slow_work_and_says_how_deep():
    looks = [
        StackSample(tuple(Frame("p.py", 6, "wins") for _ in range(depth)) + (Frame("p.py", 90, "<module>"),))
        for depth in (7, 4)
    ]
    found = examine(looks, lambda name: MINIMAX)
    assert found.kind == SLOW and "wins calling itself 7 deep" in found.sentence
    assert "never" not in found.sentence


@pytest.mark.parametrize("outer", ["cut short", "moved on"])
def test_a_search_that_comes_back_to_the_same_inner_frames_is_not_called_stuck(outer):
    # a search by recursion reaches the same board (the same inner frames, lines and values) again and
    # again: only the whole stack being the same at both looks shows that nothing moved on
    depth = 12 if outer == "cut short" else 6  # a look holds at most 12 frames: the outer ones unseen
    inner = tuple(Frame("p.py", 7, "wins") for _ in range(depth - 1))
    looks = [
        StackSample(inner + (Frame("p.py", 7, "wins"),), ("s",) * depth),
        StackSample(inner + (Frame("p.py", 7, "wins"),), ("s",) * (depth - 1) + ("s" if depth == 12 else "t",)),
    ]
    found = examine(looks, lambda name: WHILE_SEARCH)
    assert found.kind != LOOP, found.sentence


def test_a_whole_stack_the_same_at_both_looks_is_stuck():
    frames = (Frame("p.py", 7, "wins"),) * 5
    found = examine([StackSample(frames, ("s",) * 5)] * 2, lambda name: WHILE_SEARCH)
    assert found.kind == LOOP and "the same values" in found.sentence


def test_without_looks_or_the_student_s_code_nothing_is_guessed():
    assert examine((), lambda name: MINIMAX).kind == UNCLEAR
    assert examine(_looks([6], name="wins"), lambda name: "").kind == UNCLEAR  # a file that is not the student's
    assert examine((StackSample(()), StackSample(())), lambda name: MINIMAX).kind == UNCLEAR


def test_the_state_of_a_frame_runs_none_of_the_program_s_code():
    class Loud:
        def __repr__(self):
            raise AssertionError("the program's code ran")

        __hash__ = __eq__ = __repr__  # type: ignore[assignment]

    assert child_program.state_of({"i": 1, "rows": [1, 2], "f": len}) == child_program.state_of(
        {"i": 1, "rows": [1, 2], "g": print}
    )
    assert child_program.state_of({"i": 1}) != child_program.state_of({"i": 2})
    assert child_program.state_of({"board": [Loud()]}) == ""  # its state cannot be told
    # a list too long to read in the handler is not told either: its length alone would call a loop
    # that changes it in place stuck
    assert child_program.state_of({"rows": [0] * 200_001}) == ""


def test_the_looks_are_read_back_from_the_channel():
    def looked(board, i):
        return child_program.state_record(sys._getframe(), __file__.rsplit("/", 1)[0])

    record = looked([1, 2], 0)
    assert record["state"][0][2] == "looked" and record["state"][0][3]  # plain values: a state
    assert record["state"][1][2] == "test_the_looks_are_read_back_from_the_channel"
    assert record["state"][1][3] == child_program.state_of({})  # its only variable is a function: code, not state
    line = json.dumps(record).encode() + b"\n"
    dump = b"Current thread 0x1 (most recent call first):\n" + b'  File "/run/p.py", line 3 in f\n'
    records = read_records(dump + line + dump + line, __file__.rsplit("/", 1)[0])
    assert len(records.samples) == 2 and records.samples[0].states[0]
    only_dumps = read_records(dump + line + dump, "/run")  # one look's state came late: the dumps alone
    assert [s.frames for s in only_dumps.samples] == [(Frame("p.py", 3, "f"),)] * 2
    assert read_records(b'{"state": [["p.py", "x", "f", ""]]}\n' * 3, "/run").samples == ()
