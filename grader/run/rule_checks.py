"""What a student program may not do while it runs: a task's rules resolved to the objects they forbid.

Like ``rule_guard`` (which uses it), this runs in the program's own process, sent there as source
text, so it imports only the standard library. ``Policy(rules)`` takes the task's rules as
JSON-able dicts (``kind``, ``target``, ``min_args``) in the task's order; each question it answers
(may this callable be called with these arguments, passed along, kept under a special name, is
this format spec allowed) gives the index of the first rule broken, or None.

Objects are recognised by identity, so no spelling hides them: ``bin`` reached through
``getattr(builtins, "bi" + "n")`` is still ``bin``. Methods of built-in types that are made anew
at each access (``(5).__xor__``, ``"{:b}".format``) are recognised by their type and name. A
function handed to code that calls it later (``map``, ``functools.reduce``, a ``partial``...) is
checked as called with as many arguments as that code gives it; where that number is unknown, a
callable that could do something forbidden with more arguments (``format``, a format method) is
refused, while a type such as ``int`` stays allowed (``isinstance(x, int)``, ``map(int, words)``).
"""

import builtins
import functools
import importlib
import importlib.util
import itertools
import operator
import string
import types

ANY = object()  # an argument whose value is not known here (given later, by the code a function is handed to)
_MANY = (ANY,) * 16  # the arguments of a call whose number is not known
# Built-in callables whose __name__ tells what they do (bound ones are made anew at each access).
NAMED = frozenset(
    (types.BuiltinFunctionType, types.MethodWrapperType, types.WrapperDescriptorType, types.MethodDescriptorType)
)
# operator symbol → the names of its functions in ``operator`` (and, as __name__, __rname__ and
# __iname__, of its special methods)
OPERATOR_NAMES = {
    "^": ("xor",),
    "&": ("and_",),
    "|": ("or_",),
    "~": ("invert", "inv"),
    "<<": ("lshift",),
    ">>": ("rshift",),
    "!=": ("ne",),
    "==": ("eq",),
    "%": ("mod",),
    "+": ("add", "pos"),
    "-": ("sub", "neg"),
    "*": ("mul",),
    "/": ("truediv",),
    "//": ("floordiv",),
    "**": ("pow",),
}


def spec_type(spec):
    """The presentation type of a format spec (``08b`` → ``b``), "" for none or for a non-string."""
    return spec[-1] if isinstance(spec, str) and spec[-1:].isalpha() else ""


def is_special(name):
    """Whether ``name`` is a special method's name (``__call__``): one the interpreter calls by itself."""
    return isinstance(name, str) and len(name) > 4 and name[:2] == name[-2:] == "__"


def _resolve(target):
    """``bin`` → builtins.bin, ``operator.xor`` → operator.xor (longest importable module first), or None."""
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


