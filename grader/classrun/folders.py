"""Which entries of a class folder are students, under what names, and why the others are not.

Every entry is accounted for: a folder is a student (hidden ones and ``...`` too); a symbolic link
is a student whose work cannot be read (their reports say why, and the link is never followed);
what cannot be a student (a file, ``__MACOSX``) is skipped with a sentence that the class run
prints. Never silently.

Each student gets two names, each the same on every run for the same class folder:
- ``name``, as every output shows them (the gradebook, the overview, JUnit, the terminal): the
  folder's name with anything a terminal would act on escaped (``safe_text.for_terminal``). Two
  folders that would show as one (``a\\x01b`` and a folder named with the control character) or be
  one cell of a spreadsheet (``=x`` and ``'=x``, once a formula is defused) are told apart by ``~2``
  on the name of the one that does not show as itself.
- ``folder``, their folder in the output: their name, unless some disk would take it for another's
  or could not hold it (``export_names``: ``Bob`` beside ``bob``, ``ｂｏｂ``, ``Straße`` beside
  ``STRASSE``, a class file's name as ``Index.html``, ``con``, ``a:b``, a name over 255 bytes once
  escaped). Then it is a plain form with ``~2``, ``~3`` (the first in code point order keeps its
  own), and a sentence for each such student names both folders; ``students.csv`` in the output
  says whose each such folder is.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Dict, Iterable, List, Tuple

from grader.errors import UsageError
from grader.report.export_names import WINDOWS_REFUSES, distinct_names, folder_key, is_device, on_every_disk
from grader.safe_text import for_spreadsheet, for_terminal

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
    """One student: their folder as on disk (``path``), their ``name`` as every output shows it, and
    their ``folder`` in the output (see the module)."""

    path: Path
    name: str
    folder: str


@dataclass(frozen=True)
class ClassFolder:
    """The students of a class folder, by name; a sentence for every entry that is not graded, and
    one for every student whose folder in the output, or name, is not their own."""

    students: Tuple[StudentFolder, ...]
    skipped: Tuple[str, ...]
    renamed: Tuple[str, ...] = ()


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

    ``reserved`` are the names of the class's own files in the output folder: no student's folder
    is one of them on any disk (``Index.html`` is ``index.html`` on macOS). Links are not followed;
    a link is a student whose files will be refused.
    """
    found: List[Tuple[str, Path]] = []
    skipped: List[str] = []
    try:
        with os.scandir(class_dir) as entries:
            listed = sorted(entries, key=lambda entry: entry.name)
    except OSError as error:
        raise UsageError(f"{for_terminal(str(class_dir))}: cannot be listed ({error.strerror or error}).") from None
    for entry in listed:
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
        else:
            found.append((entry.name, Path(entry.path)))
    students, renamed = _named(found, tuple(reserved))
    return ClassFolder(students=students, skipped=tuple(skipped), renamed=renamed)


def _cell(name: str) -> str:
    """How a spreadsheet, a terminal and JUnit's XML show a name (XML holds no U+FFFE or U+FFFF:
    ``exports.junit_suites`` writes U+FFFD): two names with one are one student to a reader."""
    return for_spreadsheet(for_terminal(name)).replace("\ufffe", "\ufffd").replace("\uffff", "\ufffd")


def _folder_key(folder: str) -> str:
    """Two folders with one key are one on some disk, or one cell of ``students.csv``."""
    return folder_key(_cell(folder))


def _plain(shown: str) -> str:
    """A folder name every disk holds, made from a name that cannot be its own folder."""
    plain = "".join("_" if c in WINDOWS_REFUSES else c for c in shown)
    return "_" + plain if set(plain) <= {"."} or is_device(plain) else plain


def _quoted(entry: str) -> str:
    """An entry's name as a sentence names it: with its code points when they are not plain ASCII."""
    if entry.isascii() and entry.isprintable():
        return repr(entry)
    shown = for_terminal(entry)
    return ascii(entry) if shown != entry else f"'{shown}' ({ascii(entry)})"


def _named(
    found: List[Tuple[str, Path]], reserved: Tuple[str, ...]
) -> Tuple[Tuple[StudentFolder, ...], Tuple[str, ...]]:
    """Each student (entry name, path) with their name and folder (see the module), sorted by name,
    and a sentence for each whose name or folder is not their own."""
    shown = {entry: for_terminal(entry) for entry, _ in found}
    # who keeps a name first: the names that show as themselves, then in code point order
    order = sorted(shown, key=lambda entry: (_cell(entry) != entry, entry))
    names = distinct_names(((e, shown[e], shown[e]) for e in order), key=_cell, most_bytes=None)
    folders = distinct_names(
        ((e, None if on_every_disk(shown[e]) else shown[e], _plain(shown[e])) for e in order),
        key=_folder_key,
        reserved=reserved,
    )
    # who kept each name and each folder key as their own, and the class file of each key
    keepers = (
        {_cell(n): e for e, n in names.items() if n == shown[e]},
        {_folder_key(f): e for e, f in folders.items() if f == shown[e]},
        {_folder_key(file): file for file in reserved},
    )
    said = tuple(_why(entry, names[entry], folders[entry], keepers) for entry in sorted(shown))
    students = (StudentFolder(path=path, name=names[entry], folder=folders[entry]) for entry, path in found)
    return tuple(sorted(students, key=lambda s: s.name)), tuple(line for line in said if line)


def _why(entry: str, name: str, folder: str, keepers: Tuple[Dict[str, str], ...]) -> str:
    """The sentence for the student of the folder ``entry`` whose ``name`` or output ``folder`` is
    not their own (naming the folder that kept it: ``keepers``, by ``_cell`` of a name, by
    ``_folder_key`` of a folder, and the class's files by theirs), or "" when both are."""
    own = for_terminal(entry)
    named_by, kept_by, class_files = keepers
    parts = []
    if name != own:
        parts.append(
            f"graded as {name} in the gradebook and every list{' and as its folder' if folder == name else ''}: "
            f"the folders {_quoted(entry)} and {_quoted(named_by.get(_cell(own), ''))} show as one name once what "
            "a terminal or a spreadsheet would act on is escaped"
        )
    if folder not in (own, name):
        key = _folder_key(own)
        kept = kept_by.get(key, "")
        if key in class_files:
            why = f"a folder by its own name would be, or look like, the class's own file {class_files[key]}"
        elif on_every_disk(own):
            why = f"its own name cannot be a folder on every disk: {on_every_disk(own)}"
        elif folder_key(own) == folder_key(for_terminal(kept)):
            why = (
                f"the folders {_quoted(entry)} and {_quoted(kept)} would be one folder on macOS or Windows, or look "
                "like one to a person (letter case, accents written two ways, wide letters, ligatures), and "
                f"{for_terminal(kept)} comes first"
            )
        else:
            why = f"the folders {_quoted(entry)} and {_quoted(kept)} would be one cell of students.csv"
        parts.append(f"its reports are in the folder {folder} of the output: {why}")
    return f"{own}: {'; '.join(parts)}." if parts else ""
