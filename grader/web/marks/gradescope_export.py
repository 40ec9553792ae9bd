"""The portal's Gradescope export: a zip with ``USERNAME/results.json`` for every student.

In: every student's results, read from the records of their latest (or best, as the course sets)
graded submissions (``class_marks.class_results``), and the course's tasks. Out: the bytes of a
zip laid out as ``grade`` lays out its output folder (one folder per student holding the
Gradescope autograder ``results.json``, made by ``grade``'s own ``exports.gradescope``), with one
test per case and one per task not handed in (worth the task's points, failed); the total is the
course's (late rules and adjustments applied, each said in the document's ``output``). Every
student of the roster is there, so nobody's zero goes missing.

Each student's folder is their username unless a disk could take it for another's (``Bob`` and
``bob``, accounts made before the roster refused such pairs) or it could not be a folder (``..``):
then it is another name (``usernames.export_folders``: ``bob~2``), and ``students.csv`` in the zip
says whose each such folder is (``folder,username``). A class whose names are all their own
folders gets the zip it always got.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from typing import List

from grader.marks import marks_of
from grader.model import Task
from grader.report.exports import gradescope
from grader.safe_text import for_spreadsheet
from grader.web.marks.class_marks import class_results
from grader.web.usernames import export_folders

_INDEX = "students.csv"  # whose each folder is, when some folder is not its student's username
# Fixed so that the same marks give the same bytes (zip entries carry a time).
_ENTRY_TIME = (2000, 1, 1, 0, 0, 0)


def gradescope_zip(tasks: List[Task]) -> bytes:
    """The zip of every student's ``results.json``, by username."""
    buffer = io.BytesIO()
    everyone = class_results(tasks)
    folders = export_folders(everyone, reserved=(_INDEX,))
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for username, (results, standings) in everyone.items():
            document = gradescope(results, marks_of(username, results, standings))
            _write(archive, f"{folders[username]}/results.json", json.dumps(document, indent=2, ensure_ascii=False))
        renamed = sorted((folder, name) for name, folder in folders.items() if folder != name)
        if renamed:
            index = io.StringIO()
            rows = [("folder", "username"), *renamed]  # (as the gradebook writes a name: never a formula)
            csv.writer(index, lineterminator="\n").writerows([[for_spreadsheet(c) for c in row] for row in rows])
            _write(archive, _INDEX, index.getvalue())
    return buffer.getvalue()


def _write(archive: zipfile.ZipFile, name: str, text: str) -> None:
    entry = zipfile.ZipInfo(name, date_time=_ENTRY_TIME)
    entry.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(entry, text)
