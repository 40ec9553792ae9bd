"""A crash's cause read from the student's code, where the code shows it; else nothing.

In: the crash (``diagnose.Crash``: the exception, its message, the student's line, the text of the
file it is in and the function it is in), the functions of the course's exercises (name → the tasks
whose exercise file asks for it) and the case's board when it may be told. Out: the sentence that
names the cause, or None when neither the message (``crash_words``) nor the code shows one: the
caller then says the facts (the exception, its message and the line) and no more.

Why read the code: the exception's name alone does not tell its cause. A RecursionError in a
function that has a case stopping at 0 comes from ``n / 2``, a float that never reaches 0; a
NameError for ``reduce`` is Python 2's built-in, not a function of an earlier exercise; an
IndexError on ``board[3]`` is a board assumed to have a fixed size. Each sentence here is said
only when the code holds what it names (the ``/``, the fixed position, the loop of fixed length).
"""

from __future__ import annotations

import ast
import builtins
from functools import lru_cache
from pathlib import Path
from typing import Iterator, List, Mapping, Optional, Tuple

from grader.course.layout import Course
from grader.grade.mistakes.crash_words import attribute_words, name_words, standard_module, type_error_words
from grader.submission.stubs import is_left_to_write, top_functions
from grader.submission.syntax_tree import parsed

# TypeErrors that say a float was used where a whole number is needed.
_FLOAT_NOT_WHOLE = (
    "indices must be integers or slices, not float",
    "'float' object cannot be interpreted as an integer",
    "can't multiply sequence by non-int of type 'float'",
    "slice indices must be integers",
)
_DEEPEST = 1000  # Python's default recursion limit: a recursion once per row goes past it on this many rows
_SLASH = (
    "/ always gives a decimal number, a float (7 / 2 is 3.5, and even 6 / 2 is 3.0); // is whole-number "
    "division (7 // 2 is 3)."
)


def cause(crash, functions: Mapping[str, Tuple[str, ...]] = {}, board: Optional[list] = None) -> Optional[str]:
    """The sentence naming ``crash``'s cause as its message and the student's code show it, or None.

    ``functions`` maps each function an exercise file asks for to those exercises' task ids;
    ``board`` is the case's board when it may be told (a visible case), else None.
    """
    if not crash.builtin:
        return None  # the student's own class of that name: its name tells nothing
    tree = _parsed(crash.code)
    if crash.exception == "NameError":
        return _name_error(crash, tree, functions)
    if crash.exception == "AttributeError":
        return attribute_words(crash.text) or None
    if crash.exception == "TypeError":
        if any(text in crash.text for text in _FLOAT_NOT_WHOLE):
            return _float_cause(crash, tree)
        return type_error_words(crash.text, crash.source) or None
    if crash.exception == "RecursionError" and tree is not None:
        return _recursion_cause(crash, tree, board)
    if crash.exception == "IndexError" and tree is not None:
        return _fixed_size(crash, tree, board)
    return None


@lru_cache(maxsize=16)
def exercise_functions(course: Optional[str]) -> Mapping[str, Tuple[str, ...]]:
    """Each function a course's exercise files leave to write (a body of only ``pass``), with the
    task ids of the exercises that ask for it: {"numeral_binary": ("bin_num", "bitwise_xor")}.
    Empty without a course, and for an exercise file that cannot be read."""
    if course is None:
        return {}
    found: dict = {}
    folder = Course(Path(course))
    for task_id in folder.task_ids():
        try:
            tree = parsed(folder.exercise(task_id).read_bytes())
        except OSError:
            continue
        if tree is None:
            continue
        for name, body in top_functions(tree).items():
            if is_left_to_write(body):
                found.setdefault(name, []).append(task_id)
    return {name: tuple(ids) for name, ids in found.items()}


def _parsed(code: str) -> Optional[ast.Module]:
    return parsed(code) if code else None


