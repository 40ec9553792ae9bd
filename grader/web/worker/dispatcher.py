"""Grading what is handed in: threads that claim rows of the queue and grade them.

In: a ``Grading`` backend (this machine's runner, or a Dask cluster: ``grading_backends``). Out:
each claimed row's result written for the attempt that claimed it (``queue``). A row becomes the
same unit of work ``grade`` makes for a student (``StudentWork``: the file's bytes and, for a task
that imports other exercise files, each of them handed in with it or, for one that was not, the
student's latest submission of its task handed in before it),
graded by the backend and turned into the task's report page and the fields the API shows.
A unit whose grading was lost with its worker is queued again; a failure of the grader on one
file is that row's error, and the queue goes on.

A row is graded in one pass, shrinking included: a hand-in's every visible run (shrinking its
failures too) ends before its first hidden case starts (``grade/hand_in.py``), so nothing of a hidden
case can reach a later run whose output the student sees. There is no second pass. A hand-in
made before its student's deadline runs its public cases only (``hidden_results``): its hidden
cases run when it is graded again in full after the deadline (the heartbeat asks for that).
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import replace
from datetime import timedelta
from typing import List

from django.db import close_old_connections, transaction
from django.db.models.signals import post_save

from grader.grade.mistakes.known_mistakes import with_known_mistake
from grader.grade.unit_of_work import StudentWork
from grader.model import Task
from grader.report import pages as report
from grader.safe_text import for_database
from grader.web.graded_row import REPORT_LINKS, kept_outputs
from grader.web.logs import event
from grader.web.models import ERROR, Submission
from grader.web.row_records import row_fields
from grader.web.worker import queue
from grader.web.worker.course_state import CourseUnavailable, course_tasks
from grader.web.worker.grading_backends import Grading, WorkLost
from grader.web.worker.hidden_results import hidden_wait, public_task, public_verdict, release_due, with_hidden_waiting

log = logging.getLogger("grader.web.worker.dispatcher")


def unit_of(row: Submission, task: Task) -> StudentWork:
    """The unit of work that grades ``row`` against ``task``: its file, and each exercise file the
    task imports: the one handed in with it (``SubmissionFile``), else the student's latest earlier
    submission of that file's task (so the same row is always graded with the same files). A file
    found in neither is in ``refused``, the note of ``grade_row`` naming it."""
    files = {f"{row.task}.py": bytes(row.data)}
    # handed in with the row: the student chose them for this very hand-in, so they win
    handed = {name: bytes(data) for name, data in row.companions.values_list("name", "data")}
    not_yet = {}
    for used in task.uses_files:
        if used == row.task:
            continue
        if f"{used}.py" in handed:
            files[f"{used}.py"] = handed[f"{used}.py"]
            continue
        earlier = (
            Submission.objects.filter(student_id=row.student_id, task=used, id__lt=row.id)
            .order_by("-id")
            .values_list("data", flat=True)
            .first()
        )
        if earlier is not None:
            files[f"{used}.py"] = bytes(earlier)
        else:
            not_yet[f"{used}.py"] = f"You had not handed in {used}.py before this file."
    return StudentWork(student=row.student.username, tasks=(task,), files=files, known={}, refused=not_yet)


def grade_row(number: int, grading: Grading) -> dict:
    """Grade submission ``number`` as it is stored: the fields of its result (``WorkLost`` when the
    worker grading it was lost)."""
    row = Submission.objects.select_related("student").get(id=number)
    tasks = course_tasks()
    found = grading.answered.get(tasks, row.task)
    if found is None:
        return {"status": ERROR, "error": f"the task {row.task!r} is no longer part of the course"}
    task, fingerprint = found
    # before its student's deadline a hand-in runs no hidden case at all (``hidden_results``)
    wait = hidden_wait(row.student, task)
    work = unit_of(row, task if wait is None else public_task(task))
    (graded,) = grading.grade(work)
    result = graded if wait is None else with_hidden_waiting(graded, task, wait)
    # matched here, where the outputs are: the row keeps the mistake, never a whole output
    result = with_known_mistake(result, grading.answered.signatures(tasks, row.task))
    # a hand-in whose hidden cases wait: its report is of the public cases, with the note saying when the rest run
    shown = result if wait is None else replace(graded, notes=result.notes, mistake=result.mistake)
    page = report.bounded_task_page(
        shown, "graded on the portal", back_links=REPORT_LINKS, public_only=wait is not None
    )
    fields = row_fields(result, page, fingerprint)
    fields["public_only"] = wait is not None
    fields["outputs"] = kept_outputs(result)  # its visible failures, bounded, for the page it lands on
    if wait is not None:
        fields["verdict"] = fields["record"]["verdict"] = public_verdict(result)
    if work.refused:
        missing = sorted(work.refused)
        listed = ", ".join(missing[:-1]) + " and " + missing[-1] if len(missing) > 1 else missing[0]
        fields["notes"].insert(
            0,
            f"{row.task}.py imports your other exercise files and is graded with your latest {listed} handed in "
            f"before it: hand in {'those' if len(missing) > 1 else 'it'}, then {row.task}.py again.",
        )
    return fields


# A unit lost with its worker this many times is the grader's failure, not queued again: a file
# that takes its worker down every time would otherwise take the whole cluster down in turn.
MAX_ATTEMPTS = 4


def grade_claimed(number: int, attempt: int, grading: Grading, name: str = "") -> bool:
    """Grade the row ``number`` that ``attempt`` of the dispatcher ``name`` claimed and write its
    result (or queue it again when its worker was lost); False when another attempt took it over.
    Each grading written is a line of the events log (``graded`` or ``grading-failed``)."""
    started = time.monotonic()
    failed = ""  # why it failed, in words that quote nothing a program wrote (never its output)
    try:
        fields = grade_row(number, grading)
        if fields.get("status") == ERROR:
            failed = "task-gone"
    except WorkLost as lost:
        log.warning("submission %d: its grading was lost with its worker (attempt %d): %s", number, attempt, lost)
        if attempt < MAX_ATTEMPTS:
            return queue.give_back(number, attempt)
        fields = {"status": ERROR, "error": f"its grading was lost with its worker {attempt} times ({lost})"}
        failed = "worker-lost"
    except CourseUnavailable as error:  # said in the error log when the course failed to load
        fields = {"status": ERROR, "error": _plain(str(error))}
        failed = "course-unavailable"
    # SystemExit and KeyboardInterrupt too: a course's checkers.py calling sys.exit() must not end
    # the grading thread (its claim would stay held and the student's queue stuck)
    except (Exception, SystemExit, KeyboardInterrupt) as error:  # the grader's own fault: recorded, the queue goes on
        log.exception("submission %d: the grader failed on it", number)
        fields = {"status": ERROR, "error": _plain(f"the grader failed ({type(error).__name__}: {error})")}
        failed = f"grader-fault:{type(error).__name__}"
    took = time.monotonic() - started
    try:
        written = queue.finish(number, attempt, fields, name)
    except Exception as error:  # a result the database refuses: the row says why, the grading thread goes on
        log.exception("submission %d: its result could not be kept", number)
        failed = f"not-kept:{type(error).__name__}"
        fields = {"status": ERROR, "error": _plain(f"its result could not be kept ({type(error).__name__}: {error})")}
        written = queue.finish(number, attempt, fields, name)
    if written:
        _said(number, attempt, fields, took, failed, grading.where, name)
    return written


def _said(number: int, attempt: int, fields: dict, took: float, failed: str, where: str, name: str) -> None:
    """The events log's line of a grading just written: ``graded`` (with how long the submission
    waited in the queue when this was its first grading, how long grading took, its verdict and
    score, where it was graded) or ``grading-failed`` (with why, never a program's output)."""
    row = (
        Submission.objects.filter(id=number)
        .values("task", "student__username", "submitted_at", "claimed_wanted", "graded_at")
        .first()
    )
    if row is None:
        return
    # a first grading waited from its hand-in; a regrade's request has no time of its own
    first = row["claimed_wanted"] <= 1
    started = row["graded_at"] - timedelta(seconds=took) if row["graded_at"] else None
    waited = f"{max((started - row['submitted_at']).total_seconds(), 0):.1f}s" if first and started else "-"
    who = {"submission": number, "task": row["task"], "user": row["student__username"]}
    if failed:
        event("grading-failed", **who, reason=failed, attempt=attempt, dispatcher=name or "-")
        return
    score = f"{fields.get('score') or 0:g}/{fields.get('max_score') or 0:g}"
    event(
        "graded",
        **who,
        kind="handin" if first else "regrade",
        verdict=fields.get("verdict") or "-",
        score=score,
        public_only=bool(fields.get("public_only")),
        waited=waited,
        took=f"{took:.1f}s",
        backend=where,
        dispatcher=name or "-",
    )


def _plain(text: str) -> str:
    """``text`` as any database keeps it: each NUL and lone surrogate as its marker (the rule of
    every text a grading writes, ``safe_text.for_database``)."""
    return for_database(text)


def drain(grading: Grading, name: str = "") -> int:
    """Claim and grade, one at a time, until nothing can be claimed; returns how many were graded."""
    graded = 0
    while True:
        claimed = queue.claim(name)
        if claimed is not None:
            graded += grade_claimed(*claimed, grading, name)
        else:
            return graded


class Dispatcher:
    """Threads that claim and grade pending submissions until ``stop`` is called; one more says
    every few seconds that this dispatcher is alive and releases the claims of those that stopped."""

    def __init__(self, grading: Grading, workers: int = 1, poll_s: float = 0.5) -> None:
        self.grading = grading
        self.workers = max(1, workers)
        self.poll_s = poll_s
        self.name = queue.worker_name()
        self._stop = threading.Event()
        self._wake = threading.Event()  # set when this process writes a new submission
        self._threads: List[threading.Thread] = []

    def _handed_in(self, sender, created=False, **_) -> None:
        if created:  # once the row is there for every connection to see
            transaction.on_commit(self._wake.set)

    def start(self) -> None:
        # A hand-in through this process's own site wakes the graders at once; anything else
        # (another web process, a regrade) is found by polling every ``poll_s``.
        post_save.connect(self._handed_in, sender=Submission, weak=False, dispatch_uid=self.name)
        queue.say_alive(self.name, self.workers, self.grading.where)
        queue.release_stale()  # claims of dispatchers that stopped, however abruptly
        threads = [threading.Thread(target=self._heartbeat, name="portal-heartbeat", daemon=True)]
        threads += [
            threading.Thread(target=self._work, name=f"portal-grader-{number}", daemon=True)
            for number in range(self.workers)
        ]
        for thread in threads:
            thread.start()
        self._threads = threads

    def _heartbeat(self) -> None:
        while not self._stop.wait(queue.HEARTBEAT_S):
            try:
                close_old_connections()
                queue.say_alive(self.name, self.workers, self.grading.where)
                queue.release_stale()
                release_due()  # hand-ins whose hidden cases waited for a deadline that has passed
            except Exception:  # a database that is busy or away a moment: said again next time
                log.exception("dispatcher %s: its heartbeat failed (it is tried again)", self.name)

    def _work(self) -> None:
        while not self._stop.is_set():
            try:
                close_old_connections()
                claimed = queue.claim(self.name)
                if claimed is not None:
                    grade_claimed(*claimed, self.grading, self.name)
                    continue
            except (Exception, SystemExit, KeyboardInterrupt):  # a database away a moment: wait, try again
                log.exception("dispatcher %s: a grading thread failed to claim or finish a submission", self.name)
            self._wake.wait(self.poll_s)
            self._wake.clear()

    def stop(self, timeout: float = 30.0) -> None:
        post_save.disconnect(dispatch_uid=self.name, sender=Submission)
        self._stop.set()
        self._wake.set()
        for thread in self._threads:
            thread.join(timeout)
        try:
            queue.say_stopped(self.name)
        except Exception:  # the database is gone: the next start releases our claims
            pass
