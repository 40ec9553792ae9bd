"""Test case files (``testcases/<task>.yaml``) → ``Task`` values, validated.

Everything is checked before anything is graded: unknown keys, wrong types, a missing
``expected``, an unknown checker or option, duplicate names, bad rules. Each problem is raised as a
``CaseFileError`` naming the file, the line and the key. In: a case file or a course folder, and the
checkers (``course_checkers``). Out: a ``Task``, or every task of the course by id. The checks
themselves are in ``task_validation`` and ``case_validation``. A course's tasks come in the
handout's order (``handout``: by the number on each stub's first docstring line), the order every
list of them shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, Optional

from grader.check.registry import CheckerRegistry
from grader.course.course_checkers import course_checkers
from grader.course.files import read_yaml
from grader.course.handout import handout_order
from grader.course.layout import Course
from grader.course.task_validation import TaskValidator
from grader.model import Task


def load_task(
    path: Path, checkers: CheckerRegistry, shown: Optional[str] = None, course: Optional[Path] = None
) -> Task:
    """Load and validate one ``testcases/<task>.yaml``; raises ``CaseFileError``.

    ``course`` is the folder the files that cases name must be in (default: the folder that holds
    ``testcases/``, or the YAML file's own folder when that is not named testcases).
    """
    shown = shown or str(path)
    if course is None:
        course = Course.of_case_file(path).root
    return TaskValidator(path, shown, checkers, course).task(read_yaml(path, shown))


def load_course(course: Path) -> Dict[str, Task]:
    """Every task of a course folder (``<course>/testcases/*.yaml``), by task id, in the handout's
    order (``handout.handout_order``)."""
    checkers = course_checkers(course)
    tasks = {}
    for path in Course(course).case_files():
        shown = str(path.relative_to(course)) if path.is_relative_to(course) else str(path)
        tasks[path.stem] = load_task(path, checkers, shown, course)
    return {task_id: tasks[task_id] for task_id in handout_order(Course(course), tasks)}
