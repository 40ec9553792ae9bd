"""The one way grading reads a student's file (or a line of it) as a syntax tree: ``parsed``.

In: the source, text or bytes. Out: its module's tree, or None when it cannot be read as one.

Why one way. A student's file is untrusted, so every failure is caught: SyntaxError, ValueError
(a NUL byte), RecursionError and MemoryError (deep or huge code) and SystemError. And parses are
taken one at a time in a process: CPython (3.11 and 3.12 at least, gh-106905) builds the tree with
a recursion counter its threads share, so two threads parsing at once (a hand-in's cases graded in
parallel, two grading threads) can fail with "AST constructor recursion depth mismatch", which
ended a student's grading as the grader's failure.

And a large source is parsed on a thread with a stack of its own, big enough for any file the
grader reads (``MAX_SOURCE_BYTES``): Python 3.9 and 3.10 have no depth guard in their parser, so a
chain such as a.b.b.b... or 1+1+1... 150,000 long overflows the C stack of an ordinary thread and
kills the process (the grader, or the portal's web process) with a segmentation fault.
"""

from __future__ import annotations

import ast
import threading
from typing import List, Optional, Union

# the process's one parse at a time (see the module's docstring): a lock, not state of the grader's
_ONE_AT_A_TIME = threading.Lock()
_FAILURES = (SyntaxError, ValueError, RecursionError, MemoryError, SystemError)
# A source this small cannot nest deep enough to overflow any thread's stack (16,000 levels at most,
# about 1 MiB of C stack on 3.10); a larger one gets ``_ROOMY_STACK``: a 1 MiB file, 520,000 levels
# deep, parses on 3.9 and 3.10 in about 50 MiB of it. The stack is reserved, not used, until needed.
SMALL_SOURCE = 32 * 1024
_ROOMY_STACK = 256 * 1024 * 1024


def parsed(source: Union[str, bytes]) -> Optional[ast.Module]:
    """``source``'s syntax tree, or None when it is not Python this interpreter can read."""
    with _ONE_AT_A_TIME:
        if len(source) <= SMALL_SOURCE:
            return _parse(source)
        return _parse_with_room(source)


def _parse(source: Union[str, bytes]) -> Optional[ast.Module]:
    try:
        return ast.parse(source)
    except _FAILURES:
        return None


def _parse_with_room(source: Union[str, bytes]) -> Optional[ast.Module]:
    """``_parse`` on a thread whose stack is ``_ROOMY_STACK``; None when no such thread can start."""
    found: List[Optional[ast.Module]] = []
    thread = threading.Thread(target=lambda: found.append(_parse(source)), name="nim-grader-parse", daemon=True)
    # threading.stack_size is the process's setting for the threads it starts next: set for this one
    # thread and put back at once (a thread another part of the process starts meanwhile gets a
    # large reservation too, which costs it no memory)
    try:
        previous = threading.stack_size(_ROOMY_STACK)
    except (ValueError, RuntimeError):  # a platform that cannot set it: the file is not read
        return None
    try:
        thread.start()
    except RuntimeError:  # (no room for such a stack: an address-space limit) the file is not read
        return None
    finally:
        threading.stack_size(previous)
    thread.join()
    return found[0] if found else None
