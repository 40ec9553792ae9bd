"""A function that returns nothing: when a case's wrong answer is ``None`` that the student's
function gave back because it has no ``return <value>`` (yet) or a path through it ends without one,
or the right answer followed by ``None`` (the function printed its answer instead of returning it).

In: the student's source text, the case's input, what the program printed and the case's expected
answers. Out: the sentence that names the function and why it gives ``None``, or "" when that is not
surely the cause (the function returns a value on every path, several functions could be the one
called, the file does not parse, the case expects ``null``). Pure: reads the syntax tree only.

Why the syntax tree and not the output alone: ``null`` printed where ``true`` is expected says
only that the value was None; the main block prints what one of the student's functions gave back,
and only the tree tells which function, and that it cannot have returned a value on some path
(``pass``, a missing ``return``, a bare ``return``), which is the student's actual mistake.
"""

from __future__ import annotations

import ast
import json
from typing import Dict, List, Optional, Sequence, Tuple

from grader.submission.source import main_blocks
from grader.submission.syntax_tree import parsed

# What the main block prints for None: json.dumps gives null, print gives None.
_NOTHING = ("null", "None")
_NO_RETURN = "it has no return statement yet"


def returns_nothing_message(source: str, case_input: str, printed: str, expected: Sequence[str]) -> Tuple[str, bool]:
    """The sentence for a program that printed None because the function it called returned
    nothing, or "" when that is not surely what happened; and whether the function has code of its
    own (a return somewhere), so that the case's hint about the logic still applies."""
    if not expected or any(e.strip() in _NOTHING for e in expected):
        return "", True
    printed_first = _answer_then_nothing(printed, expected)
    if printed.strip() not in _NOTHING and not printed_first:
        return "", True
    tree = parsed(source)
    if tree is None:
        return "", True
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    blocks = main_blocks(tree)
    if not blocks:
        return "", True
    called = _called_for(blocks[-1], _case_type(case_input), functions)
    reasons = {name: why for name in called if (why := _why_nothing(functions[name]))}
    if len(reasons) != 1:
        return "", True  # none of them, or more than one could be the one: no claim
    ((name, why),) = reasons.items()
    if printed_first:  # the answer printed inside the function, then the None it gave back
        return (
            f"Your function {name} prints its answer and returns nothing (None): {why}, so the main block "
            f"prints None on the line after your answer. A function gives its answer back with return (print "
            f"only shows it): return the answer instead of printing it, on every path through {name}.",
            why != _NO_RETURN,
        )
    return (
        f"Your function {name} returns nothing (None), and this case expects {_quoted(expected[0])}: {why}. "
        f"A function gives its answer back with return (print only shows it): end every path through {name} "
        "with return and the answer.",
        why != _NO_RETURN,
    )


def _answer_then_nothing(printed: str, expected: Sequence[str]) -> bool:
    """Did the program print an expected answer and then, on a line of its own, None (or null)?
    Lines are compared without the spaces at their ends."""
    lines = [line.rstrip() for line in printed.strip().splitlines()]
    if len(lines) < 2 or lines[-1].strip() not in _NOTHING:
        return False
    before = "\n".join(lines[:-1]).strip()
    return any(before == "\n".join(line.rstrip() for line in e.strip().splitlines()) for e in expected)


def _quoted(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return f'"{first}"' + (" ..." if text.strip() != first else "")


def _case_type(case_input: str) -> Optional[str]:
    """The ``type`` of a JSON test case (``{"type": "nim_sum", ...}``), which the main block
    compares to choose the function it calls; None for any other input."""
    try:
        case = json.loads(case_input)
    except (ValueError, RecursionError):
        return None
    kind = case.get("type") if isinstance(case, dict) else None
    return kind if isinstance(kind, str) else None


def _called_for(block: ast.If, kind: Optional[str], functions: Dict[str, ast.FunctionDef]) -> List[str]:
    """The file's own functions whose value the main block uses (assigned or printed, not a bare
    call such as ``self_test()``): for a JSON case with a ``type``, only those in the branch that
    compares to that type."""
    where: List[ast.AST] = [block]
    if kind is not None:
        branches = [node.body for node in ast.walk(block) if isinstance(node, ast.If) and _compares_to(node.test, kind)]
        if branches:
            where = [statement for body in branches for statement in body]
    names: List[str] = []
    for top in where:
        bare = {id(node.value) for node in ast.walk(top) if isinstance(node, ast.Expr)}
        for node in ast.walk(top):
            if (
                isinstance(node, ast.Call)
                and id(node) not in bare
                and isinstance(node.func, ast.Name)
                and node.func.id in functions
                and node.func.id not in names
            ):
                names.append(node.func.id)
    return names


def _compares_to(test: ast.AST, text: str) -> bool:
    return isinstance(test, ast.Compare) and any(
        isinstance(side, ast.Constant) and side.value == text for side in (test.left, *test.comparators)
    )


def _own_nodes(function: ast.FunctionDef):
    """The nodes of ``function``'s body, not those of functions or classes defined inside it."""
    todo: List[ast.AST] = list(function.body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))


