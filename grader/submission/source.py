"""Reading a submission before it runs: does it compile, and does it keep the task's rules?

``inspect_source(data, rules)`` returns None when the file may run, or a ``SourceProblem``
(``syntax_error`` or ``rule_violation``) with the line and a sentence that says what to fix.
"""

from __future__ import annotations

import ast
import re
import signal
import subprocess
import sys
from typing import Iterable, Optional

from grader.model import Rule, SourceProblem, Verdict
from grader.rules.static_check import find_violations
from grader.submission.syntax_tree import parsed

_BLOCK_START = re.compile(r"^\s*(if|elif|else|for|while|def|class|try|except|finally|with)\b")
_PY2_PRINT = re.compile(r"^\s*print\s+[^\s(=]")
# Other statements of Python 2 that Python 3 cannot parse, and what to write instead.
_PY2_SYNTAX = (
    (
        re.compile(r"^\s*except\s+(?P<kind>[\w.]+)\s*,\s*(?P<name>\w+)\s*:"),
        "except {kind}, {name}",
        "except {kind} as {name}",
    ),
    (re.compile(r"^\s*raise\s+(?P<kind>[\w.]+)\s*,\s*(?P<text>.+?)\s*$"), "raise {kind}, ...", "raise {kind}({text})"),
    (re.compile(r"^\s*exec\s+[^\s(=]"), "exec statement", "exec(...)"),
    (re.compile(r"<>"), "<> (not equal)", "!="),
    (re.compile(r"`[^`]*`"), "backticks `x` (repr)", "repr(x)"),
    (re.compile(r"\b(?P<digits>[1-9]\d*)[lL]\b"), "long number {digits}L", "{digits}"),
)
# Python 3.9 and 3.10 parse without a depth guard: a file of 300 kB holding a.b.b.b... or 1+1+1...
# 150,000 times deep overflows the parser's C stack and kills the interpreter, which here would be
# the grader. A file this large (a real answer is under 10 kB) is compiled first in an interpreter
# of its own, so that only that one can die; a file this small cannot nest that deep.
TRIAL_COMPILE_BYTES = 32 * 1024
# The trial compiles as the grader does, on a thread (grading threads may have smaller stacks).
_TRIAL = """
import ast, sys, threading
data = sys.stdin.buffer.read()
def trial():
    try:
        compile(data, "submission.py", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
        compile(data, "submission.py", "exec", dont_inherit=True)
    except BaseException:
        pass  # what Python says is for the grader to report, in its own process
thread = threading.Thread(target=trial)
thread.start()
thread.join()
"""
_TOO_DEEP = (
    "Something in it is nested too deeply (brackets inside brackets, or a very long chain such as a.b.c... "
    "or 1 + 1 + 1 ...): no answer needs that. Write it in several steps, with variables or a loop."
)


def inspect_source(data: bytes, rules: Iterable[Rule]) -> Optional[SourceProblem]:
    """Compile ``data`` (the file's bytes) and check ``rules``; None when it may run.

    Whatever the bytes hold, the answer is None or a ``SourceProblem``, never an exception: a file
    Python cannot compile (too deeply nested, not text, ...) is a ``syntax_error`` in Python's words.
    """
    if b"\x00" in data:
        return SourceProblem(
            Verdict.SYNTAX_ERROR,
            "Your file contains null bytes, so it is not a Python text file. "
            "Was it saved by a word processor, or is it the wrong file? Save it as plain text.",
        )
    crashed = _trial_compile(data)
    if crashed is not None:
        return crashed
    try:
        tree = compile(data, "submission.py", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
        # Running the file compiles it all the way, which finds more than parsing does ('return'
        # outside a function, too many nested blocks, the compiler's own depth limit).
        compile(data, "submission.py", "exec", dont_inherit=True)
    except SyntaxError as error:
        return _syntax_problem(data, error)
    except (ValueError, UnicodeError) as error:
        return SourceProblem(Verdict.SYNTAX_ERROR, f"Python cannot read your file: {error}.")
    except (RecursionError, MemoryError) as error:
        words = str(error) or "it ran out of memory"
        return SourceProblem(
            Verdict.SYNTAX_ERROR, f"Python cannot compile your file: {words} ({type(error).__name__}). {_TOO_DEEP}"
        )
    violations = find_violations(tree, rules)
    if not violations:
        return None
    first = violations[0]
    lines = _text_lines(data)
    message = " ".join(v.message for v in violations)
    source_line = lines[first.line - 1] if 0 < first.line <= len(lines) else ""
    # a line of a megabyte is shown as the part around the caret, as for a syntax error
    source_line, caret = _excerpt(source_line, _character_column(source_line, first.column))
    return SourceProblem(Verdict.RULE_VIOLATION, message, line=first.line, source_line=source_line, caret=caret)


def _trial_compile(data: bytes) -> Optional[SourceProblem]:
    """For a large file, compile it in another interpreter first: a problem when that one crashed."""
    if len(data) <= TRIAL_COMPILE_BYTES or not sys.executable:
        return None
    try:
        trial = subprocess.run(
            [sys.executable, "-I", "-S", "-c", _TRIAL],
            input=data,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        return SourceProblem(
            Verdict.SYNTAX_ERROR, f"Python took more than a minute to compile your file and was stopped. {_TOO_DEEP}"
        )
    except OSError:
        return None  # no second interpreter to try it in: compile it here, as for any file
    if trial.returncode >= 0:
        return None
    try:
        name = signal.Signals(-trial.returncode).name
    except ValueError:
        name = f"signal {-trial.returncode}"
    return SourceProblem(Verdict.SYNTAX_ERROR, f"Python itself crashed ({name}) while compiling your file. {_TOO_DEEP}")


def _text_lines(data: bytes) -> list:
    """The file's lines as Python counts them: split at \\n only (not at form feeds and the like)."""
    return [line.rstrip("\r") for line in data.decode("utf-8", errors="replace").split("\n")]


def _character_column(line: str, byte_offset: int) -> int:
    """The syntax tree counts columns in UTF-8 bytes; the report needs characters."""
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))


