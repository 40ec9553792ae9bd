"""The rules of Nim in ``grader.nim.rules``: nim-sum, winning moves, legality, the board text, typed moves."""

from __future__ import annotations

import pytest
from support import legal_moves

from grader.nim import rules as nim

# -- nim_sum ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("board", "total"),
    [
        ([], 0),
        ([0], 0),
        ([7], 7),
        ([5, 4, 3, 2, 1], 1),
        ([27, 8, 3, 29], 13),
        ([1, 2, 3], 0),
        ([1, 3, 5, 7], 0),
        ([0, 0, 9], 9),
        ([2**40 + 5, 2**40 + 3, 2**40, 7], 2**40 + 1),
    ],
)
def test_nim_sum(board, total):
    assert nim.nim_sum(board) == total


def test_nim_sum_accepts_any_sequence():
    assert nim.nim_sum((5, 4, 3, 2, 1)) == 1


# -- winning_moves ------------------------------------------------------------------------------


def test_winning_moves_of_27_8_3_29_are_exactly_three():
    assert nim.winning_moves([27, 8, 3, 29]) == [(1, 5), (2, 3), (4, 13)]


def test_winning_moves_of_the_handout_board_are_exactly_three():
    assert nim.winning_moves([5, 4, 3, 2, 1]) == [(1, 1), (3, 1), (5, 1)]


@pytest.mark.parametrize(
    ("board", "moves"),
    [
        ([1, 3, 5], [(3, 3)]),
        ([7], [(1, 7)]),
        ([0, 0, 9], [(3, 9)]),
        ([0, 4, 0, 1, 0], [(2, 3)]),
        ([4, 5, 6, 7, 8], [(5, 8)]),
        ([2, 2, 3], [(1, 1), (2, 1), (3, 3)]),
        ([9, 10, 12, 15, 8], [(1, 8), (2, 8), (3, 8), (4, 8), (5, 8)]),
    ],
)
def test_winning_moves_of_the_case_boards(board, moves):
    assert nim.winning_moves(board) == moves


@pytest.mark.parametrize("board", [[1, 2, 3], [1, 3, 5, 7], [4, 4], [5, 4, 1], [1, 1], [0, 3, 0, 5, 0, 6], [0]])
def test_a_p_position_has_no_winning_move(board):
    assert nim.nim_sum(board) == 0
    assert nim.winning_moves(board) == []


def test_winning_moves_are_exactly_the_legal_moves_that_leave_nim_sum_zero():
    boards = [[1, 2, 3, 4], [3, 4, 5], [0, 6, 1, 2], [12, 7, 9], [1, 1, 1], [8, 0, 8, 1], [31, 1, 2]]
    for board in boards:
        brute = [m for m in legal_moves(board) if nim.nim_sum(nim.apply(board, m)) == 0]
        assert nim.winning_moves(board) == brute, board


def test_winning_moves_do_not_change_the_board():
    board = [27, 8, 3, 29]
    nim.winning_moves(board)
    assert board == [27, 8, 3, 29]


# -- legal moves, apply -------------------------------------------------------------------------


def test_apply_returns_a_new_board():
    board = [3, 4, 5]
    after = nim.apply(board, (2, 4))
    assert after == [3, 0, 5]
    assert board == [3, 4, 5]
    assert isinstance(nim.apply((1, 1), (1, 1)), list)


# -- is_legal / why_illegal ---------------------------------------------------------------------


@pytest.mark.parametrize("move", [(1, 1), (1, 3), (2, 1), (3, 5), (3, 1)])
def test_legal_moves_have_no_reason(move):
    board = [3, 1, 5]
    assert nim.is_legal(board, move)
    assert nim.why_illegal(board, move) == ""


@pytest.mark.parametrize(
    ("move", "sentence"),
    [
        ((0, 1), "row 0 does not exist (rows count from 1 to 3)"),
        ((-1, 1), "row -1 does not exist (rows count from 1 to 3)"),
        ((4, 1), "row 4 does not exist (rows count from 1 to 3)"),
        ((1, 0), "a move must take at least 1 object, not 0"),
        ((1, -2), "a move must take at least 1 object, not -2"),
        ((1, 4), "row 1 holds only 3 objects, so 4 cannot be taken"),
        ((2, 2), "row 2 holds only 1 object, so 2 cannot be taken"),
        ((4, 0), "row 4 does not exist (rows count from 1 to 3)"),  # the row is named first
    ],
)
def test_illegal_moves_say_why(move, sentence):
    board = [3, 1, 0]
    assert not nim.is_legal(board, move)
    assert nim.why_illegal(board, move) == sentence


def test_taking_from_an_empty_row_is_illegal():
    board = [0, 2]
    assert not nim.is_legal(board, (1, 1))
    assert nim.why_illegal(board, (1, 1)) == "row 1 holds only 0 objects, so 1 cannot be taken"


def test_a_single_row_board_names_its_only_row():
    assert nim.why_illegal([7], (2, 1)) == "row 2 does not exist (rows count from 1 to 1)"


# -- parse_typed_move ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("3 2", (3, 2)),
        ("3,2", (3, 2)),
        ("3, 2", (3, 2)),
        ("3 , 2", (3, 2)),
        ("3 ,2", (3, 2)),
        ("  3 2 ", (3, 2)),
        ("3   2", (3, 2)),
        ("3 2\n", (3, 2)),
        ("  3, 2 \n", (3, 2)),
        ("-1 2", (-1, 2)),
        ("3, -2", (3, -2)),
        ("+3 2", (3, 2)),
        ("3\t2", (3, 2)),
        ("\t3,\t2\t", (3, 2)),
        ("0 0", (0, 0)),
        ("12 100", (12, 100)),
    ],
)
def test_parse_typed_move_accepts(text, move):
    assert nim.parse_typed_move(text) == move


@pytest.mark.parametrize(
    "text",
    [
        "3",
        "3 2 1",
        "3, 2, 1",
        "three two",
        "1 a",
        "row 1",
        "",
        "   ",
        "\n",
        "3.5 2",
        "3,,2",
        "3 2,",
        "3,",
        ",3 2",
        "- 1 2",
        "3 2 x",
        "1_0 2",
    ],
)
def test_parse_typed_move_rejects(text):
    assert nim.parse_typed_move(text) is None


@pytest.mark.parametrize("text", ["\uff13 2", "\u0663 2"])
def test_parse_typed_move_rejects_digits_other_than_0_to_9(text):
    assert nim.parse_typed_move(text) is None


# -- is_computer --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["Computer", "computer", "COMPUTER", "Computer 1", "computer 2", "SuperComputer"])
def test_is_computer_in_any_letter_case(name):
    assert nim.is_computer(name)


@pytest.mark.parametrize("name", ["Alice", "Bob", "", "Comp", "compute r", "Computr"])
def test_other_names_are_human(name):
    assert not nim.is_computer(name)
