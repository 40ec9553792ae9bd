# Mistake: keeps the nim-sum in 32 bits with & 0xFFFFFFFF, as in C or Java
# student-says: the nim-sum is cut to 32 bits, as in C or Java, but Python's numbers have no such limit
# verdict: wrong_answer
# caught-by: a nim-sum bigger than 32 bits
# says: hidden case; no 32- or 64-bit limit
# hints: no 32- or 64-bit limit
"""Exercise 6 of the Nim lab: The nim-sum, and who is winning

The nim-sum of a board is the bitwise exclusive or (XOR) of all its rows: of
the number of objects in every row. You built XOR yourself in exercise 5; from
now on you may use Python's own XOR operator, ^ (for example 5 ^ 3 == 6).

Example: the board [1, 3, 5, 7]. Write the rows in binary, one under the
other, and look at each column: the nim-sum has a 1 where the column holds an
odd number of 1s, and a 0 where it holds an even number.

    1:   0 0 1
    3:   0 1 1
    5:   1 0 1
    7:   1 1 1
         -----
         0 0 0     every column has an even number of 1s: the nim-sum is 0

Another example, the board [27, 8, 3, 29]:

    27:  1 1 0 1 1
     8:  0 1 0 0 0
     3:  0 0 0 1 1
    29:  1 1 1 0 1
         ---------
         0 1 1 0 1     which is 8 + 4 + 1 = 13

Why this matters: the nim-sum tells you who is winning. The player who takes
the last object wins, and we assume both players play as well as possible.
- If the nim-sum is 0, the board is a P-position: the player about to move
  loses. Whatever they do, the nim-sum stops being 0, and the other player can
  always make it 0 again, until the board is empty.
- If the nim-sum is not 0, the board is an N-position: the player about to move
  can win, by always leaving a nim-sum of 0 (that is exercise 7).
To remember it: P means the Previous player (the one who just moved) wins,
N means the Next player (the one about to move) wins. Careful: some older
handouts of this lab used the two names the other way round. This lab uses
the convention above, the one in the textbooks.

The empty board [] (no rows at all) has nim-sum 0, and so does a board of
empty rows such as [0, 0]: the player about to move cannot move, so they have
lost. Both are P-positions.

Your task is to write three functions:
- nim_sum(board) returns the nim-sum of the board: nim_sum([27, 8, 3, 29]) gives 13.
- is_n_position(board) returns True when the board is an N-position (nim-sum
  not 0) and False otherwise.
- is_p_position(board) returns True when the board is a P-position (nim-sum 0)
  and False otherwise.

Rules:
- Never change the board you are given; the program checks that.
- Rows can hold any number of objects, so the nim-sum can be a very big number.

How to try it:
- python nim_sum.py test
  runs the examples in self_test() below.
- python nim_sum.py
  runs the main block at the end of this file, which reads the whole of
  standard input as one test case, exactly as the grader gives it. A test case
  is JSON, on one line or spread over several, for example
      {"type": "nim_sum", "input": [27, 8, 3, 29]}
  which prints 13, or
      {"type": "is_p_position", "input": [1, 3, 5, 7]}
  which prints true.
  End the input with Enter and Ctrl-D (on Windows: Ctrl-Z, then Enter).
- python -m grader check nim_sum.py
  grades your file against all the test cases.
"""

import json
import sys


def nim_sum(board):
    """The nim-sum of a board.

    board: a list of whole numbers, one per row, for example [1, 3, 5, 7].
    Returns: the XOR of all the rows, for example 0. The empty board gives 0.
    """
    result = 0
    for row in board:
        result = (result ^ row) & 0xFFFFFFFF
    return result


def is_n_position(board):
    """Whether the player about to move can win.

    board: a list of whole numbers, one per row.
    Returns: True when the nim-sum of the board is not 0 (an N-position),
    False when it is 0.
    """
    return nim_sum(board) != 0


def is_p_position(board):
    """Whether the player about to move loses against perfect play.

    board: a list of whole numbers, one per row.
    Returns: True when the nim-sum of the board is 0 (a P-position),
    False when it is not 0.
    """
    return nim_sum(board) == 0


def self_test():
    """Check the three functions on a few examples."""
    assert nim_sum([1, 3, 5, 7]) == 0, "the nim-sum of 1, 3, 5, 7 is 0"
    assert nim_sum([27, 8, 3, 29]) == 13, "the nim-sum of 27, 8, 3, 29 is 13"
    assert is_p_position([5, 4, 3, 2]) is True, "5, 4, 3, 2 has nim-sum 0: a P-position"
    assert is_n_position([27, 8, 3, 29]) is True, "27, 8, 3, 29 has nim-sum 13: an N-position"
    print("All examples passed.")


if __name__ == "__main__":
    if sys.argv[1:] == ["test"]:
        self_test()
    else:
        if sys.stdin.isatty():
            print('Type one test case, e.g. {"type": "nim_sum", "input": [1, 3, 5, 7]},'
                  " then press Enter and Ctrl-D (Windows: Ctrl-Z, Enter)"
                  " (or run: python nim_sum.py test)", file=sys.stderr)
        # One test case: all of standard input, JSON with the function to call and the board.
        case = json.loads(sys.stdin.read())
        board = case["input"]
        original = list(board)
        if case["type"] == "nim_sum":
            result = nim_sum(board)
        elif case["type"] == "is_n_position":
            result = is_n_position(board)
        elif case["type"] == "is_p_position":
            result = is_p_position(board)
        else:
            raise ValueError("unknown test case type: " + repr(case["type"]))
        if board != original:
            raise RuntimeError("your function changed the board it was given;"
                               " it must leave the board as it was")
        print(json.dumps(result))
