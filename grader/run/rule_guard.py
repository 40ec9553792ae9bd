"""A task's rules enforced where they are broken: in the student's program, while it runs.

The static check (``grader.submission.rules``) reads the main file's syntax tree and names the line,
but cannot see through ``getattr(builtins, "bi" + "n")``, ``int(*args)`` or ``int.__xor__``. This
module checks the objects themselves, in the program's own process. Like ``seeded_randomness`` it
runs there, sent as source text, after ``rule_tree`` (the syntax tree's rewrite) and
``rule_checks`` (what the rules forbid), which it imports by those names; none imports the grader.

``prepare(source, filename, rules)`` compiles a student file with every call ``f(a, *b, k=c)``
rewritten as ``G.callee(f, 2)(G.arg(a), *G.star(b), k=G.arg(c))`` (``rule_tree``). The guard ``G``
sees each argument before the call, and returns the callable as it is, for the program's own
frame to call as before (``super()``, ``locals()``, ``sys._getframe()`` and eval without
namespaces work, the recursion limit and error messages are the program's own), unless the rules
are about it (``int``, ``format``, ``map``, a ``partial``...): then it returns a version that
checks the actual arguments first. Operators, format specs and imports the rules forbid are
checked where they run too (the static check sees the main file only; this covers the student's
other files and text given to ``eval``), as are decorators and what a class keeps under special
names (``__call__ = bin``). The guard is a constant of the compiled code, not a name: the
program's globals are unchanged, and no assignment can replace it.

``install(rules, violated, folder)`` makes the checks live, once, in the child, just before the
program runs: ``eval``, ``exec`` and ``compile`` in builtins become versions that compile text
through the guard (whoever calls them: the program, ``map``, ``timeit``), and module files of the
program (in the run folder, or anywhere outside the interpreter's own paths) are compiled through
it when imported.

Out of reach, on purpose: a program that goes looking for the grader's own machinery (frames,
``gc``, ``ctypes``) or brings bytecode it built itself (``marshal``, ``types.CodeType``).
"""

import __future__

import ast
import builtins
import copy
import functools
import importlib
import importlib.util
import operator
import os
import sys
import types
import weakref

import rule_tree  # sent into the program's process before this module (see above)

_FUTURE = functools.reduce(operator.or_, (getattr(__future__, n).compiler_flag for n in __future__.all_feature_names))
_NATIVE = {"compile": builtins.compile, "eval": builtins.eval, "exec": builtins.exec}
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
        return _NATIVE["compile"](source, filename, "exec", dont_inherit=True)
    code = _GUARD.instrument(source, filename, "exec", 0, -1, rules)
    _GUARD.files.add(filename)  # where a violation is reported: the innermost frame in one of these
    return code


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

    _GUARD.start(rule_checks.Policy(rules), list(rules), violated, folder)
    builtins.eval, builtins.exec, builtins.compile = _eval, _exec, _compile
    _guard_imports(_GUARD)
    for name in ("rule_guard", "rule_checks", "rule_tree"):  # needed to load them, no longer:
        sys.modules.pop(name, None)  # the program cannot import the guard by name to change it


class _Everything:
    """What the guard watches until it is installed: everything (each call is refused)."""

    def __contains__(self, item):
        return True


