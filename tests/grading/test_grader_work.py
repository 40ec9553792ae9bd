"""The grader's own work is bounded, whatever a program prints: a course's pattern that backtracks,
a game that prints without end, shrinking that checks huge outputs. (Times here are bounds a
broken grader would exceed by minutes, not measurements: see bench/ for those.)
"""

from __future__ import annotations

import time

from grader.check.registry import generic_checkers
from grader.model import Verdict
from grader.nim.game import MAX_LINES, nim_game


def test_a_backtracking_pattern_is_stopped_and_is_a_wrong_answer():
    """Patterns that backtrack on a few dozen characters a program chose for them: minutes in
    Python's re (the first, the review's), stopped at the bound here."""
    checker = generic_checkers().get("regex")
    for pattern, output in ((r"\[(\d+(, )?)*\]", "[" + "1" * 32 + "x"), (r"(a|aa)+", "a" * 60 + "b")):
        started = time.monotonic()
        outcome = checker(output, pattern, "", {})
        assert time.monotonic() - started < 30
        assert outcome.verdict is Verdict.WRONG_ANSWER
    assert "took more than" in outcome.message


def test_a_game_that_prints_without_end_is_stopped_at_a_bound_of_lines():
    session = nim_game(players=["Alice", "Computer"], board=[3, 4, 5])
    chunk = "hello there\n" * 1000
    for _ in range(MAX_LINES // 1000 + 2):
        session.output(chunk)
        if session.done():
            break
    assert session.done()
    assert session.problem.verdict is Verdict.OUTPUT_LIMIT_EXCEEDED
