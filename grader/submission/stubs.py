"""Is a submission still the exercise file as handed out (a stub), with none of its functions written?

In: the submitted file's bytes and the exercise file (the stub) it started from. Out: the names of
the stub's functions to write when every one of them is still the stub's own (``untouched``), and
the sentence a stub's task shows (``stub_message``).

Why a stub scores 0: its empty functions return None, and None (printed ``null``) is the right answer
to some cases by accident (``parse_move`` of a text that is not a move); points for those say nothing
about the student's work. How a stub is recognised: the functions the exercise file leaves to write
are those whose body is only ``pass`` (or ``...``) after the docstring; a submission is a stub when
each of them is still defined once at the top of the file with a body that does nothing (``pass``,
``...``, ``return``, ``return None``, a bare constant: the syntax tree, so comments, blank lines and
a changed docstring do not count as work), it defines no function or class the stub does not, and
its main block is the stub's. A student who wrote one function of three is not a stub; nor is one
who wrote a helper of their own or changed the main block, nor a file that has no function of that
name (each is graded as it is, and its cases say what is missing).
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Sequence, Set, Tuple

from grader.submission.source import main_blocks
from grader.submission.syntax_tree import parsed


def untouched(data: bytes, stub: Optional[bytes]) -> Tuple[str, ...]:
    """The stub's functions to write, when ``data`` has every one of them as the stub has it;
    () when the student wrote any of them, or either file does not parse, or there is no stub."""
    if stub is None:
        return ()
    stub_tree, tree = parse_source(stub), parse_source(data)
    if stub_tree is None or tree is None:
        return ()
    to_write = {name: body for name, body in top_functions(stub_tree).items() if is_left_to_write(body)}
    if not to_write:
        return ()
    theirs = top_functions(tree)
    bound = _bound_names(tree)
    for name in to_write:
        if name not in theirs or bound.count(name) != 1 or not _is_unwritten(theirs[name]):
            return ()
    if _definitions(tree) - _definitions(stub_tree) or _main_dump(tree) != _main_dump(stub_tree):
        return ()  # a function or class of their own, or a main block changed: the student's work
    return tuple(to_write)


def stub_message(functions: Sequence[str]) -> str:
    """The sentence every case of a stub shows: what is not written, and why it scores 0."""
    names = ", ".join(functions[:-1]) + " and " + functions[-1] if len(functions) > 1 else functions[0]
    them = "its functions" if len(functions) > 1 else "its function"
    return (
        f"This file is still the exercise file as handed out: {them} {names} "
        f"{'are' if len(functions) > 1 else 'is'} not written yet (only pass). A file with none of your own "
        "work scores 0 on every case, even those its empty functions pass by accident (None happens to be the "
        "right answer to some), so it was not run. Write the functions, then check again."
    )


def parse_source(data: bytes) -> Optional[ast.Module]:
    return parsed(data)


def top_functions(tree: ast.Module) -> Dict[str, List[ast.stmt]]:
    """Each top-level function's body without its docstring, by name (the last definition wins)."""
    found = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:] if isinstance(body[0].value.value, str) else body
            found[node.name] = body
    return found


def is_left_to_write(body: Sequence[ast.stmt]) -> bool:
    """A body left for the student to write: only ``pass`` or ``...``."""
    return bool(body) and all(
        isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)) for s in body
    )


def _is_unwritten(body: Sequence[ast.stmt]) -> bool:
    """A body that still does nothing: empty after its docstring, or only ``pass``, ``...``, a bare
    constant, ``return`` or ``return None`` (what a student may put in place of ``pass``)."""
    return all(
        isinstance(s, ast.Pass)
        or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        or (isinstance(s, ast.Return) and (s.value is None or _is_none(s.value)))
        for s in body
    )


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _definitions(tree: ast.Module) -> Set[str]:
    """The names of the functions and classes defined at the top of the module."""
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return {node.name for node in tree.body if isinstance(node, kinds)}


def _main_dump(tree: ast.Module) -> str:
    """The module's main blocks as syntax trees ("" when it has none)."""
    return _dump(main_blocks(tree))


def _bound_names(tree: ast.Module) -> List[str]:
    """Every name bound at the top of the module, once per binding (a function defined and then
    assigned again, ``nim_sum = my_nim_sum``, is the student's work)."""
    names = []
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(statement.name)
            continue
        for node in ast.walk(statement):  # (the main block's own names too: it runs at the top)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.append(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.append(node.id)
            elif isinstance(node, ast.alias):
                names.append((node.asname or node.name).split(".")[0])
    return names


def _dump(body: Sequence[ast.stmt]) -> str:
    try:
        return "\n".join(ast.dump(statement) for statement in body)
    except (RecursionError, MemoryError):
        return "?"  # (no stub's body nests that deep)
