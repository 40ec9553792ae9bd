# Mistake: calls random.choice on the list of good rows even when it is empty (a P-position)
# verdict: runtime_error
# caught-by: P-position 1, 2, 3: no winning move, so play a random legal move
# says: IndexError; random.choice of an empty list crashes
# never-says: Rows count from 1; random.choice was given an empty list
# cases: 1, 3, 5 has one winning move: take 3 from row 3; P-position 1, 2, 3: no winning move, so play a random legal move
# hints: random.choice of an empty list crashes
"""Exercise 7 of the Nim lab: The optimal move

Now the computer learns to play. Remember the convention from exercise 6:
- nim-sum 0: a P-position. The player about to move loses against perfect
  play: every move they make leaves a nim-sum that is not 0.
- nim-sum not 0: an N-position. The player about to move can win, by making a
  move that leaves a nim-sum of 0 (a winning move), and doing so again after
  every move of the opponent.
(Some older handouts of this lab used the two names the other way round. This
lab uses the convention above, the one in the textbooks.)

Your task is to write optimal_move(board), which returns the move the computer
plays, as a pair (row, elements): take `elements` objects from row number
`row`, counting rows from 1, exactly as make_move in exercise 2 expects.

How to find the winning moves from an N-position. Call the nim-sum of the
board X, and look at each row in turn; say the row holds r objects.
- The nim-sum of all the OTHER rows is r ^ X (XOR-ing r in a second time
  cancels it out).
- So if this row held r ^ X objects instead of r, the nim-sum of the whole
  board would be (r ^ X) ^ (r ^ X) = 0. That is the winning move in this row:
  leave r ^ X objects, that is, take r - (r ^ X) of them.
- A move can only take objects away, never add them, so this works only when
  r ^ X < r. Such a row is a "good row". When r ^ X > r the row is not good.
From an N-position there is always at least one good row (the textbook proves
it: every row with a 1 where X has its leftmost 1 is good), and often several.

Example: the board [5, 4, 3, 2, 1] has nim-sum X = 1.

    row   r   r ^ X   good?
     1    5     4     yes: take 5 - 4 = 1 from row 1
     2    4     5     no (4 objects cannot become 5)
     3    3     2     yes: take 3 - 2 = 1 from row 3
     4    2     3     no
     5    1     0     yes: take 1 - 0 = 1 from row 5 (the whole row)

So (1, 1), (3, 1) and (5, 1) are the three winning moves. Taking 1 from row 3,
for example, leaves [5, 4, 2, 2, 1], and 5 ^ 4 ^ 2 ^ 2 ^ 1 is 0.

Another example: [27, 8, 3, 29] has nim-sum X = 13. Then 27 ^ 13 = 22,
8 ^ 13 = 5, 3 ^ 13 = 14 and 29 ^ 13 = 16, so rows 1, 2 and 4 are good and the
winning moves are (1, 5), (2, 3) and (4, 13). Row 3 is not good.

A computer that always plays the same move is boring and easy to read, so
optimal_move picks at random: collect ALL the good rows in a list, then pick
one with random.choice(good_rows).

From a P-position there is no winning move: whatever you do, the nim-sum stops
being 0. Then play a random legal move and hope the opponent makes a mistake:
pick a random row that is not empty, then a random number of objects from 1 to
what that row holds, with random.randint(1, size) (randint includes both ends).

Rules:
- Rows count from 1: the first row is row 1. The move must be legal: a row
  that holds at least one object, and at least 1 and at most what it holds.
- From an N-position, return a winning move (one that leaves nim-sum 0),
  chosen at random among ALL the winning moves. The grader runs your program
  many times on the same board: where there are several winning moves, it
  expects to see more than one of them. Always taking the first good row is
  not enough.
- From a P-position, return a random legal move; here too the grader expects
  different runs to give different moves. Never take from an empty row.
- The board is never all zeros, so there is always a move.
- Never change the board you are given; the program checks that.
- You may use Python's ^ operator. Fill in nim_sum below too (you wrote it in
  exercise 6) and use it in optimal_move.

How to try it:
- python optimal_move.py test
  runs the examples in self_test() below.
- python optimal_move.py
  runs the main block at the end of this file, which reads the whole of
  standard input as one test case, exactly as the grader gives it. A test case
  is the board as JSON, on one line or spread over several, for example
      [5, 4, 3, 2, 1]
  End the input with Enter and Ctrl-D (on Windows: Ctrl-Z, then Enter);
  the program prints the move as JSON, for example [3, 1] (a pair is
  printed as a list). Run it a few times: the answer may change.
- python -m grader check optimal_move.py
  grades your file against all the test cases.
"""

