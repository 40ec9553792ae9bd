# Mistake: returns None for an illegal move instead of (copy of the board, False)
# student-says: an illegal move gives None instead of a copy of the board and False
# verdict: wrong_answer
# caught-by: row 4 of a board of 3 rows does not exist
# hints: not None
"""Exercise 2 of the Nim lab: Making a move

On their turn a player picks one row and takes some objects from it: at least one,
and at most all the objects that row holds. Your task is to carry out such a move
on a board (a list with the number of objects in each row).

make_move(board, row, elements) gets the board, the number of the row, and how many
objects ("elements") to take. It returns two things: the new board and True when
the move is legal, or an unchanged copy of the board and False when it is not.

Example: on the board [5, 4, 5, 2, 3], taking 2 objects from row 3 is legal:

    make_move([5, 4, 5, 2, 3], 3, 2)  gives  ([5, 4, 3, 2, 3], True)

Taking 6 objects from row 2 is not, because row 2 holds only 4:

    make_move([5, 4, 5, 2, 3], 2, 6)  gives  ([5, 4, 5, 2, 3], False)

Rules:
- Rows count from 1: the first row is row 1, the last row is row len(board).
  Row 0, negative rows and rows past the end do not exist, so the move is illegal.
  (Careful: in Python board[-1] is the last row, so board[row - 1] does not
  complain when row is 0. Check the row number yourself.)
- The number of objects taken must be at least 1 and at most what the row holds.
  Taking 0 or a negative number is illegal, and so is taking anything from an
  empty row. Taking a whole row is fine.
- Never change the board you are given: make a new list (for example
  list(board)) and change that one. For an illegal move, return a copy of the
  board, unchanged, together with False.

How to try it:
- python make_move.py test
  runs the examples in self_test() below.
- python make_move.py
  runs the main block at the end of this file, which reads the whole of
  standard input as one test case, exactly as the grader gives it. A test case
  is JSON, on one line or spread over several, for example
      {"board": [5, 4, 5, 2, 3], "row": 3, "elements": 2}
  End the input with Enter and Ctrl-D (on Windows: Ctrl-Z, then Enter);
  the program prints the answer as JSON: [[5, 4, 3, 2, 3], true]
- python -m grader check make_move.py
  grades your file against all the test cases.
"""

import json
import sys


def make_move(board, row, elements):
    """Take `elements` objects from row number `row` (counting from 1).

    board: a list of whole numbers, one per row, for example [3, 4, 5].
    row: the number of the row, 1 for the first row.
    elements: how many objects to take.
    Returns: a pair (new_board, success). For a legal move, new_board is a new
    list with the move made and success is True; for an illegal move, new_board
    is an unchanged copy of board and success is False.
    The list you are given must stay exactly as it was.
    """
    if row < 1 or row > len(board):
        return None
    if elements < 1 or elements > board[row - 1]:
        return None
    new_board = list(board)
    new_board[row - 1] -= elements
    return new_board, True


def self_test():
    """Check make_move on a few examples."""
    board = [5, 4, 5, 2, 3]
    assert make_move(board, 3, 2) == ([5, 4, 3, 2, 3], True)
    assert board == [5, 4, 5, 2, 3], "make_move must not change the board"
    assert make_move([3, 4, 5], 0, 1) == ([3, 4, 5], False)
    assert make_move([3, 4, 5], 2, 6) == ([3, 4, 5], False)
    print("All examples passed.")


if __name__ == "__main__":
    if sys.argv[1:] == ["test"]:
        self_test()
    else:
        if sys.stdin.isatty():
            print('Type one test case, e.g. {"board": [3, 4, 5], "row": 2, "elements": 1},'
                  " then press Enter and Ctrl-D (Windows: Ctrl-Z, Enter)"
                  " (or run: python make_move.py test)", file=sys.stderr)
        # One test case: all of standard input, JSON with the board, the row and the elements.
        case = json.loads(sys.stdin.read())
        board = case["board"]
        original = list(board)
        result = make_move(board, case["row"], case["elements"])
        if board != original:
            raise RuntimeError("make_move changed the board it was given;"
                               " build a new list instead")
        print(json.dumps(result))
