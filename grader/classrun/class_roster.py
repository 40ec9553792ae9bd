"""The class list ``grade --roster`` reads, and how it matches the class folder.

In: a CSV file as ``users import`` reads it (a header naming at least ``username`` and ``role``,
``student``, ``ta`` or ``instructor``; ``name``, ``email`` and any other column are not needed here), and
the names of the students found in the class folder. Out: the students of the roster in the file's
order (``read_roster``: instructors and TAs left out), then who is on the roster with no folder (graded as
having handed nothing in, so their zero is in the gradebook) and which folders are not on the
roster (graded all the same, and said) (``match_roster``). A roster name and a folder are one
student when a person or a case-insensitive disk takes them for one (``export_names.same_key``:
``Zed`` and ``zed``). A roster that cannot be used is a sentence naming its line, never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Sequence, Tuple

from grader.course.roster_file import ROLES, roster_rows
from grader.errors import UsageError
from grader.report.export_names import folder_key, on_every_disk, same_key
from grader.safe_text import for_terminal


@dataclass(frozen=True)
class RosterStudent:
    """A student of the roster: their username, and the line of the file that names them."""

    name: str
    line: int


@dataclass(frozen=True)
class RosterMatch:
    """The roster against the class folder: students on it with no folder (in the roster's order),
    and the class folder's students who are not on it (in the folder's order)."""

    absent: Tuple[str, ...]
    unlisted: Tuple[str, ...]


def read_roster(path: Path) -> Tuple[RosterStudent, ...]:
    """The students of the roster at ``path`` (see the module); a ``UsageError`` saying what is wrong."""
    shown = for_terminal(str(path))
    rows = roster_rows(path, f"--roster {shown}")
    students: List[RosterStudent] = []
    seen: Dict[str, RosterStudent] = {}
    for line, row in rows:
        name, role = row.get("username", ""), row.get("role", "").lower()
        if not name:
            raise UsageError(f"--roster {shown}, line {line}: the username is empty.")
        if role not in ROLES:
            raise UsageError(
                f"--roster {shown}, line {line}: the role must be student, ta or instructor, not {role!r}."
            )
        if role != "student":
            continue
        earlier = seen.get(same_key(name))
        if earlier is not None:
            raise UsageError(
                f"--roster {shown}, line {line}: {for_terminal(name)} is the student of line {earlier.line} "
                f"({for_terminal(earlier.name)}) again; name each student once."
            )
        student = RosterStudent(name, line)
        seen[same_key(name)] = student
        students.append(student)
    return tuple(students)


def match_roster(
    roster: Sequence[RosterStudent], graded: Sequence[str], folders: Iterable[str], reserved: Iterable[str]
) -> RosterMatch:
    """``roster`` against the class folder's students (``graded``, their names) whose output folders
    are ``folders``; ``reserved``: the class's own files in the output. A student on the roster with
    no folder gets their name as their output folder, so a name no disk can hold as one, or one
    another's folder or a class file already is, is a ``UsageError`` naming its line."""
    listed = {same_key(student.name) for student in roster}
    found = {same_key(name) for name in graded}
    taken = {folder_key(name) for name in [*folders, *reserved]}
    absent = []
    for student in roster:
        if same_key(student.name) in found:
            continue
        why = on_every_disk(student.name) or (
            "it names a folder of the output already" if folder_key(student.name) in taken else ""
        )
        if not why and any(sep in student.name for sep in "/\\"):
            why = "a folder name holds no / or \\"
        if why:
            raise UsageError(
                f"--roster, line {student.line}: {for_terminal(student.name)} has no folder in the class "
                f"folder and cannot be given one in the output ({why}); "
                "rename them in the roster, or give them a folder."
            )
        absent.append(student.name)
    unlisted = tuple(name for name in graded if same_key(name) not in listed)
    return RosterMatch(absent=tuple(absent), unlisted=unlisted)
