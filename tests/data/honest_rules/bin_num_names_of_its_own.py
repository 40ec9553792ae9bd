"""bin_num, honest: its own variables, parameters and functions are named bin and format.

A name the file binds is not the built-in: a parameter, a local, a loop or comprehension variable,
a lambda's parameter, an except or with target, a module-level function and a global assigned in a
function all shadow it where Python says they do.
"""

import json
import sys

format = "json"  # a module-level variable: this file's `format`, never the built-in
width = None


def numeral_binary(n):
    if n == 0:
        return [0]
    bin = []  # a local list named bin
    while n > 0:
        bin.append(n % 2)
        n = n // 2
    bin.reverse()
    return bin


def binary_numeral(bin):  # a parameter named bin
    number = 0
    for bit in bin:
        number = number * 2 + bit
    return number


def with_closure(bin):
    def inner():
        return [b for b in bin]  # bin: the enclosing function's parameter

    return inner()


def comprehension(bits):
    return [bin for bin in bits]  # a comprehension variable named bin


def set_width(value):
    global width
    width = value


def guarded(text):
    try:
        return json.loads(text)
    except ValueError as bin:  # an except target named bin
        raise SystemExit(str(bin)) from None


double = lambda bin: bin * 2  # noqa: E731 - a lambda's parameter named bin


class Table:
    bin = "a class attribute named bin"
    label = bin  # the class's own bin

    def format(self, bits):  # a method named format
        return "".join(str(b) for b in bits)


if __name__ == "__main__":
    case = guarded(sys.stdin.read())
    set_width(len(format))
    if case["type"] == "num_bin":
        result = comprehension(with_closure(numeral_binary(case["value"])))
    else:
        result = binary_numeral(case["value"])
    assert double(2) == 4 and Table().format([1, 0]) == "10" and Table.label == Table.bin
    print(json.dumps(result))
