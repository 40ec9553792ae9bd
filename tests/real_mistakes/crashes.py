"""Real-style mistakes of one class of issue 36 (see the package's docstring): crashes whose cause is
a habit the student brought (Python 2, another language or library, another course's fixed board),
where advice keyed on the exception's name alone misleads. Each file is whole, as a first-year
student writes it, with the stub's main block as its calling code."""

from __future__ import annotations

from real_mistakes import RealMistake, main_block

_BIN_NUM_MAIN = "\n\n" + main_block("bin_num")
_NIM_SUM_MAIN = "\n\n" + main_block("nim_sum")
_XOR_MAIN = "\n\n" + main_block("bitwise_xor")
_PRESENT_MAIN = "\n\n" + main_block("present_board")
_MAKE_MOVE_MAIN = "\n\n" + main_block("make_move")

RECURSIVE_SLASH = RealMistake(
    task="bin_num",
    name="recursive conversion halves with / (a float that never reaches 0): RecursionError",
    says="//",
    never=("without reaching a case that stops it",),
    whole="""import json
import sys


# recursive version like in the lecture
def numeral_binary(n):
    if n == 0:
        return []
    return numeral_binary(n / 2) + [n % 2]


def binary_numeral(bits):
    total = 0
    for b in bits:
        total = total * 2 + b
    return total
"""
    + _BIN_NUM_MAIN,
)

REDUCE_OF_PYTHON2 = RealMistake(
    task="nim_sum",
    name="Python 2's built-in reduce (it moved to functools): NameError",
    says="functools",
    never=("copy that function", "earlier exercise"),
    whole="""import json
import sys


def nim_sum(board):
    # xor all the rows together
    return reduce(lambda x, y: x ^ y, board, 0)


def is_n_position(board):
    return nim_sum(board) != 0


def is_p_position(board):
    return nim_sum(board) == 0
"""
    + _NIM_SUM_MAIN,
)

XRANGE_OF_PYTHON2 = RealMistake(
    task="bitwise_xor",
    name="Python 2's xrange in the helpers: NameError",
    says="range(...)",
    never=("copy that function", "earlier exercise"),
    whole="""import sys


def exclusive_or(a, b):
    if a == b:
        return 0
    return 1


def numeral_binary(n):
    bits = []
    while n > 0:
        bits.insert(0, n % 2)
        n = n // 2
    return bits or [0]


def binary_numeral(bits):
    n = 0
    for i in xrange(len(bits)):
        n = n + bits[i] * 2 ** (len(bits) - 1 - i)
    return n


def bitwise_exclusive_or(a, b):
    x = numeral_binary(a)
    y = numeral_binary(b)
    while len(x) < len(y):
        x.insert(0, 0)
    while len(y) < len(x):
        y.insert(0, 0)
    out = []
    for i in xrange(len(x)):
        out.append(exclusive_or(x[i], y[i]))
    return binary_numeral(out)
"""
    + _XOR_MAIN,
)

REVERSE_WITH_RANGE_OF_HALF = RealMistake(
    task="bin_num",
    name="reverses the bits in place over range(len(bits) / 2): TypeError, a float in range()",
    says="//",
    never=("None returned by a function",),
    whole="""import json
import sys


def numeral_binary(n):
    if n == 0:
        return [0]
    bits = []
    while n != 0:
        bits.append(n % 2)
        n = n // 2
    # reverse it (swap first and last, etc)
    for i in range(len(bits) / 2):
        tmp = bits[i]
        bits[i] = bits[len(bits) - 1 - i]
        bits[len(bits) - 1 - i] = tmp
    return bits


def binary_numeral(bits):
    value = 0
    for bit in bits:
        value = value * 2 + bit
    return value
"""
    + _BIN_NUM_MAIN,
)

FOUR_ROWS_LOOP = RealMistake(
    task="nim_sum",
    name="loops over range(4), the handout's board of four rows: IndexError on a board of three",
    says="range(4)",
    never=("Rows count from 1",),
    whole="""import json
import sys


def nim_sum(board):
    total = 0
    for i in range(4):
        total = total ^ board[i]
    return total


def is_n_position(board):
    if nim_sum(board) != 0:
        return True
    else:
        return False


def is_p_position(board):
    if nim_sum(board) == 0:
        return True
    else:
        return False
"""
    + _NIM_SUM_MAIN,
)

