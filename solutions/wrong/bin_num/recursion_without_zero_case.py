# Mistake: recursive numeral_binary whose only base case is 1, so 0 recurses forever
# verdict: runtime_error
# caught-by: 0 in binary is [0]
# says: RecursionError; For 0
# never-says: keeps calling itself
# hints: For 0
"""Exercise 4 of the Nim lab: Numbers in binary and back

A computer keeps every whole number as a row of bits (binary digits), each one
0 or 1. Every position in the row has a place value, just like the positions in
an ordinary decimal number. In decimal the place values are powers of 10
(1, 10, 100, ...); in binary they are powers of 2 (1, 2, 4, 8, 16, ...),
counting from the right.

Example: 13 = 8 + 4 + 1, so 13 in binary is 1101, the list [1, 1, 0, 1]:

    place value:   8   4   2   1
    bit:           1   1   0   1      1*8 + 1*4 + 0*2 + 1*1 = 13

Your task is to write two functions that convert in both directions:

- numeral_binary(n) gets a whole number n (0 or more) and returns the list of
  its bits, the most significant bit (the one with the biggest place value)
  first: numeral_binary(13) gives [1, 1, 0, 1]. For 0 return [0] (the empty
  list [] is also accepted).
- binary_numeral(bits) does the opposite: it gets a list of bits, most
  significant first, and returns the number: binary_numeral([1, 1, 0, 1])
  gives 13. The list may start with zeros, which change nothing:
  binary_numeral([0, 0, 1, 0, 1]) gives 5, and binary_numeral([0, 0, 0]) gives 0.

A way to find the bits: n % 2 is the last bit (the one worth 1), and n // 2 is
what is left when you remove that last bit. Repeat until nothing is left:

    13 % 2 = 1    13 // 2 = 6
     6 % 2 = 0     6 // 2 = 3
     3 % 2 = 1     3 // 2 = 1
     1 % 2 = 1     1 // 2 = 0    (stop)

The bits come out last bit first (1, 0, 1, 1), so turn them round: [1, 1, 0, 1].

Rules:
- Bits are always most significant first, in both functions.
- Do the conversion yourself. bin(), format(), int(text, 2) and binary format
  codes such as f"{n:b}" are not allowed here: the grader reads your code and
  rejects them.
- The tests use numbers as big as 10**18, and the answer must be exact. Use
  whole-number division // and not /, which gives a rounded decimal number.
- Never change a list you are given.

How to try it:
- python bin_num.py test
  runs the examples in self_test() below.
- python bin_num.py
  runs the main block at the end of this file, which reads the whole of
  standard input as one test case, exactly as the grader gives it. A test case
  is JSON, on one line or spread over several, for example
      {"type": "num_bin", "value": 13}
  which prints [1, 1, 0, 1], or
      {"type": "bin_num", "value": [1, 1, 0, 1]}
  which prints 13.
  End the input with Enter and Ctrl-D (on Windows: Ctrl-Z, then Enter).
- python -m grader check bin_num.py
  grades your file against all the test cases.
"""

import json
import sys


def numeral_binary(n):
    """Convert a whole number to binary.

    n: a whole number, 0 or more, for example 13.
    Returns: the list of the bits of n, most significant first, for example
    [1, 1, 0, 1]. For 0 it returns [0].
    """
    if n == 1:
        return [1]
    return numeral_binary(n // 2) + [n % 2]


def binary_numeral(bits):
    """Convert a list of bits back to a whole number.

    bits: a list of 0s and 1s, most significant first, for example [1, 1, 0, 1].
    It may start with zeros.
    Returns: the number the bits stand for, for example 13.
    """
    if len(bits) == 0:
        return 0
    return bits[-1] + 2 * binary_numeral(bits[:-1])


def self_test():
    """Check both functions on a few examples."""
    assert numeral_binary(13) == [1, 1, 0, 1], "13 = 8 + 4 + 1 is 1101"
    assert numeral_binary(6) == [1, 1, 0], "6 = 4 + 2 is 110, most significant bit first"
    assert binary_numeral([1, 1, 0, 1]) == 13, "1101 is 8 + 4 + 1 = 13"
    assert binary_numeral([0, 0, 1, 0, 1]) == 5, "leading zeros change nothing: 00101 is 5"
    print("All examples passed.")


if __name__ == "__main__":
    if sys.argv[1:] == ["test"]:
        self_test()
    else:
        if sys.stdin.isatty():
            print('Type one test case, e.g. {"type": "num_bin", "value": 13},'
                  " then press Enter and Ctrl-D (Windows: Ctrl-Z, Enter)"
                  " (or run: python bin_num.py test)", file=sys.stderr)
        # One test case: all of standard input, JSON with the type and the value to convert.
        case = json.loads(sys.stdin.read())
        if case["type"] == "num_bin":
            result = numeral_binary(case["value"])
        elif case["type"] == "bin_num":
            result = binary_numeral(case["value"])
        else:
            raise ValueError("unknown test case type: " + repr(case["type"]))
        print(json.dumps(result))
