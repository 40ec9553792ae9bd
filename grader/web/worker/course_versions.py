"""The published versions of a course: copies of its folder that the portal grades against.

In: the portal's versions folder (``DATA/course-versions``) and a course folder (the one instructors
edit, ``--course``). Out: the live version (``live``: the newest one published from that folder),
what is waiting in the folder (``waiting``: the tasks whose files differ from the live version's),
and ``stage`` / ``commit``, the two halves of a publish (``publishing`` runs ``verify`` between).

A version is ``N/`` (the course's files the grader reads: ``testcases/``, ``solutions/``,
``exercises/``, ``checkers.py``; regular files only, copied, never through a link that leads out
of the course folder) and ``N.json`` beside it, its record: the number, when, by whom, from which
folder, the tasks it changed and the digest of each task's files. The record is written last, so a
version without one (a publish cut short) is never live. Both are made only this user may read
(0700, 0600) and never changed after; an older version stays, so a grading that started on it
finishes on it. Publishing holds an ``flock`` on ``.lock``: two at once (the site and the command)
take turns, and each compares with the version live when its turn came.

A task's digest covers its own files (``testcases/T.yaml``, ``testcases/T/``, ``solutions/T.py``,
``solutions/wrong/T/``, ``exercises/T.py``), those of the tasks it uses, and every file that is no
task's own (``checkers.py``, a shared data file): a change to those changes every task.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

from grader.errors import UsageError

PARTS = ("testcases", "solutions", "exercises")  # the folders of a course the grader reads
CHECKERS = "checkers.py"
_NUMBERED = re.compile(r"^([1-9][0-9]*)\.json$")
_CASE_FILE = re.compile(r"testcases/[^/]+\.yaml")
_SKIPPED = {"__pycache__"}  # Python's, not the course's


@dataclass(frozen=True)
class Version:
    """One published version: its number, folder, record fields."""

    number: int
    root: Path
    published_at: str  # ISO 8601, UTC
    by: str
    source: str  # the course folder it was published from
    changed: Dict[str, str] = field(default_factory=dict)  # task id -> "changed" | "added" | "removed"
    digests: Dict[str, str] = field(default_factory=dict)  # task id -> digest of its files


def course_files(root: Path) -> Dict[str, Path]:
    """The course's files the grader reads, by path relative to ``root`` ("testcases/a.yaml").
    ``UsageError`` naming a link that leads out of the folder, or anything not a regular file."""
    found: Dict[str, Path] = {}
    top = root.resolve()
    candidates = [root / CHECKERS] if os.path.lexists(root / CHECKERS) else []
    for part in PARTS:
        for folder, names, files in os.walk(root / part):  # (links to folders are not walked into)
            names[:] = sorted(name for name in names if name not in _SKIPPED)
            for name in names:
                if (Path(folder) / name).is_symlink():
                    candidates.append(Path(folder) / name)
            candidates += [Path(folder) / name for name in sorted(files)]
    for path in candidates:
        relative = path.relative_to(root).as_posix()
        target = path.resolve()
        if path.is_symlink() and not target.is_relative_to(top):
            raise UsageError(
                f"{path} is a link to {target}, outside the course folder: a published course holds the "
                "course's own files only. Copy the file into the folder instead of linking to it."
            )
        if not target.is_file():
            if target.is_dir():  # a link to a folder inside the course: its files are there already
                continue
            raise UsageError(f"{path} is not a regular file: remove it from the course folder, then publish.")
        found[relative] = target
    return found


def _own(relative: str, task_id: str) -> bool:
    """Is the file at ``relative`` one of ``task_id``'s own (see the module docstring)?"""
    return relative in (f"testcases/{task_id}.yaml", f"solutions/{task_id}.py", f"exercises/{task_id}.py") or any(
        relative.startswith(prefix) for prefix in (f"testcases/{task_id}/", f"solutions/wrong/{task_id}/")
    )


def task_ids(files: Mapping[str, Path]) -> List[str]:
    """The course's task ids: the names of its case files (``testcases/T.yaml``), sorted."""
    return sorted(name[len("testcases/") : -len(".yaml")] for name in files if _CASE_FILE.fullmatch(name))


