"""Which entries of a class folder are students, under what name, and why the others are not.

Every entry is accounted for: a folder is a student (hidden ones and ``...`` too); a symbolic link
is a student whose work cannot be read (their reports say why, and the link is never followed);
what cannot be a student (a file, ``__MACOSX``, a name that would overwrite the class's own files)
is skipped with a sentence that the class run prints. Never silently.

A student's name, as every output shows it and as their folder in ``--out`` is called, is the
folder's name with anything a terminal would act on escaped (``safe_text.for_terminal``).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Dict, Iterable, List, Tuple

from grader.errors import UsageError
from grader.safe_text import for_terminal

# Folders that archives and tools leave in a class folder: never a student's work.
_NOT_STUDENTS = MappingProxyType(
    {
        "__MACOSX": "macOS's resource forks from a zip file",
        ".git": "Git's own folder",
        ".hg": "Mercurial's own folder",
        ".svn": "Subversion's own folder",
    }
)


@dataclass(frozen=True)
class StudentFolder:
    """One student: their folder as on disk (``path``) and their ``name`` as every output shows it."""

    path: Path
    name: str


@dataclass(frozen=True)
class ClassFolder:
    """The students of a class folder, by name, and a sentence for every entry that is not graded."""

    students: Tuple[StudentFolder, ...]
    skipped: Tuple[str, ...]


def _kind(mode: int) -> str:
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a folder"


def scan_class(class_dir: Path, reserved: Iterable[str]) -> ClassFolder:
    """The students of ``class_dir`` and what was skipped there, each with the reason.

    ``reserved`` are the names of the class's own files in the output folder: a student folder by
    one of those names (in any letter case, as macOS compares names) would overwrite one, so it
    is skipped. Links are not followed; a link is a student whose files will be refused.
    """
    taken = {name.casefold() for name in reserved}
    students: Dict[str, StudentFolder] = {}
    skipped: List[str] = []
    try:
        with os.scandir(class_dir) as entries:
            found = sorted(entries, key=lambda entry: entry.name)
    except OSError as error:
        raise UsageError(f"{for_terminal(str(class_dir))}: cannot be listed ({error.strerror or error}).") from None
    for entry in found:
        name = for_terminal(entry.name)
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except OSError as error:
            skipped.append(f"{name}: skipped, it could not be examined ({error.strerror or error}).")
            continue
        if not (stat.S_ISDIR(mode) or stat.S_ISLNK(mode)):
            skipped.append(f"{name}: skipped, it is {_kind(mode)}, not a student folder (one folder per student).")
        elif entry.name in _NOT_STUDENTS and stat.S_ISDIR(mode):
            skipped.append(f"{name}: skipped, it is {_NOT_STUDENTS[entry.name]}, not a student's work.")
        elif name in ("", ".", "..") or any(sep and sep in name for sep in ("/", os.sep, os.altsep)):
            skipped.append(f"{name}: skipped, this name cannot be a folder in the output: rename the folder.")
        elif name.casefold() in taken:
            skipped.append(
                f"{name}: skipped, a student folder by this name would overwrite the class's own file "
                f"{name} in the output: rename the folder (e.g. {name}-student) and grade again."
            )
        elif name in students:
            skipped.append(
                f"{name}: skipped, the folders {ascii(entry.name)} and {ascii(students[name].path.name)} show "
                "the same name once characters a terminal would act on are escaped: rename one of them."
            )
        else:
            students[name] = StudentFolder(path=Path(entry.path), name=name)
    return ClassFolder(students=tuple(sorted(students.values(), key=lambda s: s.name)), skipped=tuple(skipped))
