"""Real-style mistakes of two classes of issue 36 (see the package's docstring): what the game's
referee says must be true of the transcript (a move it calls legal was legal, a refused move is
said as refused), and a mistake that repeats over many cases is one cause (a debug print, a row
number one off), with a first message that names it."""

from __future__ import annotations

from real_mistakes import RealMistake, main_block

_GAME_MAIN = "\n\n" + main_block("working_game")

# A hobby player's game: an unreadable move is refused in a loop that never asks again.
_ILLEGAL_LOOP = (
    '''"""Nim - the working game"""
import sys

from make_move import make_move
from optimal_move import optimal_move
from present_board import present_board
from ui import is_board_empty, is_human, parse_move


def play_nim(player1, player2, board):
    players = [player1, player2]
    current = 0
    print(present_board(board))
    while not is_board_empty(board):
        name = players[current]
        if is_human(name):
            try:
                answer = input(name + ", make a move: ")
            except EOFError:
                print("bye")
                return
            move = parse_move(answer)
            while move == None:
                print("Illegal move, please enter row and amount")
            row = move[0]
            amount = move[1]
        else:
            row, amount = optimal_move(board)
            print(name + " removes " + str(amount) + " from row " + str(row))
        new_board, ok = make_move(board, row, amount)
        if ok == False:
            print("Illegal move, try again")
            continue
        board = new_board
        print(present_board(board))
        if is_board_empty(board):
            print(name + " wins!")
        else:
            current = (current + 1) % 2
'''
    + _GAME_MAIN
)

# A player who learnt another house rule: asking for more than a row holds takes the whole row.
_TAKES_THE_REST = (
    '''"""Exercise 9: the working game."""
import sys

from make_move import make_move
from optimal_move import optimal_move
from present_board import present_board
from ui import is_board_empty, is_human, parse_move


def play_nim(player1, player2, board):
    turn = 0
    names = [player1, player2]
    print(present_board(board))
    while not is_board_empty(board):
        name = names[turn]
        if is_human(name):
            try:
                move = parse_move(input(f"{name}, make a move (row elements): "))
            except EOFError:
                print("No more input: game stopped.")
                return
            if move is None:
                print("Illegal move: type two numbers")
                continue
            row, elements = move
            if 0 < row <= len(board) and elements > board[row - 1]:
                elements = board[row - 1]  # too many: you take what is left
        else:
            row, elements = optimal_move(board)
            print(f"{name} removes {elements} from row {row}")
        new_board, legal = make_move(board, row, elements)
        if not legal:
            print("Illegal move, try again")
            continue
        board = new_board
        print(present_board(board))
        if is_board_empty(board):
            print(f"{name} wins!")
        turn = 1 - turn
'''
    + _GAME_MAIN
)


FILES = (
    RealMistake(
        "working_game",
        "an unreadable move prints Illegal move in a loop that never asks again",
        says="'Illegal move' twice for one move, without asking for a new move",
        never=("was legal", "a loop that never ends"),
        whole=_ILLEGAL_LOOP,
    ),
    RealMistake(
        "working_game",
        "taking more than a row holds takes the whole row (another course's house rule)",
        says="an illegal move leaves the board as it was",
        never=("the board after Alice's move '2 2'", "was legal"),
        whole=_TAKES_THE_REST,
    ),
    # -- one mistake over many cases: its cause said once ---------------------------------------
    RealMistake(
        "present_board",
        "the row counter is moved on before the row is printed: rows count from 2",
        says='expected "1: X X X X X", your program printed "2: X X X X X"',
        never=("leftover debug", 'Rows count from 1, so the first row is "1:", not "0:"'),
        changes=(
            (
                """    lines = ["Nim:"]
    for number, size in enumerate(board, start=1):
        # " X" repeated size times: "" for an empty row, so "2:" has no trailing space.
        lines.append(str(number) + ":" + " X" * size)
    return "\\n".join(lines)""",
                """    text = "Nim:"
    row = 1
    for objects in board:
        row = row + 1
        text = text + "\\n" + str(row) + ":"
        for i in range(objects):
            text = text + " X"
    return text""",
            ),
        ),
    ),
    RealMistake(
        "present_board",
        "the board is printed as a list first, a debug print left in",
        says="leftover debug prints",
        never=("Rows count from 1", "10,000 rows", "up to 1000 objects"),
        changes=(
            (
                """    lines = ["Nim:"]
""",
                """    print(board)
    lines = ["Nim:"]
""",
            ),
        ),
    ),
    RealMistake(
        "exclusive_or",
        "the two bits printed while testing, left in",
        says="leftover debug prints",
        never=("Two equal bits give 0", "Exactly one 1 gives 1"),
        changes=(
            (
                """    if a == b:
        return 0
    return 1""",
                """    print("a =", a, "b =", b)
    if a == b:
        return 0
    else:
        return 1""",
            ),
        ),
    ),
    RealMistake(
        "nim_sum",
        "the running total printed at every row, left in",
        says="leftover debug prints",
        never=("32 bits", "64 bits"),
        changes=(
            (
                """    for row in board:
        total = total ^ row
""",
                """    for row in board:
        total = total ^ row
        print("total so far:", total)
""",
            ),
        ),
    ),
    RealMistake(
        "bin_num",
        "binary_numeral looks the bits up in a table of four-bit numbers",
        says="KeyError",
        never=("copy that function",),
        changes=(
            (
                """    number = 0
    place_value = 1
    for bit in reversed(bits):  # from the last bit, worth 1, to the first
        number = number + bit * place_value
        place_value = place_value * 2
    return number""",
                """    table = {}
    for value in range(16):
        table[str(value // 8) + str(value // 4 % 2) + str(value // 2 % 2) + str(value % 2)] = value
    key = ""
    for bit in bits:
        key = key + str(bit)
    return table[key.zfill(4)]""",
            ),
        ),
    ),
)
