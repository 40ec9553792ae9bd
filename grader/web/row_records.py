"""A graded submission's row and the task record it keeps (``report/records.py``), both ways.

In: a graded ``TaskResult`` (``row_fields``), or a row and the course's task (``row_result``).
Out: the row's fields, or the ``TaskResult`` the row stands for, read from the same record that
``check --json`` prints: the class page, the gradebook and the Gradescope zip then apply
``grade``'s own functions (``marks.marks_of``, ``report.exports.gradescope``) to it, so a
submission's marks are the same on every path.
"""

from __future__ import annotations

from typing import Any, Dict

from grader.model import Task, TaskResult
from grader.report import pages as report
from grader.report.records import result_from_record, task_record
from grader.safe_text import for_database
from grader.submission.problems import missing_file
from grader.web.models import DONE


def row_fields(result: TaskResult, page: str, fingerprint: str) -> dict:
    """The row's fields for a graded ``result``, its report ``page`` and the task's ``fingerprint``.

    A message or note is kept cut to its start and end (``report.MESSAGE_CHARS``, as the page shows
    it): a student's program decides how long the text it quotes is, and every case's is kept.
    """
    record = task_record(result, report.MESSAGE_CHARS)
    mistake: Dict[str, Any] = {}
    if result.mistake is not None:
        found = result.mistake
        mistake = {
            "label": found.label,
            "student": found.student_text,
            "instructor": found.instructor_text,
            "matched": found.matched,
            "failing": found.failing,
        }
    # a program's NUL or lone surrogate is a marker in the row on every database (PostgreSQL keeps neither)
    return for_database(
        {
            "status": DONE,
            "report": page,
            "cases": fingerprint,
            "error": "",
            "verdict": record["verdict"],
            "score": result.score,
            "max_score": result.max_score,
            "results": record["cases"],
            "notes": record["notes"],
            "mistake": mistake,
            "record": record,
        }
    )


def row_record(row) -> Dict[str, Any]:
    """The task record a graded row keeps (a row graded before records were kept: put together
    from its columns)."""
    if isinstance(row.record, dict) and row.record.get("format"):
        return row.record
    kept = row.mistake if isinstance(row.mistake, dict) else {}
    record: Dict[str, Any] = {
        "task": row.task,
        "file": row.file_name,
        "verdict": row.verdict,
        "score": row.score,
        "max_score": row.max_score,
        "cases": row.results if isinstance(row.results, list) else [],
        "notes": row.notes if isinstance(row.notes, list) else [],
    }
    if kept.get("student"):
        said = {"mistake": kept["student"], "matched": kept.get("matched"), "failing": kept.get("failing")}
        record["known_mistake"] = said
        record["mistake"] = {"label": kept.get("label", ""), "instructor": kept.get("instructor", "")}
    return record


def row_result(row, task: Task) -> TaskResult:
    """The ``TaskResult`` a graded row stands for; for no row (None), the task not handed in, as
    ``grade`` makes it for a missing file."""
    if row is None:
        return missing_file(task, f"{task.id}.py")
    return result_from_record(row_record(row), task)
