"""Real-style mistakes of one class of issue 36 (see the package's docstring): a time-out is not an
endless loop. Brute-force players that try every move are slow, not stuck; a ``while`` loop whose
condition never changes is stuck; a slow ``present_board`` that times out on a hidden case only must
get the course's hint about speed there (``says`` is then empty: no visible case fails, and
``test_time_outs.py`` checks the hidden case's hint), and never the loop's words.

Each file is whole, as a student or a hobby player wrote it, with the exercise's own main block
(``_main``) as its calling code.
"""

from __future__ import annotations

from real_mistakes import RealMistake, main_block

# The words of a loop that never ends (the grader's, and the course's P-position hint).
LOOP_WORDS = ("never ends", "loop that looks for one")
# The words of slow work.
SLOW_WORDS = ("too slow", "quicker way")


MINIMAX = """import json
import random
import sys


def can_win(board):
    # the player to move wins if some move leaves a board the other player cannot win
    if sum(board) == 0:
        return False
    for row in range(len(board)):
        for take in range(1, board[row] + 1):
            after = list(board)
            after[row] -= take
            if not can_win(after):
                return True
    return False


def optimal_move(board):
    winning = []
    legal = []
    for row in range(len(board)):
        for take in range(1, board[row] + 1):
            legal.append((row + 1, take))
            after = list(board)
            after[row] -= take
            if not can_win(after):
                winning.append((row + 1, take))
    if winning:
        return random.choice(winning)
    return random.choice(legal)


""" + main_block("optimal_move")

# A hobby player's search, with counting while loops (a for loop is "for lists" to them).
WHILE_SEARCH = '''import json
import random
import sys


def wins(board):
    """True when the player about to move can force a win (tries everything)."""
    row = 0
    while row < len(board):
        take = 1
        while take <= board[row]:
            board[row] = board[row] - take
            other_wins = wins(board)
            board[row] = board[row] + take
            if not other_wins:
                return True
            take = take + 1
        row = row + 1
    return False


def optimal_move(board):
    board = list(board)
    good = []
    every = []
    row = 0
    while row < len(board):
        take = 1
        while take <= board[row]:
            every.append([row + 1, take])
            board[row] -= take
            if not wins(board):
                good.append([row + 1, take])
            board[row] += take
            take += 1
        row += 1
    return random.choice(good or every)


''' + main_block("optimal_move")

# From a P-position it looks for a row that is not empty, but forgot to move on.
STUCK_ON_EMPTY_ROW = """import json
import random
import sys


def nim_sum(board):
    total = 0
    for row in board:
        total = total ^ row
    return total


def optimal_move(board):
    x = nim_sum(board)
    if x != 0:
        moves = []
        for i in range(len(board)):
            if board[i] ^ x < board[i]:
                moves.append((i + 1, board[i] - (board[i] ^ x)))
        return random.choice(moves)
    # P-position: take from some row that is not empty
    row = random.randrange(len(board))
    while board[row] == 0:
        row + 1
    return (row + 1, random.randint(1, board[row]))


""" + main_block("optimal_move")

NIM_SUM_NO_STEP = """import json
import sys


def nim_sum(board):
    total = 0
    i = 0
    while i < len(board):
        total = total ^ board[i]
    return total


def is_n_position(board):
    return nim_sum(board) != 0


def is_p_position(board):
    return nim_sum(board) == 0


""" + main_block("nim_sum")

# Each row added to the whole text so far: the text is copied once a row, 10,000 times over 20 MB.
QUADRATIC_TEXT = """import sys


def present_board(board):
    text = "Nim:"
    for i in range(len(board)):
        text = text + "\\n" + str(i + 1) + ":" + " X" * board[i]
    return text


""" + main_block("present_board")

QUADRATIC_WHILE = """import sys


def present_board(board):
    result = "Nim:"
    number = 1
    while number <= len(board):
        row = str(number) + ":"
        for count in range(board[number - 1]):
            row = row + " X"
        result = result + "\\n" + row
        number = number + 1
    return result


""" + main_block("present_board")

FILES = (
    RealMistake(
        "optimal_move",
        "minimax over every move, slow past the smallest boards",
        says="too slow",
        never=LOOP_WORDS,
        whole=MINIMAX,
    ),
    RealMistake(
        "optimal_move",
        "a search of every move with counting while loops and recursion",
        says="too slow",
        never=LOOP_WORDS,
        whole=WHILE_SEARCH,
    ),
    RealMistake(
        "optimal_move",
        "a while loop looking for a non-empty row that never moves on (row + 1, not row += 1)",
        says="in a loop that never ends",
        never=SLOW_WORDS,
        whole=STUCK_ON_EMPTY_ROW,
    ),
    RealMistake(
        "nim_sum",
        "a while loop over the rows without i += 1",
        says="nothing in it changes what its condition tests",
        never=SLOW_WORDS,
        whole=NIM_SUM_NO_STEP,
    ),
    RealMistake(
        "present_board",
        "the whole text copied for every row (text + newline + row)",
        says="",
        never=LOOP_WORDS,
        whole=QUADRATIC_TEXT,
    ),
    RealMistake(
        "present_board",
        "a counting while loop and the text copied for every row",
        says="",
        never=LOOP_WORDS,
        whole=QUADRATIC_WHILE,
    ),
)
