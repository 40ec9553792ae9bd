# Mistake: parse_move turns commas into spaces and uses the first two numbers, so three numbers are a move
# verdict: wrong_answer
# caught-by: three numbers, "3 2 1", are not a move
# says: expected "null"; printed "[3, 2]"; exactly two numbers
# hints: exactly two numbers; whole text must be the two numbers; Exactly one comma; exactly one integer on each side
"""Exercise 8 of the Nim lab: The user interface

The game you build in exercise 9 can be played by two people, by a person
against the computer, or by the computer against itself. This exercise writes
three small helpers for it.

1. is_human(name): who is a computer player?
   A player whose name contains the word "computer", in any mix of capital and
   small letters, is played by the computer: "Computer", "computer2",
   "my COMPUTER friend" and "SuperComputer" are all computer players. Every
   other player is human, even one with an empty name "". is_human returns
   False for a computer player and True for a human one.
   (Hint: name.lower() gives the name in small letters.)

2. is_board_empty(board): is the game over?
   True when no objects are left, that is, when every row is 0: [0, 0, 0] is
   empty, and so is a board with no rows at all, []. [0, 1] is not empty.

3. parse_move(text): what did the player type?
   A human player types a move as two whole numbers, the row and how many
   objects to take, for example "3 2" or "3, 2". parse_move turns that text
   into the list [row, elements], here [3, 2], or returns None when the text
   is not a move. The exact rule:
   - White space at the start and at the end does not matter: spaces, tabs,
     and the newline at the end of a typed line.
   - What is left must be two integers, separated EITHER by white space (one
     space or more: "3 2", "3   2") OR by exactly one comma, with or without
     white space on either side of it ("3,2", "3, 2", "3 ,2", "3 , 2").
   - An integer is one or more of the digits 0 to 9, with an optional sign
     (- or +) right in front: "12", "-1" and "+3" are integers; "3.5",
     "three", "1e3" and "- 1" (a space after the sign) are not.
   Anything else gives None: one number, three numbers, words, an empty text,
   only spaces, two commas ("3,,2"), a comma with no number on one side
   ("3," or "3 2,").
   Return the numbers as they were typed, even when they cannot be a legal
   move: "-1 2" gives [-1, 2] and "0 0" gives [0, 0]. Checking that the move
   is legal is the job of make_move (exercise 2), not of parse_move.

Examples:

    parse_move("3 2")         gives  [3, 2]
    parse_move("  3, 2\\n")    gives  [3, 2]
    parse_move("3,2")         gives  [3, 2]
    parse_move("-1 2")        gives  [-1, 2]
    parse_move("3")           gives  None
    parse_move("3 2 1")       gives  None
    parse_move("3,,2")        gives  None
    parse_move("three two")   gives  None

Useful tools: text.strip() removes the white space at both ends;
text.split() cuts a text at white space; text.split(",") cuts it at every
comma; int(word) turns "-12" into -12 and fails with a ValueError when the
word is not a number (int also accepts white space around the number, and a
few rarer forms such as "1_000" that the tests do not use).

Rules:
- is_human and is_board_empty return True or False; parse_move returns a list
  of two integers or None.
- Never change the board you are given; the program checks that.

How to try it:
- python ui.py test
  runs the examples in self_test() below.
- python ui.py
  runs the main block at the end of this file, which reads the whole of
  standard input as one test case, exactly as the grader gives it. A test case
  is JSON with the function to call and its input, on one line or spread over
  several, for example
      {"type": "is_human", "input": "my COMPUTER friend"}
  which prints false,
      {"type": "is_board_empty", "input": [0, 0, 0]}
  which prints true, or
      {"type": "parse_move", "input": "3, 2"}
  which prints [3, 2] (and null for text that is not a move).
  End the input with Enter and Ctrl-D (on Windows: Ctrl-Z, then Enter).
- python -m grader check ui.py
  grades your file against all the test cases.
"""

import json
import sys


def is_human(name):
    """Whether a player is human.

    name: the player's name, a text, for example "Alice" or "my COMPUTER friend".
    Returns: False when the name contains "computer" in any letter case,
    True otherwise (also for the empty name "").
    """
    return "computer" not in name.lower()


def is_board_empty(board):
    """Whether no objects are left on the board.

    board: a list of whole numbers, one per row, for example [0, 0, 0].
    Returns: True when every row is 0 (also for the board [] with no rows),
    False when some row still holds an object.
    The list you are given must stay exactly as it was.
    """
    for row in board:
        if row > 0:
            return False
    return True


def parse_move(text):
    """Read the move a player typed.

    text: what the player typed, for example "3 2", "3,2" or "  3, 2\\n".
    Returns: the list [row, elements] of the two integers as typed, for
    example [3, 2] or [-1, 2], or None when the text is not exactly two
    integers separated by white space or by one comma.
    """
    text = text.replace(",", " ")
    parts = text.split()
    if len(parts) < 2:
        return None
    try:
        return [int(parts[0]), int(parts[1])]
    except ValueError:
        return None


def self_test():
    """Check the three functions on a few examples."""
    assert is_human("Alice") is True, "Alice is human"
    assert is_human("my COMPUTER friend") is False, "a name with computer in it is a computer player"
    assert is_human("") is True, "the empty name is human"
    assert is_board_empty([0, 0, 0]) is True, "a board of empty rows is empty"
    assert is_board_empty([]) is True, "a board with no rows is empty"
    assert is_board_empty([0, 1]) is False, "one object is left on 0, 1"
    assert parse_move("3 2") == [3, 2]
    assert parse_move("  3, 2\n") == [3, 2]
    assert parse_move("3,2") == [3, 2]
    assert parse_move("-1 2") == [-1, 2], "negative numbers are returned as typed"
    assert parse_move("3") is None, "one number is not a move"
    assert parse_move("3 2 1") is None, "three numbers are not a move"
    assert parse_move("3,,2") is None, "only one comma may separate the numbers"
    assert parse_move("three two") is None, "words are not a move"
    assert parse_move("") is None, "an empty text is not a move"
    print("All examples passed.")


if __name__ == "__main__":
    if sys.argv[1:] == ["test"]:
        self_test()
    else:
        if sys.stdin.isatty():
            print('Type one test case, e.g. {"type": "parse_move", "input": "3, 2"},'
                  " then press Enter and Ctrl-D (Windows: Ctrl-Z, Enter)"
                  " (or run: python ui.py test)", file=sys.stderr)
        # One test case: all of standard input, JSON with the function to call and its input.
        case = json.loads(sys.stdin.read())
        value = case["input"]
        if case["type"] == "is_human":
            result = is_human(value)
        elif case["type"] == "is_board_empty":
            original = list(value)
            result = is_board_empty(value)
            if value != original:
                raise RuntimeError("is_board_empty changed the board it was given;"
                                   " read the list without changing it")
        elif case["type"] == "parse_move":
            result = parse_move(value)
        else:
            raise ValueError("unknown test case type: " + repr(case["type"]))
        print(json.dumps(result))
