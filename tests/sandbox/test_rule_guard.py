"""The rules enforced while the program runs (``grader/rules/rule_guard.py``, ``rule_checks.py``).

Each program runs in an interpreter of its own, under the harness of ``tests/rule_harness.py`` (the
rules modules sent in as the fork server sends them). Each hostile program is caught, and runs to
its end without the guard (so the test fails without it). Each correct program gives the same
output, errors and exit status with and without it.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from rule_harness import RULE_MODULES, pythons, run, task_rules
from support import PROJECT, solution

from grader.course.loader import load_course


@pytest.fixture(params=pythons(), ids=lambda path: Path(path).parent.parent.name or path)
def python(request):
    """An interpreter to run the programs with."""
    return request.param


BIN_NUM, BITWISE_XOR, EXCLUSIVE_OR = "bin_num", "bitwise_xor", "exclusive_or"
FORMAT_B = [{"kind": "format_spec", "target": "b", "min_args": 0}]
IMPORT_OPERATOR = [{"kind": "import", "target": "operator", "min_args": 0}]


def hostile(id, rules, source, violation, files=None):
    return pytest.param(rules, source, violation, files, id=id)


HOSTILE = [
    hostile("getattr-builtins", BIN_NUM, 'import builtins\nprint(getattr(builtins, "bi" + "n")(5))\n', "0 prog.py 2"),
    hostile(
        "builtins-as-a-dict",
        BIN_NUM,
        'names = __builtins__ if isinstance(__builtins__, dict) else vars(__builtins__)\nprint(names["bi" + "n"](5))\n',
        "0 prog.py 2",
    ),
    hostile("another-name", BIN_NUM, "b = bin\nprint(b(5))\n", "0 prog.py 2"),
    hostile("int-unpacked-arguments", BIN_NUM, 'args = ["101", 2]\nprint(int(*args))\n', "2 prog.py 2"),
    hostile("int-base-keyword", BIN_NUM, 'print(int("101", base=2))\n', "2 prog.py 1"),
    hostile("int-unpacked-keywords", BIN_NUM, 'print(int("101", **{"base": 2}))\n', "2 prog.py 1"),
    hostile(
        "int-partial",
        BIN_NUM,
        'import functools\nparse = functools.partial(int, base=2)\nprint(parse("101"))\n',
        "2 prog.py 2",
    ),
    hostile("int-map-two-iterables", BIN_NUM, 'print(list(map(int, ["101"], [2])))\n', "2 prog.py 1"),
    hostile(
        "int-starmap", BIN_NUM, 'import itertools\nprint(list(itertools.starmap(int, [("101", 2)])))\n', "2 prog.py 2"
    ),
    hostile("int-reduce", BIN_NUM, 'import functools\nprint(functools.reduce(int, ["101", 2]))\n', "2 prog.py 2"),
    hostile("int-type-call", BIN_NUM, 'print(type.__call__(int, "101", 2))\n', "2 prog.py 1"),
    hostile("int-dunder-call", BIN_NUM, 'print(int.__call__("101", 2))\n', "2 prog.py 1"),
    hostile("int-new", BIN_NUM, 'print(int.__new__(int, "101", 2))\n', "2 prog.py 1"),
    hostile("int-subclass", BIN_NUM, 'class Number(int):\n    pass\nprint(Number("101", 2))\n', "2 prog.py 3"),
    hostile("int-dunder-xor", BITWISE_XOR, "print(int.__xor__(5, 3))\n", "0 prog.py 1"),
    hostile("bound-dunder-xor", BITWISE_XOR, "print((5).__xor__(3))\n", "0 prog.py 1"),
    hostile("reflected-dunder-xor", BITWISE_XOR, "print((3).__rxor__(5))\n", "0 prog.py 1"),
    hostile("bool-dunder-xor", BITWISE_XOR, "print(bool.__xor__(True, False))\n", "0 prog.py 1"),
    hostile(
        "operator-xor-by-name",
        BITWISE_XOR,
        'xor = getattr(__import__("oper" + "ator"), "xor")\nprint(xor(5, 3))\n',
        "0 prog.py 2",
    ),
    hostile("operator-ixor", BITWISE_XOR, "import operator\nprint(operator.ixor(5, 3))\n", "0 prog.py 2"),
    hostile(
        "reduce-operator-xor",
        BITWISE_XOR,
        "import functools, operator\nprint(functools.reduce(operator.xor, [1, 2]))\n",
        "0 prog.py 2",
    ),
    hostile(
        "methodcaller-xor",
        BITWISE_XOR,
        'import operator\nprint(operator.methodcaller("__xor__", 3)(5))\n',
        "0 prog.py 2",
    ),
    hostile("dunder-not-equal", EXCLUSIVE_OR, "print(int(int.__ne__(1, 0)))\n", "1 prog.py 1"),
    hostile("operator-ne", EXCLUSIVE_OR, "import operator\nprint(int(operator.ne(1, 0)))\n", "1 prog.py 2"),
    hostile("map-bin", BIN_NUM, "print(list(map(bin, [1])))\n", "0 prog.py 1"),
    hostile("sorted-key-bin", BIN_NUM, "print(sorted([5], key=bin))\n", "0 prog.py 1"),
    hostile("format-by-name", BIN_NUM, 'print(format(5, "d"))\n', "1 prog.py 1"),
    hostile("format-b", FORMAT_B, 'print(format(5, "b"))\n', "0 prog.py 1"),
    hostile("format-08b", FORMAT_B, 'print(format(5, "08b"))\n', "0 prog.py 1"),
    hostile("str-format", FORMAT_B, 'print("{:b}".format(5))\n', "0 prog.py 1"),
    hostile("str-format-nested-field", FORMAT_B, 'print("{0:{1}}".format(5, "b"))\n', "0 prog.py 1"),
    hostile("str-format-numbered-automatically", FORMAT_B, 'print("{:{}}".format(5, "b"))\n', "0 prog.py 1"),
    hostile("str-format-unbound", FORMAT_B, 'print(str.format("{:b}", 5))\n', "0 prog.py 1"),
    hostile("format-map", FORMAT_B, 'print("{n:{s}}".format_map({"n": 5, "s": "b"}))\n', "0 prog.py 1"),
    hostile("format-method-mapped", FORMAT_B, 'print(list(map("{:b}".format, [5])))\n', "0 prog.py 1"),
    hostile("fstring-spec-computed", FORMAT_B, 'code = "b"\nprint(f"{5:{code}}")\n', "0 prog.py 2"),
    hostile("fstring-spec-nested-literal", FORMAT_B, "print(f\"{5:{'b'}}\")\n", "0 prog.py 1"),
    hostile("dunder-format", FORMAT_B, 'print((5).__format__("b"))\n', "0 prog.py 1"),
    hostile("dunder-format-unbound", FORMAT_B, 'print(int.__format__(5, "08b"))\n', "0 prog.py 1"),
    hostile(
        "string-formatter", FORMAT_B, 'import string\nprint(string.Formatter().format("{:b}", 5))\n', "0 prog.py 2"
    ),
    hostile("eval", BIN_NUM, 'print(eval("bin(5)"))\n', "0 prog.py 1"),
    hostile("exec", BIN_NUM, 'exec("print(bin(5))")\n', "0 prog.py 1"),
    hostile(
        "compile-then-exec", BIN_NUM, 'code = compile("print(bin(5))", "<text>", "exec")\nexec(code)\n', "0 prog.py 2"
    ),
    hostile("eval-mapped", BIN_NUM, 'print(list(map(eval, ["bin(5)"])))\n', "0 prog.py 1"),
    hostile("timeit", BIN_NUM, 'import timeit\ntimeit.timeit("bin(5)", number=1)\n', "0 prog.py 2"),
    hostile("operator-in-eval", EXCLUSIVE_OR, 'print(int(eval("1 != 0")))\n', "1 prog.py 1"),
    hostile("import-in-exec", IMPORT_OPERATOR, 'exec("import operator")\n', "0 prog.py 1"),
    hostile(
        "import-module", IMPORT_OPERATOR, 'import importlib\nimportlib.import_module("oper" + "ator")\n', "0 prog.py 2"
    ),
    hostile("dunder-import", IMPORT_OPERATOR, '__import__("oper" + "ator")\n', "0 prog.py 1"),
    hostile(
        "helper-file",
        BIN_NUM,
        "import helper\nprint(helper.convert(5))\n",
        "0 helper.py 2",
        {"helper.py": "def convert(n):\n    return bin(n)\n"},
    ),
    hostile(
        "helper-file-operator",
        EXCLUSIVE_OR,
        "from helper import differ\nprint(differ(1, 0))\n",
        "1 helper.py 2",
        {"helper.py": "def differ(a, b):\n    return int(a != b)\n"},
    ),
    hostile("lambda", BIN_NUM, "convert = lambda n: bin(n)\nprint(convert(5))\n", "0 prog.py 1"),
    hostile("comprehension", BIN_NUM, "print([bin(n) for n in [5]])\n", "0 prog.py 1"),
    hostile("generator", BIN_NUM, "def bits():\n    yield bin(5)\n\nprint(list(bits()))\n", "0 prog.py 2"),
    hostile("class-body", BIN_NUM, "class Table:\n    five = bin(5)\n", "0 prog.py 2"),
    hostile(
        "decorator",
        BIN_NUM,
        """\
        def binary(function):
            def wrapped(n):
                return bin(function(n))
            return wrapped

        @binary
        def same(n):
            return n

        print(same(5))
        """,
        "0 prog.py 3",
    ),
    hostile("decorator-itself", BIN_NUM, "@format\ndef nothing():\n    pass\n", "1 prog.py 1"),
    hostile(
        "nested-function",
        BIN_NUM,
        "def outer():\n    def inner():\n        return bin(5)\n    return inner()\n\nprint(outer())\n",
        "0 prog.py 3",
    ),
    hostile(
        "method",
        BIN_NUM,
        "class Box:\n    def show(self):\n        return bin(5)\n\nprint(Box().show())\n",
        "0 prog.py 3",
    ),
    hostile(
        "kept-as-call",
        BIN_NUM,
        "class Convert:\n    __call__ = bin\n\nprint(list(map(Convert(), [5])))\n",
        "0 prog.py 2",
    ),
    hostile(
        "stored-as-getitem",
        BIN_NUM,
        "class Table:\n    pass\n\nTable.__getitem__ = bin\nprint(Table()[5])\n",
        "0 prog.py 4",
    ),
    hostile(
        "type-namespace",
        BIN_NUM,
        'Convert = type("Convert", (), {"__call__": bin})\nprint(Convert()(5))\n',
        "0 prog.py 1",
    ),
    hostile(
        "partial-subclass",
        BIN_NUM,
        'import functools\n\nclass Parse(functools.partial):\n    pass\n\nprint(Parse(int, base=2)("101"))\n',
        "2 prog.py 6",
    ),
    hostile(
        "int-accumulate",
        BIN_NUM,
        'import itertools\nprint(list(itertools.accumulate(["101", 2], int)))\n',
        "2 prog.py 2",
    ),
    hostile(
        "int-cmp-to-key",
        BIN_NUM,
        'import functools\nprint(sorted([2, "101"], key=functools.cmp_to_key(int)))\n',
        "2 prog.py 2",
    ),
    hostile(
        "setattr-special",
        BIN_NUM,
        'class Table:\n    pass\n\nsetattr(Table, "__getitem__", bin)\nprint(Table()[5])\n',
        "0 prog.py 4",
    ),
    hostile(
        "helper-loaded-from-its-path",
        BIN_NUM,
        """\
        import importlib.util
        spec = importlib.util.spec_from_file_location("loaded", "helper.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        print(module.convert(5))
        """,
        "0 helper.py 2",
        {"helper.py": "def convert(n):\n    return bin(n)\n"},
    ),
    hostile(
        "module-written-elsewhere",
        BIN_NUM,
        """\
        import os, sys, tempfile
        folder = tempfile.mkdtemp()
        with open(os.path.join(folder, "elsewhere.py"), "w") as handle:
            handle.write("def convert(n):\\n    return bin(n)\\n")
        sys.path.insert(0, folder)
        import elsewhere
        print(elsewhere.convert(5))
        """,
        "0 elsewhere.py 2",
    ),
    hostile(
        "run-path",
        BIN_NUM,
        """\
        import os, runpy, tempfile
        path = os.path.join(tempfile.mkdtemp(), "other.py")
        with open(path, "w") as handle:
            handle.write("print(bin(5))\\n")
        runpy.run_path(path)
        """,
        "0 prog.py 5",
    ),
    hostile(
        "caught-and-ignored",
        BIN_NUM,
        "try:\n    bin(5)\nexcept BaseException:\n    pass\nprint('went on')\n",
        "0 prog.py 2",
    ),
]


@pytest.mark.parametrize("rules, source, violation, files", HOSTILE)
def test_hostile_program_is_caught(python, tmp_path, rules, source, violation, files):
    unguarded = run(python, tmp_path / "unguarded", source, [], files=files)
    assert unguarded.returncode == 0, f"the program should run without the guard:\n{unguarded.stderr}"
    assert "VIOLATION" not in unguarded.stdout
    guarded = run(python, tmp_path / "guarded", source, rules, files=files)
    assert guarded.stdout.splitlines()[-1:] == [f"VIOLATION {violation}"], guarded.stderr
    assert guarded.returncode == 3


FEATURES = """\
import collections, dataclasses, functools, itertools, sys, traceback

class Base:
    def hello(self):
        return "base"

class Child(Base):
    def hello(self):
        return "child+" + super().hello()

@dataclasses.dataclass
class Point:
    x: int
    y: int = 0

Pair = collections.namedtuple("Pair", "a b")

def frame_names():
    here = sys._getframe()
    return here.f_code.co_name, here.f_back.f_code.co_name

def local_names(a, b=2):
    c = a + b
    return sorted(locals()), sorted(vars()), dir(), c

def evaluate():
    x = 40
    exec("y = 2")
    return eval("x + 2")

def countdown(n):
    while n > 0:
        yield n
        n -= 1

def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)