def _name_error(crash, tree: Optional[ast.Module], functions: Mapping[str, Tuple[str, ...]]) -> Optional[str]:
    """A name Python does not know: one of Python 2 or of another language, a module not imported,
    a function of an exercise, a variable of another function, or a name the file spells otherwise."""
    if not crash.text.startswith("name '"):
        return None  # (a free variable of an enclosing function: another story)
    name = crash.text.split("'")[1]
    if not name.isidentifier():
        return None
    defined = _bound_names(tree) if tree is not None else {}
    if name not in defined and name_words(name):
        return name_words(name)
    if name not in defined and standard_module(name):
        return (
            f"{name} is a module of Python's standard library: import it first, with import {name} at the top "
            "of the file."
        )
    task = crash.file[:-3] if crash.file.endswith(".py") else ""
    others = [t for t in functions.get(name, ()) if t != task]
    if name not in defined and others:
        return (
            f"{name} is the function of exercise {others[0]}: copy that function into this file (each exercise "
            "file must work on its own, so it cannot use what another file defines)."
        )
    if name not in defined and task in functions.get(name, ()):
        return f"{name} is a function this exercise asks for, and your file does not define it: check its name."
    bound = defined.get(name, ())
    local = [(where, line) for where, line in bound if where and where != crash.function]
    if local and crash.function and all(where for where, _ in bound):
        where, line = local[0]
        return (
            f"{name} is a variable of your function {where} (line {line}): a function's variables are not "
            "seen outside it. Pass the value as an argument, or give it back with return."
        )
    spelled = [other for other in defined if other != name and other.lower() == name.lower()]
    if spelled:
        return f"Python tells capital letters apart: your file defines {spelled[0]}, not {name}."
    own = [other for other in dir(builtins) if other != name and other.lower() == name.lower()]
    if own and name not in defined:
        return f"Python tells capital letters apart: its own {own[0]} is written {own[0]}, not {name}."
    return None


def _bound_names(tree: ast.Module) -> dict:
    """Each name the file binds (assigns, defines, imports, loops over), with where: ("", line) at
    the top level or in a class, (function, line) inside a function."""
    found: dict = {}

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = where
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(child.name, []).append((where, child.lineno))
                inner = child.name
                for arg in ast.walk(child.args):
                    if isinstance(arg, ast.arg):
                        found.setdefault(arg.arg, []).append((inner, child.lineno))
            elif isinstance(child, ast.ClassDef):
                found.setdefault(child.name, []).append((where, child.lineno))
            elif isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                found.setdefault(child.id, []).append((where, child.lineno))
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                for alias in child.names:
                    found.setdefault((alias.asname or alias.name).split(".")[0], []).append((where, child.lineno))
            elif isinstance(child, (ast.Global, ast.Nonlocal)):
                for bound in child.names:
                    found.setdefault(bound, []).append(("", child.lineno))
            visit(child, inner)

    visit(tree, "")
    return found


def _function(tree: ast.Module, name: str, line: int) -> Optional[ast.FunctionDef]:
    """The function called ``name`` that holds ``line`` (the innermost, when nested)."""
    holding = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == name and node.lineno <= line <= (node.end_lineno or 0)
    ]
    return holding[-1] if holding else None


def _divides(node: ast.AST) -> Optional[ast.BinOp]:
    """The first ``a / b`` in ``node``, or None."""
    return next((n for n in ast.walk(node) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div)), None)


def _recursion_cause(crash, tree: ast.Module, board: Optional[list]) -> Optional[str]:
    """A function that calls itself with a value divided by ``/`` (a float that halves forever and
    never equals the whole number that stops it), or once per row of a board too long for Python's
    limit of about 1,000 calls inside each other (a board the case may tell)."""
    function = _function(tree, crash.function, crash.line) if crash.function else None
    if function is None:
        return None
    calls = [
        call
        for call in ast.walk(function)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == function.name
    ]
    parameters = {arg.arg for arg in function.args.args}
    for call in calls:
        sliced = [
            node
            for argument in call.args
            for node in ast.walk(argument)
            if isinstance(node, ast.Subscript)
            and isinstance(node.slice, ast.Slice)
            and isinstance(node.value, ast.Name)
            and node.value.id in parameters
        ]
        if sliced and board is not None and len(board) >= _DEEPEST:
            return (
                f"Your function {function.name} calls itself once for each row ({ast.unparse(sliced[0])}, line "
                f"{call.lineno}), and this case's board has {len(board):,} rows: Python stops a program at about "
                "1,000 calls inside each other. Use a loop over the rows instead."
            )
    for call in calls:
        for argument in [*call.args, *(k.value for k in call.keywords)]:
            divided = _divides(argument)
            if divided is not None:
                return (
                    f"Your function {function.name} calls itself with {ast.unparse(divided)} (line "
                    f"{call.lineno}): {_SLASH} With /, the number never becomes the whole number that "
                    f"stops {function.name}, so it calls itself again and again: use //."
                )
    return None


