"""Real-style mistakes of one class of issue 36 (see the package's docstring): diagnoses that must
explain the evidence, not a coincidence. A cause one case suggests (a move right with its row one
higher) is said only where it explains most failures; a smaller failing input is shown only where it
fails for the same cause; a course hint of a hidden case is not shown where an earlier, simpler case
fails the same way (a wrong format); a failure that comes from a companion file names that file."""

from __future__ import annotations

from support import solution

from real_mistakes import RealMistake, main_block

_SHIFT_SAID = "your move would be right as"  # the start of the rows-from-0 diagnosis
_SHIFT_ASKED = "Did you return a list index"

# -- a diagnosis must explain more than a coincidence -------------------------------------------

ALWAYS_ONE_FROM_ROW_ONE = RealMistake(
    task="optimal_move",
    name="always answers [1, 1] (a placeholder strategy)",
    says="your move [1, 1] leaves nim-sum",
    never=(_SHIFT_SAID, _SHIFT_ASKED),
    whole='''"""Nim: the computer's move. My version for now."""
import json
import random
import sys


def nim_sum(board):
    total = 0
    for heap in board:
        total = total ^ heap
    return total


def optimal_move(board):
    # TODO the real strategy: for now the computer just takes one from the first row
    return (1, 1)


'''
    + main_block("optimal_move"),
)

FIRST_NONEMPTY_ROW = RealMistake(
    task="optimal_move",
    name="takes one object from the first row that is not empty",
    says="leaves nim-sum",
    never=(_SHIFT_SAID, _SHIFT_ASKED),
    whole='''import json
import random
import sys


def optimal_move(board):
    """Take a single object from the first row that still has objects.
    (Safe: never takes too many.)"""
    r = 1
    for heap in board:
        if heap > 0:
            return [r, 1]
        r = r + 1
    return [1, 1]


'''
    + main_block("optimal_move"),
)

ZERO_BASED_ROWS = RealMistake(  # the diagnosis where it does explain the failures: it must still be said
    task="optimal_move",
    name="returns the list index of the good row (rows from 0)",
    says=_SHIFT_SAID,
    whole="""import json
import random
import sys


def nim_sum(board):
    x = 0
    for b in board:
        x ^= b
    return x


def optimal_move(board):
    x = nim_sum(board)
    if x == 0:
        rows = [i for i in range(len(board)) if board[i] > 0]
        i = random.choice(rows)
        return [i, random.randint(1, board[i])]
    good = []
    for i, r in enumerate(board):
        if r ^ x < r:
            good.append(i)
    i = random.choice(good)
    return [i, board[i] - (board[i] ^ x)]


"""
    + main_block("optimal_move"),
)

# -- a smaller failing input must fail for the same cause ---------------------------------------

ROWS_ABOVE_THREE_REFUSED = RealMistake(
    task="make_move",
    name="written for the handout's three rows, and changes the board in place",
    says="make_move changed the board",
    # a random case fails with a wrong answer (row 4 refused); a smaller input where the move is on
    # row 3 crashes instead (the board changed): another mistake, not "a smaller input that fails
    # too" (tests/grading/test_generated.py checks that; a crash's own smaller input crashes too)
    whole="""import json
import sys


def make_move(board, row, elements):
    # the board has 3 rows (like in the example)
    if row < 1 or row > 3:
        return board, False
    if elements < 1 or elements > board[row - 1]:
        return board, False
    board[row - 1] = board[row - 1] - elements
    return board, True


"""
    + main_block("make_move"),
)

FIVE_BITS_AND_TWO_ROWS = RealMistake(  # a smaller input that fails for the same cause is still shown
    task="nim_sum",
    name="XORs five bits per row (rows of at most 31) and starts from the first two rows",
    says="IndexError",
    whole="""import json
import sys

BITS = 5  # a row has at most 31 objects


def to_bits(n):
    bits = []
    for i in range(BITS):
        bits.append(n % 2)
        n = n // 2
    return bits


def from_bits(bits):
    n = 0
    for i in range(BITS):
        n = n + bits[i] * 2 ** i
    return n


def xor_bits(a, b):
    return [(a[i] + b[i]) % 2 for i in range(BITS)]


def nim_sum(board):
    total = xor_bits(to_bits(board[0]), to_bits(board[1]))
    for row in board[2:]:
        total = xor_bits(total, to_bits(row))
    return from_bits(total)


def is_n_position(board):
    return nim_sum(board) != 0


def is_p_position(board):
    return nim_sum(board) == 0


"""
    + main_block("nim_sum"),
)

# -- hints of hidden cases after an unrelated failure -------------------------------------------

_SIZE_HINTS = ("A row can hold up to 1000 objects", "A board can have 10,000 rows")

BARS_FOR_OBJECTS = RealMistake(
    task="present_board",
    name="draws the objects as | like the matchsticks of the textbook",
    says='expected "1: X X X X X"',
    never=_SIZE_HINTS,
    whole="""import sys


def present_board(board):
    text = "Nim:"
    for i in range(len(board)):
        text += "\\n" + str(i + 1) + ":" + " |" * board[i]
    return text


"""
    + main_block("present_board"),
)

ROW_WORD_FORMAT = RealMistake(
    task="present_board",
    name='writes "Row 1: X X X" as another course asked',
    says='expected "1: X X X X X"',
    never=_SIZE_HINTS,
    whole="""import sys


def present_board(board):
    lines = ["Nim:"]
    row_number = 1
    for objects in board:
        line = "Row " + str(row_number) + ":"
        for _ in range(objects):
            line = line + " X"
        lines.append(line)
        row_number += 1
    return "\\n".join(lines)


"""
    + main_block("present_board"),
)

# -- a failure caused by a companion file is named as such --------------------------------------

PRESENT_BOARD_FROM_ZERO = """import sys


def present_board(board):
    result = "Nim:"
    for index, heap in enumerate(board):
        result += "\\n" + str(index) + ":" + " X" * heap
    return result


""" + main_block("present_board")

GAME_WITH_ITS_BOARD_FROM_ZERO = RealMistake(
    task="working_game",
    name="the game is right, but its present_board.py numbers rows from 0",
    says="present_board.py",
    whole=solution("working_game"),
    companions={"present_board": PRESENT_BOARD_FROM_ZERO},
)

OWN_BOARD_FROM_ZERO = RealMistake(  # the game prints its own board: the mistake is this file's, not present_board.py's
    task="working_game",
    name="prints the board itself, rows numbered from 0",
    says="The rows of the board must be numbered 1, 2, 3",
    never=("present_board.py",),
    whole=solution("working_game")
    .replace("from present_board import present_board\n", "")
    .replace(
        "def play_nim(player1, player2, board):",
        """def show(board):
    print("Nim:")
    for i in range(len(board)):
        print(str(i) + ":" + " X" * board[i])


def play_nim(player1, player2, board):""",
    )
    .replace("print(present_board(board))", "show(board)"),
)

FILES = (
    ALWAYS_ONE_FROM_ROW_ONE,
    FIRST_NONEMPTY_ROW,
    ZERO_BASED_ROWS,
    ROWS_ABOVE_THREE_REFUSED,
    FIVE_BITS_AND_TWO_ROWS,
    BARS_FOR_OBJECTS,
    ROW_WORD_FORMAT,
    GAME_WITH_ITS_BOARD_FROM_ZERO,
    OWN_BOARD_FROM_ZERO,
)