async def twice(x):
    return 2 * x

def finish(coroutine):
    try:
        coroutine.send(None)
    except StopIteration as stop:
        return stop.value

class Meta(type):
    pass

class Holder(metaclass=Meta):
    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return self.value == other.value

print(Child().hello(), Point(1), Point(1, 2) == Point(1, 2), Pair(1, 2), Holder(3).value, Holder(1) == Holder(1))
print(frame_names(), local_names(1))
print(evaluate(), [eval(t) for t in ["1", "2"]], list(map(eval, ["3 * 3"])), eval("  4"))
print(list(countdown(3)), depth(900), finish(twice(21)))
print(int("12"), int(" 7 "), list(map(int, ["1", "2"])), isinstance(5, int), type(5) is int, type(5).__name__)
print(sorted(["b", "a"], key=str.upper), max([1, 3, 2], key=lambda v: -v))
print(functools.reduce(lambda a, b: a * b, [1, 2, 3]), functools.reduce(max, [3, 1]))
print(f"{5:08.3f}|{'x':>3}|{7:d}|{255:x}|{3:{4}}", "{:>4}|{:o}".format(3, 8), "%d%%" % 5)
print([w for w in [1, 2] if (last := w)], last)
print(sorted(name for name in globals() if not name.startswith("__")))
print(functools.partial(max, 1)(2), list(itertools.accumulate([1, 2, 3])), list(zip(*[[1, 2], [3, 4]])))
options = {"sep": "-"}
print(1, 2, *[3, 4], *(n for n in [5]), **options)
attempts = [lambda: int("seven"), lambda: print(*5), lambda: print(**[1]), lambda: print(sep="", **{"sep": "-"})]
for attempt in attempts:
    try:
        attempt()
    except (TypeError, ValueError) as error:
        print(type(error).__name__, error, [(f.lineno, f.name) for f in traceback.extract_tb(error.__traceback__)])