FIVE_ROWS_BY_HAND = RealMistake(
    task="present_board",
    name="writes out the handout's five rows one by one: IndexError on a board of one row",
    says="fixed position",
    never=("Rows count from 1",),
    whole="""import sys


def present_board(board):
    text = "Nim:"
    text = text + "\\n1: " + " ".join(["X"] * board[0])
    text = text + "\\n2: " + " ".join(["X"] * board[1])
    text = text + "\\n3: " + " ".join(["X"] * board[2])
    text = text + "\\n4: " + " ".join(["X"] * board[3])
    text = text + "\\n5: " + " ".join(["X"] * board[4])
    return text
"""
    + _PRESENT_MAIN,
)

STRING_JOIN_OF_PYTHON2 = RealMistake(
    task="present_board",
    name="Python 2's string.join: AttributeError",
    says='"\\n".join',
    whole="""import string
import sys


def present_board(board):
    lines = ["Nim:"]
    for i in range(len(board)):
        line = str(i + 1) + ":"
        for j in range(board[i]):
            line = line + " X"
        lines.append(line)
    return string.join(lines, "\\n")
"""
    + _PRESENT_MAIN,
)

NUMPY_XOR = RealMistake(
    task="nim_sum",
    name="numpy's bitwise_xor, a library the lab's Python does not have",
    says="numpy",
    never=("copy that function",),
    whole="""import json
import sys

import numpy as np


def nim_sum(board):
    if len(board) == 0:
        return 0
    return int(np.bitwise_xor.reduce(np.array(board)))


def is_n_position(board):
    return nim_sum(board) != 0


def is_p_position(board):
    return nim_sum(board) == 0
"""
    + _NIM_SUM_MAIN,
)

EXCEPT_COMMA_OF_PYTHON2 = RealMistake(
    task="make_move",
    name="Python 2's except IndexError, e: a syntax error",
    says="except IndexError as e",
    whole="""import json
import sys


def make_move(board, row, elements):
    new_board = board[:]
    try:
        if row < 1 or elements < 1 or new_board[row - 1] < elements:
            return board[:], False
        new_board[row - 1] = new_board[row - 1] - elements
    except IndexError, e:
        return board[:], False
    return new_board, True
"""
    + _MAKE_MOVE_MAIN,
)

MATH_NOT_IMPORTED = RealMistake(
    task="bin_num",
    name="math.log2 for the number of bits, math never imported: NameError",
    says="import math",
    never=("copy that function", "earlier exercise"),
    whole="""import json
import sys


def numeral_binary(n):
    if n == 0:
        return [0]
    length = int(math.log2(n)) + 1
    bits = [0] * length
    for i in range(length):
        bits[length - 1 - i] = n % 2
        n = n // 2
    return bits


def binary_numeral(bits):
    result = 0
    for b in bits:
        result = 2 * result + b
    return result
"""
    + _BIN_NUM_MAIN,
)

RECURSION_PER_ROW = RealMistake(
    task="nim_sum",
    name="recursive nim_sum over board[1:], once per row: RecursionError on a board of 10,000 rows",
    says="once for each row",
    never=("without reaching a case that stops it",),
    whole="""import json
import sys


def nim_sum(board):
    # base case: empty board
    if len(board) == 0:
        return 0
    return board[0] ^ nim_sum(board[1:])


def is_n_position(board):
    return nim_sum(board) != 0


def is_p_position(board):
    return not is_n_position(board)
"""
    + _NIM_SUM_MAIN,
)

FILES = (
    RECURSION_PER_ROW,
    RECURSIVE_SLASH,
    REDUCE_OF_PYTHON2,
    XRANGE_OF_PYTHON2,
    REVERSE_WITH_RANGE_OF_HALF,
    FOUR_ROWS_LOOP,
    FIVE_ROWS_BY_HAND,
    STRING_JOIN_OF_PYTHON2,
    NUMPY_XOR,
    EXCEPT_COMMA_OF_PYTHON2,
    MATH_NOT_IMPORTED,
)
