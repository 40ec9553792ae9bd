"""bin_num, honest: things that look like the forbidden ones and are not.

Methods and attributes named bin and format (obj.bin, self.format(...)), the words in strings and
comments ("bin(5)", format(n, "b")), str.format and f-strings with other format codes (b as a fill
character: f"{s:b<4}"), % formatting, int() with one argument, int passed to map and isinstance.
The rule on format is about the built-in function format(); str.format is another function, and
allowed with any format code but b.
"""

import json
import sys


class Bits:
    def __init__(self, bits):
        self.bin = list(bits)  # an attribute named bin

    def format(self):  # a method named format
        return "{}".format(self.bin)

    def bin_text(self):
        return "bin(5) would be " + "0b101, but not here"  # bin( in a string


def numeral_binary(n):
    # Not format(n, "b") nor bin(n): divide by 2 again and again.
    bits = []
    while n > 0:
        bits.append(n % 2)
        n //= 2
    return Bits(reversed(bits) if bits else [0])


def binary_numeral(bits):
    value = 0
    for bit in map(int, bits):  # int passed along, called with one argument each
        assert isinstance(bit, int)
        value = value * 2 + int(str(bit))
    return value


if __name__ == "__main__":
    text = sys.stdin.read()
    case = json.loads(text)
    label = f"{case['type']:>8}|{len(text):d}|{'x':b<4}|{3:{5}}" + "%d" % 1 + "{:>3}".format(7)
    assert label and Bits([1]).format() == "[1]" and Bits([]).bin_text()
    if case["type"] == "num_bin":
        print(json.dumps(numeral_binary(case["value"]).bin))
    else:
        print(json.dumps(binary_numeral(case["value"])))
