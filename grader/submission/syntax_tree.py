"""The one way grading reads a student's file (or a line of it) as a syntax tree: ``parsed``.

In: the source, text or bytes. Out: its module's tree, or None when it cannot be read as one.

Why one way. A student's file is untrusted, so every failure is caught: SyntaxError, ValueError
(a NUL byte), RecursionError and MemoryError (deep or huge code) and SystemError. And parses are
taken one at a time in a process: CPython (3.11 and 3.12 at least, gh-106905) builds the tree with
a recursion counter its threads share, so two threads parsing at once (a hand-in's cases graded in
parallel, two grading threads) can fail with "AST constructor recursion depth mismatch", which
ended a student's grading as the grader's failure.
"""

from __future__ import annotations

import ast
import threading
from typing import Optional, Union

# the process's one parse at a time (see the module's docstring): a lock, not state of the grader's
_ONE_AT_A_TIME = threading.Lock()
_FAILURES = (SyntaxError, ValueError, RecursionError, MemoryError, SystemError)


def parsed(source: Union[str, bytes]) -> Optional[ast.Module]:
    """``source``'s syntax tree, or None when it is not Python this interpreter can read."""
    with _ONE_AT_A_TIME:
        try:
            return ast.parse(source)
        except _FAILURES:
            return None
