# Mistake: leaves out the rows that are empty and numbers only the rows it shows
# student-says: empty rows are left out and the other rows renumbered
# verdict: wrong_answer
# caught-by: an empty row in the middle is still shown; an empty last row
# hints: empty; rows count from 1 up to
"""Exercise 1 of the Nim lab: Present the board

In Nim the board is a number of rows, each holding some objects. In Python we keep
the board as a list of whole numbers: how many objects are left in each row. Your
task is to turn such a list into text that a player can read.

The text starts with a line "Nim:". Then comes one line per row: the row number, a
colon, and then one "X" for every object in that row, with a single space before
each X. For example, the board [5, 4, 5, 2, 3] is shown as

    Nim:
    1: X X X X X
    2: X X X X
    3: X X X X X
    4: X X
    5: X X X

Rules:
- Rows count from 1: the first row is row 1, not row 0.
- A row with no objects left is still shown, as its number and a colon only,
  with nothing after the colon (not even a space). So [2, 0, 1] is shown as

      Nim:
      1: X X
      2:
      3: X

- Row numbers are written as they are, with no extra spaces: "10: X", not " 10: X".
- The lines are joined with a newline ("\\n"); there is no newline after the last
  line (print adds one for you).
- Never change the board you are given. Read the list; do not add to it, remove
  from it or change its numbers.
- A board has 1 to 10,000 rows, and a row holds 0 to 1000 objects.

How to try it:
- python present_board.py test
  runs the examples in self_test() below.
- python present_board.py
  runs the main block at the end of this file, which reads the whole of
  standard input as one test case, exactly as the grader gives it: type the
  row sizes separated by spaces, for example   5 4 5 2 3   then press Enter
  and Ctrl-D (on Windows: Ctrl-Z, then Enter) to end the input.
- python -m grader check present_board.py
  grades your file against all the test cases.
"""

import sys


def present_board(board):
    """Return the board as text.

    board: a list of whole numbers, one per row, for example [2, 0, 1].
    Returns: a string, for example "Nim:\\n1: X X\\n2:\\n3: X".
    The list you are given must stay exactly as it was.
    """
    text = "Nim:"
    number = 1
    for size in board:
        if size > 0:
            text = text + "\n" + str(number) + ":" + " X" * size
            number = number + 1
    return text


def self_test():
    """Check present_board on a few examples."""
    assert present_board([3]) == "Nim:\n1: X X X"
    assert present_board([2, 0, 1]) == "Nim:\n1: X X\n2:\n3: X"
    board = [5, 4, 5, 2, 3]
    assert present_board(board) == (
        "Nim:\n1: X X X X X\n2: X X X X\n3: X X X X X\n4: X X\n5: X X X"
    )
    assert board == [5, 4, 5, 2, 3], "present_board must not change the board"
    print("All examples passed.")


if __name__ == "__main__":
    if sys.argv[1:] == ["test"]:
        self_test()
    else:
        if sys.stdin.isatty():
            print("Type one test case, e.g. 5 4 3, then press Enter"
                  " and Ctrl-D (Windows: Ctrl-Z, Enter)"
                  " (or run: python present_board.py test)", file=sys.stderr)
        # One test case: all of standard input, the row sizes separated by spaces.
        board = [int(word) for word in sys.stdin.read().split()]
        original = list(board)
        text = present_board(board)
        if board != original:
            raise RuntimeError("present_board changed the board it was given;"
                               " read the list without changing it")
        print(text)
