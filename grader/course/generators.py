"""Generated cases: named generators that make inputs from a seed, and shrink a failing one.

A generator is ``function(rng, **options) -> fields``: a dict of values (a board, a move, two
numbers...) from which the case's ``format`` text makes the input, e.g.
``'{"type": "nim_sum", "input": {board_json}}'``. Its shrinker gives smaller fields to try when a
generated case fails, in the spirit of property-based testing: the grader keeps the smallest
input that still fails and shows it. Same seed, same cases: re-running is reproducible.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterator, List, Mapping, Sequence

Fields = Dict[str, Any]


def _board_fields(board: List[int]) -> Fields:
    return {
        "board": board,
        "board_json": json.dumps(board),
        "board_spaced": " ".join(map(str, board)),
        "rows": len(board),
    }


def _between(rng: random.Random, bounds) -> int:
    low, high = bounds
    return rng.randint(int(low), int(high))


def random_board(rng: random.Random, *, rows: Sequence[int] = (1, 8), heap: Sequence[int] = (0, 20)) -> Fields:
    """A board of ``rows`` rows (a [low, high] range), each heap in ``heap``."""
    return _board_fields([_between(rng, heap) for _ in range(_between(rng, rows))])


def random_move(rng: random.Random, *, rows: Sequence[int] = (1, 6), heap: Sequence[int] = (0, 10)) -> Fields:
    """A board and a move on it (row and elements), legal or not: rows 0..len+1, elements -1..heap+1."""
    fields = random_board(rng, rows=rows, heap=heap)
    row = rng.randint(0, fields["rows"] + 1)
    size = fields["board"][row - 1] if 1 <= row <= fields["rows"] else 3
    fields.update(row=row, elements=rng.randint(-1, size + 1))
    return fields


def random_numbers(rng: random.Random, *, count: int = 2, value: Sequence[int] = (0, 1000)) -> Fields:
    """``count`` whole numbers in ``value``: fields a, b, c, ... and ``numbers_spaced``."""
    numbers = [_between(rng, value) for _ in range(int(count))]
    fields: Fields = {"numbers": numbers, "numbers_spaced": " ".join(map(str, numbers))}
    fields.update(zip("abcdefgh", numbers))
    return fields


def _shrink_board(fields: Fields) -> Iterator[Fields]:
    board = fields["board"]
    for index in range(len(board)):  # drop a row
        if len(board) > 1:
            smaller = board[:index] + board[index + 1 :]
            yield {**fields, **_board_fields(smaller), **_keep_move(fields, smaller, index)}
    for index, size in enumerate(board):  # halve a heap, or take one off
        for new in {size // 2, size - 1}:
            if 0 <= new < size:
                smaller = board[:index] + [new] + board[index + 1 :]
                candidate = {**fields, **_board_fields(smaller)}
                if "row" in fields and fields["row"] == index + 1:
                    candidate["elements"] = min(fields["elements"], new + 1)
                yield candidate


def _keep_move(fields: Fields, smaller: List[int], dropped: int) -> Fields:
    """After dropping row ``dropped`` (0-based), the move still names the same row, if any."""
    if "row" not in fields:
        return {}
    row = fields["row"]
    if row - 1 > dropped:
        row -= 1
    elif row - 1 == dropped:
        row = min(row, len(smaller))
    return {"row": row}


def _shrink_numbers(fields: Fields) -> Iterator[Fields]:
    numbers = fields["numbers"]
    for index, value in enumerate(numbers):
        for new in {0, value // 2, value - 1}:
            if 0 <= new < value:
                smaller = numbers[:index] + [new] + numbers[index + 1 :]
                out = {**fields, "numbers": smaller, "numbers_spaced": " ".join(map(str, smaller))}
                out.update(zip("abcdefgh", smaller))
                yield out


@dataclass(frozen=True)
class Generator:
    """A named generator and its shrinker."""

    name: str
    make: Callable[..., Fields]
    shrink: Callable[[Fields], Iterator[Fields]]


GENERATORS: Mapping[str, Generator] = {
    "random_board": Generator("random_board", random_board, _shrink_board),
    "random_move": Generator("random_move", random_move, _shrink_board),
    "random_numbers": Generator("random_numbers", random_numbers, _shrink_numbers),
}


def generate(name: str, seed: int, count: int, options: Mapping[str, Any]) -> List[Fields]:
    """``count`` fields from generator ``name``, reproducible from ``seed``."""
    rng = random.Random(seed)
    return [GENERATORS[name].make(rng, **options) for _ in range(count)]


def render(template: str, fields: Fields) -> str:
    """The input text: ``template`` with ``{field}`` replaced (other braces are kept as they are)."""
    text = template
    for key, value in fields.items():
        text = text.replace("{" + key + "}", str(value))
    return text
