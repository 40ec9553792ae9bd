"""A task's rules enforced where they are broken: in the student's program, while it runs.

The syntax check (``grader/rules/static_check.py``) reads the main file's syntax tree and names the
line, but cannot see through ``getattr(builtins, "bi" + "n")``, ``int(*args)`` or ``int.__xor__``.
This module checks the objects themselves, in the program's own process. Like
``seeded_randomness`` it runs there, sent as source text, after ``rule_data``, ``rule_tree`` (the
syntax tree's rewrite), ``rule_checks`` (what the rules forbid) and ``rule_traps`` (traps in place
of the forbidden objects), which it imports by those names; none imports the grader.

``prepare(source, filename, rules)`` compiles a student file with every call ``f(a, *b, k=c)``
rewritten as ``G.callee(f, 2)(G.arg(a), *G.star(b), k=G.arg(c))`` (``rule_tree``). The guard ``G``
sees each argument before the call, and returns the callable as it is, for the program's own
frame to call as before (``super()``, ``locals()``, ``sys._getframe()`` and eval without
namespaces work, the recursion limit and error messages are the program's own), unless the rules
are about it (``int``, ``format``, ``map``, a ``partial``...): then it returns a version that
checks the actual arguments first. Operators, format specs and imports the rules forbid are
checked where they run too (the static check sees the main file only; this covers the student's
other files and text given to ``eval``), as are decorators and what a class keeps under special
names (``__call__ = bin``).

``install(rules, violated, folder)`` makes the checks live, once, in the child, just before the
program runs: the forbidden objects are replaced by traps (``rule_traps``: whoever calls them,
pickle or a library, breaks the rule); ``eval``, ``exec`` and ``compile`` in builtins become
versions that compile text through the guard (whoever calls them: the program, ``map``,
``timeit``); module files of the program (in the run folder, or anywhere outside the interpreter's
own paths) are compiled through it when imported (``rule_imports``).

The guard's state lives in closures (``_build``): the compiled code holds a tuple of its checks as
a constant, and nothing the checks read when they run is a field, a class attribute, a module
global or a built-in looked up then. Out of reach, on purpose: a program that rewrites the guard
(its functions' code or closure cells, through ``gc`` or the constants of its own code), goes
looking for the grader's machinery (frames, ``ctypes``) or brings bytecode it built itself
(``marshal``, ``types.CodeType``). The rules are pedagogy, not a security boundary.
"""

import __future__

import ast
import builtins
import copy
import functools
import operator
import os
import sys
import types
import weakref
from collections import namedtuple

import rule_data  # sent into the program's process before this module (see above)
import rule_tree

_FUTURE = functools.reduce(operator.or_, (getattr(__future__, n).compiler_flag for n in __future__.all_feature_names))
_NAMED = (types.BuiltinFunctionType, types.MethodWrapperType, types.WrapperDescriptorType, types.MethodDescriptorType)


class GuardFailed(Exception):
    """The program could not be instrumented for its rules (not a mistake of the program's: a
    limit of the guard's, such as a file nested too deeply); the message says so in a sentence."""


class RuleBroken(BaseException):
    """Raised where a rule is broken, after ``violated`` was called, if that returned: it ends the
    program (a BaseException, so that ``except Exception`` does not stop it)."""


def prepare(source, filename, rules):
    """Compile a student file for its rules: what ``compile(source, filename, "exec",
    dont_inherit=True)`` gives, with the checks in it. ``source`` is the file's bytes (or text),
    ``rules`` the task's rules as dicts (``kind``, ``target``, ``min_args``) in the task's order.

    Returns a code object (exactly ``compile``'s when there are no rules). Raises what compile
    raises for a file Python cannot compile (the same SyntaxError), and ``GuardFailed`` when the
    file compiles but cannot be instrumented.
    """
    if not rules:
        return _GUARD.native["compile"](source, filename, "exec", dont_inherit=True)
    return _GUARD.prepare(source, filename, rules)


