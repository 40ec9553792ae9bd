"""Advice on a crash comes from the student's code and the exception's message, never from the
exception's name alone (issue 36): each case here is a crash of a file written as a first-year
student writes it, the words its message must hold, and the advice it must not give. Where neither
the message nor the code shows the cause, the message is the facts (exception, message, line) alone.
"""

from __future__ import annotations

import pytest
from support import PROJECT

from grader.grade.diagnose import Crash, crash_said
from grader.grade.mistakes.crash_causes import cause, exercise_functions

FUNCTIONS = {"numeral_binary": ("bin_num", "bitwise_xor"), "nim_sum": ("nim_sum",), "make_move": ("make_move",)}


def _crash(exception: str, text: str, code: str, line_text: str, function: str = "<module>") -> Crash:
    """The crash of ``code`` on its first line holding ``line_text``, in ``function``."""
    lines = code.splitlines()
    line = next(number for number, text in enumerate(lines, start=1) if line_text in text)
    return Crash(exception, text, line, lines[line - 1].strip(), "task.py", True, code, function)


RECURSION = """def numeral_binary(n):
    if n == 0:
        return []
    return numeral_binary(n / 2) + [n % 2]
"""
RECURSION_NO_STOP = """def numeral_binary(n):
    if n == 1:
        return [1]
    return numeral_binary(n // 2) + [n % 2]
"""
HALF_RANGE = """def reverse(bits):
    half = len(bits) / 2
    for i in range(half):
        bits[i], bits[-1 - i] = bits[-1 - i], bits[i]
"""
FLOAT_INDEX = """def middle(board):
    return board[len(board) / 2]
"""
FLOAT_FROM_ELSEWHERE = """import math
def middle(board):
    return board[math.sqrt(len(board))]
"""
LOCAL_ELSEWHERE = """def setup():
    board = [3, 4, 5]

def show():
    print(board)
"""
CAPITALS = """Board = [1, 2]
def show():
    print(board)
"""
FIXED = """def nim_sum(board):
    return board[0] ^ board[1] ^ board[2]
"""
FIXED_ONE = """def present_board(board):
    text = "1: " + "X " * board[0]
    text += "2: " + "X " * board[1]
    return text
"""
LOOP_FOUR = """def nim_sum(board):
    total = 0
    for i in range(4):
        total ^= board[i]
    return total
"""
ROW_INDEX = """def make_move(board, row, elements):
    board[row] -= elements
"""


