"""The syntax tree of a student's code, rewritten so that ``rule_guard`` sees what the rules are about.

Like ``rule_guard`` (which uses it), this runs in the program's own process, sent as source text,
and imports only the standard library. ``instrumented(tree, rules, flags)`` rewrites a tree in
place and returns it: each call ``f(a, *b, k=c, **d)`` becomes
``G.callee(f, -1)(G.arg(a), *G.star(b), k=G.arg(c), **G.mapping(d))`` (-1: the number of arguments
is known only once they are unpacked), decorators go through
``G.decorator``, classes through ``G.klass``, values stored under special names through
``G.value``, and each operator, format spec and import statement the rules forbid through
``G.broken`` or ``G.spec`` where it runs. ``G`` is the constant ``HOLE``, which ``rule_guard``
replaces with the guard itself in the compiled code. Every new node takes the place in the source
of the one it wraps, so that tracebacks and line numbers stay those of the program.
"""

import __future__

import ast

HOLE = "\x00nim-grader rule guard\x00"  # stands for the guard in the tree; the compiled code holds the guard

# operator symbol → the ast node classes that spell it (as in grader.submission.rules.OPERATORS)
_SYNTAX = {
    "^": (ast.BitXor,),
    "&": (ast.BitAnd,),
    "|": (ast.BitOr,),
    "~": (ast.Invert,),
    "<<": (ast.LShift,),
    ">>": (ast.RShift,),
    "!=": (ast.NotEq,),
    "==": (ast.Eq,),
    "%": (ast.Mod,),
    "+": (ast.Add, ast.UAdd),
    "-": (ast.Sub, ast.USub),
    "*": (ast.Mult,),
    "/": (ast.Div,),
    "//": (ast.FloorDiv,),
    "**": (ast.Pow,),
}
_MADE_HERE = (ast.Constant, ast.JoinedStr, ast.Lambda, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp)
_MADE_HERE += (ast.SetComp, ast.DictComp, ast.GeneratorExp)


def instrumented(tree, rules, flags=0):
    """``tree`` (an ast Module, Expression or Interactive) rewritten for ``rules`` (dicts with
    ``kind`` and ``target``, in the task's order); ``flags`` are the compile flags in force (a
    ``from __future__ import annotations`` there or in the tree leaves annotations as they are)."""
    deferred = bool(flags & __future__.annotations.compiler_flag) or _defers_annotations(tree)
    return ast.fix_missing_locations(_Instrument(rules, deferred).visit(tree))


def _defers_annotations(tree):
    """Whether the tree starts with ``from __future__ import annotations`` (then annotations are text)."""
    body = getattr(tree, "body", None)
    return isinstance(body, list) and any(
        isinstance(node, ast.ImportFrom)
        and node.module == "__future__"
        and any(a.name == "annotations" for a in node.names)
        for node in body
    )