def _why_nothing(function: ast.FunctionDef) -> str:
    """Why ``function`` can return None ("" when every path returns a value, or it is a generator):
    every reason found, in one sentence (a ``return`` of a list method's None and a path that falls
    off the end are both mistakes, whichever of them this input met)."""
    nodes = list(_own_nodes(function))
    if any(isinstance(node, (ast.Yield, ast.YieldFrom)) for node in nodes):
        return ""
    returns = [node for node in nodes if isinstance(node, ast.Return)]
    valued = [r for r in returns if r.value is not None and not _is_none(r.value)]
    if not returns:
        return _NO_RETURN
    if len(valued) < len([r for r in returns if r.value is not None]):
        # ``return None`` written out is an answer the student chose (parse_move's "not a move"), not
        # a value forgotten: whether None is the right answer there is the case's to tell, no claim
        return ""
    reasons = [said for said in dict.fromkeys(_none_call(r.value) for r in valued if r.value is not None) if said]
    if not valued:
        reasons.append("its return statements give back no value")
    elif len(valued) < len(returns):
        reasons.append("one path through it ends with a return that gives back no value")
    elif not _always_ends(function.body):
        reasons.append("one path through it ends without return")
    return "; and ".join(reasons)


# Methods of lists, dicts and sets that change the object itself and give back None.
_IN_PLACE = ("append", "extend", "insert", "remove", "reverse", "sort", "clear", "update", "add", "discard")


def _none_call(value: ast.expr) -> str:
    """The reason when ``value`` (what a return gives back) is a call that always gives None:
    ``bits.reverse()``, ``board.sort()``, ``print(...)``; "" for anything else."""
    if not isinstance(value, ast.Call):
        return ""
    func = value.func
    if isinstance(func, ast.Name) and func.id == "print":
        return "it returns what print(...) gives back, which is None: print shows a value, return gives it back"
    if isinstance(func, ast.Attribute) and func.attr in _IN_PLACE and not value.keywords:
        owner = func.value.id if isinstance(func.value, ast.Name) else "the list"
        return (
            f"it returns {owner}.{func.attr}(...), which is None: {func.attr} changes {owner} itself and gives "
            f"back None, so call it on a line of its own, then return {owner}"
        )
    return ""


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _always_ends(body: Sequence[ast.stmt]) -> bool:
    """True when running ``body`` surely ends in a return or raise. Unsure means True: the
    sentence is only said when a path surely falls off the end."""
    return any(_ends(statement) for statement in body)


def _ends(node: ast.stmt) -> bool:
    if isinstance(node, (ast.Return, ast.Raise)):
        return True
    if isinstance(node, ast.If):
        return _always_ends(node.body) and _always_ends(node.orelse)
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return _always_ends(node.orelse)  # the loop may run no time at all
    if isinstance(node, ast.While):
        forever = isinstance(node.test, ast.Constant) and bool(node.test.value)
        return (forever and not _breaks(node.body)) or (not forever and _always_ends(node.orelse))
    if isinstance(node, ast.Try):
        handled = all(_always_ends(handler.body) for handler in node.handlers)
        return _always_ends(node.finalbody) or (handled and (_always_ends(node.body) or _always_ends(node.orelse)))
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return _always_ends(node.body)
    if isinstance(node, (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Pass, ast.Delete)):
        return False
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.Assert)):
        return False
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Break, ast.Continue)):
        return False
    return True  # anything else (match...): unsure, so no claim


def _breaks(body: Sequence[ast.stmt]) -> bool:
    """Whether a ``break`` in ``body`` leaves this loop (not one of a loop inside it)."""
    todo: List[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Break):
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            todo.extend(node.orelse)  # a break in a loop's else leaves the outer loop
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            todo.extend(c for c in ast.iter_child_nodes(node) if isinstance(c, (ast.stmt, ast.excepthandler)))
    return False