def _syntax_problem(data: bytes, error: SyntaxError) -> SourceProblem:
    text = (error.msg or "invalid syntax").rstrip(".?! ")
    if "codec can't decode" in text or "unicode error" in text:
        return SourceProblem(
            Verdict.SYNTAX_ERROR,
            "Your file is not UTF-8 text (Python could not decode it). Is it the right file? "
            "Save it as UTF-8 plain text from your editor.",
        )
    line = error.lineno or 0
    if line <= 0:  # about the whole file, such as an unknown encoding in a coding: comment
        return SourceProblem(Verdict.SYNTAX_ERROR, f"Python cannot read your file: {text}.")
    lines = _text_lines(data)
    source_line = lines[line - 1] if 0 < line <= len(lines) else (error.text or "").rstrip("\n")
    caret = max((error.offset or 1) - 1, 0)
    kind = "an indentation error" if isinstance(error, IndentationError) else "a syntax error"
    message = f"Line {line} has {kind}: {text}."
    hint = _syntax_hint(text, source_line, error)
    source_line, caret = _excerpt(source_line, caret)
    return SourceProblem(
        Verdict.SYNTAX_ERROR,
        f"{message} {hint}".strip(),
        line=line,
        source_line=source_line,
        caret=caret,
    )


def _excerpt(line: str, caret: int, width: int = 120) -> tuple:
    """A long line cut to ``width`` characters around the caret (the report shows one line)."""
    if len(line) <= width:
        return line, caret
    start = min(max(caret - width // 2, 0), len(line) - width)
    head = "…" if start > 0 else ""
    tail = "…" if start + width < len(line) else ""
    return f"{head}{line[start : start + width]}{tail}", caret - start + len(head)


def _syntax_hint(text: str, source_line: str, error: SyntaxError) -> str:
    if "too many nested parentheses" in text:
        return "Brackets are nested here more deeply than Python allows: write the expression in several steps."
    if "too many levels of indentation" in text or "too many statically nested blocks" in text:
        return "Blocks are nested here more deeply than Python allows: move some of them into functions."
    if "Missing parentheses in call to 'print'" in text or _PY2_PRINT.match(source_line):
        return "This is Python 2's print statement; in Python 3 print is a function: write print(x) instead of print x."
    if "leading zeros in decimal integer literals" in text:
        return "A number cannot start with 0 in Python 3 (0777 was Python 2's octal): write 777, or 0o777 for octal."
    if "was never closed" in text or "EOF" in text:
        return "A bracket or quote opened here is never closed."
    if "unmatched" in text or "does not match" in text:
        return "A closing bracket here has no matching opening bracket."
    if "expected ':'" in text or (_BLOCK_START.match(source_line) and not source_line.rstrip().endswith(":")):
        return "A line that starts a block (if, for, while, def, else, ...) must end with a colon ':'."
    if isinstance(error, IndentationError) or "indent" in text:
        return "Check that the lines of each block start at the same column, and do not mix tabs and spaces."
    if "Maybe you meant '=='" in text:
        return "To compare two values use ==; a single = stores a value."
    return _python2_words(source_line)


def _python2_words(line: str) -> str:
    """What to write instead of the Python 2 statement on ``line`` that Python 3 cannot parse, or ""."""
    for pattern, was, instead in _PY2_SYNTAX:
        found = pattern.search(line)
        if found:
            words = found.groupdict()
            return f"This is Python 2's {was.format(**words)}: in Python 3 write {instead.format(**words)}."
    return ""


def main_blocks(tree: ast.AST) -> list:
    """The top-level ``if __name__ == "__main__":`` blocks of a module."""
    found = []
    for node in getattr(tree, "body", []):
        test = getattr(node, "test", None)
        if (
            isinstance(node, ast.If)
            and isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name)
            and test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
        ):
            found.append(node)
    return found


def main_block_advice(data: bytes, stub: Optional[bytes]) -> str:
    """Why a program that printed nothing may be silent: its main block is missing or changed.

    ``stub`` is the exercise file the student started from (None when unknown). Returns a
    sentence, or "" when the main block looks like the stub's.
    """
    tree = parsed(data)
    if tree is None:
        return ""  # not for this sentence to explain (such a file does not run at all)
    blocks = main_blocks(tree)
    if not blocks:
        return (
            'Your file has no main block (if __name__ == "__main__": at the end), so nothing reads the '
            "test case or prints the answer. Copy the main block from the exercise file back to the end of "
            "your file."
        )
    if stub is None:
        return ""
    stub_tree = parsed(stub)
    if stub_tree is None:
        return ""
    stub_blocks = main_blocks(stub_tree)
    if stub_blocks and _dump(blocks[-1]) != ast.dump(stub_blocks[-1]):
        return (
            'Your main block (if __name__ == "__main__": ...) is not the one in the exercise file, and your '
            "program printed nothing. Put the exercise file's main block back unchanged: it reads the test "
            "case and prints the answer."
        )
    return ""


def _dump(node: ast.AST) -> str:
    """``ast.dump``, or "" for a tree nested too deeply to dump (it is then no exercise file's either)."""
    try:
        return ast.dump(node)
    except (RecursionError, MemoryError):
        return ""
