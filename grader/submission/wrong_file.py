"""Is a file handed in for a task one to grade at all: text, and not plainly another task's file?

In: the file's bytes, the task's id and the course's exercise stubs (the files students start
from). Out: None when the file is to be graded, or the sentence that says why it is refused and
what to do (``refusal``). The portal refuses such a file before it is stored or counted against
the task's limits: grading it would only fail every case, and cost the student a hand-in.

Refused:
- a file that is not text: a NUL byte, bytes that are not UTF-8 (a UTF-8 BOM is fine, and so is
  another encoding the file declares as Python allows, ``# -*- coding: latin-1 -*-``), UTF-16,
  or the start of a file that is never Python (a PNG, JPEG or GIF image, a PDF, a ZIP archive such
  as a Word document, a compiled program); the sentence says what it looks like;
- another task's file: it defines none of this task's functions and some of another task's
  (``make_move.py`` handed in as ``nim_sum``).

A task's functions come from its stub, never from a list here: those the stub leaves to write (a
body of only ``pass`` or ``...``) and any other function no other stub defines (``working_game``'s
``run_game``), but not one every stub defines (``self_test``). A name the file defines is one it
binds at its top level with ``def``, ``class`` or an assignment, in any block there (not an import:
``working_game.py`` imports ``make_move`` but is not ``make_move.py``). Only the clear case is
refused: a file that defines one of this task's functions is graded whatever else it defines, and
so is a file that defines none of any task's (its cases say what is missing) or does not parse
(the grader reports the syntax error).
"""

from __future__ import annotations

import ast
import codecs
import re
from functools import lru_cache
from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from grader.submission.stubs import is_left_to_write, parse_source, top_functions