try:
    int("seven")
except ValueError as error:
    print(error, [(f.lineno, f.name) for f in traceback.extract_tb(error.__traceback__)])
print(eval.__name__, exec("1"), compile("1", "<text>", "eval").co_filename, file=sys.stderr)
"""

UNCAUGHT = """\
def inner(values):
    return values[3]

def outer():
    return inner([1, 2])

print("before")
outer()
"""

DEEPEST = """\
def down(n):
    try:
        return down(n + 1)
    except RecursionError:
        return n

print(down(0) > 900)
"""


ANNOTATED = """\
from __future__ import annotations
import typing

def first(values: typing.List[int], table: dict[str, int] = {}) -> typing.Optional[len("ab")]:
    return values[0]

class Pair:
    left: typing.Tuple[int, str]
    right: print("never run") = 2

print(first.__annotations__, Pair.__annotations__, first([1]), Pair.right)
"""

EVALUATED = """\
def first(values: list, count: int = 3) -> str(2):
    return str(values[0])

class Pair:
    left: int
    right: str(5) = "x"

print(first.__annotations__, Pair.__annotations__, first([1]), Pair.right)
"""


LIBRARY_CLASSES = """\
import collections, dataclasses, decimal, enum, fractions, string, typing

class Color(enum.IntEnum):
    RED = 1
    GREEN = 2

