"""Invariant 4, no lost update: a regrade is owed until a grading started after it writes its result
(``Submission.wanted``/``graded``, ``queue``), and a task's policy row is there before any hand-in can
race its first deadline (``course_state``'s policy rows, ``handin``'s lock). Each race is played step
by step, never by timing, on the session's database (SQLite, or PostgreSQL with
``NIM_GRADER_TEST_DB=postgresql``)."""

from __future__ import annotations

import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)


@pytest.fixture(scope="module")
def student():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get_or_create(username="lu-ann")[0]


def _queued(student, task="nim_sum"):
    from django.utils import timezone

    from grader.web.models import Submission

    return Submission.objects.create(
        student=student, task=task, file_name=f"{task}.py", data=b"", sha256="", submitted_at=timezone.now()
    ).id


def _done(claimed, verdict="accepted"):
    from grader.web.worker import queue

    assert queue.finish(*claimed, {"status": "done", "verdict": verdict, "score": 1.0})


def _owed(number) -> bool:
    from grader.web.models import Submission

    return Submission.objects.filter(id=number, pending=True).exists()


def test_a_regrade_during_a_grading_is_owed_until_a_grading_started_after_it(student):
    from grader.web.site import handin
    from grader.web.worker import queue

    number = _queued(student)
    first = queue.claim("one")
    assert first[0] == number
    assert handin.regrade("nim_sum") == 1  # the instructor is told "1 queued" while it is being graded
    _done(first, "old cases")
    assert _owed(number)  # the grading that started before the regrade does not satisfy it
    second = queue.claim("one")
    assert second == (number, first[1] + 1)
    _done(second, "new cases")
    assert not _owed(number) and queue.claim("one") is None


def test_every_regrade_during_a_grading_is_owed_and_one_later_grading_satisfies_them_all(student):
    from grader.web.site import handin
    from grader.web.worker import queue

    number = _queued(student)
    first = queue.claim("one")
    for _ in range(3):
        handin.regrade("nim_sum")
    _done(first)
    second = queue.claim("one")
    assert second is not None and second[0] == number
    _done(second)
    assert not _owed(number)


def test_a_regrade_of_a_row_given_back_or_released_is_still_owed(student):
    from grader.web.site import handin
    from grader.web.worker import queue

    number = _queued(student)
    lost = queue.claim("gone")
    handin.regrade("nim_sum")
    assert queue.give_back(*lost)  # its worker was lost: nothing written
    assert _owed(number)
    again = queue.claim("one")
    handin.regrade("nim_sum")
    assert not queue.finish(*lost, {"status": "done"})  # the lost attempt cannot satisfy anything
    _done(again)
    assert _owed(number)  # the second regrade came after ``again`` was claimed
    _done(queue.claim("one"))
    assert not _owed(number)


def test_a_regrade_of_a_row_not_being_graded_is_owed_once(student):
    from grader.web.site import handin
    from grader.web.worker import queue

    number = _queued(student)
    _done(queue.claim("one"))
    assert not _owed(number)
    handin.regrade("nim_sum")
    handin.regrade("nim_sum")
    _done(queue.claim("one"))
    assert not _owed(number) and queue.claim("one") is None


MIGRATED = r"""
import sys
from pathlib import Path
from grader.web.server import configure
configure(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] or None)
from django.core.management import call_command
from django.db import connection
from django.utils import timezone
call_command("migrate", verbosity=0, interactive=False)
call_command("migrate", "portal", "0012_one_pass", verbosity=0, interactive=False)  # back, as 0012 left it
from django.contrib.auth import get_user_model
ann = get_user_model().objects.create(username="mig-ann")
now = timezone.now()
with connection.cursor() as cursor:
    for pending, claimed in ((True, None), (False, None), (True, now), (False, now)):
        cursor.execute(
            "INSERT INTO portal_submission (student_id, task, file_name, data, sha256, submitted_at, late, status,"
            " pending, attempt, claimed_at, claimed_by, graded_by, cases, notes, report, mistake, record, error,"
            " chosen) VALUES (%s, 'nim_sum', 'nim_sum.py', %s, '', %s, %s, 'done', %s, 1, %s, '', '', '', '[]', '',"
            " '{}', '{}', '', %s)",
            [ann.pk, b"", now, False, pending, claimed, False],
        )
call_command("migrate", verbosity=0, interactive=False)
from grader.web.models import Submission
print([(r.pending, r.wanted, r.graded, r.claimed_wanted) for r in Submission.objects.order_by("id")])
"""


def test_the_migration_counts_what_each_row_owed(tmp_path, portal_database):
    """0013_regrade_version on rows as 0012 left them: one owed owes one grading, one graded owes
    none, one being graded is held for its one hand-in (SQLite, or a PostgreSQL database of its own)."""
    import subprocess

    from support import COURSE

    done = subprocess.run(
        [sys.executable, "-c", MIGRATED, str(tmp_path / "data"), str(COURSE.root), portal_database.fresh() or ""],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = done.stdout.strip().splitlines()[-1]
    assert rows == "[(True, 1, 0, 0), (False, 1, 1, 0), (True, 1, 0, 1), (False, 1, 1, 1)]"
