"""A student's submissions as the pages list them: a page at a time, newest first, each numbered
among the student's hand-ins of its task, read without their files, pages or records.

In: the rows to list (a queryset of one student's submissions, of one task or all), and the page
asked for (``?before=ID``: those older than the submission ``ID``). Out: at most ``PAGE`` rows with
only the columns a list shows (``LISTED``), each row's number (1 for the student's first hand-in of
its task, counted in the database), and the id to ask for the next, older page (None on the last).
So a page costs the same whatever a student's history: a student who reloads hers from many
browsers reads 50 short rows each time, never every record she has.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Tuple

from grader.web.models import Submission

PAGE = 50  # submissions a list shows at once
# what a line of a list shows (``views_student.line``, ``_history.html``, ``_status.html``)
LISTED = (
    "id",
    "student_id",
    "task",
    "file_name",
    "submitted_at",
    "late",
    "status",
    "pending",
    "score",
    "max_score",
    "verdict",
    "chosen",
    "public_only",
)


def before_id(text: str) -> Optional[int]:
    """The page asked for by ``?before=``: an id, or None for the newest (anything not a whole
    number of at most 18 digits shows the newest: a list never fails on its address)."""
    text = (text or "").strip()
    return int(text) if text.isdigit() and len(text) <= 18 else None


def page(rows, before: Optional[int]) -> Tuple[List[Submission], Optional[int]]:
    """The newest ``PAGE`` of ``rows`` older than ``before`` (all when None), newest first, with the
    ``LISTED`` columns only; and the ``before`` of the next page (None when none is older)."""
    if before is not None:
        rows = rows.filter(id__lt=before)
    found = list(rows.only(*LISTED).order_by("-id")[: PAGE + 1])
    older = found[PAGE - 1].id if len(found) > PAGE else None
    return found[:PAGE], older


def numbers(rows: Iterable[Submission]) -> Dict[int, int]:
    """Each row's number among its student's hand-ins of its task, 1 for the first (by id, the
    order they were handed in): ``{id: number}``. One count in the database for each student and
    task of ``rows``, from the newest of ``rows``: so ``rows`` must hold every hand-in of that
    student and task between its oldest and newest (a page of ``page``; a single row)."""
    groups: Dict[Tuple[int, str], List[int]] = {}
    for row in rows:
        groups.setdefault((row.student_id, row.task), []).append(row.id)
    found: Dict[int, int] = {}
    for (student_id, task_id), ids in groups.items():
        ids.sort(reverse=True)
        top = Submission.objects.filter(student_id=student_id, task=task_id, id__lte=ids[0]).count()
        between = Submission.objects.filter(student_id=student_id, task=task_id, id__gte=ids[-1], id__lte=ids[0])
        if len(ids) > 1 and between.count() != len(ids):  # not a run of hand-ins: each counted apart
            for number in ids:
                found[number] = Submission.objects.filter(student_id=student_id, task=task_id, id__lte=number).count()
            continue
        for offset, number in enumerate(ids):
            found[number] = top - offset
    return found
