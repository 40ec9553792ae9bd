"""Turning the facts of a failed run into a sentence a first-year student can act on.

Pure functions over ``RunResult`` and text: the crash the program's process reported
(``RunResult.crash``, never read from its standard error) with the student's line and a hint for
the common exceptions; the traceback the program printed, trimmed to the student's own files for
showing (a visible case only).
"""

from __future__ import annotations

import ast
import json
import os
import re
from dataclasses import dataclass
from typing import Callable, List, Mapping, Optional, Sequence, Tuple

from grader.grade.mistakes import crash_causes
from grader.run.run_facts import ChildCrash
from grader.submission.syntax_tree import parsed

_FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<where>.+)$')

_HINTS = {
    "EOFError": "Your program tried to read more input than the test gives: read exactly one test "
    "case, as the main block of the exercise does.",
    "RecursionError": "A function keeps calling itself without reaching a case that stops it.",
    "ZeroDivisionError": "Something was divided by zero: check the values before dividing.",
    # TypeError, NameError, AttributeError: no advice by the name alone; by the message and the code
    # (``crash_causes``), else the facts
    "KeyboardInterrupt": "Your program raised KeyboardInterrupt: nothing in an exercise should.",
    "ModuleNotFoundError": "The lab's programs run on plain Python, with its standard library only (no numpy "
    "or other packages are installed): write it without that import.",
    "RuntimeError": "",
    # IndexError: no advice of its own; the row advice only for a line that indexes by a row (``_row_advice``)
    "ValueError": "",
    "AssertionError": "An assert in your file failed.",
}


@dataclass(frozen=True)
class Crash:
    """What a traceback tells: the exception, its text, and the student's line (if any).

    ``file`` is the name, in the run folder, of the file that line is in: the program itself
    (its ``run_name``) or one of the student's files it imports; ``code`` that file's text and
    ``function`` the function the line is in (``<module>`` at the top level), for reading the cause.
    """

    exception: str
    text: str
    line: int = 0
    source: str = ""
    file: str = ""
    builtin: bool = True  # Python's own exception of that name (only those get its hint)
    code: str = ""
    function: str = ""


def _in_run_folder(path: str, workdir: str) -> str:
    """``path`` relative to the run folder ``workdir`` (``present_board.py``), or "" when outside it."""
    if not workdir:
        return ""
    folder = workdir.rstrip("/") + "/"
    return path[len(folder) :] if path.startswith(folder) else ""


def student_traceback(stderr: str, workdir: str, shown_name: str, run_name: str = "") -> str:
    """The traceback with frames outside the student's files left out and paths shortened.

    ``workdir`` is the folder the program ran in, where it is ``run_name``: its frames are named
    ``shown_name``, and those of the student's other files (a companion such as present_board.py)
    by their own name, in the same folder as ``shown_name``. Lines that are not part of a
    traceback (the student's own prints to stderr) are kept.
    """
    lines = stderr.splitlines()
    kept: List[str] = []
    skip_source = False
    for line in lines:
        frame = _FRAME.match(line)
        if frame:
            name = _in_run_folder(frame.group("file"), workdir)
            skip_source = not name
            if name:
                kept.append(line.replace(frame.group("file"), _shown_file(name, shown_name, run_name)))
            continue
        if skip_source and line.startswith("    "):
            continue
        skip_source = False
        if workdir:
            line = line.replace(workdir.rstrip("/") + "/", "")
        kept.append(line)
    return "\n".join(kept)


def _shown_file(name: str, shown_name: str, run_name: str) -> str:
    """How a file of the run folder is named to the student: the program as ``shown_name``, the
    student's other files by their own name beside it."""
    if not run_name or name == run_name:
        return shown_name
    return os.path.join(os.path.dirname(shown_name), name)


def crash_of(record: Optional[ChildCrash], read_source: Callable[[str], str]) -> Optional[Crash]:
    """The crash a program's process reported, its deepest line in the student's files, and that
    line's text read by the grader from the student's own file (``read_source(name)`` gives the
    text of a file named as in the run folder, "" when it is not one of theirs)."""
    if record is None:
        return None
    frame = record.frames[-1] if record.frames else None
    line, file, function = (frame.line, frame.file, frame.function) if frame is not None else (0, "", "")
    code = read_source(file) if file else ""
    lines = code.splitlines()
    source = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return Crash(
        exception=record.exception,
        text=record.text,
        line=line,
        source=source,
        file=file,
        builtin=record.builtin,
        code=code,
        function=function,
    )


def limit_hint(crash: Crash, limits) -> str:
    """When a crash is a limit of the grader being reached, say which limit and its value."""
    text = crash.text
    if "Too many open files" in text:
        return f"Your program opened more than {limits.open_files} files at once (the open files limit)."
    if "No space left on device" in text or "Disk quota exceeded" in text:
        return (
            "Your program wrote more files than a run may keep (32 MiB in its folder, and as much in /tmp; "
            "the limit on a run's files)."
        )
    if "File too large" in text:
        size = limits.file_bytes // (1024 * 1024)
        return f"Your program tried to write a file bigger than {size} MiB (the file size limit)."
    if crash.exception in ("BlockingIOError", "OSError") and "Resource temporarily unavailable" in text:
        return f"Your program tried to start more than {limits.processes} processes (the process limit)."
    if crash.exception == "RuntimeError" and "can't start new thread" in text:
        return f"Your program tried to start more than {limits.processes} threads and processes (the process limit)."
    return ""


_ROW_ADVICE = (
    "Rows count from 1, but Python lists count from 0: row r is board[r - 1]. Check the row is between 1 "
    "and len(board) first."
)
_EMPTY_BOARD_ADVICE = (
    "The board [] has no rows at all, so it has no position to read: make your code work for it without "
    "indexing the board (a loop over its rows simply runs no time)."
)


