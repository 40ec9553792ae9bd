"""The signatures of a course's known mistakes, made once and kept on disk.

In: a course folder and its tasks (and, to make missing ones, a ``GradingContext``). Out: each
task's ``MistakeSignature`` values (``grade/mistakes/known_mistakes.py`` says what one is and how a result
matches it), by task id.

A signature comes from grading a known-wrong solution of ``solutions/wrong/<task>/`` on the task's
visible cases only, as ``verify`` grades it (``grade_beside_reference``, at full strength). Only
files whose header declares ``wrong_answer`` or ``presentation_error`` are graded for one: a file
that crashes, runs out of time or breaks a rule first has no wrong output to be known by, and the
other verdicts' sentences already say what went wrong. ``verify`` makes them from the runs it does
anyway (``signatures_of_runs``) and stores them; ``grade`` makes those still missing at its start;
``check`` only reads them (``stored_signatures``), so a student's check never grades a known-wrong
file and costs only a few file reads more.

They are kept as one JSON file per task in ``cache_folder()`` (``$XDG_CACHE_HOME/nim-grader/
mistakes``, else ``~/.cache/nim-grader/mistakes``), named by ``task_fingerprint``: the grader's own
fingerprint, the task (every field of it and of its cases: ``result_key.digest``), the reference
solutions, the stub, every file of ``solutions/wrong/<task>/`` and the course's checkers. A change
to any of them is a new name, so a stale file is never read (the interpreter is not in it: a
signature names a mistake, it never decides a mark);
the file holds digests of the known-wrong solutions' outputs on visible cases, never a hidden
case's anything.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from grader.authoring.verify import (
    full_strength,
    grade_beside_reference,
    signatures_of_runs,
    signed,
    wrong_solutions,
)
from grader.course import reference
from grader.course.layout import Course
from grader.grade.grading import GradingContext
from grader.grade.mistakes.known_mistakes import MistakeSignature
from grader.grade.result_key import digest, grader_fingerprint
from grader.model import Task

Signatures = Dict[str, Tuple[MistakeSignature, ...]]
_FORMAT = 2  # bump when the stored form changes: old files are then not found (2: the whole task keyed)
MAX_BYTES = 4_000_000  # far above a course's signatures (digests and sentences): anything larger is not ours


def cache_folder() -> Path:
    """Where signatures are kept: ``$XDG_CACHE_HOME/nim-grader/mistakes`` or ``~/.cache/...``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "nim-grader" / "mistakes"


def task_fingerprint(course: Path, task: Task, grader: Optional[str] = None) -> str:
    """Everything that decides a task's signatures, hashed (see the module docstring); ``grader``:
    ``grader_fingerprint()`` when the caller has it already."""
    layout = Course(course)
    sha = hashlib.sha256(f"{_FORMAT}\0{grader or grader_fingerprint()}\0{task.id}".encode())
    # the task as a whole, every field of it and of its cases, by construction (``result_key.digest``)
    sha.update(b"\0task\0" + digest(task).encode())
    wrong = layout.wrong(task.id)
    files = [layout.solution(name) for name in (task.id, *task.uses_files)] + [layout.checkers_file]
    files.append(layout.exercise(task.id))
    files += sorted(wrong.glob("*.py")) if wrong.is_dir() else []
    for path in files:
        sha.update(b"\0file\0" + path.name.encode() + b"\0" + _bytes(path))
    return sha.hexdigest()


def _bytes(path: Path) -> bytes:
    try:
        return b"\1" + path.read_bytes()
    except OSError:
        return b"\2"  # missing: a file added later changes the fingerprint


def visible_only(task: Task) -> Task:
    """``task`` with its visible cases only: a signature is made of nothing else."""
    return replace(task, cases=tuple(c for c in task.cases if not c.hidden))


def stored_signatures(course: Path, tasks: Sequence[Task], folder: Optional[Path] = None) -> Signatures:
    """The signatures kept for ``tasks`` whose fingerprint still holds (others are left out)."""
    folder = folder or cache_folder()
    grader = grader_fingerprint()
    found: Signatures = {}
    for task in tasks:
        stored = _read(folder / f"{task.id}-{task_fingerprint(course, task, grader)}.json")
        if stored is not None:
            found[task.id] = stored
    return found