@pytest.mark.parametrize(
    "crash, board, says, never",
    [
        (
            _crash("RecursionError", "maximum recursion depth exceeded", RECURSION, "return numeral", "numeral_binary"),
            None,
            "n / 2",
            "without reaching",
        ),
        (
            _crash(
                "RecursionError",
                "maximum recursion depth exceeded",
                RECURSION_NO_STOP,
                "return numeral",
                "numeral_binary",
            ),
            None,
            "without reaching a case that stops it",
            "/ always gives",
        ),
        (
            _crash(
                "TypeError", "'float' object cannot be interpreted as an integer", HALF_RANGE, "for i in", "reverse"
            ),
            None,
            "half = len(bits) / 2 (line 2)",
            "None",
        ),
        (
            _crash("TypeError", "list indices must be integers or slices, not float", FLOAT_INDEX, "return", "middle"),
            None,
            "len(board) / 2 is a float",
            "None",
        ),
        (
            _crash(
                "TypeError",
                "list indices must be integers or slices, not float",
                FLOAT_FROM_ELSEWHERE,
                "return",
                "middle",
            ),
            None,
            "",
            "//",
        ),
        (
            _crash("NameError", "name 'reduce' is not defined", "x = reduce(f, [1])\n", "reduce"),
            None,
            "functools",
            "copy that function",
        ),
        (
            _crash("NameError", "name 'raw_input' is not defined", "x = raw_input()\n", "raw_input"),
            None,
            "input()",
            "copy",
        ),
        (
            _crash("NameError", "name 'true' is not defined", "x = true\n", "true"),
            None,
            "True with a capital T",
            "copy",
        ),
        (_crash("NameError", "name 'math' is not defined", "x = math.log2(8)\n", "math"), None, "import math", "copy"),
        (
            _crash("NameError", "name 'numeral_binary' is not defined", "x = numeral_binary(5)\n", "numeral"),
            None,
            "exercise bin_num: copy that function into this file",
            "Python 2",
        ),
        (
            _crash("NameError", "name 'board' is not defined", LOCAL_ELSEWHERE, "print", "show"),
            None,
            "variable of your function setup (line 2)",
            "copy",
        ),
        (
            _crash("NameError", "name 'board' is not defined", CAPITALS, "print", "show"),
            None,
            "defines Board, not board",
            "copy",
        ),
        (_crash("NameError", "name 'nimsum' is not defined", "x = nimsum([1])\n", "nimsum"), None, "", "copy"),
        (
            _crash("AttributeError", "'dict' object has no attribute 'has_key'", "d.has_key(1)\n", "has_key"),
            None,
            "key in d",
            "",
        ),
        (_crash("AttributeError", "'list' object has no attribute 'push'", "b.push(1)\n", "push"), None, "append", ""),
        (
            _crash("AttributeError", "module 'string' has no attribute 'join'", "string.join(a, 'x')\n", "join"),
            None,
            "sep.join(words)",
            "",
        ),
        (
            _crash("TypeError", "'map' object is not subscriptable", "m = map(int, s)[0]\n", "map"),
            None,
            "list(map(...))",
            "None",
        ),
        (
            _crash("TypeError", "'dict_keys' object is not subscriptable", "k = d.keys()[0]\n", "keys"),
            None,
            "list(d.keys())",
            "None",
        ),
        (
            _crash("TypeError", 'can only concatenate str (not "int") to str', "s = 'a' + 1\n", "s ="),
            None,
            "str(n)",
            "None",
        ),
        (_crash("TypeError", "'int' object is not iterable", "for x in 5: pass\n", "for"), None, "", "None"),
        (_crash("IndexError", "list index out of range", FIXED, "return", "nim_sum"), [1, 2], "", "fixed"),
        (
            _crash("IndexError", "list index out of range", FIXED_ONE, "text +=", "present_board"),
            [3],
            "board[1], a fixed position",
            "Rows count",
        ),
        (
            _crash("IndexError", "list index out of range", LOOP_FOUR, "total ^=", "nim_sum"),
            [2, 3, 4],
            "for i in range(4)",
            "Rows count",
        ),
        (
            _crash("IndexError", "list index out of range", ROW_INDEX, "board[row]", "make_move"),
            [3, 4, 5],
            "Rows count from 1",
            "fixed",
        ),
        (_crash("ModuleNotFoundError", "No module named 'numpy'", "import numpy\n", "numpy"), None, "no numpy", ""),
    ],
    ids=lambda value: value.text if isinstance(value, Crash) else None,
)
def test_a_crash_gets_the_advice_its_code_shows_and_none_it_does_not(crash, board, says, never):
    message = crash_said(crash, run_name="task.py", board=board, functions=FUNCTIONS).whole
    assert f"on line {crash.line}: {crash.source}." in message  # the facts, always
    if says:
        assert says in message, message
    else:  # the cause cannot be told: the facts and nothing more
        assert message.endswith(f"{crash.source}."), message
    assert not never or never not in message, message


def test_a_students_own_exception_class_gets_no_advice_by_its_name():
    crash = _crash("NameError", "name 'reduce' is not defined", "x = reduce(f, [1])\n", "reduce")
    assert cause(Crash(**{**crash.__dict__, "builtin": False})) is None


def test_the_functions_exercises_ask_for_come_from_the_course_stubs():
    functions = exercise_functions(str(PROJECT))
    assert functions["numeral_binary"] == ("bin_num", "bitwise_xor")
    assert "self_test" not in functions and exercise_functions(None) == {}
