"""The student kit: what students receive, and how ``check`` knows it is grading in one.

``make_kit`` writes into a new folder the exercise stubs, each task's public cases only (a visible
generated case as an ordinary case, its answer computed now by the reference solution; no hidden
case, no solution), the course's own ``checkers.py``, a README for students, the known mistakes of
the public cases (``kit_mistakes``) and the marker file that says the folder is a kit. Everything
is gathered and checked first, written into a folder of its own beside the target, loaded back and
compared with the course's public cases, and only then moved into place: a kit is complete or not
there at all. ``find_kit``, ``kit_info`` and ``portal_note`` are for ``check``: it says, once, that
the portal also runs hidden cases.

In: the course, the target folder, a grading context (to run the reference solutions). Out: a
``KitMade`` saying what was written; a ``UsageError`` (one sentence) when it cannot be, and a
``CaseFileError`` for a case file that does not validate.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Tuple

from grader import __version__
from grader.authoring.kit_mistakes import MISTAKES, mistakes_file, shipped_note, shipped_signatures
from grader.authoring.kit_readme import MARKER, KitTask, readme_text
from grader.authoring.kit_wheel import grader_wheel
from grader.check.registry import GameChecker
from grader.course.files import read_yaml
from grader.course.layout import Course
from grader.course.loader import load_course
from grader.course.reference import with_answers
from grader.errors import GraderError, UsageError
from grader.grade.grading import GradingContext
from grader.model import Task
from grader.safe_text import plural
from grader.submission.files import Kind, read_files

MARKER_BYTES = 64 * 1024  # a marker is a few hundred bytes; a larger one is not read


@dataclass(frozen=True)
class KitMade:
    """What ``make_kit`` wrote: the folder, each task as the kit has it, and notes for the course team."""

    out: Path
    tasks: Tuple[KitTask, ...]
    notes: Tuple[str, ...]
    wheel: Optional[str] = None  # the file name of the grader's wheel in the kit


@dataclass(frozen=True)
class KitInfo:
    """What a kit's marker says: the number of hidden cases of each task (None: it could not be read)."""

    hidden: Optional[Mapping[str, int]]


def make_kit(
    course: Course, out: Path, context: GradingContext, server: Optional[str] = None, wheel: bool = True
) -> KitMade:
    """Write the student kit of ``course`` into ``out``, a folder that is new or empty (see the
    module docstring); ``server`` is the portal's address for the README; ``wheel``: put the grader's
    wheel in (``kit_wheel``), when it can be built."""
    _check_target(out)
    tasks = load_course(course.root)
    if not tasks:
        raise UsageError(f"{course.testcases}: no test case files (*.yaml) in it, so there is no kit to make.")
    files, public, notes = _public_cases(course, tasks, context)
    stubs = _course_files(course.exercises, [f"{task_id}.py" for task_id in tasks], "exercises")
    files.update({f"exercises/{name}": data for name, data in stubs.items()})
    notes += [
        f"{task_id} has no stub (exercises/{task_id}.py) to give." for task_id in tasks if not _has(stubs, task_id)
    ]
    checkers = _course_files(course.root, ["checkers.py"], "the course folder") if _exists(course.checkers_file) else {}
    files.update(checkers)
    made = tuple(
        KitTask(
            id=task_id,
            title=task.title,
            public=len(public[task_id].cases) if task_id in public else 0,
            hidden=sum(case.hidden for case in task.cases),
            stub=_has(stubs, task_id),
            total=task.total is not None,
        )
        for task_id, task in tasks.items()
    )
    built, why = grader_wheel(course, tasks) if wheel else (None, None)
    if built is not None:
        files[built.name] = built.data
    notes += [why] if why else []
    wheel_name = built.name if built is not None else None
    files["README.md"] = readme_text(made, server, bool(checkers), wheel_name).encode("utf-8")
    files[MARKER] = _marker_text(made).encode("utf-8")
    # the known mistakes of the public cases, for the kit's check (``kit_mistakes``: nothing hidden)
    shipped = shipped_signatures(course.root, tasks, public, context)
    notes += [shipped_note(shipped)] if shipped else []
    _write(out, files, public, shipped)
    return KitMade(out=out, tasks=made, notes=tuple(notes), wheel=wheel_name)


