"""The key of a task's graded results: a digest of everything that decides them, made by construction.

In: what grading is given (the task, every field of it and of its cases, limits, rules and hints; the
student's files as read, ``FileRead``; the name they are shown by; the grading context's settings)
and what the context stands for: the grader's own source, the interpreter (its version, build,
place and installed distributions), the course's ``checkers.py``, the task's stub, the runner's
protections. Out: hex digests: ``run_key`` of ``run_parts`` (what every task of a grading shares),
``task_digest`` (one task), ``result_key`` (one student's results of one task).

``canonical`` serializes a value of the types it knows, and a dataclass field by field
(``dataclasses.fields``), recursively; it raises ``TypeError`` on any other type. So a field added
to ``Case``, ``Task``, ``Limits`` or ``GradingContext`` later is in the key without anyone listing
it, and a field of a type the key cannot read stops grading with a sentence instead of being left
out. The only fields left out are in ``NOT_DECIDING``, each with why it decides no result.

Results are kept per task, not per case: a case's result depends on the task's other cases in the
same grading (the hint chosen once earlier cases were accepted, the cases ``not_run`` after two
time-outs, a rule broken at run time in one case that counts for all, the shrinking budget they
share, how its runs were arranged), so a task's results are reused all together or not at all.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import hashlib
import subprocess
from collections import abc
from pathlib import Path, PurePath
from typing import Callable, Dict, Mapping, Optional, Sequence

from grader import __version__
from grader.course.layout import Course
from grader.grade.grading import GradingContext
from grader.model import Case, Task
from grader.submission.files import FileRead

# Bump when what goes into a key changes meaning, so that no old key is matched by chance.
_FORMAT = 1

# The only fields the key leaves out, by class: each decides no result (why, beside it). Leaving out
# a field that does decide one would reuse a stale result, so nothing goes here without a reason.
NOT_DECIDING: Dict[type, Dict[str, str]] = {
    Case: {"line": "where the case is written in its file: named in authors' messages, never in a result"},
    Task: {"source": "the path its file was read by: named in authors' messages, never in a result"},
    GradingContext: {
        "checkers": "the course's checkers.py and the grader's source are in the key instead (run_key)",
        "runner": "the protections it gives are in the key instead (run_key)",
        "course": "what grading reads from it is in the key instead: the tasks, checkers.py, the stub",
        "jobs": "how many programs run at once",
        "case_jobs": "how many cases of a file run at once",
    },
}

Feed = Callable[[bytes], None]


def canonical(value) -> bytes:
    """``value`` as bytes that differ whenever the value does (type included: 1, 1.0, True and "1"
    are four values); ``TypeError`` for a type it does not know."""
    parts: list = []
    _feed(parts.append, value)
    return b"".join(parts)


def digest(*values) -> str:
    """The SHA-256 of the values' ``canonical`` forms, without building them whole (a case's input
    may be megabytes)."""
    sha = hashlib.sha256()
    _feed(sha.update, values)
    return sha.hexdigest()


def _text(feed: Feed, tag: bytes, data: bytes) -> None:
    feed(tag + str(len(data)).encode() + b":")
    feed(data)


def _feed(feed: Feed, value) -> None:
    """Feed ``value``'s canonical form to ``feed``: a tag for its type, then its content."""
    kind = type(value)
    if value is None:
        feed(b"N")
    elif kind is bool:
        feed(b"T" if value else b"F")
    elif isinstance(value, enum.Enum):  # before str and int: Verdict is a str, an IntEnum an int
        _text(feed, b"E", f"{kind.__module__}.{kind.__qualname__}".encode())
        _feed(feed, value.value)
    elif kind is int:
        _text(feed, b"i", str(value).encode())
    elif kind is float:
        _text(feed, b"f", value.hex().encode())  # exact, and -0.0 is not 0.0
    elif kind is str:
        _text(feed, b"s", value.encode("utf-8", "surrogatepass"))
    elif kind is bytes:
        _text(feed, b"b", value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        _fields(feed, value)
    elif isinstance(value, abc.Mapping):
        entries = sorted((canonical(key), canonical(item)) for key, item in value.items())
        _sequence(feed, b"{", [key + item for key, item in entries])
    elif kind in (tuple, list):
        feed(b"(" if kind is tuple else b"[")
        feed(str(len(value)).encode() + b":")
        for item in value:
            _feed(feed, item)
        feed(b")")
    elif kind in (set, frozenset):
        _sequence(feed, b"<", sorted(canonical(item) for item in value))
    elif isinstance(value, PurePath):
        _text(feed, b"p", str(value).encode("utf-8", "surrogateescape"))
    elif kind in (datetime.date, datetime.datetime, datetime.time):  # YAML reads dates as these
        _text(feed, b"d", f"{kind.__name__}:{value.isoformat()}".encode())
    else:
        raise TypeError(
            f"the results cache cannot key a value of type {kind.__module__}.{kind.__qualname__} ({value!r:.80}): "
            "say in grader/grade/result_key.py (canonical) how it is written, or results would be reused "
            "without it deciding them"
        )


def _sequence(feed: Feed, tag: bytes, items: Sequence[bytes]) -> None:
    feed(tag + str(len(items)).encode() + b":")
    for item in items:
        feed(item)
    feed(b">")


def _fields(feed: Feed, value) -> None:
    """A dataclass: its class, then every field by name (but those ``NOT_DECIDING`` leaves out)."""
    kind = type(value)
    left_out = NOT_DECIDING.get(kind, {})
    _text(feed, b"D", f"{kind.__module__}.{kind.__qualname__}".encode())
    for found in dataclasses.fields(value):
        if found.name not in left_out:
            _text(feed, b".", found.name.encode())
            _feed(feed, getattr(value, found.name))
    feed(b"}")


def grader_fingerprint(package: Optional[Path] = None) -> str:
    """The grader's version and the hash of its own source, every ``.py`` file under ``package``
    (default: the installed grader, every stage) with its path: a changed grader is a new grader."""
    package = package or Path(__file__).resolve().parents[1]
    sha = hashlib.sha256(f"{__version__}/{_FORMAT}".encode())
    for path in sorted(package.rglob("*.py")):
        sha.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return sha.hexdigest()


# Run by the interpreter under test: what decides how it runs a program besides the program.
_IDENTITY = r"""
import os, sys
print(sys.version); print(sys.implementation.cache_tag); print(os.path.realpath(sys.executable))
print(sys.prefix); print(sys.base_prefix)
for folder in sys.path:
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            if name.endswith((".dist-info", ".egg-info", ".egg-link", ".pth")):
                print(os.path.join(folder, name))
"""


def interpreter_identity(python: str) -> str:
    """What decides how the interpreter ``python`` runs a program, as text: its full version and
    build, where it is, and the distributions and ``.pth`` files on its path (a package installed
    or upgraded is another interpreter). "" when it cannot be run (grading then says why)."""
    try:
        done = subprocess.run([python, "-I", "-c", _IDENTITY], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout if done.returncode == 0 else ""


def _file(path: Path) -> Optional[bytes]:
    """The bytes of ``path``, or None when there is none to read."""
    try:
        return path.read_bytes()
    except OSError:
        return None


def run_parts(context: GradingContext, interpreter: str) -> Dict[str, str]:
    """What every task of a grading with ``context`` shares, each part digested apart, by what it is
    in words: the grader's source, the interpreter (``interpreter_identity``), the course's
    ``checkers.py``, the protections of the runner for that interpreter, and every setting of the
    context (``NOT_DECIDING`` but), its interpreter's path among them."""
    checkers = _file(Course(context.course).checkers_file) if context.course is not None else None
    return {
        "grader source": grader_fingerprint(),
        "interpreter and its installed packages": digest(interpreter),
        "course checkers.py": digest(checkers),
        "protections": digest(context.runner.protections(context.python)),
        "grading settings": digest(context),
    }


def run_key(parts: Mapping[str, str]) -> str:
    """The key of ``run_parts``: what every task of the grading shares."""
    return digest(_FORMAT, dict(parts))


def task_digest(task: Task, context: GradingContext) -> str:
    """One task as graded: every field (its generated cases' answers filled in first), and its stub,
    the exercise file a hand-in is compared with."""
    stub = _file(Course(context.course).exercise(task.id)) if context.course is not None else None
    return digest(task, stub)


def result_key(run: str, task: str, main: FileRead, companions: Sequence[FileRead], shown: str) -> str:
    """The key of one hand-in's results on one task: the run's and the task's digests, the files
    as read (the task's file and each it may import: bytes, or why there are none) and the name
    they are shown by (it is in tracebacks and messages: two students' identical files are not
    one result)."""
    return digest(run, task, main, tuple(companions), shown)


def case_key(result: str, case_name: str) -> str:
    """Where one case's result is kept under its task's ``result_key``."""
    return digest(result, case_name)
