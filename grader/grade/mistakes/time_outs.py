"""A time-out told apart: a loop that never ends, slow work, or (where the evidence does not say) neither.

In: the looks at a program past its time limit (``RunResult.stack_samples``: its frames in the
student's files, innermost first, with a fingerprint of each frame's variables; two looks
``capture.LOOK_GAP_S`` apart) and a way to read the student's files. Out: ``TimeOut``, its ``kind``
(``LOOP``, ``SLOW`` or ``UNCLEAR``: what a hint's ``when: {time_out: ...}`` names) and ``sentence``,
what the student reads after "stopped after N seconds of processor time".

Why this evidence. A time-out alone says only that the program had not finished: a brute force that
tries every move is as much out of time as ``while True`` without a way out, and telling the first
"is that inside a loop that never ends?" sends it the wrong way. Each look costs the program a
signal and costs the grader a tenth of a second; nothing runs again. The looks are read with the
student's code (its syntax tree), and each kind asks for evidence that explains it:

- ``LOOP``: a frame that is in every look, at the same depth, inside the same ``while`` loop, and
  that loop has no way out (its condition is always true or tests only what the loop never changes,
  and it has no ``break``, ``return``, ``raise`` or ``input()``; an item it tests, ``board[row]``,
  counts as unchanged where the body calls nothing and sets no item or attribute); or it draws at random and was still
  drawing at the second look, its time spent in the loop itself, not in a search it calls (a search
  at random for what does not exist); or the whole stack, every frame from the outermost in, was on
  the same lines with the same variables at both looks (no progress between them: a look cut short
  at ``_SEEN_FRAMES`` frames does not show that).
  The CPU time past the limit and the output's growth were weighed and left out: both grow as much
  in a busy endless loop as in slow work.
- ``SLOW``: every loop around every frame at every look ends by itself (a ``for`` over a range or
  a list, a ``while`` that counts its variable up or down at every turn), and recursion is bounded
  by Python's own limit: the program would finish, given time. (A ``for`` over ``itertools.count``
  or a list the loop appends to does not count as ending.)
- ``UNCLEAR``: anything else (no look answered, a file that is not the student's, a ``while`` whose
  way out depends on values): the plain facts, no guess.
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from grader.model import TIME_OUT_KINDS
from grader.run.run_facts import Frame, StackSample
from grader.submission.syntax_tree import parsed

LOOP, SLOW, UNCLEAR = TIME_OUT_KINDS
# Calls a loop's condition may make and still test only its arguments.
_PURE = {"len", "abs", "min", "max", "sum", "any", "all", "int", "float", "str", "bool", "round", "sorted"}
_EXITS = (ast.Break, ast.Return, ast.Raise, ast.Yield, ast.YieldFrom, ast.Await)
_EXIT_CALLS = {"exit", "quit", "_exit", "input"}  # (input ends a loop with EOFError)
_ENDLESS_ITERATORS = {"count", "cycle", "repeat", "iter"}
_GROWING = {"append", "extend", "insert"}
_STEPS = (ast.Add, ast.Sub, ast.FloorDiv, ast.RShift)
_SEEN_FRAMES = 12  # the most frames a look holds (``child_records``)


@dataclass(frozen=True)
class TimeOut:
    """What the looks at a timed-out program show: its ``kind`` and the ``sentence`` that says why
    ("" for ``UNCLEAR``: the caller says the plain facts)."""

    kind: str
    sentence: str = ""


def examine(samples: Sequence[StackSample], source_of: Callable[[str], str]) -> TimeOut:
    """The kind of a time-out from its looks (``samples``) and the student's files (``source_of``:
    a name in the run folder → its text, "" for a file that is not the student's)."""
    looks = [s for s in samples if s.frames]
    if not looks or len(looks) < len(samples):
        return TimeOut(UNCLEAR)
    trees: Dict[str, Optional[ast.Module]] = {}

    def scope_of(frame: Frame) -> Optional[ast.AST]:
        if frame.file not in trees:
            trees[frame.file] = _parsed(source_of(frame.file))
        tree = trees[frame.file]
        return _scope(tree, frame.function, frame.line) if tree is not None else None

    loop = _loop(looks, scope_of)
    if loop is not None:
        return loop
    for look in looks:
        for frame in look.frames:
            if frame.function.startswith("<") and frame.function != "<module>":
                continue  # a comprehension's or lambda's own frame: it goes over what it is given
            scope = scope_of(frame)
            if scope is None or not all(_ends(node) for node in _loops_around(scope, frame.line)):
                return TimeOut(UNCLEAR)
    return TimeOut(SLOW, _slow_sentence(looks[0].frames))


