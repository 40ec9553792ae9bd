"""Which names of a file are its own: a syntax tree's scopes, resolved as Python resolves a name.

``Scopes(tree)`` walks the tree once (without recursion: a file may nest deeply) and records every
scope (the module, each function and lambda, each class body, each comprehension), the names each
binds and declares ``global`` or ``nonlocal``, and where each name is read. ``meaning(node)`` then
says what a ``Name`` being read stands for:

- ``("builtin", name)``: no scope on its way out binds it (the built-in of that name, if any);
- ``("import", dotted)``: every binding of it, in the scope it resolves to, imports the same name
  (``import operator as op``: ``op`` is "operator"; ``from operator import xor``: "operator.xor");
- None: the file's own (a parameter, a variable, a function, anything else it binds).

As Python does: a name bound anywhere in a function (an assignment, a parameter, a loop, ``with``
or ``except`` target, an import, ``del``...) is local to the whole function; a comprehension's and
a lambda's names are their own, and ``:=`` in a comprehension binds in the scope around it; a class
body's names are not seen from its methods; ``global`` and ``nonlocal`` send a name out. Where
Python decides at run time (a module-level name read before the line that binds it, a name bound
on one branch only), the name counts as the file's own: the syntax check never rejects what Python
might not run as the built-in, and the check in the program's process decides.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Set, Tuple

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
Meaning = Optional[Tuple[str, str]]


class _Scope:
    """One scope: its kind, the scope around it, what it binds (name → how: "" for anything but an
    import, else the dotted name imported) and what it declares global or nonlocal."""

    def __init__(self, kind: str, parent: Optional[_Scope]):
        self.kind, self.parent = kind, parent
        self.binds: Dict[str, List[str]] = {}
        self.globals: Set[str] = set()
        self.nonlocals: Set[str] = set()

    def bind(self, name: str, how: str = "") -> None:
        self.binds.setdefault(name, []).append(how)


class Scopes:
    """The scopes of ``tree`` (an ast Module) and what each name read in it stands for."""

    def __init__(self, tree: ast.AST):
        self.module = _Scope("module", None)
        self._read: Dict[int, _Scope] = {}  # id of a Name being read → the scope it is read in
        self._keep: List[ast.AST] = []  # the nodes behind those ids, so that no id is reused
        self._walk(tree)

    def meaning(self, node: ast.AST) -> Meaning:
        """What ``node`` (a Name being read) stands for; see the module's docstring."""
        scope = self._read.get(id(node))
        if scope is None or not isinstance(node, ast.Name):
            return None
        owner = self._owner(scope, node.id)
        if owner is None:
            return ("builtin", node.id)
        hows = set(self._bindings(owner, node.id))
        if len(hows) == 1 and "" not in hows:
            return ("import", hows.pop())
        return None

    # --- resolving ----------------------------------------------------------------------------

    def _owner(self, scope: _Scope, name: str) -> Optional[_Scope]:
        """The scope whose binding ``name`` read in ``scope`` is, or None for none (the built-in)."""
        if name in scope.globals:
            return self._global(name)
        if name in scope.nonlocals:
            return self._enclosing(scope.parent, name)
        if scope.kind == "module":
            return self._global(name)
        if name in scope.binds:
            return scope
        return self._enclosing(scope.parent, name)

    def _enclosing(self, scope: Optional[_Scope], name: str) -> Optional[_Scope]:
        """Where a name free in a nested scope is bound: the functions around it (class bodies are
        not seen from inside them), then the module."""
        while scope is not None and scope.kind != "module":
            if scope.kind != "class" and (name in scope.binds or name in scope.globals or name in scope.nonlocals):
                return self._owner(scope, name)
            scope = scope.parent
        return self._global(name)

    def _global(self, name: str) -> Optional[_Scope]:
        return self.module if self._bindings(self.module, name) else None

    def _bindings(self, owner: _Scope, name: str) -> List[str]:
        """How ``name`` is bound in ``owner``: there, and (for the module) wherever it is declared global."""
        found = list(owner.binds.get(name, ()))
        if owner is self.module:
            for scope in self._declaring:
                if name in scope.globals:
                    found += scope.binds.get(name, ())
        return found

    # --- walking ------------------------------------------------------------------------------

    def _walk(self, tree: ast.AST) -> None:
        self._declaring: List[_Scope] = []  # scopes with global declarations
        todo: List[Tuple[ast.AST, _Scope]] = [(tree, self.module)]
        while todo:
            node, scope = todo.pop()
            todo += self._visit(node, scope)

    def _visit(self, node: ast.AST, scope: _Scope) -> List[Tuple[ast.AST, _Scope]]:
        """Record what ``node`` binds, declares or reads in ``scope``; its children, each with its scope."""
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                self._read[id(node)] = scope
                self._keep.append(node)
            else:  # stored or deleted: bound here
                scope.bind(node.id)
            return []
        if isinstance(node, (*_FUNCTIONS, ast.Lambda)):
            return self._function(node, scope)
        if isinstance(node, ast.ClassDef):
            scope.bind(node.name)
            inside = _Scope("class", scope)
            self._type_params(node, inside)
            outside = [*node.bases, *(k.value for k in node.keywords), *node.decorator_list]
            return [(n, scope) for n in outside] + [(n, inside) for n in node.body]
        if isinstance(node, _COMPREHENSIONS):
            return self._comprehension(node, scope)
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            target = scope
            while target.kind == "comprehension" and target.parent is not None:
                target = target.parent  # := in a comprehension binds in the scope around it
            target.bind(node.target.id)
            return [(node.value, scope)]
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            (scope.globals if isinstance(node, ast.Global) else scope.nonlocals).update(node.names)
            if isinstance(node, ast.Global):
                self._declaring.append(scope)
            return []
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            self._import(node, scope)
            return []
        for field in ("name", "rest"):  # except ... as name, match captures (case [*rest], {**rest}, x)
            value = getattr(node, field, None)
            if isinstance(value, str) and isinstance(node, (ast.ExceptHandler, *_MATCH_CAPTURES)):
                scope.bind(value)
        return [(child, scope) for child in ast.iter_child_nodes(node)]

    def _function(self, node: ast.AST, scope: _Scope) -> List[Tuple[ast.AST, _Scope]]:
        """A def or lambda: its name bound around it; decorators, defaults and annotations read
        around it; its parameters and body in a scope of its own."""
        args: ast.arguments = node.args  # type: ignore[attr-defined]
        inside = _Scope("function", scope)
        self._type_params(node, inside)
        parameters = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        outside: List[ast.AST] = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
        for parameter in parameters:
            if parameter is not None:
                inside.bind(parameter.arg)
                outside += [parameter.annotation] if parameter.annotation is not None else []
        if isinstance(node, ast.Lambda):
            return [(n, scope) for n in outside] + [(node.body, inside)]
        scope.bind(node.name)  # type: ignore[attr-defined]
        outside += node.decorator_list  # type: ignore[attr-defined]
        outside += [node.returns] if node.returns is not None else []  # type: ignore[attr-defined]
        return [(n, scope) for n in outside] + [(n, inside) for n in node.body]  # type: ignore[attr-defined]

    def _comprehension(self, node: ast.AST, scope: _Scope) -> List[Tuple[ast.AST, _Scope]]:
        """A comprehension: its first iterable read around it, everything else in a scope of its own."""
        inside = _Scope("comprehension", scope)
        generators: List[ast.comprehension] = node.generators  # type: ignore[attr-defined]
        todo: List[Tuple[ast.AST, _Scope]] = [(generators[0].iter, scope)]
        for number, generator in enumerate(generators):
            todo += [(generator.target, inside)] + [(condition, inside) for condition in generator.ifs]
            todo += [(generator.iter, inside)] if number else []
        parts = ("key", "value") if isinstance(node, ast.DictComp) else ("elt",)
        return todo + [(getattr(node, part), inside) for part in parts]

    def _type_params(self, node: ast.AST, inside: _Scope) -> None:
        for param in getattr(node, "type_params", ()):  # def f[T](), class A[T] (3.12)
            inside.bind(param.name)

    def _import(self, node: ast.AST, scope: _Scope) -> None:
        for alias in node.names:  # type: ignore[attr-defined]
            if isinstance(node, ast.Import):
                first = alias.name.split(".")[0]
                scope.bind(alias.asname or first, alias.name if alias.asname else first)
            elif alias.name != "*":
                module = node.module if not node.level else None  # type: ignore[attr-defined]
                scope.bind(alias.asname or alias.name, f"{module}.{alias.name}" if module else "")


_MATCH_CAPTURES: Tuple[type, ...] = tuple(
    getattr(ast, name) for name in ("MatchAs", "MatchStar", "MatchMapping") if hasattr(ast, name)
)
