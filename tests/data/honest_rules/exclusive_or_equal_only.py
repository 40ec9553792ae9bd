"""exclusive_or, honest: == and if statements; != only in strings and comments.

Functions named ne and xor are the file's own; a class of its own with a method __ne__, called by
name, is its own work (the rule is about the != operator written in the program, and int's own
!= reached another way).
"""

import sys


def ne(a, b):  # the file's own "not equal", without the operator
    if a == b:
        return False
    return True


class Bit:
    def __init__(self, value):
        self.value = value

    def __ne__(self, other):  # written here with ==
        return not self.value == other.value


def exclusive_or(a, b):
    # not a != b: compare with == instead
    if Bit(a).__ne__(Bit(b)) and ne(a, b):
        return 1
    return 0


if __name__ == "__main__":
    a, b = [int(word) for word in sys.stdin.read().split()]
    assert "!=" == "!" + "="
    print(exclusive_or(a, b))
