"""A task's case results kept on disk, under the key of everything that decides them.

The key (``grade/result_key.py``) is made by construction from what grading is given: every field of
the task and its cases, the student's files as read and the name they are shown by, the grading
context's settings, the grader's source, the interpreter, the course's ``checkers.py`` and the
task's stub, the protections in force. A task's results are found all together or not at all:
a case's result depends on the task's other cases in the same grading, so a task is graded whole,
as a fresh run would grade it. A class run after a change to a task grades that task again, and a
run that was stopped goes on where it stopped.

The store is one SQLite file: each task's results are committed together as they arrive, so an
interrupted run loses at most the results in flight, and a half-written file cannot be read as a
result.
"""

from __future__ import annotations

import json
import os
import sqlite3
import zlib
from pathlib import Path
from typing import Dict, Sequence

from grader.grade.result_key import case_key
from grader.model import Case, CaseResult, Verdict
from grader.report.records import case_from_record, kept_case_record

# Bump when the stored form changes, so old stores are read as empty rather than misread.
_FORMAT = 5  # 5: a task's results under one key (``result_key``); 4: a case's kept record


# A kept case record's texts, in the order their bytes follow the JSON line.
_TEXTS = ("actual", "stderr", "expected")


def _encode(result: CaseResult) -> bytes:
    """A result as one compressed entry: a JSON line, then the record's texts as UTF-8.

    The JSON line holds ``{"record": ..., "lengths": [...], "same": ...}``: the case's kept record
    (``records.kept_case_record``, the task record's fields for the case and what the cache needs
    besides) without its texts, then the byte length of each text. The texts (outputs of megabytes)
    stay out of the JSON: escaping them cost more than all the rest of storing a result. The
    expected answer, when it is the output itself, is kept once (``same``).
    """
    record = kept_case_record(result)
    texts = [record.pop(name).encode("utf-8", "surrogatepass") for name in _TEXTS]
    same = result.expected == result.actual
    if same:
        texts[2] = b""
    header = json.dumps({"record": record, "lengths": [len(text) for text in texts], "same": same})
    # The fastest level: a right output of megabytes is stored for every student.
    return zlib.compress(header.encode("ascii") + b"\n" + b"".join(texts), 1)


def _decode(case: Case, stored: bytes) -> CaseResult:
    """The result of ``case`` an entry of ``_encode`` holds; ValueError (or KeyError, TypeError,
    zlib.error) when the entry is not one."""
    entry = zlib.decompress(stored)
    line_end = entry.index(b"\n")  # JSON text (ensure_ascii) holds no raw line break
    data = json.loads(entry[:line_end])
    record, texts, at = dict(data["record"]), [], line_end + 1
    for length in data["lengths"]:
        texts.append(entry[at : at + length].decode("utf-8", "surrogatepass"))
        at += length
    if len(texts) != len(_TEXTS) or at != len(entry):
        raise ValueError("a stored result's texts do not add up")
    Verdict(record["verdict"])  # ValueError: the record reader would make it a runtime error, not run it again
    if data["same"]:
        texts[2] = texts[0]
    record.update(zip(_TEXTS, texts))
    return case_from_record(record, case)


# SQLite's side files: it creates them with the mode of the database file itself.
_SIDE_FILES = ("-wal", "-shm", "-journal")


def _private(path: Path) -> None:
    """Create ``path`` readable by its owner only (0600), or make an existing cache and its side
    files so: the cache holds every case's expected answer, hidden ones included."""
    os.close(os.open(str(path), os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600))
    for name in (path, *(path.with_name(path.name + side) for side in _SIDE_FILES)):
        try:
            if os.stat(name).st_mode & 0o077:
                os.chmod(name, 0o600)
        except OSError:
            continue  # gone, or another user's file: nothing this run can change


def entry_key(key: str, case_name: str) -> str:
    """Where the result of the case ``case_name`` is kept among its task's results under ``key``."""
    return f"{_FORMAT}:{case_key(key, case_name)}"


class ResultCache:
    """A store of tasks' case results by ``result_key``, in one SQLite file (created when missing).

    Only the thread that opened it may use it; the class run keeps it in its main thread.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        _private(path)
        self._db = sqlite3.connect(str(path))
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, result BLOB NOT NULL)")
            self._db.commit()
        except sqlite3.DatabaseError:
            self._db.close()
            raise

    def known(self, key: str, cases: Sequence[Case]) -> Dict[str, CaseResult]:
        """The results of ``cases`` (a task's, every one) kept under ``key`` (a ``result_key``), by
        case name; {} unless every one is there and readable: a task is graded whole or not at all."""
        found: Dict[str, CaseResult] = {}
        for case in cases:
            row = self._db.execute("SELECT result FROM results WHERE key = ?", (entry_key(key, case.name),)).fetchone()
            if row is None:
                return {}
            try:
                found[case.name] = _decode(case, row[0])
            except (ValueError, KeyError, TypeError, zlib.error):
                return {}  # an unreadable entry: the task is graded again, and replaced
        return found

    def store(self, key: str, results: Sequence[CaseResult]) -> None:
        """Keep ``results`` (a task's, every one) under ``key``, committed together."""
        rows = [(entry_key(key, result.case.name), _encode(result)) for result in results]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO results (key, result) VALUES (?, ?)", rows)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResultCache:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class FreshCache:
    """A cache that knows nothing but keeps what it is given: grading everything again, refilling it."""

    def __init__(self, cache: ResultCache) -> None:
        self.cache = cache

    def known(self, key: str, cases: Sequence[Case]) -> Dict[str, CaseResult]:
        return {}

    def store(self, key: str, results: Sequence[CaseResult]) -> None:
        self.cache.store(key, results)