def task_digests(files: Mapping[str, Path], uses: Mapping[str, Sequence[str]]) -> Dict[str, str]:
    """Each task's digest (module docstring); ``uses``: the tasks each one imports (none if absent)."""
    ids = task_ids(files)
    sums = {relative: hashlib.sha256(path.read_bytes()).hexdigest() for relative, path in files.items()}
    shared = [relative for relative in sums if not any(_own(relative, task_id) for task_id in ids)]
    digests = {}
    for task_id in ids:
        covered = {task_id, *(used for used in uses.get(task_id, ()) if used in ids)}
        mine = [relative for relative in sums if any(_own(relative, one) for one in covered)]
        listing = "\n".join(f"{relative}\0{sums[relative]}" for relative in sorted({*mine, *shared}))
        digests[task_id] = hashlib.sha256(listing.encode("utf-8", "surrogateescape")).hexdigest()
    return digests


def differences(now: Mapping[str, str], live: Mapping[str, str]) -> Dict[str, str]:
    """The tasks whose digests differ between ``now`` and ``live``: "changed", "added" or "removed"."""
    said = {task: "added" if task not in live else "changed" for task in now if now[task] != live.get(task)}
    said.update({task: "removed" for task in live if task not in now})
    return dict(sorted(said.items()))


def records(folder: Path) -> Iterator[Version]:
    """Every version with a record in ``folder``, the newest first."""
    try:
        numbers = sorted((int(m.group(1)) for m in map(_NUMBERED.match, os.listdir(folder)) if m), reverse=True)
    except FileNotFoundError:
        return
    for number in numbers:
        version = _read(folder, number)
        if version is not None:
            yield version


_READ: Dict[Tuple[str, int], Version] = {}  # records are never changed: each is read once


def _read(folder: Path, number: int) -> Optional[Version]:
    key = (str(folder), number)
    if key not in _READ:
        try:
            said = json.loads((folder / f"{number}.json").read_text(encoding="utf-8"))
            _READ[key] = Version(
                number,
                folder / str(number),
                said["published_at"],
                said["by"],
                said["source"],
                said["changed"],
                said["digests"],
            )
        except (OSError, ValueError, KeyError, TypeError):  # not one of ours: never live
            return None
    return _READ[key]


def live(folder: Path, source: Path) -> Optional[Version]:
    """The live version of the course folder ``source``: the newest published from it (None: none)."""
    return next((v for v in records(folder) if v.source == str(source.resolve())), None)


def waiting(folder: Path, source: Path, uses: Mapping[str, Sequence[str]]) -> Dict[str, str]:
    """The tasks of ``source`` whose files differ from its live version's (all "added" when none is)."""
    version = live(folder, source)
    return differences(task_digests(course_files(source), uses), version.digests if version else {})


class Lock:
    """The versions folder's ``flock`` (publishes take turns), the folder made first (0700)."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.descriptor = os.open(folder / ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)

    def __enter__(self) -> Lock:
        fcntl.flock(self.descriptor, fcntl.LOCK_EX)
        return self

    def __exit__(self, *_) -> None:
        fcntl.flock(self.descriptor, fcntl.LOCK_UN)
        os.close(self.descriptor)


def stage(folder: Path, source: Path) -> Path:
    """A copy of ``source``'s course files in a new private folder of ``folder`` (``discard`` it, or
    ``commit`` it). ``UsageError`` for a file that cannot be published."""
    files = course_files(source)
    staged = Path(tempfile.mkdtemp(prefix=".staging-", dir=folder))
    try:
        for relative, path in files.items():
            target = staged / relative
            target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with (
                open(path, "rb") as reading,
                open(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as out,
            ):
                shutil.copyfileobj(reading, out)
    except BaseException:
        discard(staged)
        raise
    return staged


def discard(staged: Path) -> None:
    shutil.rmtree(staged, ignore_errors=True)


def commit(
    folder: Path, staged: Path, source: Path, by: str, when: str, changed: Mapping[str, str], digests: Mapping[str, str]
) -> Version:
    """``staged`` made the next version of ``folder`` (the caller holds ``Lock``), its record written last."""
    number = 1 + max((v.number for v in records(folder)), default=0)
    while (folder / str(number)).exists() or (folder / f"{number}.json").exists():  # a publish cut short
        number += 1
    os.rename(staged, folder / str(number))
    record = {
        "number": number,
        "published_at": when,
        "by": by,
        "source": str(source.resolve()),
        "changed": dict(changed),
        "digests": dict(digests),
    }
    partial = folder / f".{number}.json.part"
    with open(
        os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600), "w", encoding="utf-8"
    ) as out:
        json.dump(record, out, indent=1, sort_keys=True)
        out.flush()
        os.fsync(out.fileno())
    os.rename(partial, folder / f"{number}.json")
    version = _read(folder, number)
    assert version is not None  # (just written)
    return version