class Permission(enum.IntFlag):
    READ = 4
    WRITE = 2

class Point(typing.NamedTuple):
    x: int
    y: int = 0

@dataclasses.dataclass(frozen=True, order=True)
class Pair:
    left: int
    right: int = 0

print(Color.RED, f"{Color.GREEN:>3}", str(Permission.READ | Permission.WRITE), Point(1), Pair(1) < Pair(2))
print(fractions.Fraction(3, 4), decimal.Decimal("1.5") + 1, string.Template("$x").substitute(x=1))
print(collections.Counter("aab").most_common(1), hash(Pair(1)) == hash(Pair(1)))
"""


def case_inputs(task_id, count):
    """The inputs of a task's last ``count`` cases (the largest come last)."""
    return [case.input for case in load_course(PROJECT)[task_id].cases[-count:]]


def correct(id, rules, source, stdin=""):
    return pytest.param(rules, source, stdin, id=id)


CORRECT = [
    correct("features-bin-num", BIN_NUM, FEATURES),
    correct("features-bitwise-xor", BITWISE_XOR, FEATURES),
    correct("uncaught-exception", BIN_NUM, UNCAUGHT),
    correct("deepest-recursion", BIN_NUM, DEEPEST),
    correct("annotations-as-text", BIN_NUM, ANNOTATED),
    correct("library-classes-bin-num", BIN_NUM, LIBRARY_CLASSES),
    correct("library-classes-exclusive-or", EXCLUSIVE_OR, LIBRARY_CLASSES),
    correct("annotations-evaluated", BIN_NUM, EVALUATED),
    *[
        correct(f"{task}-solution-{n}", task, solution(task), stdin)
        for task in (BIN_NUM, BITWISE_XOR, EXCLUSIVE_OR)
        for n, stdin in enumerate(case_inputs(task, 3))
    ],
]


