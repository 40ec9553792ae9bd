"""Handing in and regrading, the same for the JSON API and the pages.

In: the student, the task's id and the file's bytes (or an upload), and for a task that imports
other exercise files (``uses_files``) any of those sent with it (``working_game.py`` with its
``ui.py``: ``companions``); an instructor's regrade of a task. Out: a ``HandIn`` (the new row, or
the HTTP status and the sentence that says why not: 400 unknown task, no file, or a file not to
grade (not text, or another task's file: ``submission.wrong_file``), or a file sent with it that
the task does not take (``companions``), 413 over the grader's size limit or over the bytes the
student's hand-ins may keep (their files and those sent with them: ``stored_bytes``), 429 too soon,
too often in all or in the last hour, or too many waiting to be graded, with the seconds to wait;
a task no instructor set has the default budgets, ``policies.policy_for``) and, for a regrade, how many submissions are
graded again (``regrade_ids``: which, so that the instructor's page says how many before: each
student's latest and the one that counts for them; when the best counts, every graded one too,
since new cases may make another the best). Each
caller words the answer its own way (JSON or a page); the rules live here once.

The limits are counted and the row written in one transaction that holds the student: two hand-ins
of one student, through any web process, are checked one after the other (PostgreSQL: the student's
row locked ``FOR UPDATE``; SQLite: every write transaction is immediate, one writer at a time), so
parallel uploads never get past a limit together. The task's policy row is read locked in that
transaction, made first when there is none (``policies.locked_policy``), so a deadline set at the same
moment marks the hand-in by one deadline or the other, never by none. A file refused before that (unknown task, too
large, not text, another task's file), or a hand-in whose other files are refused, is neither
stored nor counted against the task's limits. The files sent with the task's own are stored (as
``SubmissionFile`` rows) in the transaction that writes its row: one hand-in, counted once against
the task's limits (never against the limits of the tasks those files belong to).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta
from typing import List, Optional, Sequence, Tuple

from django.db import transaction
from django.utils import timezone

from grader.safe_text import plural
from grader.submission.files import MAX_SOURCE_BYTES
from grader.submission.wrong_file import refusal_in_course
from grader.web.logs import event
from grader.web.marks.class_marks import counted_work
from grader.web.marks.policies import (
    deadline_for,
    locked_policy,
    marks_from,
    max_stored_bytes,
    max_waiting,
    mebibytes,
    stored_bytes,
    waiting_count,
)
from grader.web.models import BEST, CHOSEN, DONE, LATEST, Submission, TaskPolicy, hold
from grader.web.site import companions as others
from grader.web.worker import queue
from grader.web.worker.course_state import course, course_tasks

# When to try again after a refusal for too many waiting (a guess: a grading takes seconds).
WAITING_RETRY_S = 10
HOUR = timedelta(hours=1)  # the window of a task's hourly budget


@dataclass(frozen=True)
class HandIn:
    """What became of a hand-in: the row written, or the status and sentence of a refusal."""

    row: Optional[Submission] = None
    status: int = 202
    message: str = ""
    retry_after: int = 0  # seconds, with a 429 for "too soon"


def _too_soon(policy: TaskPolicy, student, task, now) -> Tuple[int, str]:
    """(seconds to wait, why) before this student may hand in this task again: (0, "") when they
    may, (-1, why) never (the task's count is spent)."""
    mine = Submission.objects.filter(student=student, task=task)
    if policy.max_count is not None and mine.count() >= policy.max_count:
        return -1, f"you have handed in {task} the {plural(policy.max_count, 'time')} allowed"
    if policy.max_per_hour is not None:
        hour = mine.filter(submitted_at__gt=now - HOUR).order_by("-submitted_at")
        # the hand-in that must leave the window before another fits in it
        edge = next(
            iter(hour.values_list("submitted_at", flat=True)[policy.max_per_hour - 1 : policy.max_per_hour]), None
        )
        if edge is not None:
            wait = max(1, math.ceil((edge + HOUR - now).total_seconds()))
            return wait, (
                f"you have handed in {task} {plural(policy.max_per_hour, 'time')} in the last hour, as many as "
                f"the course allows; hand it in again in {wait} s (meanwhile, `check` on your own machine "
                "runs the public cases as often as you like)"
            )
    if policy.min_interval_s:
        last = mine.order_by("-submitted_at").values_list("submitted_at", flat=True).first()
        if last is not None:
            wait_s = (last + timedelta(seconds=policy.min_interval_s) - now).total_seconds()
            if wait_s > 0:
                wait = max(1, math.ceil(wait_s))
                return wait, f"hand in {task} again in {wait} s"
    return 0, ""


def _over_budget(student, task_id: str, kept: int) -> Optional[HandIn]:
    """The refusal of a hand-in that would keep ``kept`` more bytes for ``student`` or wait with too
    many of theirs (None when it fits): 413 past the bytes their hand-ins may keep, 429 past the
    submissions that may wait to be graded at once. Inside the transaction that holds the student."""
    bound = max_waiting()
    waiting = waiting_count(student) if bound else 0
    if bound and waiting >= bound:
        return HandIn(
            status=429,
            message=f"you have {plural(waiting, 'submission')} waiting to be graded "
            f"(at most {bound} may wait at once); hand in again when one is done",
            retry_after=WAITING_RETRY_S,
        )
    limit = max_stored_bytes()
    if limit:
        before = stored_bytes(student)
        if before + kept > limit:
            return HandIn(
                status=413,
                message=f"your hand-ins keep {mebibytes(before)} and this one {mebibytes(kept)}, over the "
                f"{mebibytes(limit)} one student's hand-ins may keep: an exercise file is a few kB, so hand "
                f"in {task_id}.py without what made it large, or ask your instructor to raise the limit",
            )
    return None


def read_upload(upload) -> Optional[bytes]:
    """An upload's bytes, or None when it is over the grader's size limit (read no further)."""
    if upload.size > MAX_SOURCE_BYTES:
        return None
    data = upload.read(MAX_SOURCE_BYTES + 1)
    return None if len(data) > MAX_SOURCE_BYTES else data


def read_uploads(uploads: Sequence, task_id: str) -> List[Tuple[str, Optional[bytes]]]:
    """The uploads sent with a task's own file, as ``hand_in``'s ``companions``: each one's file
    name (without any folder a browser put before it) and bytes (None when over the size limit).
    More than ``task_id`` takes are not read at all: ``hand_in`` refuses them by their count."""
    task = course_tasks().get(task_id)
    unread = task is None or others.too_many(task, len(uploads)) is not None
    return [
        (upload.name.replace("\\", "/").rsplit("/", 1)[-1], None if unread else read_upload(upload))
        for upload in uploads
    ]


def hand_in(
    student, task_id: str, data: Optional[bytes], too_large: bool = False, companions: others.Sent = ()
) -> HandIn:
    """Queue ``data`` as ``student``'s submission of ``task_id``, or say why not.

    ``data`` None with ``too_large`` False means nothing was sent; ``too_large`` means the file
    was over the limit (its bytes were not kept). ``companions``: the other exercise files sent
    with it, name ("ui.py") to bytes (None: over the limit), as a mapping or as pairs (a name may
    come twice in pairs, and is refused); graded with it in place of the student's earlier
    hand-ins of their tasks.
    """
    arrived = timezone.now()  # its bytes are here: its time, however long its turn takes to come
    known = course_tasks()
    if task_id not in known:
        return HandIn(status=400, message=f"unknown task {task_id!r}; the tasks are: {', '.join(known)}")
    if too_large or (data is not None and len(data) > MAX_SOURCE_BYTES):
        return HandIn(status=413, message=f"the file is over the limit of {MAX_SOURCE_BYTES:,} bytes")
    if data is None:
        return HandIn(status=400, message="no file: send the exercise file (or paste its text)")
    refused = refusal_in_course(data, task_id, course())
    if refused is not None:  # before the limits: a file that is not the task's costs no hand-in
        return HandIn(status=400, message=refused)
    files = others.checked(known[task_id], companions)
    if isinstance(files, others.Refusal):  # all of the hand-in or none of it, and never a hand-in spent
        return HandIn(status=files.status, message=files.message)
    with transaction.atomic():  # the limits are checked where the row is written: no race between two uploads
        hold(student)
        now = arrived
        # locked, and made first when the task has none: a deadline changed meanwhile waits for this
        # row, then marks it by the new deadline, or this hand-in waits for the deadline and reads it
        policy = locked_policy(task_id)
        wait, why = _too_soon(policy, student, task_id, now)
        if wait:
            return HandIn(status=429, message=why, retry_after=max(wait, 0))
        kept = len(data) + sum(len(other) for other in files.values())
        over = _over_budget(student, task_id, kept)
        if over is not None:
            return over
        row = Submission.objects.create(
            student=student,
            task=task_id,
            file_name=f"{task_id}.py",
            data=data,
            sha256=Submission.digest(data),
            submitted_at=now,
            late=_late(student, task_id, policy, now),
            stored_bytes=kept,
        )
        others.store(row, files)
    handed = len(data) + sum(len(other) for other in files.values())
    event(
        "handin",
        user=student.username,
        task=task_id,
        submission=row.id,
        bytes=handed,
        files=1 + len(files),
        late=row.late,
    )
    return HandIn(row=row)


def _late(student, task_id: str, policy, now) -> bool:
    deadline = deadline_for(student, task_id, policy)
    return deadline is not None and now > deadline


def latest_ids(task_id: str) -> list:
    """The ids of every student's latest submission of ``task_id``: what a regrade queues."""
    latest = {}
    for row in Submission.objects.filter(task=task_id).order_by("id").values("id", "student_id"):
        latest[row["student_id"]] = row["id"]
    return list(latest.values())


def counted_ids(task_id: str) -> set:
    """The ids of the submission of ``task_id`` that counts for each student now (``counted_work``).
    Under "latest" it is not always the latest: when late work does not count, the latest on-time
    one counts; when the latest could not be graded, the latest graded one does."""
    return {c.row.id for c in counted_work(task_id=task_id, full=False).values() if c.row is not None}


def regrade_ids(task_id: str) -> list:
    """The ids a regrade of ``task_id`` queues, in order: each student's latest submission and the
    one that counts for them (``counted_ids``: else a regrade would leave the marks that count on
    the old cases); when the course counts the best, every graded (done) one as well, as any may
    count after it; when students choose, the chosen ones as well."""
    ids = set(latest_ids(task_id)) | counted_ids(task_id)
    rule = marks_from()
    if rule == BEST:
        ids.update(Submission.objects.filter(task=task_id, status=DONE).values_list("id", flat=True))
    elif rule == CHOSEN:
        ids.update(Submission.objects.filter(task=task_id, chosen=True).values_list("id", flat=True))
    return sorted(ids)


def only_latest(task_id: str) -> bool:
    """Whether a regrade of ``task_id`` queues each student's latest submission and nothing else."""
    return marks_from() == LATEST and set(regrade_ids(task_id)) == set(latest_ids(task_id))


def regrade_words(count: int, task_id: str) -> str:
    """``count`` submissions as the regrade's page and message say them: "3 latest submissions"
    when they are all the latest (``only_latest``), else "3 submissions"."""
    return plural(count, "latest submission") if only_latest(task_id) else plural(count, "submission")


def regrade(task_id: str, by: str = "") -> int:
    """Grade again what ``regrade_ids`` names (old results stay shown until the new ones land);
    returns how many were queued. ``by``: the instructor who asked, for the events log."""
    ids = regrade_ids(task_id)
    queue.ask_again(ids)  # a version, not a flag: a grading already running does not satisfy it
    event("regrade", by=by or "-", task=task_id, queued=len(ids))
    return len(ids)
