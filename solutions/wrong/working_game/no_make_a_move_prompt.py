# Mistake: asks for a move with its own words on a line of its own and a bare input(): no "make a move" prompt
# verdict: time_limit_exceeded
# says: waited for input; make a move
# quick: true
"""Exercise 9 of the Nim lab: The working game

Everything comes together: your task is to play a whole game of Nim between two
players, using the functions you wrote in the earlier exercises.

play_nim(player1, player2, board) gets the names of the two players and the
starting board (a list with the number of objects in each row). Player 1 moves
first, then the players take turns until the board is empty. The player who
takes the last object wins.

A player whose name contains "computer", in any letter case ("Computer",
"COMPUTER", "computer 2"), is played by the computer; every other player is a
human who types their moves. That gives three ways to play:
- human against human:        Alice and Bob
- human against computer:     Alice and Computer (or Computer and Alice, when
                              the computer should move first)
- computer against computer:  Computer 1 and Computer 2

This file uses your own functions from the earlier exercises:
    present_board   from present_board.py   (exercise 1)
    make_move       from make_move.py       (exercise 2)
    optimal_move    from optimal_move.py    (exercise 7)
    is_human, is_board_empty, parse_move    from ui.py (exercise 8)
so keep your other exercise files in the same folder as this one. The grader
does the same: it copies your other exercise files next to this one.

What the game prints, each on its own line:
- the board, as present_board shows it, at the start and after every legal move;
- when a human is to move: a prompt that contains "make a move", for example
      input(f"{name}, make a move (row elements): ")
  The player types the row and how many objects to take, as "3 2", "3,2" or
  "3, 2"; parse_move turns that into [3, 2], and make_move makes the move.
- when what the human typed is not a move (parse_move gives None), or the move
  is illegal (make_move says False): a line that starts with "Illegal move",
  for example "Illegal move, try again.", and then the SAME player is asked
  again. The turn only passes after a legal move.
- when the computer is to move: it plays optimal_move(board) and prints
      <name> removes <elements> from row <row>
  for example "Computer removes 2 from row 3".
- when the board is empty: "<name> wins!" for the player who took the last
  object, and the game is over.
- if the input ends while a human is asked for a move, input() raises
  EOFError. Catch it, print a short line such as "No more input: game
  stopped." and return: the program must end quietly, without a traceback.
Other lines (a welcome, an explanation) are allowed; the grader skips them.

Here is a game between Alice and the computer on the board [1, 2, 3], as the
terminal shows it (what Alice typed comes after each prompt):

    Nim:
    1: X
    2: X X
    3: X X X
    Alice, make a move (row elements): 2 2
    Nim:
    1: X
    2:
    3: X X X
    Computer removes 2 from row 3
    Nim:
    1: X
    2:
    3: X
    Alice, make a move (row elements): 5 1
    Illegal move: you cannot take 1 from row 5. Try again.
    Alice, make a move (row elements): 1 1
    Nim:
    1:
    2:
    3: X
    Computer removes 1 from row 3
    Nim:
    1:
    2:
    3:
    Computer wins!

Rules:
- Player 1 moves first. Rows count from 1, as everywhere in this lab.
- Use make_move to make a move and check that it is legal: do not change the
  board list yourself. The board you are given must stay as it was.
- After an illegal or unreadable move the same player is asked again.
- The winner is the player who made the last move, the one who emptied the
  board (not the player whose turn would come next).
- Stop as soon as the board is empty.

How to try it:
- python working_game.py
  plays a game in the terminal, exactly as the grader starts it. Type the name
  of player 1, then the name of player 2, then the board, each on its own line,
  for example
      Alice
      Computer
      3 4 5
  and then play: type your moves when asked. There is nothing to check here by
  assert: you watch the game and see whether it follows the rules above.
- python working_game.py test
  plays three short games with prepared input (two computers; two humans with
  an illegal move; a human who types nothing) and checks how they end.
- python -m grader check working_game.py
  grades your file: the grader plays the humans, typing prepared moves, random
  moves, perfect moves and illegal ones, and checks every line of the game.
"""

import contextlib
import io
import sys

