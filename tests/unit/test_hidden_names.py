"""A hidden case's name must not state its input or its answer: the rule ``verify`` warns with."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.authoring.hidden_names import hidden_name_warnings, name_gives_away, telling_name
from grader.course.loader import load_course
from grader.model import Case, Limits, Task

PROJECT = Path(__file__).resolve().parents[2]


def case(name: str, case_input: str, expected=(), hidden: bool = True, line: int = 7) -> Case:
    return Case(name, case_input, tuple(expected), "text", {}, Limits(), hidden=hidden, line=line)


@pytest.mark.parametrize(
    "name, case_input, expected, told",
    [
        # the input's numbers, in order, with words between them
        ("1 xor 1 is 0", "1 1\n", ["0"], "its input ('1 1') and its expected answer ('0')"),
        ("9 XOR 0", "9 0\n", ["9"], "its input ('9 0')"),
        ("5, 4, 3, 2 is a P-position", '{"type": "is_p_position", "input": [5, 4, 3, 2]}', ["true"], "its input"),
        # one number: the whole input
        ("a row of 1000 objects", "1000\n", [], "its input ('1000')"),
        ("13 is 1101 in binary", '{"type": "num_bin", "value": 13}', ["[1, 1, 0, 1]"], "its input"),
        # numbers by value: 000 is 0; a sign is part of the number
        ("000 in binary is still 0", '{"type": "bin_num", "value": [0, 0, 0]}', ["0"], "its expected answer ('0')"),
        ('"-1 2" is read as typed', '{"type": "parse_move", "input": "-1 2"}', ["[-1, 2]"], "its input"),
        # the answer alone
        ("a long list of bits is 987654321987654321", "[1, 0]", ["987654321987654321"], "its expected answer"),
        ("the move is [3, 2]", "x", ["[3, 2]"], "its expected answer ('[3, 2]')"),
        # any one of several accepted answers
        ("zero is []", '{"value": 0}', ["[0]", "[]"], "its expected answer"),
        # whole text, and a JSON string value
        ("Alice is human", '{"type": "is_human", "input": "Alice"}', ["true"], "its input"),
        ("hal, a computer program: a computer", '{"type": "is_human", "input": "HAL, a  Computer Program"}', [], "its"),
        ("the answer is Nim: 1: X", "1\n", ["Nim:\n1: X"], "its expected answer"),
    ],
)
def test_names_that_state_the_input_or_the_answer(name, case_input, expected, told):
    assert told in telling_name(case(name, case_input, expected))


@pytest.mark.parametrize(
    "name, case_input, expected",
    [
        # neutral numbering: the number after "case" is the case's own, even when it is the answer
        ("hidden case 1", "1 0\n", ["1"]),
        ("hidden case 13: a number to bits", '{"type": "num_bin", "value": 13}', ["[1, 1, 0, 1]"]),
        ("Hidden Case 2", "2\n", ["2"]),
        # what is checked, without the values
        ("a negative row", '{"board": [3, 4, 5], "row": -1, "elements": 1}', ["[[3, 4, 5], false]"]),
        ("a number past 32 bits", "4294967296 1\n", ["4294967297"]),
        ("a board of 10,000 rows", " ".join(["7"] * 10_000), []),
        # numbers inside other words or numbers do not count; an answer's numbers must be next to each other
        ("a 64-bit list", "64 1\n", []),
        ("hidden case 10", "0\n", ["0"]),
        ("rows 3 and then 9 and 2", "[3, 2]", []),
        # the type a JSON input asks for says what is asked, not the data; yes/no answers are not compared
        ("hidden case 2: is_board_empty", '{"type": "is_board_empty", "input": [0, 0, 7]}', ["false"]),
        ("true to its word", "[5, 5]", ["true"]),
        # one-character texts are noise
        ("the letter x", "x\n", ["y"]),
        # an interactive case has neither
        ("player 2 wins", "", []),
    ],
)
def test_neutral_names_give_nothing_away(name, case_input, expected):
    assert telling_name(case(name, case_input, expected)) == ""


def test_a_huge_number_is_compared_without_converting_it():
    digits = "9" * 5000  # more digits than int() takes from text by default
    assert name_gives_away(f"the number {digits}", f"{digits}\n", ())
    assert not name_gives_away("a very big number", f"{digits}\n", ())


def test_the_warning_names_file_line_and_key_and_only_hidden_cases():
    task = Task(
        "bitwise_xor",
        "Bitwise XOR",
        (case("9 XOR 0 is 9", "9 0\n", ["9"], line=51), case("0 XOR 9 is 9", "0 9\n", ["9"], hidden=False)),
        source="testcases/bitwise_xor.yaml",
    )
    (warning,) = hidden_name_warnings(task)
    assert warning.startswith("testcases/bitwise_xor.yaml, line 51, key 'name': the hidden case '9 XOR 0 is 9' names")
    assert "its input ('9 0') and its expected answer ('9')" in warning and "rename it" in warning


def test_the_courses_own_hidden_cases_give_nothing_away():
    found = [warning for task in load_course(PROJECT).values() for warning in hidden_name_warnings(task)]
    assert found == []