import json
import random
import sys


def nim_sum(board):
    """The nim-sum of a board.

    board: a list of whole numbers, one per row, for example [5, 4, 3, 2, 1].
    Returns: the XOR of all the rows, for example 1. The empty board gives 0.
    """
    result = 0
    for row in board:
        result ^= row
    return result


def optimal_move(board):
    """Choose the computer's move.

    board: a list of whole numbers, one per row, not all 0, for example
    [5, 4, 3, 2, 1].
    Returns: a pair (row, elements), the row counted from 1. From an
    N-position, a move that leaves nim-sum 0, chosen at random among all such
    moves, for example (3, 1). From a P-position, a random legal move.
    The list you are given must stay exactly as it was.
    """
    x = nim_sum(board)
    good = []
    for i in range(len(board)):
        if board[i] ^ x < board[i]:
            good.append(i)
    i = random.choice(good)
    return (i + 1, board[i] - (board[i] ^ x))


def check_move(board, move):
    """Stop with a message if `move` is not a good answer on `board` (used by self_test)."""
    assert move is not None, "optimal_move returned nothing: return a pair (row, elements)"
    row, elements = move
    assert 1 <= row <= len(board), "the row must be between 1 and len(board): rows count from 1"
    assert 1 <= elements <= board[row - 1], "take at least 1 object and at most what the row holds"
    before = 0
    after = 0
    for index, size in enumerate(board):
        before = before ^ size
        if index == row - 1:
            size = size - elements
        after = after ^ size
    if before != 0:
        assert after == 0, "from an N-position the move must leave nim-sum 0"


def self_test():
    """Check optimal_move on a few boards. Its answer is random, so check what it must be."""
    assert nim_sum([5, 4, 3, 2, 1]) == 1, "the nim-sum of 5, 4, 3, 2, 1 is 1"
    assert nim_sum([27, 8, 3, 29]) == 13, "the nim-sum of 27, 8, 3, 29 is 13"
    for board in ([1, 3, 5], [27, 8, 3, 29], [0, 0, 9], [1, 2, 3], [0, 3, 0, 5, 0, 6]):
        original = list(board)
        for _ in range(50):
            check_move(board, optimal_move(board))
            assert board == original, "optimal_move must not change the board"
    moves = set()
    for _ in range(200):
        moves.add(tuple(optimal_move([27, 8, 3, 29])))
    assert moves == {(1, 5), (2, 3), (4, 13)}, "27, 8, 3, 29 has three winning moves; pick each of them at random"
    moves = set()
    for _ in range(200):
        moves.add(tuple(optimal_move([1, 2, 3])))
    assert len(moves) > 1, "from a P-position, pick a random legal move"
    for _ in range(200):
        board = [random.randint(0, 20) for _ in range(random.randint(1, 6))]
        if any(board):
            check_move(board, optimal_move(board))
    print("All examples passed.")


if __name__ == "__main__":
    if sys.argv[1:] == ["test"]:
        self_test()
    else:
        if sys.stdin.isatty():
            print("Type one test case, e.g. [5, 4, 3, 2, 1], then press Enter"
                  " and Ctrl-D (Windows: Ctrl-Z, Enter)"
                  " (or run: python optimal_move.py test)", file=sys.stderr)
        # One test case: all of standard input, the board as a JSON list.
        board = json.loads(sys.stdin.read())
        original = list(board)
        move = optimal_move(board)
        if board != original:
            raise RuntimeError("optimal_move changed the board it was given;"
                               " read the list without changing it")
        print(json.dumps(move))
