"""What the importers of other judges' formats share: the result, the notes, reading and checking.

An importer (``import_cms``, ``import_kattis``) reads one folder and returns an ``ImportResult``:
the text of a complete ``testcases/<task>.yaml`` (see ``docs/testcases.md``) and one sentence in
``notes`` for each thing the other judge does and this grader cannot (a custom checker, subtask
scoring, a time limit computed from the judges' solutions, ...), so that nothing is dropped
silently. Here: that value, ``Notes`` to collect the sentences, and the helpers both importers use
to check the folder, name the task, read its files, and carry limits over. Every problem with the
folder is a ``UsageError`` of one sentence naming the file. No importer writes files: the caller
(the command line) decides where the text goes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from grader.course.files import read_yaml
from grader.course.limits import DEFAULT_LIMITS
from grader.errors import CaseFileError, UsageError
from grader.marks import plain_number


@dataclass(frozen=True)
class ImportResult:
    """One imported task: its id, the YAML text, how many cases, and what was not carried over."""

    task_id: str  # the task id the YAML is for
    yaml_text: str  # a complete testcases/<task>.yaml, with a header comment saying where it came from
    cases: int  # how many cases
    notes: Tuple[str, ...]  # one sentence per thing that could not be carried over


class Notes:
    """Notes in the order they were found, each once."""

    def __init__(self) -> None:
        self.items: List[str] = []

    def add(self, sentence: str) -> None:
        if sentence not in self.items:
            self.items.append(sentence)


def package_folder(folder: Path, kind: str, marker: str) -> Path:
    """The folder, checked: it exists, is a folder and holds ``marker`` (task.yaml, problem.yaml)."""
    folder = Path(folder)
    if not folder.exists():
        raise UsageError(f"{folder}: no such folder (expected a {kind} with {marker} in it).")
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder (expected a {kind} with {marker} in it).")
    if not (folder / marker).is_file():
        raise UsageError(f"{folder / marker}: no such file, so {folder} is not a {kind}.")
    return folder


def task_id_for(folder: Path, given: Optional[str]) -> str:
    """``given`` (checked), or the folder's name lower-cased with other characters than a-z, 0-9, _ as _."""
    if given is not None:
        if not given.isidentifier():
            raise UsageError(
                f"task id {given!r}: a task id is a Python name such as nim_sum (letters, digits and _, "
                "not starting with a digit)."
            )
        return given
    name = re.sub(r"[^a-z0-9_]", "_", folder.resolve().name.lower())
    if not name or name[0].isdigit():
        name = f"task_{name}"
    return name


def read_mapping(path: Path) -> Dict[str, Any]:
    """A YAML file that must hold a mapping (an empty file is an empty mapping)."""
    try:
        data = read_yaml(path, str(path))
    except CaseFileError as error:
        raise UsageError(f"{str(error).rstrip('.')}.") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UsageError(f"{path}: the file must be a mapping (key: value lines), not {type(data).__name__}.")
    return dict(data)


def read_text(path: Path) -> Optional[str]:
    """The file as UTF-8 text, or None when it is not UTF-8."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UsageError(f"{path}: cannot read the file ({error.strerror or error}).") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def yaml_number(value: Any) -> Optional[float]:
    """A YAML number (not true/false), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def positive_limit(value: Any, path: Path, key: str, unit: str) -> float:
    """A limit from a file: a finite number more than 0, or a UsageError naming the file and key."""
    number = yaml_number(value)
    if number is None or not 0 < number < math.inf:
        raise UsageError(f"{path}: '{key}' must be a number of {unit} more than 0, not {value!r}.")
    return number


def carried_memory_limit(value: float, where: str, meaning: str, notes: Notes) -> Optional[int]:
    """The ``memory_limit`` to write for another judge's memory limit of ``value`` MiB, or None for
    the grader's default; either way a note says what the limit meant there and what it means here.

    The numbers do not measure the same thing: the other judge counts the whole process, the
    interpreter included, where ours is what the program may use beyond the interpreter's own
    start. Copying a small number (the 2018 lab's CMS tasks give 10 MiB) would set a bound nobody
    chose, so the number is kept only when it is above the grader's default (rounded up to whole MiB).
    """
    default = DEFAULT_LIMITS.memory_mib
    kept = math.ceil(value) if value > default else None
    outcome = (
        f"the default of {default} MiB applies"
        if kept is None
        else f"memory_limit is {kept} MiB, as the source allows more than the default of {default} MiB"
    )
    notes.add(
        f"The memory limit of {plain_number(value)} MiB ({where}) was not carried over as a number: "
        f"there it is {meaning}, "
        "while here memory_limit is the memory a program may use beyond what the Python interpreter takes to "
        f"start, so {outcome}."
    )
    return kept


def listing(names: Sequence[str], limit: int = 5) -> str:
    """The first ``limit`` names, comma-separated, and how many more there are (``a, b and 3 more``)."""
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def files_in(folder: Path) -> List[str]:
    """Names of the files anywhere under ``folder``, relative to its parent (``check/checker``)."""
    if not folder.is_dir():
        return []
    return sorted(str(p.relative_to(folder.parent)) for p in folder.rglob("*") if p.is_file())


def no_cases_error(where: Path, found: int, notes: Notes) -> UsageError:
    """The error when none of the ``found`` cases could be imported, with the first reason noted."""
    skipped = [note for note in notes.items if "skipped" in note]
    reason = f" ({skipped[0].rstrip('.')})" if skipped else ""
    return UsageError(f"{where}: none of the {found} test cases could be imported{reason}.")
