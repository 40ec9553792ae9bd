"""How many different right answers a case has, for the checkers that can tell: a ``min_distinct``
above that number can never be met, so the loader refuses it (``case_validation``).

Only the Nim lab's ``optimal_move`` checker can tell (by its function, whatever name a course gives
it): on its case's board, the right answers are the winning moves (those that leave nim-sum 0) from
an N-position, and every legal move from a P-position. An N-position has an odd number of winning
moves: the good rows are those with a 1 where the nim-sum has its leftmost 1, and an odd number of
rows has it, or that bit of the nim-sum would be 0. So ``min_distinct`` equal to that number, with
the ``repeat`` that ``grader.check.random_answers.repeat_needed`` gives for it, asks for every
winning move (docs/testcases.md, "Every winning move").
"""

from __future__ import annotations

import json
from typing import List, Optional

from grader.check.random_answers import repeat_needed
from grader.check.registry import Checker
from grader.nim.checkers import check_optimal_move
from grader.nim.rules import winning_moves

_SHOWN = 40  # characters of a board shown in a message; a longer one is named by its rows


def right_answer_count(checker: Checker, case_input: str) -> Optional[int]:
    """The number of different right answers of a case on ``case_input``, or None when the checker
    cannot tell (any checker but ``optimal_move``, or an input that is not a board: the checker
    then says so when grading)."""
    # (the registry hands out every checker guarded: the function itself is the one it wraps)
    if getattr(checker.function, "__wrapped__", checker.function) is not check_optimal_move:
        return None
    board = _board(case_input)
    if board is None:
        return None
    winning = winning_moves(board)
    return len(winning) if winning else sum(board)


def min_distinct_problem(checker: Checker, case_input: str, min_distinct: int) -> str:
    """Why ``min_distinct`` is more than the case can ever show (a sentence to follow the key and the
    case's label), or ``""`` when it is not, or the checker cannot tell."""
    count = right_answer_count(checker, case_input)
    if count is None or min_distinct <= count:
        return ""
    board = _board(case_input) or []
    text = json.dumps(board)
    shown = f"the board {text}" if len(text) <= _SHOWN else f"its board of {len(board):,} rows"
    if winning_moves(board):
        what = f"{count} winning move{'s' if count != 1 else ''}"
        advice = (
            f"set it to at most {count} ({count} asks for every winning move, with 'repeat' at least "
            f"{repeat_needed(count)})"
            if count >= 2
            else "leave min_distinct out and keep 'repeat' to check that every run gives that move"
        )
    else:
        what = f"{count} legal move{'s' if count != 1 else ''} (it is a P-position)"
        advice = f"set it to at most {count}"
    return (
        f"is {min_distinct}, but {shown} has only {what}, so no program can show {min_distinct} different right "
        f"answers: {advice}"
    )


def _board(case_input: str) -> Optional[List[int]]:
    """The board a case's input holds (a JSON list of whole numbers 0 or more), or None."""
    try:
        board = json.loads(case_input)
    except (ValueError, RecursionError):
        return None
    if not isinstance(board, list) or not all(type(row) is int and row >= 0 for row in board):
        return None
    return board
