"""The syntax tree of a student's code, rewritten so that ``rule_guard`` sees what the rules are about.

Like ``rule_guard`` (which uses it), this runs in the program's own process, sent as source text,
and imports only the standard library and ``rule_data``. ``instrumented(tree, rules, flags)``
rewrites a tree in place and returns it: each call ``f(a, *b, k=c, **d)`` becomes
``G.callee(f, -1)(G.arg(a), *G.star(b), k=G.arg(c), **G.mapping(d))`` (-1: the number of
arguments is known only once they are unpacked); decorators go through ``G.decorator``, classes
through ``G.klass``, values stored under special names through ``G.value(value, name)``, and
each operator, format spec and import statement the rules forbid through ``G.broken`` or
``G.spec``, where it runs. Every new node takes the place in the source of the one it wraps, so
that tracebacks and line numbers stay those of the program.

``G.callee`` is written ``HOLE[n]``: the constant ``HOLE`` (a tuple of one marker string) at the
position of ``callee`` in ``CHECKS`` (positions count from 1: Python does not fold an index out of
the marker's range, so the subscript stays in the code). ``rule_guard`` replaces that constant with
a tuple of its checks, functions closed over its state: the compiled code holds them, its
globals are unchanged, and neither an assignment nor a write to a field can replace them.
"""

import __future__

import ast

import rule_data  # sent into the program's process before this module

HOLE = ("\x00nim-grader rule guard\x00",)  # stands for the guard's checks in the tree
# The guard's checks, by their position in the tuple that takes HOLE's place (position 0 is unused).
CHECKS = ("", "callee", "arg", "star", "mapping", "broken", "spec", "decorator", "klass", "value")
_POSITION = {name: position for position, name in enumerate(CHECKS) if name}
_MADE_HERE: "tuple[type, ...]" = (ast.Constant, ast.JoinedStr, ast.Lambda, ast.List, ast.Tuple, ast.Set, ast.Dict)
_MADE_HERE += (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def instrumented(tree, rules, flags=0):
    """``tree`` (an ast Module, Expression or Interactive) rewritten for ``rules`` (dicts with
    ``kind`` and ``target``, in the task's order); ``flags`` are the compile flags in force (a
    ``from __future__ import annotations`` there or in the tree leaves annotations as they are)."""
    deferred = bool(flags & __future__.annotations.compiler_flag) or _defers_annotations(tree)
    return _Instrument(rules, deferred).visit(tree)


def _defers_annotations(tree):
    """Whether the tree starts with ``from __future__ import annotations`` (then annotations are text)."""
    body = getattr(tree, "body", None)
    return isinstance(body, list) and any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(a.name == "annotations" for a in node.names)
        for node in body
    )


