"""Case results kept on disk, by the content of everything that decides them.

A case's result depends on the submission (and the files it imports), on the case itself, on the
course's own checkers, on the interpreter and on the grader. ``case_key`` hashes exactly those, so
a result found under its key is the result a new run would give: a class run after one case was
added runs only that case, and a run that was stopped goes on where it stopped.

The store is one SQLite file: each result is committed as it arrives, so an interrupted run loses
at most the results in flight, and a half-written file cannot be read as a result.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Dict, Iterable, Mapping, Optional, Tuple

from grader import __version__
from grader.course.layout import Course
from grader.model import Case, CaseResult, Task, Verdict
from grader.report.records import case_from_record, kept_case_record

# Bump when the stored form changes, so old stores are read as empty rather than misread.
_FORMAT = 4  # 4: a case's kept record (``report.records``)


def grader_fingerprint() -> str:
    """The grader's version and the hash of its own source: a changed grader is a new grader."""
    digest = hashlib.sha256(f"{__version__}/{_FORMAT}".encode())
    package = Path(__file__).resolve().parents[1]  # the whole grader, every stage
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def run_fingerprint(python_version: str, course: Optional[Path]) -> str:
    """What every case of a run shares: the grader, the interpreter, the course's own checkers."""
    checkers = b""
    if course is not None and Course(Path(course)).checkers_file.is_file():
        checkers = Course(Path(course)).checkers_file.read_bytes()
    parts = [grader_fingerprint(), python_version, hashlib.sha256(checkers).hexdigest()]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def submission_fingerprint(task: Task, files: Mapping[str, bytes]) -> str:
    """The submission as run: the task's file and each file it imports (or that it is missing)."""
    digest = hashlib.sha256(task.id.encode())
    for name in (f"{task.id}.py", *(f"{module}.py" for module in task.uses_files)):
        content = files.get(name)
        digest.update(b"\0" + name.encode() + (b"\1" + content if content is not None else b"\2"))
    return digest.hexdigest()


def case_fingerprint(case: Case) -> str:
    """Everything that decides a case, hashed; its line in its file does not count (moving it is no
    change). Worked out once per grading: a case's input and answers may be megabytes."""
    return hashlib.sha256(repr(replace(case, line=0)).encode()).hexdigest()


def case_key(run: str, submission: str, case: str) -> str:
    """The key of one case's result: the run's, the submission's and the case's fingerprints."""
    return hashlib.sha256("\0".join((run, submission, case)).encode()).hexdigest()


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


class ResultCache:
    """A store of case results by ``case_key``, in one SQLite file (created when missing).

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

    def known(self, keyed: Iterable[Tuple[str, Case]]) -> Dict[str, CaseResult]:
        """The stored results of the (key, case) pairs that have one, by case name."""
        found: Dict[str, CaseResult] = {}
        for key, case in keyed:
            row = self._db.execute("SELECT result FROM results WHERE key = ?", (key,)).fetchone()
            if row is not None:
                try:
                    found[case.name] = _decode(case, row[0])
                except (ValueError, KeyError, TypeError, zlib.error):
                    continue  # an unreadable entry is run again, and replaced
        return found

    def store(self, keyed: Iterable[Tuple[str, CaseResult]]) -> None:
        """Keep these results under their keys, committed at once."""
        rows = [(key, _encode(result)) for key, result in keyed]
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

    def known(self, keyed: Iterable[Tuple[str, Case]]) -> Dict[str, CaseResult]:
        return {}

    def store(self, keyed: Iterable[Tuple[str, CaseResult]]) -> None:
        self.cache.store(keyed)