_UTF8_BOM = b"\xef\xbb\xbf"
# The first bytes of files that are not Python, and what to call them. The first group never
# starts a Python file (a control character or a byte that is not UTF-8 text): those refuse a file
# by themselves. The second group is printable: those only name what a file that is not text
# anyway looks like.
_NEVER_PYTHON: Tuple[Tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image (a photo)"),
    (b"PK\x03\x04", "a ZIP archive (a Word .docx or .odt document is one)"),
    (b"\x7fELF", "a compiled program (ELF)"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an old Word or Excel document"),
    (b"\xff\xfe", "text saved as UTF-16 ('Unicode' in some editors)"),
    (b"\xfe\xff", "text saved as UTF-16 ('Unicode' in some editors)"),
)
_LOOKS_LIKE: Tuple[Tuple[bytes, str], ...] = (
    (b"%PDF-", "a PDF document"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"{\\rtf", "a rich text (RTF) document"),
    (b"MZ", "a Windows program (.exe)"),
)
# PEP 263: an encoding declared in a comment on the first or second line.
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def refusal(data: bytes, task_id: str, stubs: Mapping[str, bytes]) -> Optional[str]:
    """Why ``data`` handed in as ``task_id`` is refused (a sentence to act on), or None to grade it.
    ``stubs``: each task's exercise stub by task id (a task without one is left out)."""
    return not_text(data, f"{task_id}.py") or another_tasks_file(data, task_id, stubs)


def refusal_in_course(data: bytes, task_id: str, course) -> Optional[str]:
    """``refusal`` with the stubs of ``course`` (a ``grader.course.layout.Course``: passed in, as
    this stage sits below the course's)."""
    return refusal(data, task_id, read_stubs(course, course.task_ids()))


def read_stubs(course, task_ids: Iterable[str]) -> Dict[str, bytes]:
    """The exercise stub of each of ``task_ids`` in ``course`` that has a readable one."""
    found = {}
    for task_id in task_ids:
        try:
            found[task_id] = course.exercise(task_id).read_bytes()
        except OSError:
            continue  # no stub: the task's functions are unknown, so no file is refused as another's
    return found


def not_text(data: bytes, name: str) -> Optional[str]:
    """Why ``data`` is not a Python text file (a sentence naming ``name``), or None when it is."""
    start = f"{name} must be a Python file (text); this file is not text"
    advice = f"Hand in {name} itself, as the editor saved it, a plain text file."
    for magic, words in _NEVER_PYTHON:
        if data.startswith(magic):
            if "UTF-16" in words:
                return f"{start}: it is {words}. Save it as UTF-8 text and hand it in again."
            return f"{start} (it starts like {words}). {advice}"
    looks = next((f" (it starts like {words})" for magic, words in _LOOKS_LIKE if data.startswith(magic)), "")
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        return f"{start}{looks}: it holds a NUL byte (line {line}), which no text file does. {advice}"
    encoding = _declared_encoding(data)
    try:
        (data[len(_UTF8_BOM) :] if data.startswith(_UTF8_BOM) else data).decode(encoding or "utf-8")
    except UnicodeDecodeError as error:
        if looks:
            return f"{start}{looks}. {advice}"
        offset = error.start + (len(_UTF8_BOM) if data.startswith(_UTF8_BOM) else 0)
        line = data.count(b"\n", 0, offset) + 1
        said = f"it says it is {encoding}, but " if encoding else ""
        return (
            f"{name} must be a Python file in UTF-8 text; {said}byte 0x{data[offset]:02x} on line {line} is not "
            f"{encoding or 'UTF-8'} (the editor saved it in another encoding, such as Latin-1 or Windows-1252). "
            "Save it as UTF-8 and hand it in again."
        )
    return None


def _declared_encoding(data: bytes) -> Optional[str]:
    """The encoding the file declares (PEP 263), when Python knows it and it is not UTF-8."""
    for line in data.split(b"\n", 2)[:2]:
        found = _CODING.match(line)
        if found is None:
            if line.strip() and not line.lstrip().startswith(b"#"):
                return None  # (the declaration is looked for only in comments before the code)
            continue
        try:
            name = codecs.lookup(found.group(1).decode("ascii")).name
        except (LookupError, UnicodeDecodeError):
            return None  # an encoding Python does not know: Python says so when it grades the file
        return None if name == "utf-8" else name
    return None


# The most bytes parsed to tell whether a file is another task's. This runs where a hand-in arrives
# (the portal's web process, before any limit counts it): a larger file is not parsed there, since
# its parse could hold the process for seconds and, on Python 3.9 and 3.10, overflow the parser's C
# stack and kill it (``source.TRIAL_COMPILE_BYTES``: a file this small cannot nest that deep). A
# real answer is under 10 kB; a larger file is graded as it is, never refused for its size here.
PARSED_AT_MOST = 32 * 1024


def another_tasks_file(data: bytes, task_id: str, stubs: Mapping[str, bytes]) -> Optional[str]:
    """When ``data`` defines none of ``task_id``'s functions and some of another task's, the
    sentence that names them and says where the file goes; None otherwise (and for a file over
    ``PARSED_AT_MOST`` bytes, which is not parsed)."""
    if len(data) > PARSED_AT_MOST:
        return None
    functions = dict(_task_functions(tuple(sorted(stubs.items()))))
    own = functions.get(task_id)
    tree = parse_source(data)
    if not own or tree is None:
        return None
    defined = defined_names(tree)
    if defined & set(own):
        return None
    candidates = []
    for number, (other, names) in enumerate(functions.items()):
        matched = [n for n in names if n in defined]
        if other != task_id and matched:
            candidates.append((-len(matched), -len(matched) / len(names), number, other, matched))
    if not candidates:
        return None
    _, _, _, other, matched = min(candidates)
    if len(matched) == len(functions[other]):
        whose = f"the function of {other}.py" if len(matched) == 1 else f"the functions of {other}.py"
    else:
        whose = f"a function of {other}.py" if len(matched) == 1 else f"functions of {other}.py"
    return (
        f"This file defines {_listed(matched, 'and')}, {whose}, and none of {task_id}'s "
        f"({', '.join(own)}): did you choose the wrong file? Hand in your {task_id}.py here, "
        f"and this file as {other}."
    )


@lru_cache(maxsize=8)
def _task_functions(stubs: Tuple[Tuple[str, bytes], ...]) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    """Each task's functions, in its stub's order: those left to write, and those no other stub
    defines; never one every stub defines. A stub that does not parse gives none."""
    parsed = {}
    for task_id, stub in stubs:
        tree = parse_source(stub)
        if tree is not None:
            parsed[task_id] = top_functions(tree)
    everywhere: Set[str] = set.intersection(*(set(f) for f in parsed.values())) if len(parsed) > 1 else set()
    found = []
    for task_id, defined in parsed.items():
        elsewhere = set().union(*(set(f) for other, f in parsed.items() if other != task_id))
        names = tuple(
            name
            for name, body in defined.items()
            if name not in everywhere and (is_left_to_write(body) or name not in elsewhere)
        )
        found.append((task_id, names))
    return tuple(found)


def defined_names(tree: ast.Module) -> FrozenSet[str]:
    """The names the module binds at its top level (in any block there, not inside a function or
    class) with ``def``, ``class`` or an assignment; not those it imports."""
    names: Set[str] = set()
    pending: List[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            pending.extend(node.decorator_list)
            continue
        if isinstance(node, (ast.Lambda, ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        pending.extend(ast.iter_child_nodes(node))
    return frozenset(names)


def _listed(names: Sequence[str], word: str) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {word} {names[-1]}"