def _float_cause(crash, tree: Optional[ast.Module]) -> Optional[str]:
    """A float where a whole number is needed, made by ``/`` on the student's line or in what a name
    on that line was last set to in the same function."""
    line = _statement(tree, crash.line) if tree is not None else None
    if line is None or tree is None:
        return None
    parts = _whole_parts(line, crash.text)
    divided = next((d for part in parts if (d := _divides(part)) is not None), None)
    if divided is not None:
        return f"{ast.unparse(divided)} is a float here, not a whole number: {_SLASH} Use //."
    scope = (_function(tree, crash.function, crash.line) if crash.function else None) or tree
    names = {n.id for part in parts for n in ast.walk(part) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    for setting in _settings(scope, names, crash.line):
        divided = _divides(setting)
        if divided is not None or (isinstance(setting, ast.AugAssign) and isinstance(setting.op, ast.Div)):
            shown = ast.unparse(setting).splitlines()[0]
            return f"{shown} (line {setting.lineno}) makes a float, not a whole number: {_SLASH} Use //."
    return None


def _whole_parts(line: ast.AST, text: str) -> List[ast.AST]:
    """The parts of ``line`` that the TypeError's ``text`` says must be whole numbers: the
    positions read (``board[i]``), the arguments of calls (``range(n)``), the factors of ``*``."""
    if "indices" in text:
        return [node.slice for node in ast.walk(line) if isinstance(node, ast.Subscript)]
    if "multiply sequence" in text:
        return [
            side
            for node in ast.walk(line)
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)
            for side in (node.left, node.right)
        ]
    return [arg for node in ast.walk(line) if isinstance(node, ast.Call) for arg in node.args]


def _statement(tree: ast.Module, line: int) -> Optional[ast.stmt]:
    """The innermost simple statement (or a block's header) on ``line``."""
    found = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno == line:
            found = node
    if isinstance(found, (ast.For, ast.While, ast.If)):
        header = found.iter if isinstance(found, ast.For) else found.test
        return ast.Expr(value=header, lineno=found.lineno, col_offset=0)
    return found


def _settings(scope: Optional[ast.AST], names: set, before: int) -> Iterator[ast.stmt]:
    """The assignments in ``scope`` to one of ``names`` above line ``before``, the last first."""
    if scope is None:
        return iter(())
    found: List[ast.stmt] = []
    for node in ast.walk(scope):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.lineno < before:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id in names for target in targets for t in ast.walk(target)):
                found.append(node)
    return iter(sorted(found, key=lambda n: -n.lineno))


def _fixed_size(crash, tree: ast.Module, board: Optional[list]) -> Optional[str]:
    """An IndexError on a line that reads a list at a fixed position (``board[3]``), or at a position
    from a loop of fixed length (``for i in range(4)``): code written for one size of list."""
    line = _statement(tree, crash.line)
    if line is None or "empty sequence" in crash.text:
        return None
    subscripts = [n for n in ast.walk(line) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load)]
    if len(subscripts) != 1 or not isinstance(subscripts[0].value, ast.Name):
        return None  # several positions read here: which one is past the end cannot be told
    listed, index = subscripts[0].value.id, subscripts[0].slice
    rows = "row" if board is not None and len(board) == 1 else "rows"
    size = f" (this case's board has {len(board)} {rows})" if board is not None and "board" in listed else ""
    if isinstance(index, ast.Constant) and type(index.value) is int and index.value >= 1:
        return (
            f"Your code reads {listed}[{index.value}], a fixed position, and here {listed} is shorter than "
            f"that{size}. Code that names each position works for one length only: loop over {listed} "
            f"(for x in {listed}, or range(len({listed}))) to handle any length."
        )
    loop = _fixed_loop(tree, crash.line, index)
    if loop is not None:
        return (
            f"Your loop {loop} runs a fixed number of times, whatever the length of {listed}, and here {listed} "
            f"is shorter than that{size}: loop over range(len({listed})), or over {listed} itself."
        )
    return None


def _fixed_loop(tree: ast.Module, line: int, index: ast.AST) -> Optional[str]:
    """The header ``for i in range(4)`` of a loop holding ``line`` whose variable is ``index``."""
    if not isinstance(index, ast.Name):
        return None
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.For)
            and node.lineno < line <= (node.end_lineno or 0)
            and isinstance(node.target, ast.Name)
            and node.target.id == index.id
            and isinstance(node.iter, ast.Call)
            and isinstance(node.iter.func, ast.Name)
            and node.iter.func.id == "range"
            and node.iter.args
            and all(isinstance(a, ast.Constant) for a in node.iter.args)
        ):
            return f"for {index.id} in {ast.unparse(node.iter)}"
    return None