class _Instrument(ast.NodeTransformer):
    """A syntax tree rewritten so that the guard sees each call, decorator and store under a special
    name, and each operator, format spec and import statement the rules forbid, where it runs."""

    def __init__(self, rules, deferred):
        self.operators, self.letters, self.modules = {}, {}, []
        for index, rule in enumerate(rules):
            kind, target = rule["kind"], rule["target"]
            if kind == "operator":
                for op in _SYNTAX.get(target, ()):
                    self.operators.setdefault(op, index)
            elif kind == "format_spec":
                self.letters.setdefault(target, index)
            elif kind == "import":
                self.modules.append((index, target))
        self.deferred = deferred  # annotations are never evaluated: left as they are (they become text)

    def _guard(self, method, node, *args, keywords=()):
        """``GUARD.method(*args)``, at ``node``'s place in the source."""
        return ast.copy_location(
            ast.Call(ast.Attribute(ast.Constant(HOLE), method, ast.Load()), list(args), list(keywords)), node
        )

    def _flag(self, index, node):
        return self._guard("broken", node, ast.Constant(index), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        unpacked = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        count = ast.Constant(-1 if unpacked else len(node.args) + len(node.keywords))
        node.func = self._guard("callee", node.func, node.func, count)
        node.args = [self._arg(arg) for arg in node.args]
        for keyword in node.keywords:
            keyword.value = (
                self._guard("mapping", keyword.value, keyword.value)
                if keyword.arg is None
                else self._arg(keyword.value)
            )
        return node

    def _arg(self, node):
        if isinstance(node, ast.Starred):
            node.value = self._guard("star", node.value, node.value)
            return node
        # Values made right here (literals, lambdas, displays) hold nothing forbidden: not looked at.
        return node if isinstance(node, _MADE_HERE) else self._guard("arg", node, node)

    def visit_FunctionDef(self, node):
        if self.deferred:
            returns, node.returns = node.returns, None
            self.generic_visit(node)
            node.returns = returns
        else:
            self.generic_visit(node)
        node.decorator_list = [self._guard("decorator", d, d) for d in node.decorator_list]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_arg(self, node):
        return node if self.deferred else self.generic_visit(node)

    def visit_ClassDef(self, node):
        self.generic_visit(node)
        node.decorator_list = [self._guard("decorator", d, d) for d in node.decorator_list]
        first = node.decorator_list[0] if node.decorator_list else node  # where the decorators start
        node.decorator_list.insert(0, ast.copy_location(ast.Attribute(ast.Constant(HOLE), "klass", ast.Load()), first))
        return node

    def visit_Assign(self, node):
        self.generic_visit(node)
        if any(_storesspecial(target) for target in node.targets):
            node.value = self._guard("value", node.value, node.value)
        return node

    def visit_AnnAssign(self, node):
        if self.deferred:
            annotation, node.annotation = node.annotation, None
            self.generic_visit(node)
            node.annotation = annotation
        else:
            self.generic_visit(node)
        if node.value is not None and _storesspecial(node.target):
            node.value = self._guard("value", node.value, node.value)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if type(node.op) in self.operators:  # checked once both sides are known, as the operator would be
            node.right = self._flag(self.operators[type(node.op)], node.right)
        return node

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if type(node.op) in self.operators:
            node.operand = self._flag(self.operators[type(node.op)], node.operand)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if type(node.op) in self.operators:
            node.value = self._flag(self.operators[type(node.op)], node.value)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        for position, op in enumerate(node.ops):  # a chain stops early: each comparison is checked as it runs
            if type(op) in self.operators:
                node.comparators[position] = self._flag(self.operators[type(op)], node.comparators[position])
        return node

    def visit_FormattedValue(self, node):
        self.generic_visit(node)
        spec = node.format_spec
        if spec is None or not self.letters:
            return node
        if all(isinstance(part, ast.Constant) for part in spec.values):
            text = "".join(str(part.value) for part in spec.values)
            if not text[-1:].isalpha() or text[-1] not in self.letters:
                return node
        # f"{n:{w}b}": the spec is made as before, then checked, then used (each part evaluated once)
        checked = ast.copy_location(ast.FormattedValue(self._guard("spec", spec, spec), -1, None), spec)
        node.format_spec = ast.copy_location(ast.JoinedStr([checked]), spec)
        return node

    def visit_Import(self, node):
        return self._imported(node, [alias.name for alias in node.names])

    def visit_ImportFrom(self, node):
        return self._imported(node, [node.module] if node.module and not node.level else [])

    def _imported(self, node, names):
        index = min((i for i, m in self.modules for n in names if n == m or n.startswith(m + ".")), default=None)
        if index is None:
            return node
        return [ast.copy_location(ast.Expr(self._flag(index, ast.copy_location(ast.Constant(None), node))), node), node]


def _storesspecial(target):
    return (isinstance(target, ast.Name) and special(target.id)) or (
        isinstance(target, ast.Attribute) and special(target.attr)
    )


def special(name):
    """Whether ``name`` is a special method's name (``__call__``): one the interpreter calls by itself."""
    return isinstance(name, str) and len(name) > 4 and name[:2] == name[-2:] == "__"