def install(rules, violated, folder):
    """Make the checks live in this process (once, in the child, just before the program runs).

    ``rules`` are those given to ``prepare``; ``violated(index, filename, line)`` is called when rule
    ``index`` is broken, at that line of one of the student's files (for text run with ``eval``,
    the line that ran it); it should record that and end the process. ``folder`` is the run folder,
    whose Python files are compiled through ``prepare`` when imported. Nothing to put in the
    program's globals: the checks are constants of its compiled code.
    """
    if not rules:
        return
    import rule_checks  # sent with this module (see the module's docstring)
    import rule_imports
    import rule_traps

    _GUARD.start(rules, violated, folder, rule_checks.policy, rule_traps.traps, rule_imports.guard_imports)
    for name in ("rule_guard", "rule_checks", "rule_tree", "rule_traps", "rule_imports", "rule_data"):
        sys.modules.pop(name, None)  # needed to load them, no longer: the program cannot import them by name


class _Everything:
    """What the guard watches until it is installed: everything (each call is refused)."""

    def __contains__(self, item):
        return True


_Guard = namedtuple("_Guard", "checks prepare start instrument native")


def _build():
    """The guard: its checks (the tuple the instrumented code holds, ordered as ``rule_tree.CHECKS``)
    and what ``prepare`` and ``install`` call, all closed over the state below."""
    # Everything used when a check runs is a local here (a cell of each check), taken now.
    type, id, iter, tuple, dict, list, vars, hasattr, isinstance, issubclass, map, object = (
        builtins.type, builtins.id, builtins.iter, builtins.tuple, builtins.dict, builtins.list, builtins.vars,
        builtins.hasattr, builtins.isinstance, builtins.issubclass, builtins.map, builtins.object,
    )  # fmt: skip
    partial, deepcopy, getframe, realpath = functools.partial, copy.deepcopy, sys._getframe, os.path.realpath
    FUNCTION, METHOD, CODE, AST, named = types.FunctionType, types.MethodType, types.CodeType, ast.AST, _NAMED
    methodcaller, hole, instrumented = operator.methodcaller, rule_tree.HOLE, rule_tree.instrumented
    special = rule_data.is_special
    native = {"compile": builtins.compile, "eval": builtins.eval, "exec": builtins.exec}
    native_compile, future, only_ast = native["compile"], _FUTURE, ast.PyCF_ONLY_AST
    broken_rule, failed = RuleBroken, GuardFailed
    passed_kinds = frozenset((*named, METHOD, FUNCTION, methodcaller))  # what an argument may be to be looked at

    files, prepared = set(), weakref.WeakSet()  # the student's files; the code prepare made
    rules, violated, started = (), None, False
    watched = passed = _Everything()
    names, counted, proxied, guarded = frozenset(), set(), (), {}

    def not_installed(*args):
        raise RuntimeError("nim-grader: rule_guard.install() was not called before the program ran")

    ask_call = ask_slot = ask_counted_only = ask_handed = ask_spec = not_installed
    library_file = not_installed  # whether text compiled is a library's own file (set by guard_imports)

    # --- called by the instrumented code ---------------------------------------------------------

    def callee(f, count=-1):
        """The callable of a call, about to be called by the program's own frame with ``count``
        arguments (-1: not known before they are unpacked): returned as it is, unless the rules are
        about it (then a version that checks its actual arguments first)."""
        kind = type(f)  # the commonest kinds first, decided here: this runs before every call
        if kind is FUNCTION:
            if f.__name__ not in names and id(f) not in watched:
                return f
        elif kind is METHOD:
            function = f.__func__  # a method of a class (the program's own, or a library's)
            if type(function) is FUNCTION and function.__name__ not in names and id(function) not in watched:
                return f
        elif kind in named:
            if f.__name__ not in names and id(f) not in watched:
                return f
        elif kind is type and (id(f), count) in counted:
            return f  # int(text): one argument is never two (worked out once per callable and count)
        return _callee(f, kind, count)

    def arg(value):
        """An argument, about to be handed to a call: returned unchanged if nothing forbidden."""
        kind = type(value)
        if kind in passed_kinds and (kind is not FUNCTION or id(value) in passed or value.__name__ in names):
            _check(ask_handed(value))
        return value

    def star(values):
        """The iterable after ``*``: its values, checked (as the tuple the call would make of them)."""
        if type(values) is not tuple:
            try:
                iterator = iter(values)
            except TypeError:
                return values  # not iterable: the call says so, in its own words
            values = tuple(iterator)
        if not passed_kinds.isdisjoint(map(type, values)):
            for value in values:
                arg(value)
        return values

    def mapping(values):
        """The mapping after ``**``: as the dict the call would make of it, its values checked."""
        if type(values) is not dict:
            if not hasattr(values, "keys"):
                return values  # not a mapping: the call says so, in its own words
            values = dict(values)
        star(tuple(values.values()))
        return values

    def broken(index, value=None):
        """A forbidden operator or import statement is about to run (``value``: its right operand)."""
        report(index)

    def spec(text):
        """An f-string's format spec, computed where it runs: returned unchanged if allowed."""
        _check(ask_spec(text))
        return text

    def decorator(function):
        """A decorator, about to be called with the function or class below it: returned unchanged."""
        _check(ask_call(function, (object(),), {}))
        return function

    def klass(cls):
        """A class just made: nothing forbidden kept under a special name (``__call__ = bin``)."""
        if isinstance(cls, type):
            for name, value in list(vars(cls).items()):
                if special(name):
                    _check(ask_slot(value, name))
        return cls

    def value(value, name):
        """A value about to be stored under the special name ``name`` (``obj.__call__ = f``):
        returned unchanged."""
        _check(ask_slot(value, name))
        return value

    # --- inside ------------------------------------------------------------------------------------

    def _callee(f, kind, count):
        ident = id(f)
        if ident in guarded:  # eval, exec, compile: the guard's, which find the program's frame above them
            return guarded[ident]
        if count >= 0 and ask_counted_only(f) and ask_call(f, (None,) * count, {}) is None:
            counted.add((ident, count))  # the ids of counted callables stay theirs: the policy keeps them
            return f
        if kind is methodcaller or (kind is FUNCTION and ident not in watched):
            _check(ask_call(f, (), {}))  # what it is decides, not its arguments: a library's __xor__, a copy of xor
            return f
        looked_at = (
            ident in watched
            or kind in (METHOD, partial)  # a method of something not a function, a partial
            or (kind in named and f.__name__ in names)  # (5).__xor__, "{:b}".format
            or (isinstance(f, type) and issubclass(f, proxied))  # a subclass of int, of partial
        )
        # Anything else (a class, a callable object) is called as it is: its own code is checked where it calls.
        return partial(_through, f) if looked_at else f

    def _through(f, /, *args, **kw):
        """Call ``f`` once its actual arguments are known to break no rule."""
        _check(ask_call(f, args, kw))
        return f(*args, **kw)

    def _check(index):
        if index is not None:
            report(index)

    def report(index):
        """Tell ``violated`` where rule ``index`` was broken (the innermost frame in a student file,
        else the innermost instrumented one), then end the program."""
        frame, inner = getframe(1), None
        while frame is not None and frame.f_code.co_filename not in files:
            if inner is None and frame.f_code in prepared:
                inner = frame
            frame = frame.f_back
        where = frame or inner
        filename, line = (where.f_code.co_filename, where.f_lineno or 0) if where else ("", 0)
        if violated is None:
            raise RuntimeError("nim-grader: rule_guard.install() was not called before the program ran")
        violated(index, filename, line)
        raise broken_rule(f"rule {index} of the exercise is broken at line {line} of {filename}")

    def own(function):
        """Whether ``function`` is the program's own (compiled through the guard)."""
        return function.__code__ in prepared

    def start(task_rules, on_violation, folder, policy, traps, guard_imports):
        """Make the checks live, once: see ``install``."""
        nonlocal rules, violated, started, watched, passed, names, proxied, library_file
        nonlocal ask_call, ask_slot, ask_counted_only, ask_handed, ask_spec
        if started:
            raise RuntimeError("nim-grader: the rule guard is installed once, before the program runs")
        rules, violated = list(task_rules), on_violation
        trapped = traps(rules, report)
        answers = policy(rules, own, trapped.stand_ins)  # before the traps are in place: it knows both
        ask_call, ask_slot, ask_counted_only = answers.call, answers.slot, answers.counted_only
        ask_handed, ask_spec, proxied = answers.handed, answers.spec, answers.proxied
        watched, passed, names = answers.watched | frozenset(guarded), answers.passed, answers.names
        trapped.install()
        builtins.eval, builtins.exec, builtins.compile = guarded_eval, guarded_exec, guarded_compile
        library_file = guard_imports(realpath(folder), rules, prepare_file, trapped.retrap)
        started = True

    # --- compiling through the guard ---------------------------------------------------------------

    def prepare_file(source, filename, task_rules):
        code = instrument(source, filename, "exec", 0, -1, task_rules)
        files.add(filename)  # where a violation is reported: the innermost frame in one of these
        return code

    def runnable(source, mode, caller):
        """What eval or exec (``mode``) may run for ``source``, called from the frame ``caller``:
        text compiled through the guard, a code object the guard made; anything else unchanged."""
        if isinstance(source, (str, bytes)):
            if mode == "eval":  # as eval does, and compile does not
                source = source.lstrip(" \t" if isinstance(source, str) else b" \t")
            return instrument(source, "<string>", mode, caller.f_code.co_flags & future, -1, rules)
        if isinstance(source, CODE) and source not in prepared and caller.f_code in prepared:
            raise RuntimeError(
                "nim-grader: this program runs a code object that was not compiled from source text; "
                "the grader cannot check it against the exercise's rules. Run source text instead."
            )
        return source

    def instrument(source, filename, mode, flags, optimize, task_rules, **options):
        """Compile ``source`` (text or a syntax tree) with the checks for ``task_rules``, as
        ``compile`` would with these arguments and ``dont_inherit=True``."""
        if isinstance(source, AST):
            tree = deepcopy(source)  # the program may use its tree again
        else:
            tree = native_compile(source, filename, mode, flags | only_ast, True, optimize, **options)
        code = None
        try:
            tree = instrumented(tree, task_rules, flags)
            code = native_compile(tree, filename, mode, flags, True, optimize)
        except SyntaxError:
            pass  # Python's own error, in its own words, comes from compiling the source below
        except (RecursionError, MemoryError) as error:
            raise failed(
                f"The grader cannot check {filename} against the exercise's rules: something in it is nested "
                f"too deeply ({type(error).__name__}). Write it in several steps, with variables or a loop."
            ) from None
        if code is None:
            native_compile(source, filename, mode, flags, True, optimize, **options)
            raise failed(f"The grader could not compile {filename} with the checks of the exercise's rules.")
        return bind(code)

    def bind(code):
        """``code`` with the guard's checks in place of the constant that stands for them, in every nested code."""
        consts = tuple(
            checks if type(c) is tuple and c == hole else bind(c) if isinstance(c, CODE) else c for c in code.co_consts
        )
        code = code.replace(co_consts=consts)
        prepared.add(code)
        return code

    # The guard's compile, eval and exec, which replace the built-in ones in install (their
    # documentation is the built-ins'): text is compiled through the guard, whoever calls them;
    # eval and exec find the caller's namespaces as the built-ins would (the frame above theirs).

    def guarded_compile(source, filename, mode, flags=0, dont_inherit=False, optimize=-1, **options):
        if not dont_inherit:
            flags |= getframe(1).f_code.co_flags & future
        if flags & only_ast or library_file(source, filename):
            return native_compile(source, filename, mode, flags, True, optimize, **options)
        return instrument(source, filename, mode, flags, optimize, rules, **options)

    def guarded_eval(source, globals=None, locals=None):
        caller = getframe(1)
        source = runnable(source, "eval", caller)
        if globals is None:
            globals, locals = caller.f_globals, _frame_locals(caller) if locals is None else locals
        return native["eval"](source, globals, locals)

    def guarded_exec(source, globals=None, locals=None, **options):
        caller = getframe(1)
        source = runnable(source, "exec", caller)
        if globals is None:
            globals, locals = caller.f_globals, _frame_locals(caller) if locals is None else locals
        return native["exec"](source, globals, locals, **options)

    def _frame_locals(frame):
        """The local namespace eval and exec use by default: since 3.13, a snapshot in a function."""
        found = frame.f_locals
        return found if type(found) is dict else dict(found)

    for name, function in (("compile", guarded_compile), ("eval", guarded_eval), ("exec", guarded_exec)):
        function.__name__ = function.__qualname__ = name
        function.__module__, function.__doc__ = "builtins", native[name].__doc__
    # eval, exec and compile (the real ones, and the guard's) → the guard's
    guarded.update({id(f): g for g in (guarded_compile, guarded_eval, guarded_exec) for f in (g, native[g.__name__])})
    checks = (None, callee, arg, star, mapping, broken, spec, decorator, klass, value)
    return _Guard(checks, prepare_file, start, instrument, dict(native))


_GUARD = _build()
