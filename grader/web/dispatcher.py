"""Grading what is handed in, with the database as the queue's truth.

A row owes grading while ``pending``. ``claim`` takes the oldest such row that no attempt holds,
in one transaction (``attempt`` + 1, ``claimed_at`` now); ``finish`` writes a result only for the
attempt that claimed it, and clears ``pending``. A claim that never finishes (the server was
killed) is released by ``release_stale`` on every start and then periodically, so the row is
graded again: nothing handed in is lost, and no result is written twice for one attempt.
Grading itself is the grader's: the file is staged in a private folder and graded by
``grade_file`` against the course's current cases, in the runner ``best_runner`` gives.
"""

from __future__ import annotations

import sys
import tempfile
import threading
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Optional, Tuple

from django.db import close_old_connections, transaction
from django.utils import timezone

from grader.course.course_checkers import course_checkers
from grader.grade.grading import GradingContext, grade_file
from grader.model import TaskResult
from grader.report import pages as report
from grader.web.course_state import cases_fingerprint, course, course_tasks
from grader.web.models import DONE, ERROR, QUEUED, RUNNING, Submission

# A claim older than this with no result is taken to be lost (its server stopped) and released.
STALE_AFTER = timedelta(minutes=10)


def release_stale(older_than: Optional[timedelta] = STALE_AFTER) -> int:
    """Release claims older than ``older_than`` (None: every claim, as on start); returns how many."""
    with transaction.atomic():
        held = Submission.objects.filter(pending=True, claimed_at__isnull=False)
        if older_than is not None:
            held = held.filter(claimed_at__lt=timezone.now() - older_than)
        Submission.objects.filter(id__in=held.values("id"), status=RUNNING).update(status=QUEUED)
        return held.update(claimed_at=None)


def claim() -> Optional[Tuple[int, int]]:
    """(submission id, attempt) of the oldest unclaimed pending row, now claimed; None when none waits."""
    with transaction.atomic():
        row = Submission.objects.filter(pending=True, claimed_at__isnull=True).order_by("id").first()
        if row is None:
            return None
        attempt = row.attempt + 1
        status = RUNNING if row.status in (QUEUED, RUNNING) else row.status  # a regrade keeps its old result shown
        taken = Submission.objects.filter(id=row.id, attempt=row.attempt, claimed_at__isnull=True).update(
            attempt=attempt, claimed_at=timezone.now(), status=status
        )
        return (row.id, attempt) if taken else None


def _result_fields(result: TaskResult) -> dict:
    cases = [
        {
            "name": case.case.name,
            "verdict": case.verdict.value,
            # a hidden case: its name, verdict and hint only (the message of a hidden case says no more)
            "message": case.message,
            "hidden": case.case.hidden,
        }
        for case in result.cases
    ]
    return {
        "verdict": result.verdict.value,
        "score": result.score,
        "max_score": result.max_score,
        "results": cases,
    }


def grade_one(number: int, context: GradingContext) -> dict:
    """Grade submission ``number`` as it is stored: the fields of its result."""
    row = Submission.objects.get(id=number)
    tasks = course_tasks()
    task = tasks.get(row.task)
    if task is None:
        return {"status": ERROR, "error": f"the task {row.task!r} is no longer part of the course"}
    with tempfile.TemporaryDirectory(prefix="nim-grader-portal-") as folder:
        path = Path(folder) / row.file_name
        path.write_bytes(bytes(row.data))
        result = grade_file(task, path, replace(context, task_ids=tuple(tasks)), row.file_name)
        pages = Path(folder) / "report"
        report.write_html([result], pages, "graded on the portal")
        page = (pages / report.page_names([result])[0]).read_text(encoding="utf-8")
    return {"status": DONE, "report": page, "cases": cases_fingerprint(task), "error": "", **_result_fields(result)}


def finish(number: int, attempt: int, fields: dict) -> bool:
    """Write a result for the attempt that claimed the row; False when another attempt holds it now."""
    with transaction.atomic():
        written = Submission.objects.filter(id=number, attempt=attempt, claimed_at__isnull=False).update(
            pending=False, claimed_at=None, graded_at=timezone.now(), **fields
        )
    return written == 1


class Dispatcher:
    """Threads that claim and grade pending submissions until ``stop`` is called."""

    def __init__(self, context: GradingContext, workers: int = 1, poll_s: float = 0.5) -> None:
        self.context = context
        self.workers = max(1, workers)
        self.poll_s = poll_s
        self._stop = threading.Event()
        self._threads = []

    def start(self) -> None:
        release_stale(None)  # nothing of ours runs yet: every claim is from a server that stopped
        for number in range(self.workers):
            thread = threading.Thread(target=self._work, name=f"portal-grader-{number}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _work(self) -> None:
        checked_stale = timezone.now()
        while not self._stop.is_set():
            close_old_connections()
            if timezone.now() - checked_stale > STALE_AFTER / 2:
                release_stale()
                checked_stale = timezone.now()
            claimed = claim()
            if claimed is None:
                self._stop.wait(self.poll_s)
                continue
            number, attempt = claimed
            try:
                fields = grade_one(number, self.context)
            except Exception as error:  # the grader's own fault on this file: recorded, the queue goes on
                fields = {"status": ERROR, "error": f"the grader failed ({type(error).__name__}: {error})"}
            finish(number, attempt, fields)

    def stop(self, timeout: float = 30.0) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout)


def grading_context(runner) -> GradingContext:
    """The context the portal grades with: the course's checkers, this interpreter, ``runner``."""
    layout = course()
    return GradingContext(
        checkers=course_checkers(layout.root),
        python=sys.executable,
        runner=runner,
        course=layout.root,
        task_ids=layout.task_ids(),
    )
