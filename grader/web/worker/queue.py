"""The grading queue, kept in the database: claims, results, and the dispatchers that hold them.

A row owes grading while ``pending``: while it was asked for (``wanted``: 1 when handed in, + 1 at
each regrade) more often than the result shown answers (``graded``). ``claim`` takes one that no
attempt holds, in one transaction (``attempt`` + 1, ``claimed_at`` now, ``claimed_by`` the
dispatcher, ``claimed_wanted`` the ``wanted`` it saw), fairly: a student with a
submission being graded waits for it (at most one running per student), and among the others the
one served longest ago goes first (round robin), the oldest of their submissions first. So a
student who hands in ten looping files delays another's by at most one grading. Owed idle work (a
regrade of a graded row) is taken the same way, in turns per student, but only when no hand-in
waits that was never graded: a regrade of the whole class delays no one's new hand-in.

``finish`` writes a result only for the attempt that claimed the row, and sets ``graded`` to the
``wanted`` that attempt saw: a regrade asked for while it ran stays owed (``pending``, recomputed in
the same statement), so only a grading started after a regrade satisfies it.
Every dispatcher says it is alive (``Worker.seen_at``) every few seconds; the claims of one that
stopped (not seen for ``SILENT_AFTER``, or a process of this machine that is gone) are released by
``release_stale`` so the rows are graded again: nothing handed in is lost, and no attempt's result
is written twice. Claims are taken one at a time across every dispatcher (SQLite: an immediate
transaction; PostgreSQL: a transaction-scoped advisory lock), so two never take the same row.
"""

from __future__ import annotations

import os
import socket
import time
from datetime import timedelta
from typing import Dict, Optional, Set, Tuple

from django.db import connection, transaction
from django.db.models import BooleanField, Case, F, Max, Value, When
from django.utils import timezone

from grader.safe_text import for_database
from grader.web.models import QUEUED, RUNNING, Submission, Worker

HEARTBEAT_S = 5.0  # how often a dispatcher says it is alive
SILENT_AFTER = timedelta(seconds=30)  # a dispatcher not heard from this long has stopped
_CLAIM_LOCK = 0x6E696D67  # PostgreSQL advisory lock key of the claim ("nimg")


def worker_name() -> str:
    """A name no other dispatcher has: this machine, this process, when it started."""
    return f"{socket.gethostname()}:{os.getpid()}:{time.time_ns()}"


def _gone_from_this_machine(name: str) -> bool:
    """True when ``name`` is a dispatcher of this machine whose process no longer exists."""
    host, _, rest = name.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # another user's process: alive
        return False
    return False


def say_alive(name: str, threads: int, where: str) -> None:
    """Record that the dispatcher ``name`` runs now (created on its first call)."""
    now = timezone.now()
    updated = Worker.objects.filter(name=name).update(seen_at=now, threads=threads, where=where)
    if not updated:
        Worker.objects.create(name=name, threads=threads, where=where, started_at=now, seen_at=now)


def say_stopped(name: str) -> None:
    """The dispatcher ``name`` stopped cleanly: its row goes, its claims (none, normally) are released."""
    Worker.objects.filter(name=name).delete()
    release_stale()


def live_workers() -> Dict[str, Worker]:
    """The dispatchers heard from lately (those of this machine whose process is gone excluded)."""
    recent = Worker.objects.filter(seen_at__gte=timezone.now() - SILENT_AFTER).order_by("started_at")
    return {w.name: w for w in recent if not _gone_from_this_machine(w.name)}


def release_stale() -> int:
    """Release every claim held by a dispatcher that is not alive; returns how many were released.
    The rows of stopped dispatchers go too."""
    live = set(live_workers())
    with transaction.atomic():
        Worker.objects.exclude(name__in=live).delete()
        held = Submission.objects.filter(pending=True, claimed_at__isnull=False).exclude(claimed_by__in=live)
        Submission.objects.filter(id__in=held.values("id"), status=RUNNING).update(status=QUEUED)
        return Submission.objects.filter(id__in=held.values("id")).update(claimed_at=None, claimed_by="")


