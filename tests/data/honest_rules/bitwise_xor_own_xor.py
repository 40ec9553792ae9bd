"""bitwise_xor, honest: its own xor, a class with its own __xor__ called by name, ^ only in strings.

The rule on ^ is about the operator written in the program, and about int's own ^ reached any
other way; a method __xor__ the student writes is the student's own work, and calling it by its
name is not the operator. (Writing a ^ b on such a class would still be the operator: the rule is
about the spelling, whatever the operands.) Parameters and locals named bin and format shadow the
built-ins; operator.add is not operator.xor.
"""

import operator
import sys


def xor(a, b):  # the file's own xor of two bits
    if a == b:
        return 0
    return 1


class Bits:
    def __init__(self, n):
        self.bits = []
        while n > 0:
            self.bits.insert(0, n % 2)
            n //= 2

    def __xor__(self, other):  # written here, bit by bit
        width = max(len(self.bits), len(other.bits))
        left = [0] * (width - len(self.bits)) + self.bits
        right = [0] * (width - len(other.bits)) + other.bits
        result = Bits(0)
        result.bits = [xor(a, b) for a, b in zip(left, right)]
        return result

    def value(self, bin=None):  # a parameter named bin
        format = 0  # a local named format
        for bit in bin if bin is not None else self.bits:
            format = operator.add(format * 2, bit)
        return format


def bitwise_exclusive_or(a, b):
    return Bits(a).__xor__(Bits(b)).value()


if __name__ == "__main__":
    words = sys.stdin.read().split()
    caret = "a ^ b means xor in Python"  # ^ in a string
    assert "^" in caret
    print(bitwise_exclusive_or(int(words[0]), int(words[1])))