def _loop(looks: Sequence[StackSample], scope_of) -> Optional[TimeOut]:
    """``LOOP`` when a frame in every look sits in a ``while`` loop that explains the time-out."""
    depth = min(len(look.frames) for look in looks)
    for level in range(1, depth + 1):  # from the outermost frame in
        frames = [look.frames[-level] for look in looks]
        if len({(f.file, f.function) for f in frames}) != 1:
            return None  # the looks parted here: what is deeper ran at different times
        scope = scope_of(frames[0])
        if scope is None:
            continue
        common = [w for w in _loops_around(scope, frames[0].line) if isinstance(w, ast.While)]
        for frame in frames[1:]:
            common = [w for w in common if w in _loops_around(scope, frame.line)]
        for node in common:
            at = f"the loop at line {node.lineno}"
            if _no_way_out(node, scope):
                return TimeOut(LOOP, f"{at} has no way out: {_why_endless(node)}, and nothing in it leaves the loop")
            if len(looks) > 1 and _draws_at_random(node) and _straight_below(looks, level, scope_of):
                return TimeOut(
                    LOOP,
                    f"{at} draws at random until it finds what it looks for, and was still drawing when looked at "
                    "again: what it looks for may not exist on this input",
                )
            if len(looks) > 1 and _unchanged(looks, level):
                return TimeOut(
                    LOOP,
                    f"{at} was on the same line with the same values each time the program was looked at: "
                    "nothing changed from one turn of the loop to the next",
                )
    return None


def _straight_below(looks: Sequence[StackSample], level: int, scope_of) -> bool:
    """Is every frame inside the one at ``level`` (counted from the outermost), at every look, in no
    loop and no recursion: is the time spent in that frame's own loop, not in what it calls?"""
    for look in looks:
        inner = look.frames[: len(look.frames) - level]
        if len({f.function for f in inner}) < len(inner):
            return False
        for frame in inner:
            scope = scope_of(frame)
            if scope is None or _loops_around(scope, frame.line):
                return False
    return True


def _unchanged(looks: Sequence[StackSample], level: int) -> bool:
    """Was the whole program where it was, at every look: every frame from the outermost in on the
    same line with the same known state, the loop's frame (``level``, counted from the outermost)
    included? Only a whole stack says so: a look of ``_SEEN_FRAMES`` frames may hold the innermost
    part of a deeper one, and a recursive search comes back to the same inner frames (the same
    board, the same counters) many times while its outer frames move on."""
    first = looks[0]
    if not 0 < level <= len(first.frames) < _SEEN_FRAMES:
        return False
    for look in looks:
        if look.frames != first.frames or len(look.states) != len(look.frames):
            return False
        if not all(look.states) or look.states != first.states:
            return False
    return True


def _slow_sentence(frames: Tuple[Frame, ...]) -> str:
    names = [f.function for f in frames if not f.function.startswith("<")]
    calls, name = max(((names.count(n), n) for n in set(names)), default=(0, ""))
    more = " or more" if len(frames) >= _SEEN_FRAMES else ""
    deep = f", with {name} calling itself {calls}{more} deep" if calls > 1 else ""
    return (
        f"It was still working{deep}: every loop it was in counts through a fixed range or list, so it "
        "would finish, given time. It is too slow for an input this size: it needs a quicker way to the answer."
    )


@functools.lru_cache(maxsize=64)
def _parsed(source: str) -> Optional[ast.Module]:
    if not source:
        return None
    return parsed(source)


def _scope(tree: ast.Module, function: str, line: int) -> Optional[ast.AST]:
    """The function (or the module, for ``<module>``) named ``function`` whose lines hold ``line``,
    the innermost such; None when there is none (a comprehension's or lambda's own frame)."""
    if function == "<module>":
        return tree
    found = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            if node.lineno <= line <= (node.end_lineno or node.lineno):
                if found is None or node.lineno >= found.lineno:
                    found = node
    return found