class _Guard:
    """The checks the instrumented code calls (its only instance is a constant of that code)."""

    __slots__: "tuple[str, ...]" = ("files", "prepared", "rules", "policy", "violated", "folder", "trusted")
    __slots__ += ("watched", "passed", "names", "counted")

    def __init__(self):
        self.files, self.prepared = set(), weakref.WeakSet()  # the student's files; the code prepare made
        self.rules, self.policy, self.violated, self.folder, self.trusted = (), None, None, "", ()
        self.watched, self.passed, self.names, self.counted = _Everything(), _Everything(), frozenset(), set()

    def start(self, policy, rules, violated, folder):
        """Make the checks live: ``policy`` (a ``rule_checks.Policy``) for ``rules``; see ``install``."""
        self.policy, self.rules, self.violated = policy, rules, violated
        self.folder = os.path.realpath(folder)
        # Where the interpreter's own modules are: what is imported from anywhere else is the program's.
        roots = {os.path.realpath(path) for path in sys.path if path}
        self.trusted = tuple(root for root in roots if not _inside(root, self.folder))
        self.watched = policy.watched | set(_GUARDED)
        self.passed, self.names = frozenset(policy.passed), frozenset(policy.names)

    # --- called by the instrumented code ---------------------------------------------------------

    def callee(self, f, count=-1):
        """The callable of a call, about to be called by the program's own frame with ``count``
        arguments (-1: not known before they are unpacked): returned as it is, unless the rules are
        about it (then a version that checks its actual arguments first)."""
        kind = type(f)  # the commonest kinds first, decided here: this runs before every call
        if kind is _FUNCTION:
            if id(f) not in self.watched:
                return f
        elif kind is _METHOD:
            if type(f.__func__) is _FUNCTION and id(f.__func__) not in self.watched:
                return f  # a method of a class (the program's own, or a library's)
        elif kind in _NAMED:
            if f.__name__ not in self.names and id(f) not in self.watched:
                return f
        elif kind is type and (id(f), count) in self.counted:
            return f  # int(text): one argument is never two (worked out once per callable and count)
        return self._callee(f, kind, count)

    def arg(self, value):
        """An argument, about to be handed to a call: returned unchanged if nothing forbidden."""
        kind = type(value)
        if kind in _PASSED_KINDS and (kind is not _FUNCTION or id(value) in self.passed):
            self._check(self._policy().handed(value))
        return value

    def star(self, values):
        """The iterable after ``*``: its values, checked (as the tuple the call would make of them)."""
        if type(values) is not tuple:
            try:
                iterator = iter(values)
            except TypeError:
                return values  # not iterable: the call says so, in its own words
            values = tuple(iterator)
        if not _PASSED_KINDS.isdisjoint(map(type, values)):
            for value in values:
                self.arg(value)
        return values

    def mapping(self, values):
        """The mapping after ``**``: as the dict the call would make of it, its values checked."""
        if type(values) is not dict:
            if not hasattr(values, "keys"):
                return values  # not a mapping: the call says so, in its own words
            values = dict(values)
        self.star(tuple(values.values()))
        return values

    def broken(self, index, value=None):
        """A forbidden operator or import statement is about to run (``value``: its right operand)."""
        self._report(index)

    def spec(self, spec):
        """An f-string's format spec, computed where it runs: returned unchanged if allowed."""
        self._check(self._policy().spec(spec))
        return spec

    def decorator(self, decorator):
        """A decorator, about to be called with the function or class below it: returned unchanged."""
        self._check(self._policy().call(decorator, (object(),), {}))
        return decorator

    def klass(self, cls):
        """A class just made: nothing forbidden kept under a special name (``__call__ = bin``)."""
        if isinstance(cls, type):
            for name, value in list(vars(cls).items()):
                if rule_tree.special(name):
                    self._check(self._policy().slot(value, name))
        return cls

    def value(self, value, name):
        """A value about to be stored under the special name ``name`` (``obj.__call__ = f``):
        returned unchanged."""
        self._check(self._policy().slot(value, name))
        return value

    # --- inside ------------------------------------------------------------------------------------

    def _policy(self):
        if self.policy is None:
            raise RuntimeError("nim-grader: rule_guard.install() was not called before the program ran")
        return self.policy

    def _callee(self, f, kind, count):
        policy, ident = self._policy(), id(f)
        if ident in _GUARDED:  # eval, exec, compile: the guard's, which find the program's frame above them
            return _GUARDED[ident]
        if count >= 0 and policy.counted_only(f) and policy.call(f, (None,) * count, {}) is None:
            self.counted.add((ident, count))  # the ids of counted callables stay theirs: the policy keeps them
            return f
        looked_at = (
            ident in self.watched
            or kind in (_METHOD, functools.partial)  # a method of something not a function, a partial
            or (kind in _NAMED and f.__name__ in self.names)  # (5).__xor__, "{:b}".format
            or (isinstance(f, type) and issubclass(f, policy.proxied))  # a subclass of int, of partial
        )
        # Anything else (a class, a callable object) is called as it is: its own code is checked where it calls.
        return functools.partial(self._through, f) if looked_at else f

    def _through(self, f, /, *args, **kw):
        """Call ``f`` once its actual arguments are known to break no rule."""
        self._check(self._policy().call(f, args, kw))
        return f(*args, **kw)

    def _check(self, index):
        if index is not None:
            self._report(index)

    def _report(self, index):
        """Tell ``violated`` where rule ``index`` was broken (the innermost frame in a student file,
        else the innermost instrumented one), then end the program."""
        frame, inner = sys._getframe(1), None
        while frame is not None and frame.f_code.co_filename not in self.files:
            if inner is None and frame.f_code in self.prepared:
                inner = frame
            frame = frame.f_back
        where = frame or inner
        filename, line = (where.f_code.co_filename, where.f_lineno or 0) if where else ("", 0)
        if self.violated is None:
            raise RuntimeError("nim-grader: rule_guard.install() was not called before the program ran")
        self.violated(index, filename, line)
        raise RuleBroken(f"rule {index} of the exercise is broken at line {line} of {filename}")

    def runnable(self, source, mode, caller):
        """What eval or exec (``mode``) may run for ``source``, called from the frame ``caller``:
        text compiled through the guard, a code object the guard made; anything else unchanged."""
        if isinstance(source, (str, bytes)):
            if mode == "eval":  # as eval does, and compile does not
                source = source.lstrip(" \t" if isinstance(source, str) else b" \t")
            return self.instrument(source, "<string>", mode, caller.f_code.co_flags & _FUTURE, -1, self.rules)
        if isinstance(source, types.CodeType) and source not in self.prepared and caller.f_code in self.prepared:
            raise RuntimeError(
                "nim-grader: this program runs a code object that was not compiled from source text; "
                "the grader cannot check it against the exercise's rules. Run source text instead."
            )
        return source

    def instrument(self, source, filename, mode, flags, optimize, rules, **options):
        """Compile ``source`` (text or a syntax tree) with the checks for ``rules``, as ``compile``
        would with these arguments and ``dont_inherit=True``."""
        native = _NATIVE["compile"]
        if isinstance(source, ast.AST):
            tree = copy.deepcopy(source)  # the program may use its tree again
        else:
            tree = native(source, filename, mode, flags | ast.PyCF_ONLY_AST, True, optimize, **options)
        code = None
        try:
            tree = rule_tree.instrumented(tree, rules, flags)
            code = native(tree, filename, mode, flags, True, optimize)
        except SyntaxError:
            pass  # Python's own error, in its own words, comes from compiling the source below
        except (RecursionError, MemoryError) as error:
            raise GuardFailed(
                f"The grader cannot check {filename} against the exercise's rules: something in it is nested "
                f"too deeply ({type(error).__name__}). Write it in several steps, with variables or a loop."
            ) from None
        if code is None:
            native(source, filename, mode, flags, True, optimize, **options)
            raise GuardFailed(f"The grader could not compile {filename} with the checks of the exercise's rules.")
        return self._bind(code)

    def _bind(self, code):
        """``code`` with the guard in place of the constant that stands for it, in every nested code."""
        consts = tuple(
            self if type(c) is str and c == rule_tree.HOLE else self._bind(c) if isinstance(c, types.CodeType) else c
            for c in code.co_consts
        )
        code = code.replace(co_consts=consts)
        self.prepared.add(code)
        return code

    def untrusted(self, path):
        """Whether a module file at ``path`` is the program's: in the run folder, or outside every
        folder the interpreter had on its path when the guard started."""
        real = os.path.realpath(path)
        return _inside(real, self.folder) or not any(_inside(real, root) for root in self.trusted)

    def installed(self, source, filename):
        """Whether ``source`` is the text of one of the interpreter's own files (a library module
        compiled from source by the import system), which runs as it is."""
        if not (isinstance(filename, str) and os.path.isabs(filename) and isinstance(source, (str, bytes))):
            return False
        if self.untrusted(filename):
            return False
        try:
            with open(filename, "rb") as handle:
                data = handle.read()
        except OSError:
            return False
        return source == (data if isinstance(source, bytes) else importlib.util.decode_source(data))