# Your own functions from exercises 1, 2, 7 and 8: keep present_board.py,
# make_move.py, optimal_move.py and ui.py in the same folder as this file.
from make_move import make_move  # noqa: F401
from optimal_move import optimal_move  # noqa: F401
from present_board import present_board  # noqa: F401
from ui import is_board_empty, is_human, parse_move  # noqa: F401


def play_nim(player1, player2, board):
    """Play one game of Nim, printing it as it goes.

    player1, player2: the players' names; player 1 moves first. A name that
    contains "computer" (any letter case) is a computer player.
    board: the starting board, a list of whole numbers, for example [3, 4, 5],
    with at least one object.
    Prints the game (see the top of this file). Humans are asked for their
    moves with input(). Returns nothing.
    The list you are given must stay exactly as it was.
    """
    players = [player1, player2]
    turn = 0
    print(present_board(board))
    while not is_board_empty(board):
        name = players[turn]
        if is_human(name):
            print(name + ", it is your turn. Type the row and the number of objects:")
            try:
                text = input()
            except EOFError:
                return
            move = parse_move(text)
            if move is None:
                print("Illegal move, try again.")
                continue
            row, elements = move
        else:
            row, elements = optimal_move(board)
            print(name, "removes", elements, "from row", row)
        new_board, ok = make_move(board, row, elements)
        if not ok:
            print("Illegal move, try again.")
            continue
        board = new_board
        print(present_board(board))
        if is_board_empty(board):
            print(name, "wins!")
        turn = 1 - turn


def run_game(player1, player2, board, typed=()):
    """Play one game with the lines in `typed` as the humans' input; return what it printed."""
    keyboard = io.StringIO("".join(line + "\n" for line in typed))
    screen = io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = keyboard  # input() now reads the prepared lines
    try:
        with contextlib.redirect_stdout(screen):
            play_nim(player1, player2, board)
    finally:
        sys.stdin = old_stdin
    return screen.getvalue()


def self_test():
    """Play three short games with prepared input and check how they end."""
    # Two computers on [1, 2, 3]: the nim-sum is 0, a P-position, so the first
    # player loses against perfect play and Computer 2 must win.
    board = [1, 2, 3]
    shown = run_game("Computer 1", "Computer 2", board)
    assert shown.startswith("Nim:\n1: X\n2: X X\n3: X X X\n"), "show the board first"
    assert "Computer 1 removes " in shown, 'a computer move is shown as "<name> removes ..."'
    assert shown.rstrip().endswith("Computer 2 wins!"), (
        "on [1, 2, 3] Computer 2 must win, and the game must end with 'Computer 2 wins!'")
    assert board == [1, 2, 3], "play_nim must not change the board it was given"

    # Two humans on [1, 2]. Alice first types "3 1" (there is no row 3) and must
    # be asked again; then 2 1, 1 1, 2 1: Alice takes the last object.
    shown = run_game("Alice", "Bob", [1, 2], ["3 1", "2 1", "1 1", "2 1"])
    assert "Illegal move" in shown, 'an illegal move prints a line starting with "Illegal move"'
    assert shown.count("make a move") == 4, "a human is asked with a prompt containing 'make a move'"
    assert shown.rstrip().endswith("Alice wins!"), (
        "Alice took the last object, so 'Alice wins!' must end the game"
        " (after an illegal move the same player is asked again)")

    # A human who types nothing: input() raises EOFError, and the game must stop
    # quietly (return) instead of crashing.
    shown = run_game("Alice", "Bob", [3])
    assert "wins!" not in shown, "nobody has won a game that stopped before the first move"
    print("All examples passed.")


if __name__ == "__main__":
    if sys.argv[1:] == ["test"]:
        self_test()
    else:
        if sys.stdin.isatty():
            print("Type player 1's name, player 2's name and the board (e.g. 3 4 5),"
                  " each on its own line; a name with 'computer' in it is played by"
                  " the computer (or run: python working_game.py test)", file=sys.stderr)
        # The game: two names and a board, then the humans' moves when asked.
        player1 = sys.stdin.readline().strip()
        player2 = sys.stdin.readline().strip()
        board = [int(word) for word in sys.stdin.readline().split()]
        original = list(board)
        play_nim(player1, player2, board)
        if board != original:
            raise RuntimeError("play_nim changed the board it was given;"
                               " use the new board that make_move returns instead")
