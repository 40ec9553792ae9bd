"""The checkers a course grades with: the Nim lab's, plus those the course's own ``checkers.py`` adds.

In: a course folder. Out: a fresh ``CheckerRegistry``. A broken ``checkers.py`` is the instructor's
file, so its failure is a ``CaseFileError`` naming it, not a crash of the grader.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from grader.check.registry import CheckerRegistry
from grader.course.layout import Course
from grader.errors import CaseFileError
from grader.nim.lab import lab_checkers


def course_checkers(course: Path) -> CheckerRegistry:
    """The Nim lab's checkers (``nim.lab``) plus those a course registers in ``<course>/checkers.py``.

    That file defines ``register(registry)``, which calls ``registry.register(name, function)``.
    """
    registry = lab_checkers()
    extra = Course(course).checkers_file
    if not extra.is_file():
        return registry
    spec = importlib.util.spec_from_file_location("course_checkers", extra)
    assert spec is not None and spec.loader is not None  # a .py file's spec, with its source loader
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        module.register(registry)
    except Exception as error:  # an instructor's file: report it as theirs, not as our crash
        raise CaseFileError(
            str(extra), None, f"could not register the course's checkers: {type(error).__name__}: {error}"
        ) from None
    return registry
