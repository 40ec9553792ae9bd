"""bin_num, honest: the file writes its own bin() and format() at module level and calls them.

A module-level definition shadows the built-in for the whole module (the rule is about the
built-in, not the name); the file's own format() takes one argument, as its own design.
"""

import json
import sys


def bin(n):  # this file's own bin: most significant bit first, as a list
    if n == 0:
        return [0]
    bits = []
    while n:
        bits.insert(0, n % 2)
        n //= 2
    return bits


def format(bits):  # this file's own format
    return json.dumps(bits)


def numeral_binary(n):
    return bin(n)


def binary_numeral(bits):
    total = 0
    for bit in bits:
        total = 2 * total + bit
    return total


if __name__ == "__main__":
    case = json.loads(sys.stdin.read())
    if case["type"] == "num_bin":
        print(format(numeral_binary(case["value"])))
    else:
        print(json.dumps(binary_numeral(case["value"])))
