# Mistake: looks at a only: returns 1 when a is 1 and 0 otherwise
# verdict: wrong_answer
# caught-by: hidden case 1
# hints: every row of the truth table
"""Exercise 3 of the Nim lab: Exclusive or

"Exclusive or" (xor for short) takes two bits, each 0 or 1, and gives 1 when
exactly one of them is 1, and 0 when they are the same. Think of "tea or coffee":
one or the other is fine, but not both, and not neither. Its truth table:

    a  b  | a xor b
    0  0  |   0
    0  1  |   1
    1  0  |   1
    1  1  |   0

For example, exclusive_or(1, 0) is 1 and exclusive_or(1, 1) is 0.

Why this matters for Nim: in exercise 5 you apply exclusive or to every bit of two
numbers, and in exercise 6 you combine all the rows of a board that way into the
"nim-sum". A board whose nim-sum is 0 is a P-position: the player about to move
loses if the opponent plays perfectly. Any other board is an N-position: the
player about to move can win.

Rules:
- a and b are the whole numbers 0 or 1; return the whole number 0 or 1
  (not True or False).
- Write the truth table yourself with if statements and ==. The grader reads your
  code and rejects the operator ^, the operator != and operator.xor, because
  they would do the exercise for you.

How to try it:
- python exclusive_or.py test
  runs the examples in self_test() below.
- python exclusive_or.py
  runs the main block at the end of this file, which reads the whole of
  standard input as one test case, exactly as the grader gives it: type the
  two bits separated by a space, for example   1 0   then press Enter and
  Ctrl-D (on Windows: Ctrl-Z, then Enter) to end the input.
- python -m grader check exclusive_or.py
  grades your file against all the test cases.
"""

import sys


def exclusive_or(a, b):
    """Return a xor b.

    a, b: the bits, each 0 or 1.
    Returns: 1 if exactly one of a and b is 1, otherwise 0.
    """
    if a == 1:
        return 1
    return 0


def self_test():
    """Check exclusive_or on every row of the truth table."""
    assert exclusive_or(0, 0) == 0
    assert exclusive_or(0, 1) == 1
    assert exclusive_or(1, 0) == 1
    assert exclusive_or(1, 1) == 0
    print("All examples passed.")


if __name__ == "__main__":
    if sys.argv[1:] == ["test"]:
        self_test()
    else:
        if sys.stdin.isatty():
            print("Type one test case, e.g. 1 0, then press Enter"
                  " and Ctrl-D (Windows: Ctrl-Z, Enter)"
                  " (or run: python exclusive_or.py test)", file=sys.stderr)
        # One test case: all of standard input, the two bits separated by a space.
        a, b = [int(word) for word in sys.stdin.read().split()]
        print(exclusive_or(a, b))
