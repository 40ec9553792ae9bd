"""A task's forbidden objects are traps in the program's process, and the guard cannot be switched off.

Invariant 5 (docs/security.md, "The rules and the limits"): the rules are pedagogy, claimed
honestly. Before the program runs, its process replaces what the rules forbid (``bin``,
``format``, the functions of a forbidden operator in ``operator`` and ``_operator``) with traps
that report the rule broken whoever calls them, so a library that looks them up on the program's
behalf (pickle, copy's reduce protocol, ``enum.bin``) meets the trap too. What cannot be replaced
(int's operator slots, a library's own method that implements a forbidden operator, a
``methodcaller`` made out of sight) is checked where the program's code calls or hands it on. And
the guard's state lives in closures: a program that empties the fields it can reach, replaces the
methods of the classes it finds, or patches builtins and module globals leaves it working.

Each program here runs to its end without the guard (so each test fails without it) and is caught
with it, at the line of the program that set the library going. The harness is
``tests/rule_harness.py``'s (the modules sent as the fork server sends them).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rule_harness import pythons, run

BIN_NUM, BITWISE_XOR, EXCLUSIVE_OR = "bin_num", "bitwise_xor", "exclusive_or"
FORMAT_B = [{"kind": "format_spec", "target": "b", "min_args": 0}]


@pytest.fixture(params=pythons(), ids=lambda path: Path(path).parent.parent.name or path)
def python(request):
    """An interpreter to run the programs with."""
    return request.param


def hostile(id, rules, source, violation):
    return pytest.param(rules, source, violation, id=id)


def pickled(module, name, *args):
    """A protocol 0 pickle that calls ``module.name(*args)`` (ints and strings) when loaded."""
    fields = "".join(f"I{a}\n" if isinstance(a, int) else f"S'{a}'\n" for a in args)
    return f"c{module}\n{name}\n({fields}tR.".encode()


LIBRARIES = [
    # pickle looks the callable up by module and name, and calls it in C
    hostile("pickle-bin", BIN_NUM, f"import pickle\nprint(pickle.loads({pickled('builtins', 'bin', 5)!r}))\n", "0 2"),
    hostile(
        "pickle-format",
        BIN_NUM,
        f"import pickle\nprint(pickle.loads({pickled('builtins', 'format', 5, 'x')!r}))\n",
        "1 2",
    ),
    hostile(
        "pickle-format-spec",
        FORMAT_B,
        f"import pickle\nprint(pickle.loads({pickled('builtins', 'format', 5, 'b')!r}))\n",
        "0 2",
    ),
    hostile(
        "pickle-operator-xor",
        BITWISE_XOR,
        f"import pickle\nprint(pickle.loads({pickled('operator', 'xor', 5, 3)!r}))\n",
        "0 2",
    ),
    hostile(
        "pickle-operator-dunder-xor",
        BITWISE_XOR,
        f"import pickle\nprint(pickle.loads({pickled('operator', '__xor__', 5, 3)!r}))\n",
        "0 2",
    ),
    hostile(
        "pickle-_operator-ixor",
        BITWISE_XOR,
        f"import pickle\nprint(pickle.loads({pickled('_operator', 'ixor', 5, 3)!r}))\n",
        "0 2",
    ),
    hostile(
        "pickle-operator-ne",
        EXCLUSIVE_OR,
        f"import pickle\nprint(int(pickle.loads({pickled('operator', 'ne', 1, 0)!r})))\n",
        "1 2",
    ),
    hostile(
        "unpickler-object",
        BIN_NUM,
        f"import io, pickle\nprint(pickle.Unpickler(io.BytesIO({pickled('builtins', 'bin', 5)!r})).load())\n",
        "0 2",
    ),
    hostile(
        "pickle-string-formatter",
        FORMAT_B,
        "import pickle\n"
        "formatted = b\"cbuiltins\\ngetattr\\n(cstring\\nFormatter\\n)RS'format'\\ntR(S'{:b}'\\nI5\\ntR.\"\n"
        "print(pickle.loads(formatted))\n",
        "0 3",
    ),
    # copy calls what a __reduce__ returns (the objects reached with getattr: no forbidden name in sight)
    hostile(
        "copy-reduce-bin",
        BIN_NUM,
        """\
        import builtins, copy
        class Number:
            def __reduce__(self):
                return getattr(builtins, "bi" + "n"), (5,)
        print(copy.copy(Number()))
        """,
        "0 5",
    ),
    hostile(
        "deepcopy-reduce-ex-xor",
        BITWISE_XOR,
        """\
        import copy, operator
        class Pair:
            def __reduce_ex__(self, protocol):
                return getattr(operator, "x" + "or"), (5, 3)
        print(copy.deepcopy([Pair()]))
        """,
        "0 5",
    ),
    hostile(
        "copyreg-reducer-ne",
        EXCLUSIVE_OR,
        """\
        import copy, copyreg, operator
        class Bits:
            pass
        copyreg.pickle(Bits, lambda bits: (getattr(operator, "n" + "e"), (1, 0)))
        print(int(copy.copy(Bits())))
        """,
        "1 5",
    ),
    hostile(
        "pickle-dumps-and-loads",
        BIN_NUM,
        """\
        import builtins, pickle
        class Number:
            def __reduce__(self):
                return getattr(builtins, "bi" + "n"), (5,)
        print(pickle.loads(pickle.dumps(Number())))
        """,
        "0 5",
    ),
    # a library function that calls the forbidden one for the program
    hostile(
        "enum-bin",
        BIN_NUM,
        "import enum\nif not hasattr(enum, 'bin'):\n    print('SKIP: enum.bin is new in Python 3.11')\n"
        "    raise SystemExit\nprint(enum.bin(5))\n",
        "0 5",
    ),
    hostile(
        "string-formatter-format-field",
        BIN_NUM,
        "import string\nprint(string.Formatter().format('{:>4}', 5))\n",
        "1 2",
    ),
    # a library's own method that implements a forbidden operator
    hostile(
        "int-flag-xor-unbound",
        BITWISE_XOR,
        "import enum\nclass Bits(enum.IntFlag):\n    ONE = 1\nprint(int(Bits.__xor__(Bits(5), Bits(3))))\n",
        "0 4",
    ),
    hostile(
        "int-flag-xor-bound",
        BITWISE_XOR,
        "import enum\nclass Bits(enum.IntFlag):\n    ONE = 1\nprint(int(Bits(5).__xor__(Bits(3))))\n",
        "0 4",
    ),
    hostile(
        "int-flag-rxor-by-name",
        BITWISE_XOR,
        "import enum\nclass Bits(enum.IntFlag):\n    ONE = 1\nprint(int(getattr(Bits(3), '__rx' + 'or__')(5)))\n",
        "0 4",
    ),
    hostile(
        "int-flag-xor-handed-to-reduce",
        BITWISE_XOR,
        "import enum, functools\nclass Bits(enum.IntFlag):\n    ONE = 1\n"
        "print(int(functools.reduce(Bits.__xor__, [Bits(5), Bits(3)])))\n",
        "0 4",
    ),
    # a methodcaller made where the guard does not see it made: checked where it is called or handed on
    hostile(
        "methodcaller-made-by-map",
        BITWISE_XOR,
        "import operator\ncall = list(map(operator.methodcaller, ['__xor__'], [3]))[0]\nprint(call(5))\n",
        "0 3",
    ),
    hostile(
        "methodcaller-made-by-new",
        EXCLUSIVE_OR,
        "import operator\nmake = operator.methodcaller.__new__\n"
        "print(int(make(operator.methodcaller, '__ne__', 0)(1)))\n",
        "1 3",
    ),
    hostile(
        "methodcaller-unpickled-and-mapped",
        BITWISE_XOR,
        f"import pickle\ncall = pickle.loads({pickled('operator', 'methodcaller', '__xor__', 3)!r})\n"
        "print(list(map(call, [5])))\n",
        "0 3",
    ),
    # a fresh copy of a module, made while the program runs
    hostile(
        "fresh-operator-module",
        BITWISE_XOR,
        "import importlib, sys\ndel sys.modules['_operator']\nfresh = importlib.import_module('_operator')\n"
        "print(fresh.xor(5, 3))\n",
        "0 4",
    ),
    hostile(
        "fresh-operator-module-through-pickle",
        BITWISE_XOR,
        "import importlib, pickle, sys\ndel sys.modules['_operator']\nimportlib.import_module('_operator')\n"
        f"print(pickle.loads({pickled('_operator', 'xor', 5, 3)!r}))\n",
        "0 4",
    ),
    hostile(
        "operator-reloaded-in-python",
        BITWISE_XOR,
        "import importlib, operator, sys\nsys.modules['_operator'] = None\nimportlib.reload(operator)\n"
        "print(operator.xor(5, 3))\n",
        "0 4",
    ),
    hostile(
        "operator-reloaded-in-python-through-pickle",
        BITWISE_XOR,
        "import importlib, operator, pickle, sys\nsys.modules['_operator'] = None\nimportlib.reload(operator)\n"
        f"print(pickle.loads({pickled('operator', 'xor', 5, 3)!r}))\n",
        "0 4",
    ),
    hostile(
        "fresh-builtins-module",
        BIN_NUM,
        "import sys\nsaved = sys.modules.pop('builtins')\nimport builtins as fresh\nsys.modules['builtins'] = saved\n"
        "print(fresh.bin(5))\n",
        "0 5",
    ),
]


@pytest.mark.parametrize("rules, source, violation", LIBRARIES)
def test_a_forbidden_object_reached_through_a_library_is_caught(python, tmp_path, rules, source, violation):
    unguarded = run(python, tmp_path / "unguarded", source, [])
    assert unguarded.returncode == 0, f"the program should run without the guard:\n{unguarded.stderr}"
    if unguarded.stdout.startswith("SKIP: "):
        pytest.skip(unguarded.stdout[len("SKIP: ") :].strip())
    guarded = run(python, tmp_path / "guarded", source, rules)
    index, line = violation.split()
    assert guarded.stdout.splitlines()[-1:] == [f"VIOLATION {index} prog.py {line}"], guarded.stderr
    assert guarded.returncode == 3


# Each walks from what the program can reach of the guard (the constants of its own compiled code)
# and breaks what it finds there without rewriting code; then it calls int's ^ by name, which no
# trap stands for (a slot of int cannot be replaced): only the guard's checks can catch it.
_REACHABLE = """\
import builtins, sys, types
# What is not walked into (and never handed to a call: the walk only reads attributes of it)
SKIP = {str, bytes, int, float, complex, bool, type(None), types.CodeType, type, types.ModuleType}
SKIP |= {type(len), type(int.__add__), type((1).__add__), type(str.join), type(int.__dict__["real"])}


