"""A course folder's layout: the one place that knows where a course keeps what.

    <course>/testcases/<task>.yaml      the cases of each task (the task ids are these files' names)
    <course>/solutions/<task>.py        the reference solutions
    <course>/solutions/wrong/<task>/    known-wrong solutions, each one a mistake the cases must catch
    <course>/exercises/<task>.py        the stubs handed to students
    <course>/checkers.py                the course's own checkers (optional)

``Course(root)`` only names paths; nothing here reads a file but the list of task ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Tuple


@dataclass(frozen=True)
class Course:
    """A course folder (``root``) and the paths of its parts."""

    root: Path

    @property
    def testcases(self) -> Path:
        return self.root / "testcases"

    @property
    def solutions(self) -> Path:
        return self.root / "solutions"

    @property
    def wrong_solutions(self) -> Path:
        return self.solutions / "wrong"

    @property
    def exercises(self) -> Path:
        return self.root / "exercises"

    @property
    def checkers_file(self) -> Path:
        return self.root / "checkers.py"

    def is_course(self) -> bool:
        """Does ``root`` look like a course (it has a testcases folder)?"""
        return self.testcases.is_dir()

    def case_file(self, task_id: str) -> Path:
        return self.testcases / f"{task_id}.yaml"

    def solution(self, task_id: str) -> Path:
        """The reference solution of a task (or of a companion module it imports)."""
        return self.solutions / f"{task_id}.py"

    def wrong(self, task_id: str) -> Path:
        """The folder of a task's known-wrong solutions."""
        return self.wrong_solutions / task_id

    def exercise(self, task_id: str) -> Path:
        """The stub students start from."""
        return self.exercises / f"{task_id}.py"

    def case_files(self) -> Tuple[Path, ...]:
        """Every ``testcases/*.yaml``, in task id order (none when there is no testcases folder).

        Whatever bears the name is listed, so that loading one that is not a readable file says why.
        """
        if not self.testcases.is_dir():
            return ()
        return tuple(sorted(self.testcases.glob("*.yaml")))

    def task_ids(self) -> Tuple[str, ...]:
        """The ids of the course's tasks: the names of its case files, sorted."""
        return tuple(path.stem for path in self.case_files())

    @staticmethod
    def of_case_file(path: Path) -> Course:
        """The course a case file belongs to: the folder above ``testcases/``, else its own folder."""
        return Course(path.parent.parent if path.parent.name == "testcases" else path.parent)
