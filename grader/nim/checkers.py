"""Checkers that know the rules of Nim, registered under their names by ``lab.lab_checkers``.

``optimal_move``: the output is a move ``[row, elements]`` for the case's board (its input); it
must be legal and, from an N-position, leave nim-sum 0. Several answers are right, so it needs no
``expected``. A wrong move that would be right with its row counted from 1 instead of 0 comes with
that cause as a ``Conjecture``: one board cannot prove it (a program that always answers [1, 1] is
right as [2, 1] where that happens to win), so grading says it only where it explains the file's
failures (``grade/mistakes/evidence.py``).
"""

from __future__ import annotations

import json
from typing import Optional

from grader.check.guard import unreadable_reason
from grader.model import CheckOutcome, Conjecture, Verdict
from grader.nim import rules as nim


def check_optimal_move(actual: str, expected: str, case_input: str) -> CheckOutcome:
    """Is ``actual`` a right move on the board ``case_input`` (a JSON list)?"""
    board = json.loads(case_input)
    move = _parse_move(actual)
    if isinstance(move, str):
        return CheckOutcome(Verdict.WRONG_ANSWER, move)
    problem = nim.why_illegal(board, move)
    if problem:
        return CheckOutcome(
            Verdict.WRONG_ANSWER, f"Your move {_show(move)} is illegal: {problem}.", conjecture=_zero_based(board, move)
        )
    before = nim.nim_sum(board)
    if before == 0:
        return CheckOutcome(Verdict.ACCEPTED)
    left = nim.nim_sum(nim.apply(board, move))
    if left == 0:
        return CheckOutcome(Verdict.ACCEPTED)
    winning = nim.winning_moves(board)
    return CheckOutcome(
        Verdict.WRONG_ANSWER,
        f"This board has nim-sum {before} (an N-position), so the move must leave nim-sum 0, but "
        f"your move {_show(move)} leaves nim-sum {left}. For example {_show(winning[0])} leaves 0 "
        f"(this board has {len(winning)} such move{'s' if len(winning) != 1 else ''}).",
        conjecture=_zero_based(board, move),
    )


ROWS_FROM_ZERO = "rows counted from 0"


def _zero_based(board, move) -> Optional[Conjecture]:
    """The cause "rows counted from 0" when the move would be right with its row counted from 1."""
    shifted = (move[0] + 1, move[1])
    if not nim.is_legal(board, shifted):
        return None
    if nim.nim_sum(board) == 0 or nim.nim_sum(nim.apply(board, shifted)) == 0:
        return Conjecture(
            ROWS_FROM_ZERO,
            f"Rows count from 1: your move would be right as {_show(shifted)} (its row one higher), as would most "
            "of your wrong moves on the other boards. Did you return a list index (counted from 0) as the row?",
        )
    return None


def _parse_move(actual: str):
    """``(row, elements)``, or a sentence saying why the output (untrusted: any text) is not a move."""
    text = actual.strip()
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        if len(text.splitlines()) > 1:
            return "Your program printed several lines: leftover debug prints? Print only the move."
        return f'Your output "{text[:80]}" is not a move: print it as JSON, e.g. [2, 3] (row 2, take 3).'
    except (ValueError, RecursionError, MemoryError) as error:  # e.g. a number of 5,000 digits
        reason = unreadable_reason(error) or "it cannot be read"
        return f"Your output is not a move: {reason}. A move is [row, elements], two whole numbers such as [2, 3]."
    if not (isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)):
        return f"Your output {_short(json.dumps(value))} is not a move: a move is [row, elements], two whole numbers."
    return value[0], value[1]


def _short(text: str) -> str:
    """``text`` shortened to its start and end when it is longer than 80 characters."""
    return text if len(text) <= 80 else f"{text[:38]} ... {text[-38:]}"


def _show(move) -> str:
    return f"[{nim.number_text(move[0])}, {nim.number_text(move[1])}]"