@pytest.mark.parametrize("rules, source, stdin", CORRECT)
def test_correct_program_runs_as_without_the_guard(python, tmp_path, rules, source, stdin):
    unguarded = run(python, tmp_path / "run", source, [], stdin=stdin)
    guarded = run(python, tmp_path / "run", source, rules, stdin=stdin)
    assert "VIOLATION" not in guarded.stdout
    assert (guarded.stdout, guarded.stderr, guarded.returncode) == (
        unguarded.stdout,
        unguarded.stderr,
        unguarded.returncode,
    )


COMPARE_COMPILE = """
import json, os, sys, types

modules, folder, rules = json.loads(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3])
for name, here in modules:
    module = types.ModuleType(name)
    with open(os.path.join(here, name + ".py"), encoding="utf-8") as handle:
        exec(compile(handle.read(), name + ".py", "exec"), module.__dict__)
    sys.modules[name] = module
guard = sys.modules["rule_guard"]


def outcome(attempt):
    try:
        code = attempt()
    except SyntaxError as error:
        ends = [getattr(error, "end_lineno", None), getattr(error, "end_offset", None)]  # since 3.10
        return [type(error).__name__, error.msg, error.lineno, error.offset, error.text, *ends]
    except guard.GuardFailed as error:
        return ["GuardFailed", str(error)]
    return ["compiled", code == compile(source, path, "exec", dont_inherit=True)]


results = []
for number, source in enumerate(json.loads(sys.stdin.read())):
    path = os.path.join(folder, f"source{number}.py")
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    native = outcome(lambda: compile(source, path, "exec", dont_inherit=True))
    results.append([native, outcome(lambda: guard.prepare(source.encode(), path, rules))])
print(json.dumps(results))
"""

NOT_PYTHON = [
    "def f(:\n    pass\n",
    "x = (1,\n",
    "print 'hello'\n",
    "return 5\n",
    "nonlocal x\n",
    "def f():\n    x = 1\n    global x\n",
    "def f(a, a):\n    pass\n",
    "for x in y:\n    pass\nelse:\n    break\n",
    "await something()\n",
    "f(**a, *b)\n",
    'text = f"{x!z}"\n',
    "if True:\n        x = 1\n    y = 2\n",
    "x = " + "(" * 300 + ")" * 300 + "\n",
    "def f():\n    yield from g()\n    return 1\nclass A:\n    return 2\n",
]