class _Instrument:
    """A syntax tree rewritten so that the guard sees each call, decorator and store under a special
    name, and each operator, format spec and import statement the rules forbid, where it runs.

    The walk is ast.NodeTransformer's, made lean (it runs in every child before the program):
    children first, then the node's own rewrite; leaves and fields that hold no code are skipped,
    and every new node is given its place at once (no fix_missing_locations pass)."""

    def __init__(self, rules, deferred):
        self.operators, self.letters, self.modules = {}, {}, []
        for index, rule in enumerate(rules):
            kind, target = rule["kind"], rule["target"]
            if kind == "operator":
                for op in rule_data.syntax(target):
                    self.operators.setdefault(op, index)
            elif kind == "format_spec":
                self.letters.setdefault(target, index)
            elif kind == "import":
                self.modules.append((index, target))
        # Annotations that are never evaluated are left as they are (they become text).
        self.skipped = _NO_CODE | ({"annotation", "returns"} if deferred else set())
        self.fields = {ast.Name: (), ast.Constant: ()}  # node class → the fields to walk into
        self.rewrites = {
            ast.Call: self._call,
            ast.FunctionDef: self._function,
            ast.AsyncFunctionDef: self._function,
            ast.ClassDef: self._class,
            ast.Assign: self._assign,
            ast.AnnAssign: self._assign,
            ast.BinOp: self._operation,
            ast.UnaryOp: self._operation,
            ast.AugAssign: self._operation,
            ast.Compare: self._compare,
            ast.FormattedValue: self._formatted,
            ast.Import: self._import,
            ast.ImportFrom: self._import,
        }

    def visit(self, node):
        """``node`` rewritten, with everything below it: a node, or a list of statements."""
        kind = type(node)
        fields = self.fields.get(kind)
        if fields is None:
            fields = self.fields[kind] = tuple(f for f in kind._fields if f not in self.skipped)
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                items = []
                for item in value:
                    item = self.visit(item) if isinstance(item, ast.AST) else item
                    if type(item) is list:  # a statement that became two (a check, then the import)
                        items.extend(item)
                    else:
                        items.append(item)
                setattr(node, field, items)
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        rewrite = self.rewrites.get(kind)
        return node if rewrite is None else rewrite(node)

    def _guard(self, method, node, *args):
        """``GUARD.method(*args)``, at ``node``'s place in the source."""
        return _at(ast.Call(_check(method, node), list(args), []), node)

    def _flag(self, index, node):
        return self._guard("broken", node, _at(ast.Constant(index), node), node)

    def _call(self, node):
        unpacked = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        count = _at(ast.Constant(-1 if unpacked else len(node.args) + len(node.keywords)), node)
        node.func = self._guard("callee", node.func, node.func, count)
        node.args = [self._arg(arg) for arg in node.args]
        for keyword in node.keywords:
            if keyword.arg is None:
                keyword.value = self._guard("mapping", keyword.value, keyword.value)
            else:
                keyword.value = self._arg(keyword.value)
        return node

    def _arg(self, node):
        if isinstance(node, ast.Starred):
            node.value = self._guard("star", node.value, node.value)
            return node
        # Values made right here (literals, lambdas, displays) hold nothing forbidden: not looked at.
        return node if isinstance(node, _MADE_HERE) else self._guard("arg", node, node)

    def _function(self, node):
        node.decorator_list = [self._guard("decorator", d, d) for d in node.decorator_list]
        if isinstance(node, ast.ClassDef):
            first = node.decorator_list[0] if node.decorator_list else node  # where the decorators start
            node.decorator_list.insert(0, _check("klass", first))
        return node

    _class = _function

    def _assign(self, node):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        names = [name for name in map(_special_name, targets) if name]
        if node.value is not None and names:
            node.value = self._guard("value", node.value, node.value, _at(ast.Constant(names[0]), node))
        return node

    def _operation(self, node):
        index = self.operators.get(type(node.op))
        if index is not None:  # checked once the operands are known, as the operator would be
            field = {ast.BinOp: "right", ast.UnaryOp: "operand", ast.AugAssign: "value"}[type(node)]
            setattr(node, field, self._flag(index, getattr(node, field)))
        return node

    def _compare(self, node):
        for position, op in enumerate(node.ops):  # a chain stops early: each comparison is checked as it runs
            if type(op) in self.operators:
                node.comparators[position] = self._flag(self.operators[type(op)], node.comparators[position])
        return node

    def _formatted(self, node):
        spec = node.format_spec
        if spec is None or not self.letters:
            return node
        if all(isinstance(part, ast.Constant) for part in spec.values):
            text = "".join(str(part.value) for part in spec.values)
            if not text[-1:].isalpha() or text[-1] not in self.letters:
                return node
        # f"{n:{w}b}": the spec is made as before, then checked, then used (each part evaluated once)
        checked = _at(ast.FormattedValue(self._guard("spec", node, spec), -1, None), node)
        node.format_spec = _at(ast.JoinedStr([checked]), node)
        return node

    def _import(self, node):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            names = [node.module] if node.module and not node.level else []
        index = min((i for i, m in self.modules for n in names if n == m or n.startswith(m + ".")), default=None)
        if index is None:
            return node
        return [_at(ast.Expr(self._flag(index, _at(ast.Constant(None), node))), node), node]


_NO_CODE = {"ctx", "op", "ops", "id", "attr", "arg", "name", "names", "module", "level", "kind", "type_comment"}
_NO_CODE |= {"conversion", "is_async", "asname"}


def _check(name, node):
    """``HOLE[position of name]``: the guard's check ``name``, at ``node``'s place in the source."""
    return _at(ast.Subscript(_at(ast.Constant(HOLE), node), _at(ast.Constant(_POSITION[name]), node), ast.Load()), node)


def _at(new, old):
    """``new`` at ``old``'s place in the source (line and column, start and end)."""
    for attribute in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
        setattr(new, attribute, getattr(old, attribute, None))
    return new


def _special_name(target):
    """The special name a store target stores under (``__call__`` of ``x.__call__``), or None."""
    name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else None
    return name if rule_data.is_special(name) else None
