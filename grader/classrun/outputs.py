"""Writing a class run's files as it goes: each student's as they finish, the class's at the end.

``ClassWriter.add`` writes one student's reports and ``results.json`` and keeps only their marks
and the case tallies; their JUnit part goes to a side file, so nothing large stays in memory.
``finish`` writes ``gradebook.csv``, ``cases.csv``, ``junit.xml``, the overview and, when some
student's folder is not their name (``folders.scan_class``: ``bob~2`` beside ``Bob``), ``students.csv``
saying whose each such folder is. Every file is written atomically: a stopped run leaves the previous
complete file or none, never half of one.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from pathlib import Path
from typing import List, Mapping, Optional, Sequence, Tuple

from grader.grade.mistakes.known_mistakes import MistakeSignature, with_known_mistake
from grader.marks import CaseTally, StudentMarks, Tallies, marks_of
from grader.model import Task, TaskResult
from grader.report import pages as report
from grader.report.exports import JUNIT_HEAD, JUNIT_TAIL, cases_csv, gradebook_csv, gradescope, junit_suites
from grader.safe_text import for_spreadsheet

# Whose each student folder is, by name, when some folder is not its student's name.
STUDENTS_CSV = "students.csv"


class ClassWriter:
    """Writes into ``out`` for a class graded on ``tasks``; ``note`` goes in every page's header;
    each result is matched to the known mistakes of ``signatures`` (by task id) first; ``folders``
    is each student's folder in ``out`` by name, for those whose folder is not their name."""

    def __init__(
        self,
        out: Path,
        tasks: Sequence[Task],
        note: str = "",
        signatures: Optional[Mapping[str, Sequence[MistakeSignature]]] = None,
        folders: Optional[Mapping[str, str]] = None,
    ) -> None:
        self.out = out
        self.folders = {name: folder for name, folder in (folders or {}).items() if folder != name}
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
        """Write ``student``'s reports and results.json into their folder of ``out``; returns their marks.

        ``student`` is a name as ``scan_class`` gives it; their folder (``folders``, else the name) is
        one folder name, never ``.`` or ``..``.
        """
        name = self.folders.get(student, student)
        if name in ("", ".", "..") or any(sep and sep in name for sep in ("/", os.sep, os.altsep)):
            raise ValueError(f"{name!r} cannot name a folder inside {self.out}")
        folder = self.out / name
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
        # the same with the Points Possible row an LMS import reads (gradebook.csv keeps grader-cli.md's rows)
        report.write_text(self.out / "gradebook-lms.csv", gradebook_csv(students, self.tasks, points_possible=True))
        report.write_text(self.out / "cases.csv", cases_csv(tallies))
        report.write_class_html(students, tallies, self.tasks, self.out / "index.html", self.note, self.folders)
        self._write_index()
        return students, tallies

    def _write_index(self) -> None:
        """``students.csv``: (folder, student) for each folder not named as its student, as the
        gradebook writes a name; none (an older run's removed) when every folder is its student's."""
        path = self.out / STUDENTS_CSV
        if not self.folders:
            if path.is_file() and not path.is_symlink():
                path.unlink()
            return
        text = io.StringIO()
        rows = [("folder", "student"), *sorted((folder, name) for name, folder in self.folders.items())]
        csv.writer(text, lineterminator="\n").writerows([[for_spreadsheet(cell) for cell in row] for row in rows])
        report.write_text(path, text.getvalue())

    def abandon(self) -> None:
        """Stop without writing the class's files (the students' own files stay)."""
        self._junit.close()
        self._junit_path.unlink(missing_ok=True)


def clear_stale_parts(out: Path) -> None:
    """Remove side files a killed run left behind in ``out`` (they are never read)."""
    for part in out.glob(".junit-*.part"):
        if part.is_file() and not part.is_symlink():  # a student's folder may have any name
            part.unlink(missing_ok=True)
