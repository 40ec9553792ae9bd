"""Static rules: ``find_violations`` on small parsed snippets.

Each row of ``CAUGHT`` is ``(source, rule, line)``: the rule is broken, first on ``line``. Each row
of ``ALLOWED`` is ``(source, rule)``: the rule is kept.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from grader.model import Rule
from grader.rules.static_check import find_violations, rule_message

XOR = Rule("operator", "^", instead="use your exclusive_or function.")
NOT_EQUAL = Rule("operator", "!=", instead="write the truth table with if statements.")
OPERATOR_XOR = Rule("name", "operator.xor", instead="use your exclusive_or function.")
BIN = Rule("name", "bin", instead="divide by 2 again and again.")
INT_BASE = Rule("name", "int", instead="add up the powers of 2 yourself.", min_args=2)
FORMAT_B = Rule("format_spec", "b", instead="build the bits yourself.")
IMPORT_OPERATOR = Rule("import", "operator", instead="write the function yourself.")


def violations(source, *rules):
    return find_violations(ast.parse(textwrap.dedent(source)), rules)


def caught(id, source, rule, line, marks=()):
    return pytest.param(source, rule, line, id=id, marks=marks)


CAUGHT = [
    caught("xor-operator", "a = 5 ^ 3\n", XOR, 1),
    caught("unary-minus", "x = 1\ny = -x\n", Rule("operator", "-"), 2),
    caught("xor-augmented", "a = 5\na ^= 3\n", XOR, 2),
    caught("xor-in-return", "def f(a, b):\n    return a ^ b\n", XOR, 2),
    caught("not-equal", "def f(a, b):\n    if a != b:\n        return 1\n", NOT_EQUAL, 2),
    caught("not-equal-in-chain", "ok = 0 < a != b\n", NOT_EQUAL, 1),
    caught("operator-xor-called", "import operator\nx = operator.xor(a, b)\n", OPERATOR_XOR, 2),
    caught("operator-xor-alias", "import operator as op\nx = op.xor(a, b)\n", OPERATOR_XOR, 2),
    caught("from-operator-import-xor", "from operator import xor\n\nx = xor(a, b)\n", OPERATOR_XOR, 1),
    caught("from-operator-import-xor-as", "from operator import xor as x\n", OPERATOR_XOR, 1),
    caught("from-operator-import-star", "from operator import *\n", OPERATOR_XOR, 1),
    caught(
        "operator-xor-passed-to-reduce",
        "import operator\nfrom functools import reduce\n\ntotal = reduce(operator.xor, xs)\n",
        OPERATOR_XOR,
        4,
    ),
    caught("bin-call", "x = 1\nbits = bin(5)\n", BIN, 2),
    caught("bin-passed-to-map", "bits = list(map(bin, xs))\n", BIN, 1),
    caught("int-with-base", "n = int(t, 2)\n", INT_BASE, 1),
    caught("int-with-base-keyword", "n = int(t, base=2)\n", INT_BASE, 1),
    caught("int-with-keywords-only", "n = int(x=t, base=2)\n", INT_BASE, 1),
    caught("int-with-unpacked-arguments", "args = [t, 2]\nn = int(*args)\n", INT_BASE, 2),
    caught("int-with-unpacked-keywords", "n = int(t, **options)\n", INT_BASE, 1),
    caught("int-with-one-unpacked-argument", "n = int(*[t])\n", INT_BASE, 1),
    caught("fstring-b", 'text = f"{n:b}"\n', FORMAT_B, 1),
    caught("fstring-08b", 'text = f"{n:08b}"\n', FORMAT_B, 1),
    caught("fstring-nested-width", 'text = f"{n:{width}b}"\n', FORMAT_B, 1),
    caught("str-format-b", 'text = "{:b}".format(n)\n', FORMAT_B, 1),
    caught("str-format-08b", 'text = "{0:08b}".format(n)\n', FORMAT_B, 1),
    caught("format-builtin-b", 'text = format(n, "b")\n', FORMAT_B, 1),
    caught("format-builtin-08b", 'text = format(n, "08b")\n', FORMAT_B, 1),
    caught(
        "str-format-called-on-the-class",
        'text = str.format("{:b}", n)\n',
        FORMAT_B,
        1,
    ),
    caught("import-operator", "import math\nimport operator\n", IMPORT_OPERATOR, 2),
    caught("import-operator-as", "import operator as op\n", IMPORT_OPERATOR, 1),
    caught("from-operator-import", "from operator import xor\n", IMPORT_OPERATOR, 1),
    caught("dunder-import-operator", 'op = __import__("operator")\n', IMPORT_OPERATOR, 1),
]


@pytest.mark.parametrize("source, rule, line", CAUGHT)
def test_rule_is_caught(source, rule, line):
    found = violations(source, rule)
    assert len(found) == 1
    assert found[0].line == line
    assert f"Line {line} " in found[0].message
    assert rule.instead in found[0].message


ALLOWED = [
    pytest.param("a = 5 | 3\nb = a & 1\n", XOR, id="other-bitwise-operators"),
    pytest.param('s = "a ^ b"\n', XOR, id="xor-inside-a-string"),
    pytest.param("if a == b:\n    pass\n", NOT_EQUAL, id="equal-is-not-not-equal"),
    pytest.param("import operator\nx = operator.add(a, b)\n", OPERATOR_XOR, id="other-operator-function"),
    pytest.param("def xor(a, b):\n    return a + b\nx = xor(1, 2)\n", OPERATOR_XOR, id="own-xor-function"),
    pytest.param("n = int(t)\n", INT_BASE, id="int-with-one-argument"),
    pytest.param("ns = list(map(int, ts))\n", INT_BASE, id="int-passed-not-called"),
    pytest.param("print(*words, **options)\nn = int(t)\n", INT_BASE, id="unpacking-into-another-function"),
    pytest.param("x = binary(5)\ny = obj.bin(5)\n", BIN, id="names-containing-bin"),
    pytest.param('text = f"{n:d} {n:08}"\n', FORMAT_B, id="other-format-codes"),
    pytest.param('text = f"{s:b<10}"\n', FORMAT_B, id="b-as-fill-character"),
    pytest.param('text = "{:d}".format(n)\n', FORMAT_B, id="str-format-other-code"),
    pytest.param('text = format(n, "x")\n', FORMAT_B, id="format-builtin-other-code"),
    pytest.param("import math\nfrom functools import reduce\n", IMPORT_OPERATOR, id="other-imports"),
]


@pytest.mark.parametrize("source, rule", ALLOWED)
def test_rule_is_kept(source, rule):
    assert violations(source, rule) == []


def test_clean_file_has_no_violations():
    source = '''
        import json


        def exclusive_or(a, b):
            """Exclusive or of two bits, without the operator."""
            if a == 1 and b == 0:
                return 1
            if a == 0 and b == 1:
                return 1
            return 0


        def bin_num(n):
            bits = []
            while n > 0:
                bits.append(n % 2)
                n = n // 2
            return bits[::-1] or [0]


        if __name__ == "__main__":
            n = int(input())
            print(json.dumps(bin_num(n)), exclusive_or(n % 2, 1), f"{n:d}")
    '''
    rules = [XOR, NOT_EQUAL, OPERATOR_XOR, BIN, INT_BASE, FORMAT_B, IMPORT_OPERATOR]
    assert violations(source, *rules) == []


def test_message_names_line_and_says_what_to_do():
    (found,) = violations("x = 1\ny = x ^ 3\n", XOR)
    assert found.line == 2
    assert found.message.startswith("Line 2 ")
    assert "^" in found.message
    assert "does not allow" in found.message
    assert "use your exclusive_or function." in found.message


def test_message_of_min_args_rule_says_how_many_arguments():
    (found,) = violations("n = int(t, 2)\n", INT_BASE)
    assert "int()" in found.message
    assert "2 or more arguments" in found.message


def test_message_of_unpacked_arguments_says_they_cannot_be_counted():
    (found,) = violations("args = [t, 2]\nn = int(*args)\n", INT_BASE)
    assert found.message == (
        "Line 2 calls int() with arguments unpacked by * or ** (they cannot be counted, and 2 or more are not "
        "allowed), which this exercise does not allow. Instead, add up the powers of 2 yourself."
    )
    assert found.column == "n = int(*args)".index("int")


def test_message_of_other_rules_with_calls_is_not_about_unpacking():
    (found,) = violations('op = __import__("operator")\n', IMPORT_OPERATOR)
    assert "unpacked" not in found.message
    (found,) = violations('text = "{:b}".format(*values)\n', FORMAT_B)
    assert "unpacked" not in found.message


def test_message_for_another_file_names_it():
    message = rule_message(BIN, 3, file="helper.py")
    assert (
        message
        == "Line 3 of helper.py uses bin(), which this exercise does not allow. Instead, divide by 2 again and again."
    )


def test_message_without_a_place_names_the_program():
    message = rule_message(XOR, 0)
    assert message.startswith("Your program uses the ^ operator, which this exercise does not allow.")


def test_message_without_instead_has_no_dangling_instead():
    (found,) = violations("b = bin(5)\n", Rule("name", "bin"))
    assert "bin()" in found.message
    assert "Instead" not in found.message


def test_only_the_first_use_of_each_rule_is_reported():
    found = violations("a = 1 ^ 2\nb = 3 ^ 4\nc = 5 ^ 6\n", XOR)
    assert [v.line for v in found] == [1]


def test_several_rules_are_reported_in_source_order():
    source = "x = bin(3)\ny = 1 ^ 2\nimport operator\n"
    found = violations(source, IMPORT_OPERATOR, XOR, BIN)
    assert [v.line for v in found] == [1, 2, 3]
    assert "bin()" in found[0].message
    assert "^" in found[1].message
    assert "operator" in found[2].message


def test_column_points_at_the_use():
    (found,) = violations("total = a ^ b\n", XOR)
    assert found.column == "total = a ^ b".index("a ^ b")
