"""Deadlines per student, and an instructor's changes to one student's record: extensions and
adjustments.

In: the instructor's form fields on a student's page (a task or every task, a deadline; a task,
points and a comment). Out: every submission's ``late`` kept true to its student's own deadline
(``policies.deadline_for``: their extension, else the task's) whenever a deadline or an extension
changes (``refresh_late``), and the extensions and
adjustments stored or removed, or the sentence that says what is wrong (nothing is stored then).
How late work and adjustments count is ``counting``'s rule; this module only keeps what it reads.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Optional, Tuple, Union

from django.db import transaction
from django.utils import timezone

from grader.safe_text import for_terminal, plural
from grader.web.marks.policies import parse_deadline
from grader.web.models import Adjustment, Extension, Submission, TaskPolicy, hold

EVERY_TASK = "*"  # the task field's value for "every task"
MAX_POINTS = 10_000  # an adjustment larger than any task is a typo
MAX_COMMENT = 500  # characters: a sentence or two the student reads


def _mark(rows, deadline: Optional[datetime]) -> Tuple[int, int]:
    """Mark ``rows`` late or not by ``deadline``: (how many became late, how many stopped being)."""
    if deadline is None:
        return 0, rows.filter(late=True).update(late=False)
    became = rows.filter(submitted_at__gt=deadline, late=False).update(late=True)
    stopped = rows.filter(submitted_at__lte=deadline, late=True).update(late=False)
    return became, stopped


def refresh_late(task_ids: Iterable[str], student=None) -> Tuple[int, int]:
    """Mark each submission of ``task_ids`` (of ``student`` only, when given) late or not as its
    student's deadline now says: after a deadline or an extension changed, so that the API's
    ``late``, the pages and the marks all read the same. Out: how many submissions became late and
    how many stopped being late (for the instructor's sentence: nothing changes unsaid)."""
    became = stopped = 0
    with transaction.atomic():
        for task_id in task_ids:
            policy = TaskPolicy.objects.filter(task=task_id).first()
            rows = Submission.objects.filter(task=task_id)
            rows = rows if student is None else rows.filter(student=student)
            extended = dict(Extension.objects.filter(task=task_id).values_list("student_id", "deadline"))
            if student is not None:
                extended = {k: v for k, v in extended.items() if k == student.pk}
            marked = [_mark(rows.exclude(student_id__in=list(extended)), policy.deadline if policy else None)]
            marked += [_mark(rows.filter(student_id=s), deadline) for s, deadline in extended.items()]
            became += sum(b for b, _ in marked)
            stopped += sum(s for _, s in marked)
    return became, stopped


def late_change_words(became: int, stopped: int) -> str:
    """What ``refresh_late`` changed, as a sentence to add to the instructor's ("" for nothing)."""
    said = []
    if became:
        said.append(f"{plural(became, 'submission')} {'is' if became == 1 else 'are'} now late")
    if stopped:
        said.append(f"{plural(stopped, 'submission')} {'is' if stopped == 1 else 'are'} no longer late")
    return (" " + " and ".join(said) + ".") if said else ""


@dataclass(frozen=True)
class Change:
    """A checked form: the tasks it applies to and the value (a deadline, or points and a comment;
    None: remove what there is)."""

    tasks: tuple
    deadline: Optional[datetime] = None
    points: Optional[float] = None
    comment: str = ""


def _tasks(form, known) -> Union[tuple, str]:
    task_id = form.get("task", "").strip()
    if task_id == EVERY_TASK:
        return tuple(known)
    if task_id not in known:
        return f"choose a task of the course, not {task_id[:40]!r}"
    return (task_id,)


def parse_extension(form, known) -> Union[Change, str]:
    """An extension from the form (``task``: an id or ``*``; ``deadline``: empty removes it), or
    what is wrong."""
    tasks = _tasks(form, known)
    if isinstance(tasks, str):
        return tasks
    deadline = parse_deadline(form.get("deadline", ""))
    if isinstance(deadline, str):
        return deadline
    return Change(tasks, deadline=deadline)


def store_extension(student, change: Change, by: str) -> Tuple[int, int]:
    """Grant (or, with no deadline, take back) ``student``'s extension of each task, then mark
    their submissions late or not by it (``refresh_late``'s counts). Holds the student as a hand-in
    does (``models.hold``): a hand-in at the same moment is marked by one deadline or the other,
    never left stale."""
    with transaction.atomic():
        hold(student)
        for task_id in change.tasks:
            if change.deadline is None:
                Extension.objects.filter(student=student, task=task_id).delete()
            else:
                Extension.objects.update_or_create(
                    student=student,
                    task=task_id,
                    defaults={"deadline": change.deadline, "granted_by": by, "granted_at": timezone.now()},
                )
        return refresh_late(change.tasks, student)


def parse_adjustment(form, known) -> Union[Change, str]:
    """An adjustment from the form (``task``; ``points``: a number such as ``+3``, ``-1.5``, empty
    to remove it; ``comment``: required with points, what the student reads), or what is wrong."""
    tasks = _tasks(form, known)
    if isinstance(tasks, str):
        return tasks
    if len(tasks) != 1:
        return "an adjustment is for one task: choose it"
    text = form.get("points", "").strip()
    if not text:
        return Change(tasks)
    if len(text) > 12 or not re.fullmatch(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)", text):
        return f"the points must be a number such as +3 or -1.5, not {text[:12]!r}"
    points = float(text)
    if not math.isfinite(points) or abs(points) > MAX_POINTS:
        return f"the points must be between -{MAX_POINTS:,} and +{MAX_POINTS:,}"
    comment = " ".join(form.get("comment", "").split())
    if not comment:
        return "say why in the comment: the student reads it beside their marks"
    # a control, format or separator character (``safe_text``'s rule): a bidirectional override would
    # reorder the marks beside it, a zero-width one hide words
    if for_terminal(comment) != comment:
        return "the comment holds a control character; write it as plain text"
    if len(comment) > MAX_COMMENT:
        return f"the comment is {len(comment):,} characters long; keep it under {MAX_COMMENT}"
    return Change(tasks, points=points, comment=comment)


def store_adjustment(student, change: Change, by: str) -> None:
    """Make (or, with no points, remove) ``student``'s adjustment of the change's task."""
    (task_id,) = change.tasks
    if change.points is None:
        Adjustment.objects.filter(student=student, task=task_id).delete()
        return
    Adjustment.objects.update_or_create(
        student=student,
        task=task_id,
        defaults={"points": change.points, "comment": change.comment, "made_by": by, "made_at": timezone.now()},
    )
