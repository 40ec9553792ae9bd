"""The course the portal grades against: the live published version of ``GRADER_COURSE``
(``publishing``), loaded again when another version goes live, never when a file of the folder
instructors edit changes (an edit waits until it is published).

In: the live version's files (the course folder itself while it has no version: the portal
publishes it as it is at its first load, ``publishing.first_version``). Out: its tasks by id
(``course_tasks``) and its folder (``course``). A version that does not load (a checkers.py that
fails on this machine) keeps the last good course served and graded; the problem, with its file,
line and what is wrong, is kept beside it for ``/teach/`` (``course_problem``) and written once to
the error log. When the course never loaded in this process, ``course_tasks`` raises
``CourseUnavailable`` (the API answers a JSON 503, the pages a plain 503 page: ``failures``). The
tasks come in the handout's order (``course.handout``, as the loader lists them); a task's
statement (``exercise_statement``) is read from its stub.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from django.apps import apps
from django.conf import settings

from grader.course import handout
from grader.course.layout import Course
from grader.course.loader import load_course
from grader.errors import CaseFileError, GraderError
from grader.grade.result_key import digest
from grader.model import Task

log = logging.getLogger("grader.web.course")


class CourseUnavailable(GraderError):
    """The course has not loaded once in this process: nothing can be listed or graded."""


@dataclass(frozen=True)
class CourseProblem:
    """Why the course's files stopped loading: the file, the line (None when unknown), what is
    wrong, and when the portal first saw it (UTC)."""

    file: str
    line: Optional[int]
    what: str
    seen_at: datetime

    def sentence(self) -> str:
        where = f"{self.file}, line {self.line}" if self.line else self.file
        return f"{where}: {self.what}"


@dataclass(frozen=True)
class _Held:
    """What this process holds: the stamp last read, the last good tasks (None: never loaded) and
    the problem of the stamp last read (None: it loaded)."""

    stamp: Tuple
    tasks: Optional[Dict[str, Task]]
    problem: Optional[CourseProblem]
    root: Path  # the folder ``tasks`` were loaded from: a version's, or the course folder while none is
    version: Optional[int] = None


def course() -> Course:
    """The folder of the course being graded: the live version's (the course folder while none is)."""
    return Course(_held().root)


def editable() -> Course:
    """The course folder instructors edit (``--course``)."""
    return Course(Path(settings.GRADER_COURSE))


def loaded_from(tasks) -> Optional[Path]:
    """The folder ``tasks`` (a mapping ``course_tasks`` gave) was loaded from, while it is the one held."""
    held = getattr(apps.get_app_config("portal"), "held_course", None)
    return held.root if held is not None and held.tasks is tasks else None


def _stamp(layout: Course) -> Tuple:
    """What changes when a file the course's tasks and their grading are made of changes: the case
    files and the files they name (``testcases/``), the reference solutions that answer generated
    cases and the known-wrong ones (``solutions/``), the stubs (``exercises/``), ``checkers.py``."""
    files = [layout.checkers_file]
    for folder in (layout.testcases, layout.solutions, layout.exercises):
        for root, folders, names in os.walk(folder):
            folders[:] = sorted(name for name in folders if name != "__pycache__")  # Python's, not the course's
            files += [Path(root) / name for name in sorted(names)]
    stamp = []
    for path in files:
        try:
            found = path.stat()
        except OSError:  # gone between the listing and now: as if it never was
            continue
        stamp.append((str(path), found.st_mtime_ns, found.st_size))
    return tuple(stamp)


def _problem(error: BaseException, root: Path) -> CourseProblem:
    """The problem a failed load raised, in the words of the loader (file and line when it said them)."""
    now = datetime.now(timezone.utc)
    if isinstance(error, CaseFileError):
        return CourseProblem(str(error.path), error.line, error.what, now)
    if isinstance(error, GraderError):
        return CourseProblem(str(root), None, str(error), now)
    # not the instructor's wording: the grader's own failure, with its traceback in the error log
    return CourseProblem(str(root), None, f"the course could not be loaded ({type(error).__name__}: {error})", now)


def _live() -> Tuple[Optional[int], Path, Optional[BaseException]]:
    """(the live version's number, its folder), published first when there is none; (None, the course
    folder, why) when there is none and the folder cannot be published as it is."""
    from grader.web.worker import publishing

    try:
        version = publishing.first_version()
    except (Exception, SystemExit, KeyboardInterrupt) as error:  # the folder does not load: said by the caller
        return None, editable().root, error
    assert version is not None
    return version.number, version.root, None


def _held() -> _Held:
    """The course of the live version: loaded again when another version went live since the last read."""
    config = apps.get_app_config("portal")
    previous: Optional[_Held] = getattr(config, "held_course", None)
    from grader.web.worker import publishing

    current = publishing.live()
    if current is not None:
        stamp: Tuple = ("version", str(current.root))
    else:  # no version: the folder published at its first load, tried again only when it changes
        stamp = ("folder", str(editable().root), _stamp(editable()))
    if previous is not None and previous.stamp == stamp:
        return previous
    number, root, failed = (current.number, current.root, None) if current is not None else _live()
    if number is not None and current is None:
        stamp = ("version", str(root))
    try:
        if failed is not None:
            raise failed
        tasks = load_course(root)
        held = _Held(stamp, tasks, None, root, number)
    # SystemExit and KeyboardInterrupt too: the course's checkers.py is code, and sys.exit() in it
    # must not end the thread serving the request
    except (Exception, SystemExit, KeyboardInterrupt) as error:  # the last good course stays, the problem is said
        problem = _problem(error, editable().root)
        traceback = not isinstance(error, GraderError)
        log.error("the course stopped loading: %s", problem.sentence(), exc_info=error if traceback else None)
        if previous is not None and previous.tasks is not None:
            held = _Held(stamp, previous.tasks, problem, previous.root, previous.version)
        else:
            held = _Held(stamp, None, problem, root, number)
    else:
        if previous is not None and previous.problem is not None:
            log.warning("the course loads again (%d tasks)", len(tasks))
        if previous is not None and previous.version != number and number is not None:
            log.info("grading against version %d of the course from now on (%d tasks)", number, len(tasks))
    config.held_course = held
    return held


def course_tasks() -> Dict[str, Task]:
    """The course's tasks by id: the files as they are now, or the last good course while they do
    not load; ``CourseUnavailable`` when they never loaded here."""
    held = _held()
    if held.tasks is None:
        problem = held.problem
        raise CourseUnavailable(
            f"the course cannot be loaded, so nothing can be handed in or graded until it is fixed: "
            f"{problem.sentence() if problem else 'no reason was given'}."
        )
    return held.tasks


def course_problem() -> Optional[CourseProblem]:
    """Why the course's files do not load now (the last good course is served meanwhile), or None."""
    return _held().problem


def cases_fingerprint(task: Task) -> str:
    """The task a submission is graded against, its generated cases answered: every field of it and
    of its cases (``result_key.digest``), so a regrade after any change to it gets a new one."""
    return digest(task)


def live_version() -> Optional[int]:
    """The number of the version being graded (None: none is published)."""
    return _held().version


def exercise_statement(task_id: str) -> str:
    """The module docstring of a task's stub (``exercises/<task>.py``): the exercise as the handout
    states it, or "" when there is no stub or it has none (``course.handout``)."""
    return handout.exercise_statement(course(), task_id)


def handout_order(tasks: Dict[str, Task]) -> List[Task]:
    """``tasks`` in the handout's order (``course.handout``; ``course_tasks()`` is in it already)."""
    return [tasks[task_id] for task_id in handout.handout_order(course(), tasks)]
