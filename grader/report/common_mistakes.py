"""Class marks → the known mistakes most students in a class make, for the class overview.

In: ``StudentMarks`` (each ``TaskMark.mistake`` the known mistake that task's answers match, in the
instructor's words, set by ``grade/mistakes/known_mistakes.py`` from visible cases) and the tasks. Out:
``CommonMistake`` values, most students first, each with the students' names, so an instructor
can explain a mistake to the room. Pure: no I/O, no HTML (the template escapes every name).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

from grader.marks import StudentMarks
from grader.model import Task


@dataclass(frozen=True)
class CommonMistake:
    """One known mistake and the students whose answers on ``task`` match it (by name)."""

    task: str
    title: str
    mistake: str
    students: Tuple[str, ...]


def common_mistakes(students: Sequence[StudentMarks], tasks: Sequence[Task]) -> List[CommonMistake]:
    """Every known mistake some student's answers match, most students first (then in task order)."""
    titles = {task.id: task.title for task in tasks}
    order = {task.id: index for index, task in enumerate(tasks)}
    found: Dict[Tuple[str, str], List[str]] = {}
    for student in students:
        for mark in student.tasks:
            if mark.mistake:
                found.setdefault((mark.task, mark.mistake), []).append(student.student)
    listed = [
        CommonMistake(task, titles.get(task, task), mistake, tuple(sorted(names)))
        for (task, mistake), names in found.items()
    ]
    return sorted(listed, key=lambda m: (-len(m.students), order.get(m.task, len(order)), m.mistake))