class Policy:
    """A task's rules as the objects, names and format types they forbid."""

    def __init__(self, rules):
        self.forbidden = {}  # id → index: may be neither called nor passed along
        self.counted = {}  # id → (index, least, skipped): may not be called with least or more arguments
        self.types = []  # (type, index, least): its subclasses that keep its __new__ are counted too
        self.dunders = {}  # special method name → index (built-in methods only: a student's own are theirs)
        self.specs = []  # (index, presentation type)
        self.modules = []  # (index, module name)
        self._alive = []  # the objects behind the ids, so that no id is ever reused
        for index, rule in enumerate(rules):
            getattr(self, "_" + rule["kind"])(index, rule["target"], int(rule.get("min_args") or 0))
        formatter = string.Formatter
        self.formatting = {  # id → (what, position): where the spec, template or mapping is
            id(format): ("spec", 1),
            id(str.format): ("template", 0),
            id(str.format_map): ("mapping", 0),
            id(formatter.format): ("template", 1),
            id(formatter.vformat): ("vtemplate", 1),
            id(formatter.format_field): ("spec", 2),
        }
        self.importers = {id(f) for f in (builtins.__import__, importlib.import_module, importlib.__import__)}
        # id → (position of the function it is given, how many arguments it gets; None: unknown)
        self.higher = {id(map): (0, -1), id(itertools.starmap): (0, None), id(functools.reduce): (0, 2)}
        self.higher.update({id(itertools.accumulate): (1, 2), id(functools.cmp_to_key): (0, 2)})
        self._alive += [map, itertools.starmap, functools.reduce, itertools.accumulate, functools.cmp_to_key]
        # Classes whose calls are looked at: what they make may call something forbidden later.
        self.proxied = (functools.partial, type, operator.methodcaller, *(t for t, _, _ in self.types))
        self.names = set(self.dunders) | {"__call__"}
        if self.specs:
            self.names |= {"__format__", "format", "format_map"}
        # What a call must be looked at for: the callable itself, or one of its arguments.
        self.watched = set(self.forbidden) | set(self.counted) | set(self.higher) | self.importers
        self.watched |= set(self.formatting) if self.specs else set()
        self.invoke = getattr(operator, "call", None)  # operator.call (3.11+) calls its first argument
        self.watched |= {id(f) for f in (functools.partial, type, operator.methodcaller, self.invoke) if f}
        self.passed = set(self.forbidden) | {i for i, (_, _, skipped) in self.counted.items() if skipped}
        self.passed |= (set(self.formatting) if self.specs else set()) | (self.importers if self.modules else set())

    def _keep(self, found):
        self._alive.append(found)
        return id(found)

    def _name(self, index, target, least):
        found = _resolve(target)
        if found is None:
            return
        if isinstance(found, type):  # int: its calls are counted, its name stays free (isinstance)
            self.counted.setdefault(self._keep(found), (index, least, 0))
            self.counted.setdefault(self._keep(found.__new__), (index, least, 1))
            self.types.append((found, index, least))
        elif least:
            self.counted.setdefault(self._keep(found), (index, least, 0))
        else:
            self.forbidden.setdefault(self._keep(found), index)

    def _operator(self, index, target, least):
        for name in OPERATOR_NAMES.get(target, ()):
            base = name.rstrip("_")
            for found in (getattr(operator, name, None), getattr(operator, "i" + base, None)):
                if found is not None:
                    self.forbidden.setdefault(self._keep(found), index)
            for dunder in (f"__{base}__", f"__r{base}__", f"__i{base}__"):
                self.dunders.setdefault(dunder, index)

    def _format_spec(self, index, target, least):
        self.specs.append((index, target))

    def _import(self, index, target, least):
        self.modules.append((index, target))

    # --- the questions -------------------------------------------------------------------------

    def call(self, f, args, kw):
        """The rule broken by calling ``f(*args, **kw)``, or None."""
        found = list(self._call(f, args, kw, 0))
        given = self.higher.get(id(f))
        handed = args[given[0]] if given and len(args) > given[0] else None
        found += [i for value in itertools.chain(args, kw.values()) if value is not handed for i in self._value(value)]
        return min(found, default=None)

    def slot(self, value, name):
        """The rule broken by keeping ``value`` under the special name ``name`` (``__call__``,
        ``__getitem__``...), where the interpreter calls it with arguments no one sees: counted
        callables count as called. A built-in method under its own name (``__format__ =
        int.__format__``, as enum does) is that name's usual method: what calls it is checked."""
        found = list(self._value(value, slot=name))
        if id(value) in self.counted or type(value) is functools.partial:
            found += self._call(value, _MANY, {}, 0)
        elif isinstance(value, type):
            found += self._made(value, _MANY, {}, 0)
        return min(found, default=None)

    def counted_only(self, f):
        """Whether the rules are about ``f`` only through how many arguments it is called with."""
        ident = id(f)
        return ident in self.counted and not any(
            ident in group for group in (self.forbidden, self.formatting, self.higher, self.importers)
        )

    def handed(self, value):
        """The rule broken by handing ``value`` to a call (which may call it out of sight), or None."""
        return min(self._value(value), default=None)

    def spec(self, spec):
        """The rule broken by formatting with ``spec``, or None (ANY, a spec not known here: the first
        format spec rule's)."""
        return min((i for i, letter in self.specs if spec is ANY or spec_type(spec) == letter), default=None)

    # --- calls ---------------------------------------------------------------------------------

    def _call(self, f, args, kw, depth):
        if depth > 8:  # a partial of a partial of...: refused rather than followed forever
            yield min(self._every(), default=0)
            return
        ident, kind = id(f), type(f)
        if ident in self.forbidden:
            yield self.forbidden[ident]
        if ident in self.counted:
            index, least, skipped = self.counted[ident]
            if len(args) - skipped + len(kw) >= least:
                yield index
        if kind in NAMED:
            yield from self._named(f, kind, args, kw, depth)
        elif kind is functools.partial:
            yield from self._call(f.func, f.args + tuple(args), {**f.keywords, **kw}, depth + 1)
        elif kind is types.MethodType:
            yield from self._call(f.__func__, (f.__self__, *args), kw, depth + 1)
        elif isinstance(f, type):
            yield from self._made(f, args, kw, depth)
        if ident in self.higher:
            position, count = self.higher[ident]
            given = kw.get("func", kw.get("mycmp")) if len(args) <= position else args[position]
            count = len(args) - 1 if count == -1 else count
            yield from self._call(given, _MANY if count is None else (ANY,) * count, {}, depth + 1)
        if self.invoke is not None and f is self.invoke and args:
            yield from self._call(args[0], args[1:], kw, depth + 1)
        if ident in self.formatting and self.specs:
            what, position = self.formatting[ident]
            yield from self._formatted(what, args, kw, position)
        if ident in self.importers and self.modules:
            yield from self._imported(args, kw)

    def _named(self, f, kind, args, kw, depth):
        name = f.__name__
        bound = kind in (types.BuiltinFunctionType, types.MethodWrapperType)
        if name in self.dunders and not isinstance(getattr(f, "__self__", None), types.ModuleType):
            yield self.dunders[name]
        if name == "__call__":  # type.__call__(int, ...), int.__call__(...), bin.__call__(...)
            callee, rest = (f.__self__, args) if bound else (args[0] if args else None, args[1:])
            yield from self._call(callee, rest, kw, depth + 1)
        elif self.specs and name == "__format__":
            yield from self._formatted("spec", args, kw, 0 if bound else 1)
        elif self.specs and name in ("format", "format_map"):
            template = getattr(f, "__self__", None)
            if bound and isinstance(template, str):
                yield from self._formatted("template" if name == "format" else "mapping", (template, *args), kw, 0)

    def _made(self, cls, args, kw, depth):
        """Calling a class: a subclass of a counted type, a partial, a methodcaller, a 3-argument type()."""
        if issubclass(cls, functools.partial) and args:
            if len(args) > 1 or kw:  # bound arguments: it is there to be called with at least one more
                yield from self._call(args[0], (*args[1:], ANY), kw, depth + 1)
        for counted, index, least in self.types:
            if cls is not counted and issubclass(cls, counted) and cls.__new__ is counted.__new__:
                if len(args) + len(kw) >= least:
                    yield index
        if issubclass(cls, type) and len(args) == 3 and type(args[2]) is dict:  # type(name, bases, namespace)
            for name, value in args[2].items():
                found = self.slot(value, name) if is_special(name) else None
                if found is not None:
                    yield found
        if cls is operator.methodcaller and args:
            name = args[0]
            if name in self.dunders:
                yield self.dunders[name]
            if self.specs and name in ("__format__", "format", "format_map"):
                yield from self._formatted("spec", (args[1] if name == "__format__" and len(args) > 1 else ANY,), {}, 0)

    def _formatted(self, what, args, kw, position):
        """Format specs in a format call: its spec, or the specs of its template's fields."""
        if what == "spec":
            spec = args[position] if len(args) > position else kw.get("format_spec", "")
            found = self.spec(spec)
            if found is not None:
                yield found
            return
        template = args[position] if len(args) > position else ANY
        if what == "template":
            fields, names = args[position + 1 :], kw
        elif what == "vtemplate":
            fields = args[position + 1] if len(args) > position + 1 else ANY
            names = args[position + 2] if len(args) > position + 2 else ANY
        else:  # format_map: one mapping of names
            fields, names = (), args[position + 1] if len(args) > position + 1 else ANY
        for spec in self._specs(template, fields, names):
            found = self.spec(spec)
            if found is not None:
                yield found
                return

    def _specs(self, template, fields, names):
        """The spec of each field of ``template`` once its nested fields are filled in; ANY where that
        cannot be done without running the program's own code (a field that is not a plain value)."""
        if template is ANY:
            yield ANY
            return
        if not isinstance(template, str):
            return
        parse, numbers = string.Formatter().parse, itertools.count()
        try:
            for _, field, spec, _ in parse(template):
                if field == "":
                    next(numbers)  # str.format numbers the field, then the fields nested in its spec
                if not spec or "{" not in spec:
                    yield spec or ""
                    continue
                text = []
                for literal, inner, inner_spec, conversion in parse(spec):
                    text.append(literal)
                    if inner is not None:
                        key = next(numbers) if inner == "" else int(inner) if inner.isdigit() else inner
                        value = _plain(fields if isinstance(key, int) else names, key)
                        if value is ANY:
                            yield ANY
                            return
                        value = {"r": repr, "s": str, "a": ascii}.get(conversion or "", lambda v: v)(value)
                        text.append(format(value, inner_spec or ""))
                yield "".join(text)
        except (ValueError, TypeError, KeyError, IndexError):
            return  # the call itself fails in the same way

    def _imported(self, args, kw):
        name = args[0] if args else kw.get("name")
        if isinstance(name, str) and name.startswith(".") and len(args) > 1:
            try:
                name = importlib.util.resolve_name(name, args[1])
            except (ImportError, ValueError, TypeError):
                return
        for index, module in self.modules:
            if isinstance(name, str) and (name == module or name.startswith(module + ".")):
                yield index

    # --- values handed to a call ---------------------------------------------------------------

    def _value(self, value, slot=""):
        """Rules broken by handing ``value`` to code that may call it out of sight (``slot``: by
        keeping it under that special name, where a type's own ``__new__`` may stay)."""
        ident, kind = id(value), type(value)
        if ident in self.forbidden:
            yield self.forbidden[ident]
        if ident in self.counted and self.counted[ident][2] and not slot:
            yield self.counted[ident][0]  # int.__new__ handed to map: how many arguments it gets is not known
        if ident in self.formatting and self.specs:
            yield from self._formatted("spec", (ANY,), {}, 0)
        if ident in self.importers and self.modules:
            yield min(index for index, _ in self.modules)
        if kind in NAMED and value.__name__ != slot:
            name = value.__name__
            if name in self.dunders and not isinstance(getattr(value, "__self__", None), types.ModuleType):
                yield self.dunders[name]
            elif self.specs and name in ("__format__", "format", "format_map"):
                template = getattr(value, "__self__", None)
                if name == "format" and isinstance(template, str):
                    yield from self._formatted("template", (template,), {}, 0)
                else:
                    yield from self._formatted("spec", (ANY,), {}, 0)
        elif kind is types.MethodType:
            yield from self._value(value.__func__)
            if id(value.__func__) in self.formatting and self.specs:
                yield from self._formatted("spec", (ANY,), {}, 0)

    def _every(self):
        """The index of every rule this policy holds (for what is refused without knowing which)."""
        yield from self.forbidden.values()
        yield from (index for index, _, _ in self.counted.values())
        yield from self.dunders.values()
        yield from (index for index, _ in self.specs)
        yield from (index for index, _ in self.modules)


def _plain(container, key):
    """``container[key]`` when getting it runs none of the program's code (a tuple or a dict of
    strings and numbers), else ANY."""
    if type(container) not in (tuple, list, dict):
        return ANY
    try:
        value = container[key]
    except (LookupError, TypeError):
        return ANY
    return value if type(value) in (str, int, float, bool) else ANY