def probe():
    return len([])


def reachable(limit=4):
    seen, found, todo = set(), [], [(c, 0) for c in probe.__code__.co_consts]
    while todo:
        value, depth = todo.pop()
        if value.__class__ in SKIP or depth > limit or id(value) in seen:
            continue
        seen.add(id(value))
        found.append(value)
        inside = list(value) if isinstance(value, (tuple, list, set, frozenset)) else []
        inside += list(value.values()) if isinstance(value, dict) else []
        for name in dir(value):
            if not name.startswith("__") or name in ("__self__", "__func__"):
                try:
                    inside.append(getattr(value, name))
                except Exception:
                    pass
        todo += [(item, depth + 1) for item in inside]
    return found


class StandIn:
    \"\"\"A module's stand-in: each of its functions hands back its last argument.\"\"\"

    def __getattr__(self, name):
        return lambda *args, **options: args[-1] if args else None


"""
XOR_BY_NAME = 'print(getattr(int, "__x" + "or__")(5, 3))\n'

SWITCH_OFF = [
    hostile(
        "fields-emptied",
        BITWISE_XOR,
        _REACHABLE
        + """\
for value in reachable():
    if isinstance(value, (set, dict, list)):
        value.clear()
    for name in [n for n in dir(value) if not n.startswith("__")]:
        try:
            current = getattr(value, name)
            if isinstance(current, (set, frozenset, dict, tuple)):
                setattr(value, name, type(current)())
        except Exception:
            pass