def _public_cases(
    course: Course, tasks: Mapping[str, Task], context: GradingContext
) -> Tuple[Dict[str, bytes], Dict[str, Task], List[str]]:
    """Each task's public case file (and the files it names), by path in the kit; each task's public
    cases as the kit must grade them, generated answers filled in; notes on tasks left out."""
    interactive = frozenset(
        name for name in context.checkers.names() if isinstance(context.checkers.get(name), GameChecker)
    )
    # here, not at the top: check reads a kit through this module and never needs the YAML writer
    from grader.authoring.kit_yaml import public_case_file

    files: Dict[str, bytes] = {}
    public: Dict[str, Task] = {}
    notes: List[str] = []
    for task_id, task in tasks.items():
        shown = str(course.case_file(task_id).relative_to(course.root))
        # hidden cases go before any answer is computed: a hidden generated case is never answered
        visible = replace(task, cases=tuple(case for case in task.cases if not case.hidden))
        if not visible.cases:
            notes.append(f"{task_id} has hidden cases only, so the kit has no case file for it.")
            continue
        public[task_id] = with_answers(visible, context)
        text, data = public_case_file(public[task_id], read_yaml(course.case_file(task_id), shown), interactive)
        files[f"testcases/{task_id}.yaml"] = text.encode("utf-8")
        files.update({f"testcases/{name}": content.encode("utf-8") for name, content in data.items()})
    return files, public, notes


def _check_target(out: Path) -> None:
    """``out`` must be a new folder or an empty one: a kit never overwrites anything."""
    if out.is_symlink():
        raise UsageError(f"{out} is a symbolic link; give the kit a new folder of its own.")
    if not out.exists():
        return
    if not out.is_dir():
        raise UsageError(f"{out} is a file, not a folder; give the kit a new folder (or an empty one).")
    try:
        empty = not any(out.iterdir())
    except OSError as error:
        raise UsageError(f"{out} cannot be listed ({error.strerror or error}); give the kit another folder.") from None
    if not empty:
        raise UsageError(
            f"{out} is not empty, and the kit would overwrite what is in it; give the kit a new folder "
            "(or an empty one)."
        )


def _has(stubs: Mapping[str, bytes], task_id: str) -> bool:
    return f"{task_id}.py" in stubs


def _exists(path: Path) -> bool:
    return os.path.lexists(path)


def _course_files(folder: Path, names: Iterable[str], where: str) -> Dict[str, bytes]:
    """The files of ``names`` in ``folder`` that exist, read as regular files of that folder: a link
    (which might lead to a solution) or anything else that is not a file itself stops the kit."""
    if not folder.is_dir():
        return {}
    found = {}
    for name, read in read_files(folder, names, follow_folder=True).items():
        if read.kind is Kind.READ:
            found[name] = read.data
        elif read.kind is not Kind.MISSING:
            raise UsageError(
                f"{folder / name} in {where} is not a regular file of at most 1 MiB (a link, a folder or "
                "something larger), and the kit copies only files themselves, never through a link: "
                "put the file itself there."
            )
    return found


def _marker_text(tasks: Iterable[KitTask]) -> str:
    document = {
        "kit": "nim-grader student kit: public cases only; the portal also runs the hidden ones",
        "grader": __version__,
        "tasks": {task.id: {"public": task.public, "hidden": task.hidden} for task in tasks},
    }
    return json.dumps(document, indent=2) + "\n"