_FUNCTION, _METHOD = types.FunctionType, types.MethodType
_PASSED_KINDS = frozenset((*_NAMED, _METHOD, _FUNCTION))  # what an argument may be to be looked at
_GUARD = _Guard()


def _inside(path, folder):
    return bool(folder) and (path == folder or path.startswith(folder.rstrip(os.sep) + os.sep))


def _frame_locals(frame):
    """The local namespace eval and exec use by default: since 3.13, a snapshot in a function."""
    found = frame.f_locals
    return found if type(found) is dict else dict(found)


# The guard's compile, eval and exec, which replace the built-in ones in install (their documentation
# is the built-ins'): text is compiled through the guard, whoever calls them; eval and exec find the
# caller's namespaces as the built-ins would (the frame above theirs).


def _compile(source, filename, mode, flags=0, dont_inherit=False, optimize=-1, **options):
    if not dont_inherit:
        flags |= sys._getframe(1).f_code.co_flags & _FUTURE
    if flags & ast.PyCF_ONLY_AST or _GUARD.installed(source, filename):
        return _NATIVE["compile"](source, filename, mode, flags, True, optimize, **options)
    return _GUARD.instrument(source, filename, mode, flags, optimize, _GUARD.rules, **options)


def _eval(source, globals=None, locals=None):
    caller = sys._getframe(1)
    source = _GUARD.runnable(source, "eval", caller)
    if globals is None:
        globals, locals = caller.f_globals, _frame_locals(caller) if locals is None else locals
    return _NATIVE["eval"](source, globals, locals)