def input_board(case_input: str) -> Optional[list]:
    """The board a JSON test case gives (a list, or the ``board`` or ``input`` of an object), or None."""
    try:
        case = json.loads(case_input)
    except (ValueError, RecursionError):
        return None
    if isinstance(case, dict):
        case = case.get("board", case.get("input"))
    return case if isinstance(case, list) and all(type(row) is int for row in case) else None


def _indexes_by_row(source: str) -> bool:
    """Whether the student's line reads a list at a position computed from a row (``board[row - 1]``):
    only then is the advice about counting rows from 1 about their mistake."""
    line = source.strip()
    if line.startswith("elif "):
        line = line[2:]
    if line.endswith(":"):
        line += " pass"  # the first line of a block (if, while, for) parses with a body
    tree = parsed(line or "pass")
    if tree is None:
        return False
    return any(
        isinstance(node, ast.Subscript)
        and any(isinstance(name, ast.Name) and "row" in name.id.lower() for name in ast.walk(node.slice))
        for node in ast.walk(tree)
    )


@dataclass(frozen=True)
class CrashSaid:
    """What is said of a crash, in three parts (``grade/mistakes``' one rule): the ``facts`` (the
    exception, its message, the line), the ``cause`` read from the student's code or files ("" when
    none is known: it speaks alone, no course hint with it) and the ``advice`` of what the exception
    usually means (said only where no course hint speaks: the course's hint is about this case)."""

    facts: str
    cause: str = ""
    advice: str = ""

    @property
    def whole(self) -> str:
        """The facts with the cause, else with the advice."""
        return f"{self.facts} {self.cause or self.advice}".strip()


def crash_said(
    crash: Crash,
    own_files: Sequence[str] = (),
    task_ids: Sequence[str] = (),
    run_name: str = "",
    board: Optional[list] = None,
    functions: Mapping[str, Tuple[str, ...]] = {},
) -> CrashSaid:
    """The facts of ``crash`` and what explains it (``CrashSaid``).

    ``own_files`` are the student's exercise files the program may import (task ids);
    ``task_ids`` all the course's tasks (importing another one is a mistake). ``run_name`` is the
    program's own name in the run folder: a crash in another file (``line 56 of present_board.py``)
    names that file. ``board`` is the case's board when it may be told (a visible case), for the
    crashes it explains (an IndexError on the empty board). ``functions`` are the functions the
    course's exercise files ask for (``crash_causes.exercise_functions``), for a NameError. The
    cause is what the message and the student's code show (``crash_causes.cause``), a file set up
    wrongly or the board changed; the advice what the exception always means; else the facts alone.
    """
    what = crash.exception + (f" ({crash.text})" if crash.text else "")
    elsewhere = bool(run_name and crash.file and crash.file != run_name)
    where = ""
    if crash.line:
        where = f" on line {crash.line} of {crash.file}" if elsewhere else f" on line {crash.line}"
    code = f": {crash.source}" if crash.source else ""
    advice = _HINTS.get(crash.exception, "") if crash.builtin else ""
    empty = crash.exception == "IndexError" and board == []  # the empty board's advice says it all
    cause = crash_causes.cause(crash, functions, board) if not empty else None
    cause = cause or ""
    if not cause and crash.builtin and crash.exception == "IndexError":
        if board == []:
            code, advice = f"{code}, on the empty board []", _EMPTY_BOARD_ADVICE
        elif _indexes_by_row(crash.source):
            advice = _ROW_ADVICE
    # (every Python's message for it is 3.11's: ``child_program.newest_words``)
    chose_from_nothing = crash.text == "Cannot choose from an empty sequence"
    if crash.builtin and crash.exception == "IndexError" and chose_from_nothing and not cause:
        advice = (
            "random.choice was given an empty list: make sure the list has items before choosing (for "
            "example, from a P-position there are no good rows)."
        )
    if elsewhere:
        cause = (
            f"The error is in your {crash.file}, which this file imports: fix it there (its own cases may show "
            f"it too). {cause or advice}"
        ).strip()
    missing = re.fullmatch(r"No module named '([\w.]+)'", crash.text)
    if crash.exception == "ModuleNotFoundError" and missing and missing.group(1) in own_files:
        cause = (
            f"This file imports your {missing.group(1)}.py: put {missing.group(1)}.py (your answer to that "
            "exercise) in the same folder as this file."
        )
    elif crash.exception == "ModuleNotFoundError" and missing and missing.group(1) in task_ids:
        cause = (
            f"{missing.group(1)} is another exercise: this file must work on its own, so copy the functions "
            "you need from it into this file (the exercise file has places for them)."
        )
    if crash.builtin and crash.exception == "RuntimeError" and "changed the board" in crash.text:
        cause = (
            "Do not change the list you were given: read it, and where you need a changed board, work on "
            "a copy (new_board = list(board))."
        )
    return CrashSaid(f"Your program crashed with {what}{where}{code}.", cause, "" if cause else advice)


# Crashes whose cause is how the file is set up, not the case's logic: the case's hint is noise there.
SETUP_CRASHES = frozenset({"NameError", "ModuleNotFoundError", "ImportError", "EOFError"})


def is_setup_crash(crash: Crash) -> bool:
    """True when ``crash`` is Python's own exception of one of ``SETUP_CRASHES`` (a student's own
    class of that name says nothing of how the file is set up)."""
    return crash.builtin and crash.exception in SETUP_CRASHES


def is_memory_error(record: Optional[ChildCrash]) -> bool:
    """True when the program ended with Python's own ``MemoryError``."""
    return record is not None and record.builtin and record.exception == "MemoryError"
