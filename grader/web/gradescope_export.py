"""The portal's Gradescope export: a zip with ``USERNAME/results.json`` for every student.

In: everyone's latest (or best, as the course sets) graded submissions (``class_marks``) and the
course's tasks. Out: the bytes of a zip laid out as ``grade`` lays out its output folder (one
folder per student holding the Gradescope autograder ``results.json``), with one test per case
and one per task not handed in (worth the task's points, failed). Every student of the roster is
there, so nobody's zero goes missing.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import List

from django.contrib.auth import get_user_model

from grader.model import Task, Verdict
from grader.report.exports import GradescopeTest, gradescope_document
from grader.web.class_marks import counted_done
from grader.web.models import BEST
from grader.web.policies import marks_from

# Fixed so that the same marks give the same bytes (zip entries carry a time).
_ENTRY_TIME = (2000, 1, 1, 0, 0, 0)


def _tests(tasks: List[Task], chosen: dict, username: str) -> List[GradescopeTest]:
    tests = []
    for task in tasks:
        row = chosen.get((username, task.id))
        if row is None:
            tests.append(GradescopeTest(f"{task.id}: not handed in", task.max_score, False, "Not handed in."))
            continue
        for case in row.results or ():
            points = case.get("points")
            if points is None:  # graded before points were kept: the task's points shared out
                points = (row.max_score or task.max_score) / max(1, len(row.results))
            accepted = case["verdict"] == Verdict.ACCEPTED.value
            tests.append(
                GradescopeTest(
                    f"{task.id}: {case['name']}",
                    points,
                    accepted,
                    case.get("message", ""),
                    bool(case.get("hidden")),
                    case.get("time_s") or 0.0,
                )
            )
    return tests


def gradescope_zip(tasks: List[Task]) -> bytes:
    """The zip of every student's ``results.json``, by username."""
    chosen = counted_done(best=marks_from() == BEST)
    students = get_user_model().objects.filter(is_staff=False).order_by("username").values_list("username", flat=True)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for username in students:
            document = gradescope_document(_tests(tasks, chosen, username))
            entry = zipfile.ZipInfo(f"{username}/results.json", date_time=_ENTRY_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, json.dumps(document, indent=2, ensure_ascii=False))
    return buffer.getvalue()
