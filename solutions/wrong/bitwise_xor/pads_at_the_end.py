# Mistake: puts the zeros at the end of the shorter list instead of in front, lining the numbers up on the left
# verdict: wrong_answer
# caught-by: 8 XOR 1 is 9 (numbers of different lengths)
# hints: zeros in front of the shorter list; as big as 10**18
"""Exercise 5 of the Nim lab: Bitwise exclusive or

In exercise 3 you wrote exclusive_or(a, b) for two single bits: the answer is 1
when the two bits are different and 0 when they are the same. Bitwise exclusive
or (XOR for short) does the same for whole numbers: write both numbers in
binary, one above the other and lined up on the right, then XOR each column on
its own. Unlike ordinary addition there is nothing to carry.

Example: 5 XOR 3 is 6.

    5:   1 0 1
    3:   0 1 1     (3 is 11 in binary; a zero in front lines it up)
         -----
         1 1 0     which is 4 + 2 = 6

Another: 8 XOR 1 is 9. The numbers have different lengths in binary, so line
them up on the right:

    8:   1 0 0 0
    1:   0 0 0 1
         -------
         1 0 0 1   which is 8 + 1 = 9

And a number XOR itself is always 0: every column holds two equal bits.

Your task is to write bitwise_exclusive_or(a, b), which returns a XOR b. One
way to do it:
1. turn a and b into lists of bits with numeral_binary (exercise 4);
2. put zeros in front of the shorter list until both lists are equally long;
3. XOR the bits pair by pair with exclusive_or (exercise 3);
4. turn the list of answers back into a number with binary_numeral (exercise 4).
This file must work on its own, so copy your answers to exercises 3 and 4 into
the helper functions below. (You may instead work with n % 2 and n // 2 directly,
if you prefer.)

Rules:
- Python has a ready-made XOR operator, ^, but the point here is to build it
  yourself: ^, operator.xor, bin(), format(), int(text, 2) and binary format
  codes such as f"{n:b}" are not allowed. The grader reads your code and
  rejects them. (From exercise 6 on you may use ^.)
- a and b are whole numbers from 0 up to 10**18, and the answer must be exact:
  use whole-number division // and not /.

How to try it:
- python bitwise_xor.py test
  runs the examples in self_test() below.
- python bitwise_xor.py
  runs the main block at the end of this file, which reads the whole of
  standard input as one test case, exactly as the grader gives it. A test case
  is the two numbers separated by a space, for example
      5 3
  which prints 6.
  End the input with Enter and Ctrl-D (on Windows: Ctrl-Z, then Enter).
- python -m grader check bitwise_xor.py
  grades your file against all the test cases.
"""

import sys


def exclusive_or(a, b):
    """XOR of two bits (your answer to exercise 3).

    a, b: each 0 or 1.
    Returns: 1 when a and b are different, 0 when they are the same.
    """
    if a == b:
        return 0
    return 1


def numeral_binary(n):
    """A whole number n (0 or more) as a list of bits, most significant first
    (your answer to exercise 4): numeral_binary(13) gives [1, 1, 0, 1].
    """
    if n == 0:
        return [0]
    bits = []
    while n > 0:
        bits.append(n % 2)
        n = n // 2
    bits.reverse()
    return bits


def binary_numeral(bits):
    """The whole number that a list of bits (most significant first) stands for
    (your answer to exercise 4): binary_numeral([1, 1, 0, 1]) gives 13.
    """
    number = 0
    place_value = 1
    for bit in reversed(bits):
        number = number + bit * place_value
        place_value = place_value * 2
    return number


def bitwise_exclusive_or(a, b):
    """Bitwise XOR of two whole numbers.

    a, b: whole numbers from 0 up to 10**18, for example 5 and 3.
    Returns: the whole number whose bits are the XOR of the bits of a and b,
    column by column, for example 6.
    """
    bits_a = numeral_binary(a)
    bits_b = numeral_binary(b)
    while len(bits_a) < len(bits_b):
        bits_a.append(0)
    while len(bits_b) < len(bits_a):
        bits_b.append(0)
    result_bits = []
    for i in range(len(bits_a)):
        result_bits.append(exclusive_or(bits_a[i], bits_b[i]))
    return binary_numeral(result_bits)


def self_test():
    """Check bitwise_exclusive_or on a few examples."""
    assert bitwise_exclusive_or(5, 3) == 6, "101 XOR 011 is 110, which is 6"
    assert bitwise_exclusive_or(8, 1) == 9, "1000 XOR 0001 is 1001, which is 9"
    assert bitwise_exclusive_or(12, 12) == 0, "a number XOR itself is 0"
    assert bitwise_exclusive_or(0, 7) == 7, "0 XOR a number is that number"
    print("All examples passed.")


if __name__ == "__main__":
    if sys.argv[1:] == ["test"]:
        self_test()
    else:
        if sys.stdin.isatty():
            print("Type one test case, e.g. 5 3,"
                  " then press Enter and Ctrl-D (Windows: Ctrl-Z, Enter)"
                  " (or run: python bitwise_xor.py test)", file=sys.stderr)
        # One test case: all of standard input, two whole numbers a and b.
        a, b = sys.stdin.read().split()
        print(bitwise_exclusive_or(int(a), int(b)))
