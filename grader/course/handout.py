"""The handout's order of a course's tasks: the one order every list of the course shows.

In: a course folder (``Course``) and its task ids. Out: each task's statement (the module docstring
of its stub, ``exercises/<task>.py``), the number the handout gives it ("Exercise 6 of the Nim lab:
..." on that docstring's first line), and the ids in the handout's order: by that number, the tasks
without one after them in task id order. ``loader.load_course`` lists its tasks in this order, so
the portal's pages and API, ``grade``'s exports and the student kit all follow it.
"""

from __future__ import annotations

import ast
import re
from typing import Iterable, List, Optional

from grader.course.layout import Course
from grader.submission.syntax_tree import parsed

NUMBERED = re.compile(r"\s*Exercise\s+(\d+)\b")


def exercise_statement(course: Course, task_id: str) -> str:
    """The module docstring of a task's stub: the exercise as the handout states it, or "" when
    there is no stub, it is not Python, or it has no docstring."""
    try:
        text = course.exercise(task_id).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError, ValueError):  # ValueError: a task id that is no file name
        return ""
    tree = parsed(text)  # one parse at a time, on a thread with room for a deep file
    return (ast.get_docstring(tree) or "") if tree is not None else ""


def exercise_number(course: Course, task_id: str) -> Optional[int]:
    """The number the handout gives a task (its statement's first line "Exercise N ..."), or None."""
    found = NUMBERED.match(exercise_statement(course, task_id).partition("\n")[0])
    return int(found.group(1)) if found else None


def handout_order(course: Course, task_ids: Iterable[str]) -> List[str]:
    """``task_ids`` in the handout's order: by number, then those without one, each group (and tasks
    of the same number) in task id order."""
    ids = sorted(task_ids)
    numbered = {task_id: exercise_number(course, task_id) for task_id in ids}
    return sorted(ids, key=lambda task_id: (numbered[task_id] is None, numbered[task_id] or 0, task_id))
