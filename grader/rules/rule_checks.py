"""What a student program may not do while it runs: a task's rules resolved to the objects they forbid.

Like ``rule_guard`` (which uses it), this runs in the program's own process, sent there as source
text, so it imports only the standard library (and ``rule_data``, sent before it).
``policy(rules, own, stand_ins)`` takes the task's rules as JSON-able dicts (``kind``, ``target``,
``min_args``) in the task's order; each question it answers (may this callable be called with
these arguments, passed along, kept under a special name, is this format spec allowed) gives the
index of the first rule broken, or None.

Objects are recognised by identity, so no spelling hides them: ``bin`` reached through
``getattr(builtins, "bi" + "n")`` is still ``bin``, and so is its trap (``stand_ins``: original id
→ the trap of ``rule_traps``); a fresh copy (a module imported anew) by where it comes from. Methods
of built-in types made anew at each access (``(5).__xor__``, ``"{:b}".format``) are recognised by
their type and name, as are a library's own special method for a forbidden operator
(``enum.Flag.__xor__``; ``own(f)`` tells the program's functions from the others) and a
``methodcaller``. A function handed to code that calls it later (``map``, ``functools.reduce``, a
``partial``...) is checked as called with as many arguments as that code gives it; where that
number is unknown, a callable that could do something forbidden with more arguments (``format``, a
format method) is refused, while a type such as ``int`` stays allowed (``isinstance(x, int)``,
``map(int, words)``).

The answers are closures over what the rules forbid, built once and frozen: no field or class
attribute a program could write to switch them off (``rule_guard`` says what remains).
"""

import builtins
import functools
import importlib
import importlib.util
import itertools
import operator
import string
import types
from collections import namedtuple

import rule_data  # sent into the program's process before this module

ANY = object()  # an argument whose value is not known here (given later, by the code a function is handed to)
_MANY = (ANY,) * 16  # the arguments of a call whose number is not known
# Built-in callables whose __name__ tells what they do (bound ones are made anew at each access).
NAMED = frozenset(
    (types.BuiltinFunctionType, types.MethodWrapperType, types.WrapperDescriptorType, types.MethodDescriptorType)
)
_FORMATS = ("__format__", "format", "format_map")

# The questions (functions) and what a caller decides with before asking (frozen sets of ids and names).
Policy = namedtuple("Policy", "call slot counted_only handed spec watched passed names proxied")


