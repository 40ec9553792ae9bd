"""The course the portal grades against, loaded from ``GRADER_COURSE`` and read again when its
case files change (an instructor edits a case, then regrades)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Dict, Tuple

from django.apps import apps
from django.conf import settings

from grader.course.layout import Course
from grader.course.loader import load_course
from grader.model import Task


def course() -> Course:
    return Course(Path(settings.GRADER_COURSE))


def _stamp(layout: Course) -> Tuple:
    """What changes when a case file or the course's checkers change."""
    files = [*layout.case_files(), layout.checkers_file]
    return tuple((str(p), p.stat().st_mtime_ns, p.stat().st_size) for p in files if p.exists())


def course_tasks() -> Dict[str, Task]:
    """The course's tasks by id, loaded once per change of its files (kept on the app's config)."""
    config = apps.get_app_config("portal")
    layout = course()
    stamp = _stamp(layout)
    held = getattr(config, "held_course", None)
    if held is None or held[0] != stamp:
        held = (stamp, load_course(layout.root))
        config.held_course = held
    return held[1]


def cases_fingerprint(task: Task) -> str:
    """The case set a submission is graded against (a regrade after a change gets a new one)."""
    return hashlib.sha256(repr(task.cases).encode()).hexdigest()
