"""The grader as a wheel for the student kit: students install it from the kit, never from a clone
of the course's repository (which holds the hidden cases and the reference solutions).

``grader_wheel`` builds the wheel from the grader's own source (``pyproject.toml`` and ``grader/``
beside it), copied first into a folder of its own so the build writes nothing into the checkout, with
``pip wheel --no-deps --no-build-isolation --no-index`` on this interpreter's setuptools (no download).
The wheel is then opened and searched: a path under ``testcases/``, ``solutions/`` or ``exercises/``,
a file holding the whole text of one of the course's files (of 40 characters or more), or a hidden
case's name (of two words or more, but for the grader's own numbered ``hidden case N``) stops the kit.
Where no wheel can be built (the grader is installed rather than run from its source, or setuptools
cannot build one here) it says why, and the kit is written without one.

In: the course and its tasks. Out: a ``Wheel`` (its file name and bytes) or None and the sentence
why there is none; a ``UsageError`` when the wheel would carry something of the course.
"""

from __future__ import annotations

import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Dict, Iterator, List, Mapping, Optional, Tuple

from grader.authoring.added_names import numbered_only
from grader.course.layout import Course
from grader.errors import UsageError
from grader.model import Task

SOURCE = Path(__file__).resolve().parents[2]  # the folder holding pyproject.toml and grader/, when run from source
COURSE_FOLDERS = ("testcases", "solutions", "exercises")
SOURCE_FILES = ("pyproject.toml", "README.md", "setup.py", "setup.cfg", "MANIFEST.in", "LICENSE")
SHORTEST_COURSE_TEXT = 40  # characters: a course file shorter than this may be in any program by chance
BUILD_SECONDS = 300


@dataclass(frozen=True)
class Wheel:
    """A built wheel: its file name (``nim_grader-0.1.0-py3-none-any.whl``) and its bytes."""

    name: str
    data: bytes


_BUILT: Dict[str, Wheel] = {}  # by the fingerprint of the source: one build per process and source


def grader_wheel(course: Course, tasks: Mapping[str, Task]) -> Tuple[Optional[Wheel], Optional[str]]:
    """The grader's wheel, checked to hold nothing of ``course``; or None and why none was built."""
    if not (SOURCE / "pyproject.toml").is_file() or not (SOURCE / "grader" / "__init__.py").is_file():
        return None, (
            "The grader here is installed, not run from its source (no pyproject.toml beside grader/), so "
            "the kit has no wheel of it: its README tells students to install the grader as you say. Make "
            "the kit from the grader's source to put the wheel in, or pass --no-wheel to say so."
        )
    try:
        wheel = _built(SOURCE)
    except _NoWheel as error:
        return None, (
            f"No wheel of the grader could be built here ({error}), so the kit has none: its README tells "
            "students to install the grader as you say. Install setuptools and wheel (python3 -m pip "
            "install setuptools wheel) and make the kit again to put it in, or pass --no-wheel to say so."
        )
    found = course_material(wheel, course, tasks)
    if found:
        raise UsageError(
            f"The grader's wheel for the kit would carry {found[0]}{_more(len(found) - 1)}, and students "
            "must get nothing of the course but its stubs and public cases: so no kit was written. Keep "
            "course files out of grader/ (and rename a hidden case whose name the grader's files hold), "
            "or pass --no-wheel and give students the grader another way."
        )
    return wheel, None


class _NoWheel(Exception):
    """The build did not give a wheel; ``str`` says why, briefly."""


def _built(source: Path) -> Wheel:
    """The wheel of the grader in ``source``, built from a copy of it (once per process and source)."""
    with tempfile.TemporaryDirectory(prefix="nim-grader-wheel-") as work:
        copy = Path(work) / "source"
        copy.mkdir()
        for name in SOURCE_FILES:
            if (source / name).is_file():
                shutil.copyfile(source / name, copy / name)
        shutil.copytree(source / "grader", copy / "grader", ignore=shutil.ignore_patterns("__pycache__", "*.py[co]"))
        fingerprint = _fingerprint(copy)
        if fingerprint not in _BUILT:
            _BUILT[fingerprint] = _pip_wheel(copy, Path(work) / "wheel")
        return _BUILT[fingerprint]


