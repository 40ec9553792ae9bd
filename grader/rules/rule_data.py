"""What each kind of rule forbids, as data: the one definition both checks read.

The syntax check (``grader/rules/static_check.py``) and the program's own process (``rule_tree``,
``rule_checks``, ``rule_traps``) both build on this module. It runs in the program's process too,
sent there as source text and imported by the bare name ``rule_data``, so it imports only the
standard library. The rules themselves come as the task's (``kind``, ``target``, ``min_args``):

- ``name``: a built-in or a module's function (``bin``, ``format``, ``operator.xor``), or a type
  (``int`` with ``min_args`` 2: called with a base);
- ``operator``: a symbol, forbidden as written and as the functions and special methods that do
  the same (``^``: ``operator.xor``, ``int.__xor__``...);
- ``format_spec``: a presentation type (``b`` as in ``f"{n:08b}"``);
- ``import``: a module, imported by the program's own code.
"""

import ast
import builtins
import importlib

# operator symbol → (the ast node classes that spell it, its functions in the operator module)
OPERATORS = {
    "^": (("BitXor",), ("xor",)),
    "&": (("BitAnd",), ("and_",)),
    "|": (("BitOr",), ("or_",)),
    "~": (("Invert",), ("invert", "inv")),
    "<<": (("LShift",), ("lshift",)),
    ">>": (("RShift",), ("rshift",)),
    "!=": (("NotEq",), ("ne",)),
    "==": (("Eq",), ("eq",)),
    "%": (("Mod",), ("mod",)),
    "+": (("Add", "UAdd"), ("add", "pos")),
    "-": (("Sub", "USub"), ("sub", "neg")),
    "*": (("Mult",), ("mul",)),
    "/": (("Div",), ("truediv",)),
    "//": (("FloorDiv",), ("floordiv",)),
    "**": (("Pow",), ("pow",)),
}

# Where a forbidden function is looked up by name (by the program, pickle, copy, a library's
# ``builtins.bin``): the program's process puts a trap in its place in these modules.
HOMES = ("builtins", "operator", "_operator")


def syntax(symbol):
    """The ast node classes that spell ``symbol`` (``^`` → ``(ast.BitXor,)``); () for an unknown one."""
    return tuple(getattr(ast, name) for name in OPERATORS.get(symbol, ((), ()))[0])


def functions(symbol):
    """The names in ``operator`` of the functions that do what ``symbol`` does, in-place ones and the
    special-method aliases too (``^``: xor, ixor, __xor__, __ixor__)."""
    found = []
    for name in OPERATORS.get(symbol, ((), ()))[1]:
        base = name.rstrip("_")
        found += [name, "i" + base, f"__{base}__", f"__i{base}__"]
    return tuple(found)


def dunders(symbol):
    """The special methods that implement ``symbol`` (``^``: __xor__, __rxor__, __ixor__)."""
    found = []
    for name in OPERATORS.get(symbol, ((), ()))[1]:
        base = name.rstrip("_")
        found += [f"__{base}__", f"__r{base}__", f"__i{base}__"]
    return tuple(found)


def spec_type(spec):
    """The presentation type of a format spec (``08b`` → ``b``), "" for none or for a non-string."""
    return spec[-1] if isinstance(spec, str) and spec[-1:].isalpha() else ""


def is_special(name):
    """Whether ``name`` is a special method's name (``__call__``): one the interpreter calls by itself."""
    return isinstance(name, str) and len(name) > 4 and name[:2] == name[-2:] == "__"


def resolve(target):
    """A name rule's target as the object it names: ``bin`` → builtins.bin, ``operator.xor`` →
    operator.xor (the longest importable module first), or None when there is none."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            found, rest = importlib.import_module(".".join(parts[:cut])), parts[cut:]
            break
        except Exception:  # not a module (``str.format``): try a shorter prefix, then the builtins
            continue
    else:
        found, rest = builtins, parts
    for part in rest:
        found = getattr(found, part, None)
    return found
