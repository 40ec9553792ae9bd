"""The objects a task's rules forbid, replaced by traps in the program's process before it runs.

Like ``rule_guard`` (which installs them), this runs in the program's own process, sent as source
text: it imports only the standard library and ``rule_data``. The guard checks what the program's
own code calls and hands on; a trap stands where a forbidden function is looked up by name (in
``builtins``, ``operator`` and ``_operator``: ``rule_data.HOMES``), so that whoever calls it
(pickle, copy's reduce protocol, ``enum.bin``, ``string.Formatter``) breaks the rule for the
program, at the program's line that set that going.

``traps(rules, report)`` makes them: ``report(index)`` is called when rule ``index`` is broken (it
does not return). ``stand_ins`` maps each original's id to its trap (the guard's checks know both);
``install()`` puts the traps in place; ``retrap(module)`` does it again for a module of those homes
made anew while the program runs (``del sys.modules["_operator"]``, a reload): the import system
calls it, and the functions of such a module are known by where they come from.

A trap calls the original when no rule is broken (``format`` with an allowed spec under a rule on
format codes, a counted function called with fewer arguments), so what the program sees is the
same. No trap stands for a type (``int`` with a base: replacing ``int`` would change every int and
``isinstance``), for the slots of a built-in type (``int.__xor__``, ``int.__ne__``,
``int.__format__``: C slots cannot be replaced), or for format codes applied in C (f-strings,
``str.format``): the guard checks those where the program's own code uses them. A module that kept
its own reference to a forbidden function before the program ran keeps it (none of the standard
library does for ``bin``, ``format``, the functions of ``^`` and ``!=``); one imported while the
program runs takes the trap.
"""

import builtins
import operator
import sys
from collections import namedtuple

import rule_data  # sent into the program's process before this module

Traps = namedtuple("Traps", "stand_ins install retrap")


def traps(rules, report):
    """The traps for ``rules`` (dicts with ``kind``, ``target``, ``min_args``, in the task's order)."""
    # What the traps use is a local here (a cell of each), never looked up when a trap runs.
    len, min, id, getattr, setattr, vars, list = (
        builtins.len, builtins.min, builtins.id, builtins.getattr, builtins.setattr, builtins.vars, builtins.list,
    )  # fmt: skip
    callable, isinstance, type = builtins.callable, builtins.isinstance, builtins.type
    spec_type, homes, modules = rule_data.spec_type, frozenset(rule_data.HOMES), sys.modules
    tests = {}  # id of a forbidden function → (the function, [(index, least arguments, format code)])
    origins = {}  # (module, qualified name) → the tests of a function of that origin, made anew

    def forbid(found, test, origin=None):
        if found is not None and not isinstance(found, type):
            tests.setdefault(id(found), (found, []))[1].append(test)
            origin = origin or (getattr(found, "__module__", None), getattr(found, "__qualname__", None))
        if origin is not None:
            origins.setdefault(origin, []).append(test)

    for index, rule in enumerate(rules):
        kind, target, least = rule["kind"], rule["target"], int(rule.get("min_args") or 0)
        if kind == "name":
            forbid(rule_data.resolve(target), (index, least, ""))
        elif kind == "operator":
            for name in rule_data.functions(target):
                forbid(getattr(operator, name, None), (index, 0, ""))
                for home in ("_operator", "operator"):  # the C functions, and the module's own in Python
                    forbid(None, (index, 0, ""), (home, name))
        elif kind == "format_spec":
            forbid(builtins.format, (index, 0, target))

    def broken(checks, args, kw):
        """The first rule a call with ``args`` and ``kw`` breaks, of ``checks``; None for none."""
        found = []
        for index, least, letter in checks:
            if letter:
                spec = args[1] if len(args) > 1 else kw.get("format_spec", "")
                if spec_type(spec) == letter:
                    found.append(index)
            elif len(args) + len(kw) >= least:
                found.append(index)
        return min(found) if found else None

    made = set()  # the ids of the traps (never wrapped again)

    def trap(original, checks):
        def stand_in(*args, **kw):
            index = broken(checks, args, kw)
            if index is not None:
                report(index)
            return original(*args, **kw)

        for attribute in ("__name__", "__qualname__", "__module__", "__doc__"):
            setattr(stand_in, attribute, getattr(original, attribute, None))
        made.add(id(stand_in))
        return stand_in

    stand_ins = {ident: trap(found, checks) for ident, (found, checks) in tests.items()}

    def install():
        """Put the traps in place of the originals, in each home that is loaded (by identity: these
        are the modules the originals came from)."""
        for home in homes:
            names = vars(modules[home]) if home in modules else {}
            for key in [key for key, value in names.items() if id(value) in stand_ins]:
                names[key] = stand_ins[id(names[key])]

    def retrap(module):
        """In ``module`` (one of the homes, made anew while the program runs), each forbidden
        function → its trap: the originals by identity, fresh copies by where they come from."""
        if getattr(module, "__name__", None) not in homes:
            return
        names = vars(module)
        for key, value in list(names.items()):
            ident = id(value)
            if ident in stand_ins:
                names[key] = stand_ins[ident]
            elif ident not in made:
                checks = origins.get((getattr(value, "__module__", None), getattr(value, "__qualname__", None)))
                if checks and callable(value) and not isinstance(value, type):
                    names[key] = trap(value, checks)

    return Traps(dict(stand_ins), install, retrap)
