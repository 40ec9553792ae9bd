"""A corpus of realistic wrong files, for measuring how often a known-mistake diagnosis is right.

Each entry is a mutation of a reference solution (``support.mutate``: each ``old`` text must be
in it), written the way a student might make the mistake, never a copy of a file of
``solutions/wrong/``; and the label of the known-wrong solution whose mistake it makes, or None
when it makes a mistake no known-wrong solution stands for (the diagnosis must then say nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from support import mutate


@dataclass(frozen=True)
class WrongFile:
    task: str
    name: str
    changes: Tuple[Tuple[str, str], ...]  # (old, new) replacements in the reference solution
    mistake: Optional[str]  # the label of the known mistake it makes; None: none known

    def text(self) -> str:
        text = ""
        for number, (old, new) in enumerate(self.changes):
            text = mutate(self.task, old, new) if number == 0 else _replaced(text, old, new)
        return text


def _replaced(text: str, old: str, new: str) -> str:
    assert old in text, f"{old!r} is not in the mutated file"
    return text.replace(old, new)


CORPUS = (
    # bin_num: binary numerals
    WrongFile(
        "bin_num",
        "prepends_and_reverses",
        (("bits.append(n % 2)", "bits.insert(0, n % 2)"),),
        "least_significant_first",
    ),
    WrongFile(
        "bin_num",
        "loops_over_the_bits_forwards",
        (("for bit in reversed(bits):", "for bit in bits:"),),
        "binary_numeral_reads_bits_backwards",
    ),
    WrongFile(
        "bin_num",
        "place_value_starts_at_two",
        (("place_value = 1\n", "place_value = 2\n"),),
        "place_values_one_too_high",
    ),
    WrongFile("bin_num", "str_bits", (("bits.append(n % 2)", "bits.append(str(n % 2))"),), "bits_as_text"),
    WrongFile("bin_num", "loses_the_top_bit", (("while n > 0:", "while n > 1:"),), None),
    # nim_sum: the nim-sum and positions
    WrongFile("nim_sum", "sums_the_heaps", (("total = total ^ row", "total += row"),), "adds_the_rows"),
    WrongFile(
        "nim_sum",
        "zero_means_n_position",
        (
            ("return nim_sum(board) != 0", "return nim_sum(board) == 0  # N-position"),
            ("return nim_sum(board) == 0\n", "return nim_sum(board) != 0\n"),
        ),
        "p_and_n_swapped",
    ),
    WrongFile("nim_sum", "or_instead_of_xor", (("total = total ^ row", "total = total | row"),), None),
    WrongFile("nim_sum", "and_instead_of_xor", (("total = total ^ row", "total = total & row"),), None),
    WrongFile(
        "nim_sum",
        "n_position_gives_the_sum",
        (("return nim_sum(board) != 0", "return nim_sum(board)"),),
        "is_n_position_returns_the_nim_sum",
    ),
    # present_board: the board as text
    WrongFile(
        "present_board", "enumerate_from_zero", (("enumerate(board, start=1)", "enumerate(board)"),), "zero_based_rows"
    ),
    WrongFile(
        "present_board",
        "x_then_space",
        (('str(number) + ":" + " X" * size', 'str(number) + ": " + "X " * size'),),
        "trailing_spaces",
    ),
    WrongFile(
        "present_board",
        "xs_glued",
        (('str(number) + ":" + " X" * size', 'str(number) + ": " + "X" * size'),),
        "x_without_spaces",
    ),
    WrongFile(
        "present_board",
        "leaves_empty_rows_out_but_counts_them",
        (
            (
                '        lines.append(str(number) + ":" + " X" * size)',
                '        if size:\n            lines.append(str(number) + ":" + " X" * size)',
            ),
        ),
        None,
    ),
    WrongFile(
        "present_board",
        "tab_after_colon",
        (('str(number) + ":" + " X" * size', 'str(number) + ":\\t" + " X" * size'),),
        None,
    ),
    # make_move: a move on the board
    WrongFile(
        "make_move",
        "rows_as_indexes",
        (
            ("if row < 1 or row > len(board):", "if row < 0 or row >= len(board):"),
            ("elements > board[row - 1]", "elements > board[row]"),
            ("new_board[row - 1] -= elements", "new_board[row] -= elements"),
        ),
        "zero_based_rows",
    ),
    WrongFile("make_move", "greater_or_equal_length", (("row > len(board)", "row >= len(board)"),), "last_row_refused"),
    WrongFile(
        "make_move", "may_take_one_more", (("elements > board[row - 1]", "elements > board[row - 1] + 1"),), None
    ),
)
