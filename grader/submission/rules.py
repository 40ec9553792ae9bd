"""Static rules: what a task forbids, found in the submission's syntax tree before it runs.

``find_violations(tree, rules)`` returns one ``Violation`` per broken rule (its first use), with
the line and a sentence that says what to do instead. Nothing here runs student code.
"""

from __future__ import annotations

import ast
import re
import string
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

from grader.model import Rule

# operator symbol → the ast node classes that spell it
OPERATORS: Dict[str, Tuple[type, ...]] = {
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
    aliases = _import_aliases(tree)
    found = []
    for rule in rules:
        node = next(_matches(tree, rule, aliases), None)
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
    syntax tree shows and for what the program did while it ran (``grader/run/rule_guard.py``)."""
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


def _import_aliases(tree: ast.AST) -> Dict[str, str]:
    """Local name → the dotted name it stands for (``op`` → ``operator``, ``xor`` → ``operator.xor``)."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def _dotted(node: ast.AST, aliases: Dict[str, str]) -> Optional[str]:
    """``op.xor`` → ``operator.xor`` (through the aliases), or None for anything not a dotted name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(aliases.get(node.id, node.id))
    dotted = ".".join(reversed(parts))
    return dotted[len("builtins.") :] if dotted.startswith("builtins.") else dotted


def _matches(tree: ast.AST, rule: Rule, aliases: Dict[str, str]) -> Iterator[ast.AST]:
    finder = {
        "operator": _operator_uses,
        "name": _name_uses,
        "import": _import_uses,
        "format_spec": _format_spec_uses,
    }[rule.kind]
    return finder(tree, rule, aliases)


def _operator_uses(tree, rule, aliases):
    kinds = OPERATORS[rule.target]
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.AugAssign, ast.UnaryOp)) and isinstance(node.op, kinds):
            yield node
        elif isinstance(node, ast.Compare) and any(isinstance(op, kinds) for op in node.ops):
            yield node


def _name_uses(tree, rule, aliases):
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
            if _dotted(node, aliases) != rule.target:
                continue
            if rule.min_args and id(node) in counts and counts[id(node)] is None:
                yield calls[id(node)]  # int(*args): as many arguments as the list holds
                continue
            if rule.min_args and counts.get(id(node), -1) < rule.min_args:
                continue
            yield node


def _import_uses(tree, rule, aliases):
    target = rule.target
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            if any(a.name == target or a.name.startswith(target + ".") for a in node.names):
                yield node
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == target or node.module.startswith(target + "."):
                yield node
        elif isinstance(node, ast.Call) and node.args and _constant_text(node.args[0]) == target:
            if _dotted(node.func, aliases) in ("__import__", "importlib.import_module"):
                yield node


def _constant_text(node: ast.AST) -> Optional[str]:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _spec_type(spec: str) -> str:
    """The presentation type of a format spec: ``08b`` → ``b``."""
    return spec[-1] if spec and spec[-1].isalpha() else ""


def _format_spec_uses(tree, rule, aliases):
    wanted = rule.target
    for node in ast.walk(tree):
        if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
            spec = "".join(_constant_text(part) or "" for part in ast.walk(node.format_spec))
            if _spec_type(spec) == wanted:
                yield node
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "format":
                # "{:b}".format(n), or str.format("{:b}", n)
                text = _constant_text(func.value)
                if text is None and _dotted(func, aliases) == "str.format" and node.args:
                    text = _constant_text(node.args[0])
                if text is not None and wanted in _brace_spec_types(text):
                    yield node
            elif _dotted(func, aliases) == "format" and len(node.args) > 1:
                if _spec_type(_constant_text(node.args[1]) or "") == wanted:
                    yield node
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            text = _constant_text(node.left)
            if text is not None and wanted in _PERCENT_SPEC.findall(text):
                yield node


def _brace_spec_types(text: str) -> List[str]:
    try:
        return [_spec_type(spec or "") for _, _, spec, _ in string.Formatter().parse(text)]
    except ValueError:
        return []