"""
        + XOR_BY_NAME,
        "0",
    ),
    hostile(
        "class-methods-replaced",
        BITWISE_XOR,
        _REACHABLE
        + """\
for value in reachable():
    kind = value.__class__
    if kind.__module__ not in ("builtins", "types") and kind is not types.FunctionType:
        for name, method in list(vars(kind).items()):
            if callable(method) and not name.startswith("__"):
                try:
                    setattr(kind, name, lambda self, *args, **options: args[0] if args else None)
                except Exception:
                    pass
"""
        + XOR_BY_NAME,
        "0",
    ),
    hostile(
        "module-globals-replaced",
        BITWISE_XOR,
        _REACHABLE
        + """\
for value in reachable():
    names = getattr(value, "__globals__", None)
    if isinstance(names, dict) and names.get("__name__") not in ("__main__", "builtins"):
        for key, current in list(names.items()):
            if key.startswith("__"):
                continue
            if isinstance(current, (set, dict, list)):
                current.clear()
            elif isinstance(current, (frozenset, tuple)):
                names[key] = frozenset() if isinstance(current, frozenset) else ()
            elif isinstance(current, types.ModuleType):
                names[key] = StandIn()
"""
        + XOR_BY_NAME,
        "0",
    ),
    hostile(
        "builtins-patched",
        BITWISE_XOR,
        "import builtins\nbuiltins.id = lambda value: -1\n"
        "builtins.isinstance = builtins.issubclass = lambda *args: False\nargs = ['101', 2]\nprint(int(*args))\n",
        "4",
    ),
]


@pytest.mark.parametrize("rules, source, violation", SWITCH_OFF)
def test_the_guard_cannot_be_switched_off_by_writing_what_it_holds(python, tmp_path, rules, source, violation):
    # Without the guard there is nothing to switch off: the forbidden call simply runs.
    unguarded = run(python, tmp_path / "unguarded", source, [])
    assert unguarded.returncode == 0, f"the program should run without the guard:\n{unguarded.stderr}"
    guarded = run(python, tmp_path / "guarded", source, rules)
    last = len(source.splitlines())  # the forbidden call, after the attack
    assert guarded.stdout.splitlines()[-1:] == [f"VIOLATION {violation} prog.py {last}"], guarded.stderr
    assert guarded.returncode == 3
