"""The rules of Nim, once, for the checkers and the game interactor.

Boards are lists of heap sizes; rows are numbered from 1, as players see them. Pure functions.
"""

from __future__ import annotations

import re
from functools import reduce
from operator import xor
from typing import List, Optional, Sequence, Tuple

from grader.check.guard import INT_DIGITS

Move = Tuple[int, int]  # (row counted from 1, elements taken)

# What a player may type for a move: two integers, separated by spaces, a comma, or a comma and spaces.
_TYPED_MOVE = re.compile(r"\s*([+-]?[0-9]+)(?:\s*,\s*|\s+)([+-]?[0-9]+)\s*")


def nim_sum(board: Sequence[int]) -> int:
    """The XOR of all heap sizes (0 for the empty board)."""
    return reduce(xor, board, 0)


def is_legal(board: Sequence[int], move: Move) -> bool:
    """A move takes 1 to all objects of an existing row (1..len(board))."""
    row, elements = move
    return 1 <= row <= len(board) and 1 <= elements <= board[row - 1]


def why_illegal(board: Sequence[int], move: Move) -> str:
    """A sentence saying why ``move`` is illegal on ``board`` ("" when it is legal)."""
    row, elements = move
    if not 1 <= row <= len(board):
        return f"row {number_text(row)} does not exist (rows count from 1 to {len(board)})"
    if elements < 1:
        return f"a move must take at least 1 object, not {number_text(elements)}"
    if elements > board[row - 1]:
        size, taken = board[row - 1], number_text(elements)
        return f"row {row} holds only {size} object{'s' if size != 1 else ''}, so {taken} cannot be taken"
    return ""


def number_text(number: int) -> str:
    """``number`` for a sentence: a number of more than 20 digits shortened, with its length."""
    text = str(number)
    digits = len(text.lstrip("-"))
    return text if digits <= 20 else f"{text[:8]}...{text[-4:]} (a number of {digits:,} digits)"


def read_whole(text: str) -> Optional[int]:
    """A whole number as a program printed it (digits, perhaps a sign and leading zeros) → its
    value, or None when it has more digits than Python reads (``guard.INT_DIGITS``)."""
    sign = text[0] if text[:1] in ("+", "-") else ""
    digits = text[len(sign) :].lstrip("0") or "0"
    return None if len(digits) > INT_DIGITS else int(sign + digits)


def apply(board: Sequence[int], move: Move) -> List[int]:
    """The board after a legal move (a new list)."""
    row, elements = move
    after = list(board)
    after[row - 1] -= elements
    return after


def winning_moves(board: Sequence[int]) -> List[Move]:
    """Every move that leaves nim-sum 0, in row order (none from a P-position)."""
    total = nim_sum(board)
    if total == 0:
        return []
    return [(row, size - (size ^ total)) for row, size in enumerate(board, start=1) if size ^ total < size]


def parse_typed_move(text: str) -> Optional[Move]:
    """What a player typed → (row, elements) as typed, or None when it is not two integers."""
    match = _TYPED_MOVE.fullmatch(text)
    if not match:
        return None
    row, elements = read_whole(match.group(1)), read_whole(match.group(2))
    return None if row is None or elements is None else (row, elements)


def is_computer(name: str) -> bool:
    """A player whose name contains "computer" in any letter case is a computer."""
    return "computer" in name.lower()