def policy(rules, own=lambda function: False, stand_ins=None):
    """The checks for ``rules``; ``own(function)`` tells the program's own functions from a library's
    (a special method of its own is its own work); ``stand_ins``: id of a forbidden object → its trap."""
    # Everything a check uses is a local here (a cell of each check), never a global or a built-in
    # looked up when the check runs: a program that replaces those does not reach these.
    id, type, len, min, list, tuple, dict, str, int, float, bool, isinstance, issubclass, getattr = operator.attrgetter(
        *"id type len min list tuple dict str int float bool isinstance issubclass getattr".split()
    )(builtins)
    next, format, repr, ascii = builtins.next, builtins.format, builtins.repr, builtins.ascii
    partial, methodcaller, ModuleType, MethodType, FunctionType = (
        functools.partial, operator.methodcaller, types.ModuleType, types.MethodType, types.FunctionType,
    )  # fmt: skip
    chain, count_up, resolve_name = itertools.chain, itertools.count, importlib.util.resolve_name
    parse, reduce_of = string.Formatter().parse, methodcaller.__reduce__
    spec_type, is_special, unknown, many, formats = rule_data.spec_type, rule_data.is_special, ANY, _MANY, _FORMATS
    named_kinds, bound_kinds = NAMED, (types.BuiltinFunctionType, types.MethodWrapperType)
    stand_ins = stand_ins or {}

    def origin_of(found):
        return getattr(found, "__module__", None), getattr(found, "__qualname__", None)

    forbidden = {}  # id → index: may be neither called nor passed along
    counted = {}  # id → (index, least, skipped): may not be called with least or more arguments
    kinds = []  # (type, index, least): its subclasses that keep its __new__ are counted too
    dunders = {}  # special method name → index (not the program's own: those are its work)
    origins = {}  # (module, qualified name) → index: a fresh copy of a forbidden function
    specs, modules = [], []  # (index, presentation type), (index, module name)
    alive = []  # the objects behind the ids, so that no id is ever reused

    def ids(found):
        alive.append(found)
        trap = stand_ins.get(id(found))
        return [id(found)] + ([id(trap)] if trap is not None else [])

    for index, rule in enumerate(rules):
        kind, target, least = rule["kind"], rule["target"], int(rule.get("min_args") or 0)
        if kind == "name":
            found = rule_data.resolve(target)
            if isinstance(found, type):  # int: its calls are counted, its name stays free (isinstance)
                for ident in ids(found):
                    counted.setdefault(ident, (index, least, 0))
                counted.setdefault(ids(found.__new__)[0], (index, least, 1))
                kinds.append((found, index, least))
            elif found is not None:
                for ident in ids(found):
                    (counted.setdefault(ident, (index, least, 0)) if least else forbidden.setdefault(ident, index))
                if not least:
                    origins.setdefault(origin_of(found), index)
        elif kind == "operator":
            for name in rule_data.functions(target):
                for home in ("_operator", "operator"):
                    origins.setdefault((home, name), index)
                found = getattr(operator, name, None)
                if found is not None:
                    for ident in ids(found):
                        forbidden.setdefault(ident, index)
            for dunder in rule_data.dunders(target):
                dunders.setdefault(dunder, index)
        elif kind == "format_spec":
            specs.append((index, target))
        elif kind == "import":
            modules.append((index, target))
    formatter, formatting = string.Formatter, {}  # id → (what, position): where the spec, template or mapping is
    for found, how in ((builtins.format, ("spec", 1)), (str.format, ("template", 0)), (str.format_map, ("mapping", 0))):
        formatting.update((ident, how) for ident in ids(found))
    for found, how in ((formatter.format, ("template", 1)), (formatter.vformat, ("vtemplate", 1))):
        formatting.update((ident, how) for ident in ids(found))
    formatting.update((ident, ("spec", 2)) for ident in ids(formatter.format_field))
    importers = {id(f) for f in (builtins.__import__, importlib.import_module, importlib.__import__)}
    # id → (position of the function it is given, how many arguments it gets; None: unknown)
    higher = {id(map): (0, -1), id(itertools.starmap): (0, None), id(functools.reduce): (0, 2)}
    higher.update({id(itertools.accumulate): (1, 2), id(functools.cmp_to_key): (0, 2)})
    alive += [map, itertools.starmap, functools.reduce, itertools.accumulate, functools.cmp_to_key]
    # Classes whose calls are looked at: what they make may call something forbidden later.
    proxied = (partial, type, methodcaller, *(t for t, _, _ in kinds))
    names = set(dunders) | {"__call__"} | {name for _, name in origins}
    names |= set(formats) if specs else set()
    # What a call must be looked at for: the callable itself, or one of its arguments.
    watched = set(forbidden) | set(counted) | set(higher) | importers
    watched |= set(formatting) if specs else set()
    invoke = getattr(operator, "call", None)  # operator.call (3.11+) calls its first argument
    watched |= {id(f) for f in (partial, type, methodcaller, invoke) if f}
    passed = set(forbidden) | {i for i, (_, _, skipped) in counted.items() if skipped}
    passed |= (set(formatting) if specs else set()) | (importers if modules else set())
    first_module = min((index for index, _ in modules), default=None)
    # Frozen: what the checks read cannot be changed through them (only by rewriting them).
    kinds, specs, modules, alive, importers = map(tuple, (kinds, specs, modules, alive, importers))
    frozen = types.MappingProxyType
    forbidden, counted, dunders, origins, formatting, higher = map(
        frozen, (forbidden, counted, dunders, origins, formatting, higher)
    )

    # --- the questions -------------------------------------------------------------------------

    def call(f, args, kw):
        """The rule broken by calling ``f(*args, **kw)``, or None."""
        found = list(_call(f, args, kw, 0))
        given = higher.get(id(f))
        handed = args[given[0]] if given and len(args) > given[0] else None
        found += [i for value in chain(args, kw.values()) if value is not handed for i in _value(value)]
        return min(found, default=None)

    def slot(value, name):
        """The rule broken by keeping ``value`` under the special name ``name`` (``__call__``,
        ``__getitem__``...), where the interpreter calls it with arguments no one sees: counted
        callables count as called. A built-in method under its own name (``__format__ =
        int.__format__``, as enum does) is that name's usual method: what calls it is checked."""
        found = list(_value(value, slot=name))
        if id(value) in counted or type(value) is partial:
            found += _call(value, many, {}, 0)
        elif isinstance(value, type):
            found += _made(value, many, {}, 0)
        return min(found, default=None)

    def counted_only(f):
        """Whether the rules are about ``f`` only through how many arguments it is called with."""
        ident = id(f)
        return ident in counted and not any(ident in group for group in (forbidden, formatting, higher, importers))

    def handed(value):
        """The rule broken by handing ``value`` to a call (which may call it out of sight), or None."""
        return min(_value(value), default=None)

    def spec(spec):
        """The rule broken by formatting with ``spec``, or None (ANY, a spec not known here: the first
        format spec rule's)."""
        return min((i for i, letter in specs if spec is unknown or spec_type(spec) == letter), default=None)

    # --- calls ---------------------------------------------------------------------------------

    def _call(f, args, kw, depth):
        if depth > 8:  # a partial of a partial of...: refused rather than followed forever
            yield min(_every(), default=0)
            return
        ident, kind = id(f), type(f)
        if ident in forbidden:
            yield forbidden[ident]
        if ident in counted:
            index, least, skipped = counted[ident]
            if len(args) - skipped + len(kw) >= least:
                yield index
        if kind in named_kinds:
            yield from _named(f, kind, args, kw, depth)
        elif kind is FunctionType:
            yield from _function(f)
        elif kind is partial:
            yield from _call(f.func, f.args + tuple(args), {**f.keywords, **kw}, depth + 1)
        elif kind is MethodType:
            yield from _call(f.__func__, (f.__self__, *args), kw, depth + 1)
        elif kind is methodcaller:
            yield from _made(methodcaller, _called(f), {}, depth)
        elif isinstance(f, type):
            yield from _made(f, args, kw, depth)
        if ident in higher:
            position, count = higher[ident]
            given = kw.get("func", kw.get("mycmp")) if len(args) <= position else args[position]
            count = len(args) - 1 if count == -1 else count
            yield from _call(given, many if count is None else (unknown,) * count, {}, depth + 1)
        if invoke is not None and f is invoke and args:
            yield from _call(args[0], args[1:], kw, depth + 1)
        if ident in formatting and specs:
            what, position = formatting[ident]
            yield from _formatted(what, args, kw, position)
        if ident in importers and modules:
            yield from _imported(args, kw)

    def _function(f, slot=""):
        """A Python function forbidden by where it comes from (a fresh copy of a forbidden one), or
        a library's own special method for a forbidden operator (``enum.Flag.__xor__``), unless it
        is kept under a special name of that operator (``__rxor__ = __xor__``, as enum does)."""
        index = origins.get(origin_of(f))
        if index is not None:
            yield index
        name = f.__name__
        if name in dunders and dunders.get(slot) != dunders[name] and not own(f):
            yield dunders[name]

    def _named(f, kind, args, kw, depth):
        name = f.__name__
        bound = kind in bound_kinds
        if name in dunders and not isinstance(getattr(f, "__self__", None), ModuleType):
            yield dunders[name]
        origin = origin_of(f)
        if origin in origins:
            yield origins[origin]
        if name == "__call__":  # type.__call__(int, ...), int.__call__(...), bin.__call__(...)
            callee, rest = (f.__self__, args) if bound else (args[0] if args else None, args[1:])
            yield from _call(callee, rest, kw, depth + 1)
        elif specs and name == "__format__":
            yield from _formatted("spec", args, kw, 0 if bound else 1)
        elif specs and name in ("format", "format_map"):
            template = getattr(f, "__self__", None)
            if bound and isinstance(template, str):
                yield from _formatted("template" if name == "format" else "mapping", (template, *args), kw, 0)

    def _called(caller):
        """What a ``methodcaller`` calls: (name, *arguments) as it would pickle them, () if unknown."""
        try:
            head, rest = reduce_of(caller)[:2]
        except Exception:
            return ()
        return (*head.args, *rest) if type(head) is partial else tuple(rest)

    def _made(cls, args, kw, depth):
        """Calling a class: a subclass of a counted type, a partial, a methodcaller, a 3-argument type()."""
        if issubclass(cls, partial) and args:
            if len(args) > 1 or kw:  # bound arguments: it is there to be called with at least one more
                yield from _call(args[0], (*args[1:], unknown), kw, depth + 1)
        for counted_type, index, least in kinds:
            if cls is not counted_type and issubclass(cls, counted_type) and cls.__new__ is counted_type.__new__:
                if len(args) + len(kw) >= least:
                    yield index
        if issubclass(cls, type) and len(args) == 3 and type(args[2]) is dict:  # type(name, bases, namespace)
            for name, value in args[2].items():
                found = slot(value, name) if is_special(name) else None
                if found is not None:
                    yield found
        if cls is methodcaller and args:
            name = args[0]
            if name in dunders:
                yield dunders[name]
            if specs and name in formats:
                yield from _formatted("spec", (args[1] if name == "__format__" and len(args) > 1 else unknown,), {}, 0)

    def _formatted(what, args, kw, position):
        """Format specs in a format call: its spec, or the specs of its template's fields."""
        if what == "spec":
            found = spec(args[position] if len(args) > position else kw.get("format_spec", ""))
            if found is not None:
                yield found
            return
        template = args[position] if len(args) > position else unknown
        if what == "template":
            fields, names = args[position + 1 :], kw
        elif what == "vtemplate":
            fields = args[position + 1] if len(args) > position + 1 else unknown
            names = args[position + 2] if len(args) > position + 2 else unknown
        else:  # format_map: one mapping of names
            fields, names = (), args[position + 1] if len(args) > position + 1 else unknown
        for field_spec in _specs(template, fields, names):
            found = spec(field_spec)
            if found is not None:
                yield found
                return

    def _specs(template, fields, names):
        """The spec of each field of ``template`` once its nested fields are filled in; ANY where that
        cannot be done without running the program's own code (a field that is not a plain value)."""
        if template is unknown:
            yield unknown
            return
        if not isinstance(template, str):
            return
        numbers = count_up()
        try:
            for _, field, field_spec, _ in parse(template):
                if field == "":
                    next(numbers)  # str.format numbers the field, then the fields nested in its spec
                if not field_spec or "{" not in field_spec:
                    yield field_spec or ""
                    continue
                text = []
                for literal, inner, inner_spec, conversion in parse(field_spec):
                    text.append(literal)
                    if inner is not None:
                        key = next(numbers) if inner == "" else int(inner) if inner.isdigit() else inner
                        value = _plain(fields if isinstance(key, int) else names, key)
                        if value is unknown:
                            yield unknown
                            return
                        value = {"r": repr, "s": str, "a": ascii}.get(conversion or "", lambda v: v)(value)
                        text.append(format(value, inner_spec or ""))
                yield "".join(text)
        except (ValueError, TypeError, KeyError, IndexError):
            return  # the call itself fails in the same way

    def _plain(container, key):
        """``container[key]`` when getting it runs none of the program's code (a tuple or a dict of
        strings and numbers), else unknown."""
        if type(container) not in (tuple, list, dict):
            return unknown
        try:
            value = container[key]
        except (LookupError, TypeError):
            return unknown
        return value if type(value) in (str, int, float, bool) else unknown

    def _imported(args, kw):
        name = args[0] if args else kw.get("name")
        if isinstance(name, str) and name.startswith(".") and len(args) > 1:
            try:
                name = resolve_name(name, args[1])
            except (ImportError, ValueError, TypeError):
                return
        for index, module in modules:
            if isinstance(name, str) and (name == module or name.startswith(module + ".")):
                yield index

    # --- values handed to a call ---------------------------------------------------------------

    def _value(value, slot=""):
        """Rules broken by handing ``value`` to code that may call it out of sight (``slot``: by
        keeping it under that special name, where a type's own ``__new__`` may stay)."""
        ident, kind = id(value), type(value)
        if ident in forbidden:
            yield forbidden[ident]
        if ident in counted and counted[ident][2] and not slot:
            yield counted[ident][0]  # int.__new__ handed to map: how many arguments it gets is not known
        if ident in formatting and specs:
            yield from _formatted("spec", (unknown,), {}, 0)
        if ident in importers and first_module is not None:
            yield first_module
        if kind in named_kinds and value.__name__ != slot:
            name = value.__name__
            origin = origin_of(value)
            if origin in origins:
                yield origins[origin]
            if name in dunders and not isinstance(getattr(value, "__self__", None), ModuleType):
                yield dunders[name]
            elif specs and name in formats:
                template = getattr(value, "__self__", None)
                if name == "format" and isinstance(template, str):
                    yield from _formatted("template", (template,), {}, 0)
                else:
                    yield from _formatted("spec", (unknown,), {}, 0)
        elif kind is FunctionType:
            yield from _function(value, slot)
        elif kind is MethodType:
            yield from _value(value.__func__)
            if id(value.__func__) in formatting and specs:
                yield from _formatted("spec", (unknown,), {}, 0)
        elif kind is methodcaller:
            yield from _made(methodcaller, _called(value), {}, 0)

    def _every():
        """The index of every rule this policy holds (for what is refused without knowing which)."""
        yield from forbidden.values()
        yield from (index for index, _, _ in counted.values())
        yield from dunders.values()
        yield from (index for index, _ in specs)
        yield from (index for index, _ in modules)

    return Policy(call, slot, counted_only, handed, spec, *map(frozenset, (watched, passed, names)), proxied)