def _write(out: Path, files: Mapping[str, bytes], public: Mapping[str, Task], shipped: Mapping) -> None:
    """Write ``files`` into a new folder beside ``out``, check that it grades ``public`` as the course
    does, add the ``shipped`` known mistakes keyed by its cases as they load back, and move it to
    ``out``; on any failure nothing is left behind."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    except OSError as error:
        raise UsageError(f"cannot make the folder {out} ({error.strerror or error}).") from None
    try:
        os.chmod(staging, 0o755)  # a kit is for sharing: mkdtemp's folders are the owner's alone
        for name, data in files.items():
            path = staging / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        (staging / MISTAKES).write_bytes(mistakes_file(shipped, _same_cases(staging, public)))
        if out.exists():
            out.rmdir()  # empty, as _check_target found it
        os.rename(staging, out)
    except OSError as error:
        raise UsageError(f"cannot write the kit to {out} ({error.strerror or error}).") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _same_cases(folder: Path, public: Mapping[str, Task]) -> Dict[str, Task]:
    """The kit in ``folder`` loads as exactly the course's public cases, with the same settings: its
    tasks as loaded."""
    try:
        kit = load_course(folder)
    except GraderError as error:
        raise GraderError(
            f"the kit's case files do not load ({error}), so no kit was written. This is the grader's fault: "
            "please report it."
        ) from None
    for task_id, task in public.items():
        mine = kit[task_id]
        same = (
            (mine.title, mine.rules, mine.uses_files) == (task.title, task.rules, task.uses_files)
            and (task.total is None or mine.total == task.total)
            and len(mine.cases) == len(task.cases)
            and all(_bare(a) == _bare(b) for a, b in zip(mine.cases, task.cases))
        )
        if not same:
            raise GraderError(
                f"the kit's testcases/{task_id}.yaml does not read back as the course's public cases of "
                f"{task_id}, so no kit was written. This is the grader's fault: please report it."
            )
    return kit


def _bare(case):
    """A case without where it was written (its line, the generator that made it)."""
    return replace(case, line=0, generated=None)


def find_kit(start: Path) -> Optional[Path]:
    """The kit that ``start`` is in: ``start`` or the nearest folder above it holding the marker."""
    try:
        start = start.resolve()
    except OSError:
        return None
    for folder in (start, *start.parents):
        if _exists(folder / MARKER) and Course(folder).is_course():
            return folder
    return None


def kit_info(root: Path) -> Optional[KitInfo]:
    """What the marker of the kit ``root`` says; None when ``root`` is not a kit. A marker that cannot
    be read (a link, junk, too large) still makes a kit, whose hidden cases are not counted."""
    marker = root / MARKER
    if not _exists(marker):
        return None
    try:
        if not stat.S_ISREG(os.lstat(marker).st_mode) or os.lstat(marker).st_size > MARKER_BYTES:
            return KitInfo(hidden=None)
        tasks = json.loads(marker.read_text(encoding="utf-8"))["tasks"]
        hidden = {str(task_id): int(counts["hidden"]) for task_id, counts in tasks.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return KitInfo(hidden=None)
    return KitInfo(hidden=hidden if all(count >= 0 for count in hidden.values()) else None)


def portal_note(info: KitInfo, task_ids: Iterable[str]) -> str:
    """The sentence ``check`` says once in a kit: the portal also runs hidden cases, and how many."""
    ids = list(dict.fromkeys(task_ids))
    these = "this task" if len(ids) == 1 else "these tasks"
    if info.hidden is None or any(task_id not in info.hidden for task_id in ids):
        return "Public cases only: the portal also runs hidden cases, and your marks are the portal's."
    count = sum(info.hidden[task_id] for task_id in ids)
    if not count:
        have = "has" if len(ids) == 1 else "have"
        return f"Public cases only: {these} {have} no hidden cases on the portal, and your marks are the portal's."
    cases = plural(count, "hidden case")
    return f"Public cases only: the portal also runs {cases} of {these}, and your marks are the portal's."