def _own_nodes(node: ast.AST):
    """The nodes under ``node`` that run as part of it: not inside a nested function, class or lambda."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield child
        yield from _own_nodes(child)


def _loops_around(scope: ast.AST, line: int) -> List[ast.stmt]:
    """The loops of ``scope`` (its own code) whose body holds ``line``, innermost first."""
    found: List[ast.stmt] = [
        node
        for node in _own_nodes(scope)
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While))
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    return sorted(found, key=lambda node: node.lineno, reverse=True)


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _leaves(loop: ast.AST) -> bool:
    """Can the body of ``loop`` leave it: a ``break`` of its own, a ``return``, ``raise``, ``yield``
    or a call of ``exit``?"""

    def walk(node: ast.AST, nested: bool) -> bool:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(child, _EXITS) and not (nested and isinstance(child, ast.Break)):
                return True
            if isinstance(child, ast.Call) and _called_name(child) in _EXIT_CALLS:
                return True
            inner = nested or isinstance(child, (ast.For, ast.AsyncFor, ast.While))
            if walk(child, inner):
                return True
        return False

    body = ast.Module(body=list(loop.body), type_ignores=[])  # type: ignore[attr-defined]
    return walk(body, False)


def _names(node: ast.AST) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _changed_names(loop: ast.While) -> Tuple[set, bool]:
    """The names the body of ``loop`` may change (assigned, deleted, a method called on them, passed
    to a call), and whether it calls anything that is not one of the pure builtins."""
    changed, calls = set(), False
    for node in ast.walk(ast.Module(body=list(loop.body), type_ignores=[])):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            changed.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            changed.update(node.names)
        elif isinstance(node, ast.Call):
            if _called_name(node) not in _PURE:
                calls = True
                for argument in list(node.args) + [k.value for k in node.keywords]:
                    changed |= _names(argument)
            if isinstance(node.func, ast.Attribute):
                changed |= _names(node.func.value)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            changed |= _names(node.value)
    return changed, calls


def _no_way_out(loop: ast.While, scope: ast.AST) -> bool:
    """Is ``loop`` endless once entered: no way to leave its body, and a condition that stays true
    (a true constant, or one that tests only what the body never changes)?"""
    if _leaves(loop):
        return False
    test = loop.test
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if any(isinstance(n, (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr)) for n in ast.walk(test)):
        return False
    if any(
        isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in _PURE) for n in ast.walk(test)
    ):
        return False
    if any(isinstance(n, ast.Attribute) for n in ast.walk(test)):
        return False  # (reading an attribute may run code of the program's own)
    tested = _names(test)
    changed, calls = _changed_names(loop)
    if any(isinstance(n, ast.Subscript) for n in ast.walk(test)) and (calls or _stores_into_objects(loop)):
        return False  # an item it tests may be changed through another name (an alias, a function)
    own = {n.id for n in _own_nodes(scope) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    if calls and (tested - own):
        return False  # a global it tests may be changed by a function it calls
    return not (tested & changed)


def _stores_into_objects(loop: ast.While) -> bool:
    """Does the body of ``loop`` set or delete an item or an attribute of anything?"""
    body = ast.Module(body=list(loop.body), type_ignores=[])
    return any(
        isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del))
        for node in ast.walk(body)
    )


def _why_endless(loop: ast.While) -> str:
    if isinstance(loop.test, ast.Constant):
        return "its condition is always true"
    return "nothing in it changes what its condition tests"


def _draws_at_random(loop: ast.While) -> bool:
    """Does ``loop`` (its condition or body) call ``random``'s functions?"""
    for node in ast.walk(loop):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "random":
                return True
            if isinstance(func, ast.Name) and func.id in {"randint", "randrange", "choice", "random", "shuffle"}:
                return True
    return False


def _ends(loop: ast.AST) -> bool:
    """Does ``loop`` end by itself: a ``for`` over something that does not grow as it runs, or a
    ``while`` that counts its variable towards its bound at every turn?"""
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        source = loop.iter
        if isinstance(source, ast.Call) and _called_name(source) in _ENDLESS_ITERATORS:
            return False
        grown = {
            ast.unparse(n.func.value)
            for n in ast.walk(ast.Module(body=list(loop.body), type_ignores=[]))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _GROWING
        }
        return ast.unparse(source) not in grown
    return isinstance(loop, ast.While) and _counts(loop)


def _counts(loop: ast.While) -> bool:
    """``while i < n:`` (or ``<=``, ``>``, ``>=``, ``!=``) whose body steps ``i`` by a fixed number
    in a statement of its own, at every turn (no ``continue`` can skip it, nothing else sets it)."""
    test = loop.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    sides = [test.left, test.comparators[0]]
    variables = [side.id for side in sides if isinstance(side, ast.Name)]
    body = ast.Module(body=list(loop.body), type_ignores=[])
    if any(isinstance(n, ast.Continue) for n in _own_nodes(body)):
        return False
    for name in variables:
        steps = [statement for statement in loop.body if _step_of(statement) == name]
        sets = [n for n in ast.walk(body) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]
        if len(steps) == 1 and len(sets) == 1:
            return True
    return False


def _step_of(statement: ast.stmt) -> str:
    """The name ``statement`` steps by a whole number (``i += 1``, ``i = i - 2``, ``n //= 2``), else ""."""
    target: ast.expr
    if isinstance(statement, ast.AugAssign) and isinstance(statement.op, _STEPS):
        target, op, amount = statement.target, statement.op, statement.value
    elif (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.value, ast.BinOp)
        and isinstance(statement.value.op, _STEPS)
        and isinstance(statement.value.left, ast.Name)
        and isinstance(statement.targets[0], ast.Name)
        and statement.targets[0].id == statement.value.left.id
    ):
        target, op, amount = statement.targets[0], statement.value.op, statement.value.right
    else:
        return ""
    smallest = 2 if isinstance(op, ast.FloorDiv) else 1
    whole = isinstance(amount, ast.Constant) and type(amount.value) is int and abs(amount.value) >= smallest
    return target.id if isinstance(target, ast.Name) and whole else ""
