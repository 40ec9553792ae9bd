"""The syntax check: what a task forbids, found in the submission's syntax tree before it runs.

``find_violations(tree, rules)`` returns one ``Violation`` per broken rule (its first use), with
the line and a sentence that says what to do instead. Nothing here runs student code. A name is
the forbidden built-in (or module function) only where Python would resolve it so
(``grader/rules/scopes.py``): a parameter, variable or function of the file's own named ``bin`` is
not ``bin()``. What each rule forbids is ``rule_data``'s, shared with the check in the program's
own process (``rule_guard``), which sees what the syntax cannot.
"""

from __future__ import annotations

import ast
import re
import string
from dataclasses import dataclass
from typing import Iterable, Iterator, List, Optional

from grader.model import Rule
from grader.rules.rule_data import spec_type, syntax
from grader.rules.scopes import Scopes

__all__ = ["Violation", "find_violations", "rule_message"]

# a printf-style conversion such as %08b (only its type letter matters)
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?([a-zA-Z%])")


@dataclass(frozen=True)
class Violation:
    """A broken rule: where (1-based line, 0-based column) and the message for the student."""

    line: int
    column: int
    message: str


def find_violations(tree: ast.AST, rules: Iterable[Rule]) -> List[Violation]:
    """The first place each rule is broken in ``tree``, in source order."""
    scopes = Scopes(tree)
    found = []
    for rule in rules:
        node = next(_matches(tree, rule, scopes), None)
        if node is not None:
            found.append(_violation(node, rule))
    return sorted(found, key=lambda v: (v.line, v.column))


def _violation(node: ast.AST, rule: Rule) -> Violation:
    line = getattr(node, "lineno", 0)
    unpacked = rule.kind == "name" and rule.min_args > 0 and isinstance(node, ast.Call)  # see _name_uses
    return Violation(
        line=line, column=getattr(node, "col_offset", 0), message=rule_message(rule, line, unpacked=unpacked)
    )


def rule_message(rule: Rule, line: int, file: str = "", unpacked: bool = False) -> str:
    """The sentence for a student whose program breaks ``rule`` at ``line`` (of ``file``, when that
    is another of their files than the one handed in; line 0: the place is not known;
    ``unpacked``: a ``min_args`` call whose arguments come from ``*`` or ``**``). Used for what the
    syntax tree shows and for what the program did while it ran (``grader/rules/rule_guard.py``)."""
    if unpacked:
        does = (
            f"calls {rule.target}() with arguments unpacked by * or ** (they cannot be counted, and "
            f"{rule.min_args} or more are not allowed)"
        )
    else:
        does = {
            "operator": f"uses the {rule.target} operator",
            "name": f"uses {rule.target}()"
            if rule.min_args == 0
            else f"calls {rule.target}() with {rule.min_args} or more arguments",
            "import": f"imports {rule.target}",
            "format_spec": f"uses the format code '{rule.target}' (as in f\"{{n:{rule.target}}}\")",
        }[rule.kind]
    where = "Your program" if line <= 0 else f"Line {line} of {file}" if file else f"Line {line}"
    instead = f" Instead, {rule.instead}" if rule.instead else ""
    return f"{where} {does}, which this exercise does not allow.{instead}"


def _dotted(node: ast.AST, scopes: Scopes) -> Optional[str]:
    """``op.xor`` → ``operator.xor`` (where ``op`` is ``import operator as op``), ``bin`` → ``bin``
    where it is the built-in; None for a name of the file's own, or anything not a dotted name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    meaning = scopes.meaning(node)
    if meaning is None:
        return None
    kind, name = meaning
    parts.append("builtins" if (kind, name) == ("builtin", "__builtins__") else name)
    dotted = ".".join(reversed(parts))
    return dotted[len("builtins.") :] if dotted.startswith("builtins.") else dotted


def _matches(tree: ast.AST, rule: Rule, scopes: Scopes) -> Iterator[ast.AST]:
    finder = {
        "operator": _operator_uses,
        "name": _name_uses,
        "import": _import_uses,
        "format_spec": _format_spec_uses,
    }[rule.kind]
    return finder(tree, rule, scopes)


def _operator_uses(tree, rule, scopes):
    kinds = syntax(rule.target)
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.AugAssign, ast.UnaryOp)) and isinstance(node.op, kinds):
            yield node
        elif isinstance(node, ast.Compare) and any(isinstance(op, kinds) for op in node.ops):
            yield node


def _name_uses(tree, rule, scopes):
    # callable → its call; a call's arguments, counted (keywords too), or None when * or ** unpacks some
    calls, counts = {}, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            unpacked = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
            calls[id(node.func)] = node
            counts[id(node.func)] = None if unpacked else len(node.args) + len(node.keywords)
    module, _, name = rule.target.rpartition(".")
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and module and node.module == module and rule.min_args == 0:
            if any(alias.name in (name, "*") for alias in node.names):
                yield node
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load):
            if _dotted(node, scopes) != rule.target:
                continue
            if rule.min_args and id(node) in counts and counts[id(node)] is None:
                yield calls[id(node)]  # int(*args): as many arguments as the list holds
                continue
            if rule.min_args and counts.get(id(node), -1) < rule.min_args:
                continue
            yield node


def _import_uses(tree, rule, scopes):
    target = rule.target
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(a.name == target or a.name.startswith(target + ".") for a in node.names):
                yield node
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == target or node.module.startswith(target + "."):
                yield node
        elif isinstance(node, ast.Call) and node.args and _constant_text(node.args[0]) == target:
            if _dotted(node.func, scopes) in ("__import__", "importlib.import_module"):
                yield node


def _constant_text(node: ast.AST) -> Optional[str]:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _format_spec_uses(tree, rule, scopes):
    wanted = rule.target
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            spec = "".join(_constant_text(part) or "" for part in ast.walk(node.format_spec))
            if spec_type(spec) == wanted:
                yield node
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "format":
                # "{:b}".format(n), or str.format("{:b}", n)
                text = _constant_text(func.value)
                if text is None and _dotted(func, scopes) == "str.format" and node.args:
                    text = _constant_text(node.args[0])
                if text is not None and wanted in _brace_spec_types(text):
                    yield node
            elif _dotted(func, scopes) == "format" and len(node.args) > 1:
                if spec_type(_constant_text(node.args[1]) or "") == wanted:
                    yield node
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            text = _constant_text(node.left)
            if text is not None and wanted in _PERCENT_SPEC.findall(text):
                yield node


def _brace_spec_types(text: str) -> List[str]:
    try:
        return [spec_type(spec or "") for _, _, spec, _ in string.Formatter().parse(text)]
    except ValueError:
        return []