def compare_compile(python, tmp_path, sources, rules):
    result = subprocess.run(
        [python, "-X", "utf8", "-c", COMPARE_COMPILE, json.dumps(RULE_MODULES), str(tmp_path), json.dumps(rules)],
        input=json.dumps(sources),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_file_python_cannot_compile_raises_the_same_syntax_error(python, tmp_path):
    for source, (native, prepared) in zip(
        NOT_PYTHON, compare_compile(python, tmp_path, NOT_PYTHON, task_rules(BIN_NUM))
    ):
        assert native[0] != "compiled", source
        assert prepared == native, source


def test_without_rules_prepare_is_compile(python, tmp_path):
    sources = [solution(BIN_NUM), "x = 1\n", NOT_PYTHON[0]]
    for native, prepared in compare_compile(python, tmp_path, sources, []):
        assert prepared == native
    assert [native for native, _ in compare_compile(python, tmp_path, sources[:2], [])] == [["compiled", True]] * 2


def test_a_file_too_deep_to_instrument_fails_with_a_sentence(python, tmp_path):
    deep = "x = " + " + ".join(["1"] * 2000) + "\n"
    ((native, prepared),) = compare_compile(python, tmp_path, [deep], task_rules(BIN_NUM))
    assert native == ["compiled", True]
    assert prepared[0] == "GuardFailed"
    assert "nested too deeply" in prepared[1]


def test_a_violation_is_recorded_even_when_the_program_catches_what_follows(python, tmp_path):
    # violated returns here (RULE_GUARD_RETURN): the guard then raises, which `except Exception` does not catch
    source = "try:\n    bin(5)\nexcept Exception:\n    print('caught')\nprint('went on')\n"
    result = run(python, tmp_path / "a", source, BIN_NUM, env={"RULE_GUARD_RETURN": "1"})
    assert result.stdout.splitlines() == ["VIOLATION 0 prog.py 2"]
    assert "RuleBroken" in result.stderr and result.returncode == 1
    source = "try:\n    bin(5)\nexcept:\n    print('caught')\n"
    result = run(python, tmp_path / "b", source, BIN_NUM, env={"RULE_GUARD_RETURN": "1"})
    assert result.stdout.splitlines() == ["VIOLATION 0 prog.py 2", "caught"]


def test_a_cached_compilation_of_a_helper_file_is_not_used(python, tmp_path):
    files = {"helper.py": "def convert(n):\n    return bin(n)\n"}
    source = "import helper\nprint(helper.convert(5))\n"
    assert run(python, tmp_path / "run", source, [], files=files).stdout == "0b101\n"
    cache = "import py_compile; py_compile.compile('helper.py')"  # what an import may leave behind
    subprocess.run([python, "-c", cache], cwd=tmp_path / "run", check=True, timeout=60)
    assert list((tmp_path / "run" / "__pycache__").glob("helper.*.pyc"))
    guarded = run(python, tmp_path / "run", source, BIN_NUM, files=files)
    assert guarded.stdout.splitlines() == ["VIOLATION 0 helper.py 2"]


def test_a_helper_given_as_bytecode_only_is_refused(python, tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "made.py").write_text("def convert(n):\n    return bin(n)\n", encoding="utf-8")
    made = "import py_compile; py_compile.compile('made.py', cfile='helper.pyc')"
    subprocess.run([python, "-c", made], cwd=folder, check=True, timeout=60)
    (folder / "made.py").unlink()
    source = "import helper\nprint(helper.convert(5))\n"
    assert run(python, folder, source, []).stdout == "0b101\n"
    guarded = run(python, folder, source, BIN_NUM)
    assert "VIOLATION" not in guarded.stdout and guarded.returncode == 1
    assert "ImportError: nim-grader: only .py files of the program can be imported" in guarded.stderr


def test_the_program_cannot_import_the_guard_by_name(python, tmp_path):
    names = [name for name, _ in RULE_MODULES]
    source = f"""\
    for name in {names!r}:
        try:
            __import__(name)
            print(name, "found")
        except ImportError:
            print(name, "hidden")
    """
    assert run(python, tmp_path / "run", source, []).stdout.count("found") == len(names)  # no rules: not installed
    assert run(python, tmp_path / "run", source, BIN_NUM).stdout.count("hidden") == len(names)