def _lock_claims() -> None:
    """Make this transaction the only one claiming (SQLite's immediate transactions already are)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_CLAIM_LOCK])


def _next_row() -> Optional[int]:
    """The id of the row to grade next: a hand-in not graded yet before any owed idle work (a
    regrade of a graded row), each in turns between students with nothing being graded (round
    robin: the student served longest ago first), a student's oldest row of the kind first."""
    pending = Submission.objects.filter(pending=True)
    busy: Set[int] = set(pending.filter(claimed_at__isnull=False).values_list("student_id", flat=True))
    fresh: Dict[int, int] = {}
    idle: Dict[int, int] = {}
    unclaimed = pending.filter(claimed_at__isnull=True).order_by("id").values_list("id", "student_id", "status")
    for number, student, status in unclaimed:
        heads = fresh if status in (QUEUED, RUNNING) else idle
        if student not in busy and student not in heads:
            heads[student] = number
    heads = fresh or idle
    if not heads:
        return None
    served = dict(
        Submission.objects.filter(student_id__in=list(heads), graded_at__isnull=False)
        .values("student_id")
        .annotate(last=Max("graded_at"))
        .values_list("student_id", "last")
    )

    def turn(student: int) -> Tuple:
        last = served.get(student)
        return (last is not None, last or 0, heads[student])

    return heads[min(heads, key=turn)]


def claim(name: str = "") -> Optional[Tuple[int, int]]:
    """(submission id, attempt) of the row the dispatcher ``name`` is to grade, now claimed by it;
    None when nothing can be taken."""
    with transaction.atomic():
        _lock_claims()
        number = _next_row()
        if number is None:
            return None
        row = Submission.objects.get(id=number)
        attempt = row.attempt + 1
        status = RUNNING if row.status in (QUEUED, RUNNING) else row.status  # a regrade keeps its old result shown
        taken = Submission.objects.filter(id=row.id, attempt=row.attempt, claimed_at__isnull=True).update(
            attempt=attempt, claimed_at=timezone.now(), claimed_by=name, status=status, claimed_wanted=F("wanted")
        )
        return (row.id, attempt) if taken else None


def finish(number: int, attempt: int, fields: dict, name: str = "") -> bool:
    """Write a result for the attempt that claimed the row (by the dispatcher ``name``); False when
    another attempt holds it now. Every text of ``fields`` is kept as ``safe_text.for_database``
    makes it (a NUL or lone surrogate as its marker): the one gate of what a grading writes, so a
    row says the same on SQLite and PostgreSQL, which refuses both."""
    # One statement: a regrade's ``wanted`` + 1 is either before it (and read here, still owed) or
    # after it (and owed anyway); PostgreSQL evaluates both expressions on the row as last committed.
    owed = Case(
        When(wanted__gt=F("claimed_wanted"), then=Value(True)), default=Value(False), output_field=BooleanField()
    )
    with transaction.atomic():
        written = Submission.objects.filter(id=number, attempt=attempt, claimed_at__isnull=False).update(
            graded=F("claimed_wanted"),
            pending=owed,
            claimed_at=None,
            claimed_by="",
            graded_at=timezone.now(),
            graded_by=name,
            **for_database(fields),
        )
    return written == 1


def ask_again(ids) -> int:
    """Owe one more grading of each row in ``ids`` (a regrade): satisfied only by a grading claimed
    after this; how many rows there were."""
    return Submission.objects.filter(id__in=list(ids)).update(wanted=F("wanted") + 1, pending=True)


def give_back(number: int, attempt: int) -> bool:
    """Queue the row again, ungraded (its grading was lost with a worker): False when another
    attempt holds it now."""
    with transaction.atomic():
        row = Submission.objects.filter(id=number, attempt=attempt, claimed_at__isnull=False)
        row.filter(status=RUNNING).update(status=QUEUED)
        return row.update(claimed_at=None, claimed_by="") == 1