def _fingerprint(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _pip_wheel(source: Path, out: Path) -> Wheel:
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index"]
    command += ["--disable-pip-version-check", "--quiet", "--wheel-dir", str(out), str(source)]
    env = {**os.environ, "PIP_NO_INPUT": "1"}
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_SECONDS, env=env, cwd=source)
    except subprocess.TimeoutExpired:
        raise _NoWheel(f"pip wheel took over {BUILD_SECONDS} seconds") from None
    except OSError as error:
        raise _NoWheel(f"pip could not be run: {error.strerror or error}") from None
    wheels = sorted(out.glob("*.whl")) if out.is_dir() else []
    if done.returncode != 0 or len(wheels) != 1:
        raise _NoWheel(f"pip wheel: {_last_error(done.stderr + done.stdout)}")
    return Wheel(name=wheels[0].name, data=wheels[0].read_bytes())


def _last_error(output: str) -> str:
    """The line of pip's output that says what went wrong (``error: invalid command 'bdist_wheel'``)."""
    lines = [line.strip(" │╰─>×") for line in output.splitlines()]
    lines = [line for line in lines if line]
    said = [line for line in lines if "error" in line.lower() and "subprocess-exited-with-error" not in line]
    return (said or lines or ["it failed and said nothing"])[0][:200]


def course_material(wheel: Wheel, course: Course, tasks: Mapping[str, Task]) -> List[str]:
    """What of ``course`` the wheel holds, each as a phrase: a file under a course folder, a file
    holding a course file's whole text, a file holding a hidden case's name."""
    hidden = sorted({(case.name, task_id) for task_id, task in tasks.items() for case in task.cases if _telling(case)})
    texts = dict(_course_texts(course))
    found = []
    try:
        archive = zipfile.ZipFile(io.BytesIO(wheel.data))
    except zipfile.BadZipFile:
        return ["a file that is not a wheel (it cannot be opened as a zip file)"]
    with archive:
        for info in archive.infolist():
            name = info.filename
            if set(PurePosixPath(name).parts) & set(COURSE_FOLDERS):
                found.append(f"{name}, a file of a course folder")
                continue
            text = archive.read(info).decode("utf-8", "replace")
            copied = next((shown for shown, content in texts.items() if content in text), None)
            named = next(((case, task_id) for case, task_id in hidden if case in text), None)
            if copied:
                found.append(f"{name}, which holds the text of the course's {copied}")
            elif named:
                found.append(f"{name}, which holds the name of {named[1]}'s hidden case '{named[0]}'")
    return found


def _telling(case) -> bool:
    """A hidden case's name worth searching for: one of two words or more (a one-word name, such as
    ``secret`` or ``empty``, is in any program by chance), and not one of the grader's own numbered
    names (``hidden case 3``, what ``add-case --hidden`` names a case: the grader's source holds
    those words, and they say nothing of the course)."""
    return case.hidden and len(case.name.split()) >= 2 and not numbered_only(case.name)


def _course_texts(course: Course) -> Iterator[Tuple[str, str]]:
    """Each regular file of the course's folders (no link followed), by its path in the course, as its
    stripped text, when that is long enough to mean something."""
    for folder in COURSE_FOLDERS:
        top = course.root / folder
        if not top.is_dir() or top.is_symlink():
            continue
        for where, folders, names in os.walk(top):
            folders[:] = [name for name in folders if name != "__pycache__"]
            for name in names:
                path = Path(where, name)
                try:
                    if path.is_symlink() or not path.is_file() or path.suffix in (".pyc", ".pyo"):
                        continue
                    text = path.read_bytes().decode("utf-8", "replace").strip()
                except OSError:
                    continue
                if len(text) >= SHORTEST_COURSE_TEXT:
                    yield path.relative_to(course.root).as_posix(), text


def _more(count: int) -> str:
    return "" if not count else f" (and {count} more of its files like it)"