def _exec(source, globals=None, locals=None, **options):
    caller = sys._getframe(1)
    source = _GUARD.runnable(source, "exec", caller)
    if globals is None:
        globals, locals = caller.f_globals, _frame_locals(caller) if locals is None else locals
    return _NATIVE["exec"](source, globals, locals, **options)


for _name, _function in (("compile", _compile), ("eval", _eval), ("exec", _exec)):
    _function.__name__ = _function.__qualname__ = _name
    _function.__module__, _function.__doc__ = "builtins", _NATIVE[_name].__doc__
# eval, exec and compile (the real ones, and the guard's) → the guard's
_GUARDED = {id(f): guarded for guarded in (_compile, _eval, _exec) for f in (guarded, _NATIVE[guarded.__name__])}
del _name, _function


def _guard_imports(guard):
    """Compile the program's own module files through ``prepare`` (never from a cached .pyc), and
    refuse its compiled modules (bytecode and extension files: the guard cannot look inside)."""
    external = importlib._bootstrap_external  # the import system's file loaders
    from_source = external.SourceLoader.get_code
    from_bytecode = external.SourcelessFileLoader.get_code
    from_extension = external.ExtensionFileLoader.create_module

    def get_code(loader, fullname):
        path = loader.get_filename(fullname)
        if type(loader) is external.SourceFileLoader and not guard.untrusted(path):
            return from_source(loader, fullname)
        return prepare(loader.get_data(path), path, guard.rules)

    def refuse(path, name):
        if guard.untrusted(path):
            raise ImportError(f"nim-grader: only .py files of the program can be imported: {path}", name=name)

    def get_bytecode(loader, fullname):
        refuse(loader.get_filename(fullname), fullname)
        return from_bytecode(loader, fullname)

    def create_module(loader, spec):
        refuse(loader.path, spec.name)
        return from_extension(loader, spec)

    external.SourceLoader.get_code = get_code
    external.SourcelessFileLoader.get_code = get_bytecode
    external.ExtensionFileLoader.create_module = create_module