def course_signatures(
    course: Path,
    tasks: Sequence[Task],
    context: GradingContext,
    folder: Optional[Path] = None,
    said: Optional[Callable[[str], None]] = None,
) -> Signatures:
    """The signatures of every task of ``tasks``: those kept, and the missing ones made and kept
    (``said`` gets a sentence before each is made: it grades the task's known-wrong solutions)."""
    folder = folder or cache_folder()
    grader = grader_fingerprint()
    found: Signatures = {}
    for task in tasks:
        path = folder / f"{task.id}-{task_fingerprint(course, task, grader)}.json"
        stored = _read(path)
        if stored is None:
            if said is not None:
                said(
                    f"{task.id}: grading its known-wrong solutions once, to recognise their mistakes "
                    "(kept until the course changes; verify does it too)"
                )
            stored = _made(course, task, context)
            store(path, stored)
        found[task.id] = stored
    return found


def store_signatures(
    course: Path, made: Iterable[Tuple[Task, Tuple[MistakeSignature, ...]]], folder: Optional[Path] = None
) -> None:
    """Keep signatures made elsewhere (``verify``: each task with its signatures) under the tasks'
    fingerprints."""
    folder = folder or cache_folder()
    grader = grader_fingerprint()
    for task, signatures in made:
        store(folder / f"{task.id}-{task_fingerprint(course, task, grader)}.json", signatures)


def _made(course: Path, task: Task, context: GradingContext) -> Tuple[MistakeSignature, ...]:
    strong = full_strength(context)
    shown = reference.answered(visible_only(task), strong)
    runs = [
        (w, grade_beside_reference(shown, w.path, course, strong))
        for w in wrong_solutions(course, task.id)
        if signed(w)
    ]
    return signatures_of_runs(runs)


def store(path: Path, signatures: Sequence[MistakeSignature]) -> None:
    """Write ``signatures`` to ``path`` atomically; a folder that cannot be written is skipped (the
    signatures are made again next time, nothing is lost)."""
    data = signature_data(signatures)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out, ensure_ascii=False)
        os.replace(temporary, path)
    except OSError:
        return


def signature_data(signatures: Sequence[MistakeSignature]) -> list:
    """``signatures`` as the JSON-ready data they are kept as (``signatures_from`` reads it back)."""
    return [
        {
            "label": s.label,
            "student": s.student_text,
            "instructor": s.instructor_text,
            "cases": [list(c) for c in s.cases],
        }
        for s in signatures
    ]


def signatures_from(data) -> Tuple[MistakeSignature, ...]:
    """The signatures ``signature_data`` made ``data`` of; KeyError, TypeError or ValueError for
    data of any other shape."""
    found: List[MistakeSignature] = []
    for item in data:
        cases = tuple((str(a), str(b), str(c)) for a, b, c in item["cases"])
        found.append(MistakeSignature(str(item["label"]), str(item["student"]), str(item["instructor"]), cases))
    return tuple(found)


def _read(path: Path) -> Optional[Tuple[MistakeSignature, ...]]:
    """The signatures in ``path``; None when it is missing or cannot be read as signatures (not a
    regular file, larger than ``MAX_BYTES``, nested too deep, any other shape): made again then."""
    try:
        return signatures_from(json.loads(regular_file_text(path)))
    except (OSError, ValueError, KeyError, TypeError, RecursionError, MemoryError):
        return None


def regular_file_text(path: Path) -> str:
    """The text of ``path`` when it is a regular file of at most ``MAX_BYTES`` (never waits on a pipe
    or device planted in its place: opened without blocking, checked on the open descriptor)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(descriptor, "rb") as opened:
        status = os.fstat(opened.fileno())
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_BYTES:
            raise ValueError(f"{path} is not a signature file")
        return opened.read(MAX_BYTES + 1).decode("utf-8")
