"""The portal's Gradescope export: a zip with ``USERNAME/results.json`` for every student.

In: every student's results, read from the records of their latest (or best, as the course sets)
graded submissions (``class_marks.class_results``), and the course's tasks. Out: the bytes of a
zip laid out as ``grade`` lays out its output folder (one folder per student holding the
Gradescope autograder ``results.json``, made by ``grade``'s own ``exports.gradescope``), with one
test per case and one per task not handed in (worth the task's points, failed); the total is the
course's (late rules and adjustments applied, each said in the document's ``output``). Every
student of the roster is there, so nobody's zero goes missing.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import List

from grader.marks import marks_of
from grader.model import Task
from grader.report.exports import gradescope
from grader.web.class_marks import class_results

# Fixed so that the same marks give the same bytes (zip entries carry a time).
_ENTRY_TIME = (2000, 1, 1, 0, 0, 0)


def gradescope_zip(tasks: List[Task]) -> bytes:
    """The zip of every student's ``results.json``, by username."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for username, (results, standings) in class_results(tasks).items():
            document = gradescope(results, marks_of(username, results, standings))
            entry = zipfile.ZipInfo(f"{username}/results.json", date_time=_ENTRY_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, json.dumps(document, indent=2, ensure_ascii=False))
    return buffer.getvalue()
