"""Writing a class run's files as it goes: each student's as they finish, the class's at the end.

``ClassWriter.add`` writes one student's reports and ``results.json`` and keeps only their marks
and the case tallies; their JUnit part goes to a side file, so nothing large stays in memory.
``finish`` writes ``gradebook.csv``, ``cases.csv``, ``junit.xml`` and the overview. Every file is
written atomically: a stopped run leaves the previous complete file or none, never half of one.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import List, Mapping, Optional, Sequence, Tuple

from grader.grade.known_mistakes import MistakeSignature, with_known_mistake
from grader.marks import CaseTally, StudentMarks, Tallies, marks_of
from grader.model import Task, TaskResult
from grader.report import pages as report
from grader.report.exports import JUNIT_HEAD, JUNIT_TAIL, cases_csv, gradebook_csv, gradescope, junit_suites


class ClassWriter:
    """Writes into ``out`` for a class graded on ``tasks``; ``note`` goes in every page's header;
    each result is matched to the known mistakes of ``signatures`` (by task id) first."""

    def __init__(
        self,
        out: Path,
        tasks: Sequence[Task],
        note: str = "",
        signatures: Optional[Mapping[str, Sequence[MistakeSignature]]] = None,
    ) -> None:
        self.out = out
        self.tasks = list(tasks)
        self.note = note
        self.signatures = signatures or {}
        self.marks: List[StudentMarks] = []
        self.tallies = Tallies()
        out.mkdir(parents=True, exist_ok=True)
        clear_stale_parts(out)
        handle, name = tempfile.mkstemp(dir=out, prefix=".junit-", suffix=".part")
        self._junit_path = Path(name)
        self._junit = os.fdopen(handle, "w", encoding="utf-8")
        self._junit.write(JUNIT_HEAD)

    def add(self, student: str, results: Sequence[TaskResult]) -> StudentMarks:
        """Write ``student``'s reports and results.json into ``out/student``; returns their marks.

        ``student`` is a name as ``class_folders`` gives it: one folder name, never ``.`` or ``..``.
        """
        if student in ("", ".", "..") or any(sep and sep in student for sep in ("/", os.sep, os.altsep)):
            raise ValueError(f"{student!r} cannot name a folder inside {self.out}")
        folder = self.out / student
        results = [with_known_mistake(r, self.signatures.get(r.task.id, ())) for r in results]
        report.write_html(list(results), folder, self.note)
        report.write_text(folder / "results.json", json.dumps(gradescope(results), indent=2, ensure_ascii=False))
        self._junit.write(junit_suites(student, results))
        self.tallies.add(results)
        marks = marks_of(student, results)
        self.marks.append(marks)
        return marks

    def finish(self) -> Tuple[List[StudentMarks], List[CaseTally]]:
        """Write the class's files; returns the marks (by student name) and the tallies."""
        students = sorted(self.marks, key=lambda m: m.student)
        tallies = self.tallies.tallies()
        self._junit.write(JUNIT_TAIL)
        self._junit.close()
        os.replace(self._junit_path, self.out / "junit.xml")
        report.write_text(self.out / "gradebook.csv", gradebook_csv(students, self.tasks))
        report.write_text(self.out / "cases.csv", cases_csv(tallies))
        report.write_class_html(students, tallies, self.tasks, self.out / "index.html", self.note)
        return students, tallies

    def abandon(self) -> None:
        """Stop without writing the class's files (the students' own files stay)."""
        self._junit.close()
        self._junit_path.unlink(missing_ok=True)


def clear_stale_parts(out: Path) -> None:
    """Remove side files a killed run left behind in ``out`` (they are never read)."""
    for part in out.glob(".junit-*.part"):
        if part.is_file() and not part.is_symlink():  # a student's folder may have any name
            part.unlink(missing_ok=True)
