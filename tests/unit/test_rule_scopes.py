"""The static rules resolve scopes: a name the file binds is its own, not the built-in or the module.

A name bound anywhere in a function (a parameter, an assignment, a loop, an import, ``del``...) is
local to all of it; a comprehension's or lambda's names are its own; a class body's names are its
own there but not in its methods; a name bound at module level (or through ``global``) is the
module's everywhere it is global. Only a name bound nowhere on its way out is the built-in. Where
a module-level binding comes after a use (``x = bin(3)`` then ``bin = f``), the syntax check takes
the name as the file's own and the run-time check decides (``tests/sandbox/test_rule_traps.py``).
Every honest file of ``tests/data/honest_rules/`` passes the syntax check of its task.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from grader.course.loader import load_course
from grader.model import Rule
from grader.rules.static_check import find_violations
from grader.submission.source import inspect_source

PROJECT = Path(__file__).resolve().parents[2]
BIN = Rule("name", "bin")
FORMAT = Rule("name", "format")
FORMAT_B = Rule("format_spec", "b")
INT_BASE = Rule("name", "int", min_args=2)
OPERATOR_XOR = Rule("name", "operator.xor")
IMPORT_OPERATOR = Rule("import", "operator")


def lines(source, rule):
    return [v.line for v in find_violations(ast.parse(textwrap.dedent(source)), [rule])]


def case(id, source, rule=BIN):
    return pytest.param(source, rule, id=id)


FILES_OWN = [
    case("parameter", "def f(bin):\n    return bin(3)\n"),
    case("keyword-only-parameter", "def f(*, bin):\n    return bin(3)\n"),
    case("star-parameters", "def f(*bin, **format):\n    return bin, format(1)\n"),
    case("local-assigned-after-use", "def f():\n    x = bin(3)\n    bin = 3\n    return x\n"),
    case("local-augmented", "def f():\n    bin += 1\n    return bin(3)\n"),
    case("loop-variable", "def f(fs):\n    for bin in fs:\n        bin(1)\n"),
    case("tuple-target", "def f(pairs):\n    for a, (b, bin) in pairs:\n        bin(a)\n"),
    case("with-target", "def f(opener):\n    with opener() as bin:\n        return bin(1)\n"),
    case("except-target", "def f():\n    try:\n        pass\n    except E as bin:\n        bin(1)\n"),
    case("deleted-local", "def f():\n    del bin\n    return bin(3)\n"),
    case("imported-in-function", "def f():\n    import tools as bin\n    return bin(3)\n"),
    case("from-imported-in-function", "def f():\n    from tools import bin\n    return bin(3)\n"),
    case("nested-function-defined", "def f():\n    def bin(n):\n        return n\n    return bin(3)\n"),
    case("comprehension-variable", "fs = [len]\nout = [bin(1) for bin in fs]\n"),
    case("generator-variable", "out = list(bin(1) for bin in [len])\n"),
    case("lambda-parameter", "g = lambda bin: bin(1)\n"),
    case("free-variable", "def f(bin):\n    def g():\n        return bin(1)\n    return g\n"),
    case(
        "free-variable-two-deep",
        "def f(bin):\n    def g():\n        def h():\n            return bin(1)\n        return h\n",
    ),
    case(
        "nonlocal",
        "def f():\n    bin = len\n    def g():\n        nonlocal bin\n        return bin([])\n    return g\n",
    ),
    case("class-body-sees-function-local", "def f(bin):\n    class A:\n        x = bin(1)\n    return A\n"),
    case("class-attribute", "class A:\n    bin = staticmethod(len)\n    x = bin([])\n"),
    case("walrus-in-comprehension", "def f(xs):\n    [(bin := x) for x in xs]\n    return bin(1)\n"),
    case("module-function", "def bin(n):\n    return n\n\nprint(bin(3))\n"),
    case("module-class", "class bin:\n    pass\n\nprint(bin())\n"),
    case("module-function-used-in-function", "def show():\n    return bin(3)\n\ndef bin(n):\n    return n\n"),
    case("module-import-as", "from tools import helper as bin\nbin(3)\n"),
    case("module-loop-variable", "for bin in [len]:\n    bin([])\n"),
    case("module-assignment-after-use", "x = bin(3)\nbin = None\n"),
    case("module-deleted", "bin = 1\ndel bin\nbin(3)\n"),
    case("module-walrus", "if (bin := len):\n    bin([])\n"),
    case("global-assigned-in-function", "def f():\n    global bin\n    bin = len\n\nf()\nprint(bin([]))\n"),
    case("global-used-in-other-function", "def f():\n    global bin\n    bin = len\n\ndef g():\n    return bin([])\n"),
    case("format-parameter", "def show(format):\n    return format(1, 2)\n", FORMAT),
    case("format-local-with-spec-b", "def show(n, format):\n    return format(n, 'b')\n", FORMAT_B),
    case("str-of-its-own", "str = MyText\nstr.format('{:b}', 5)\n", FORMAT_B),
    case("int-of-its-own", "def f(int):\n    return int('101', 2)\n", INT_BASE),
    case("operator-parameter", "import operator\n\ndef f(operator):\n    return operator.xor(1, 2)\n", OPERATOR_XOR),
    case("builtins-parameter", "def f(builtins):\n    return builtins.bin(3)\n"),
    case("dunder-import-parameter", "def f(__import__):\n    return __import__('operator')\n", IMPORT_OPERATOR),
    case("own-xor-imported-elsewhere", "from tools import xor\n\nxor(1, 2)\n", OPERATOR_XOR),
]


@pytest.mark.parametrize("source, rule", FILES_OWN)
def test_a_name_the_file_binds_is_its_own(source, rule):
    assert lines(source, rule) == []


BUILT_IN = [
    case("in-a-function", "def f():\n    return bin(3)\n", BIN),
    case("beside-a-parameter-of-another-function", "def f(bin):\n    return bin\n\ndef g():\n    return bin(3)\n"),
    case("in-a-method-of-a-class-that-binds-it", "class A:\n    def bin(self):\n        return bin(3)\n"),
    case("after-a-comprehension-that-binds-it", "fs = [bin for bin in xs]\ny = bin(3)\n"),
    case("beside-a-lambda-that-binds-it", "f = lambda bin: bin\ny = bin(3)\n"),
    case("local-of-another-function", "def f():\n    bin = 1\n    return bin\n\ndef g():\n    return bin(2)\n"),
    case("parameter-default", "def f(bin=bin):\n    return bin(3)\n"),
    case("decorator", "@bin\ndef f(bin):\n    pass\n"),
    case("class-body-after-a-method-binds-it", "class A:\n    def f(self):\n        bin = 1\n\n    x = bin(3)\n"),
    case("first-iterator-of-a-comprehension", "out = [x for x in bin(3)]\n"),
    case("comprehension-condition", "out = [x for x in xs if bin(x)]\n"),
    case("builtins-module", "import builtins\nbuiltins.bin(3)\n"),
    case("builtins-module-in-a-function", "import builtins\n\ndef f():\n    return builtins.bin(3)\n"),
    case("global-declared-not-bound", "def f():\n    global bin\n    return bin(3)\n"),
    case("operator-imported", "import operator as op\n\ndef f(a):\n    return op.xor(a, 1)\n", OPERATOR_XOR),
    case("format-in-a-function", "def show(n):\n    return format(n, 'd')\n", FORMAT),
    case("format-spec-b-in-a-function", "def show(n):\n    return format(n, '08b')\n", FORMAT_B),
    case("int-with-base-in-a-lambda", "parse = lambda text: int(text, 2)\n", INT_BASE),
    case("dunder-import", "def f():\n    return __import__('operator')\n", IMPORT_OPERATOR),
]


@pytest.mark.parametrize("source, rule", BUILT_IN)
def test_a_name_bound_nowhere_on_its_way_out_is_the_built_in(source, rule):
    assert len(lines(source, rule)) == 1


def test_the_line_is_the_use_of_the_built_in_not_the_binding():
    source = "def f(bin):\n    return bin(1)\n\nvalue = bin(3)\n"
    assert lines(source, BIN) == [4]


HONEST = sorted((PROJECT / "tests" / "data" / "honest_rules").glob("*.py"))


@pytest.mark.parametrize("path", HONEST, ids=lambda path: path.stem)
def test_an_honest_file_passes_the_syntax_check_of_its_task(path):
    course = load_course(PROJECT)
    (task_id,) = [task_id for task_id in course if path.stem.startswith(task_id + "_")]
    assert course[task_id].rules
    assert inspect_source(path.read_bytes(), course[task_id].rules) is None
