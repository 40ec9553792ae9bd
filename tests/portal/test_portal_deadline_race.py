"""Invariant 4, no lost update, for deadlines: a task's first deadline, set while a hand-in of it is
in flight, marks that hand-in by the one or the other, never leaves it on time after the deadline.

Two connections (threads), each stopped inside its transaction at the step that matters, on the
session's database: on PostgreSQL (``NIM_GRADER_TEST_DB=postgresql``) neither transaction sees the
other's new rows, which is where a policy row made by the deadline alone let the hand-in through.
"""

from __future__ import annotations

import sys
import threading
import time

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from support import solution  # noqa: E402

# two connections, which see committed rows only
pytestmark = pytest.mark.committed

PAST = "2020-01-31 23:59"
WAIT_S = 60  # a bound on a step that takes milliseconds: reached only when something hangs


@pytest.fixture(scope="module")
def people():
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    student = users.get_or_create(username="dr-ann")[0]
    teacher = users.get_or_create(username="dr-teach", defaults={"is_staff": True})[0]
    return student, teacher


@pytest.fixture(autouse=True)
def empty(people):
    from grader.web.models import Extension, Submission, TaskPolicy

    Submission.objects.all().delete()
    TaskPolicy.objects.all().delete()  # no task has a policy row yet: the first deadline is the one raced
    Extension.objects.all().delete()


class Step(threading.Thread):
    """``work`` on a thread (a connection) of its own; what it returned or raised is kept."""

    def __init__(self, work) -> None:
        super().__init__(daemon=True)
        self.work, self.answer, self.error = work, None, None

    def run(self) -> None:
        from django.db import connection

        try:
            self.answer = self.work()
        except BaseException as error:  # said by the test, in the test's thread
            self.error = error
        finally:
            connection.close()


def paused(monkeypatch, module, name):
    """Stop every call of ``module.name`` (a step inside a transaction) until the test lets it go:
    (reached, go) events."""
    real = getattr(module, name)
    reached, go = threading.Event(), threading.Event()

    def stopped(*args, **kwargs):
        reached.set()
        assert go.wait(WAIT_S), "the test never let the step go on"
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, stopped)
    return reached, go


def blocked_or_done(step: Step) -> None:
    """Wait until ``step`` has ended or (PostgreSQL) waits for a lock another transaction holds.
    SQLite: at once (its one writer at a time makes either order right)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    for _ in range(WAIT_S * 100):
        if not step.is_alive():
            return
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            )
            if cursor.fetchone()[0]:
                return
        time.sleep(0.01)
    raise AssertionError("the second transaction neither ended nor waited for the first")


def set_deadline(teacher, every_task: bool):
    from django.test import Client

    client = Client()
    client.force_login(teacher)
    if every_task:
        return client.post("/teach/limits", {"deadline": PAST}).status_code
    return client.post("/teach/tasks/nim_sum/limits", {"deadline": PAST}).status_code


def hand_in(student):
    from grader.web.site.handin import hand_in as handing_in

    return handing_in(student, "nim_sum", solution("nim_sum").encode())


def finish(*steps: Step) -> None:
    for step in steps:
        step.join(WAIT_S)
        assert not step.is_alive(), "a step never ended"
        if step.error is not None:
            raise step.error


@pytest.mark.parametrize("every_task", [False, True], ids=["one task", "every task"])
def test_a_first_deadline_set_while_a_hand_in_is_in_flight_marks_it_late(monkeypatch, people, every_task):
    from grader.web.models import Submission
    from grader.web.site import handin

    student, teacher = people
    reached, go = paused(monkeypatch, handin, "_too_soon")  # the hand-in has read the task's policy
    handing = Step(lambda: hand_in(student))
    handing.start()
    assert reached.wait(WAIT_S)
    deadline = Step(lambda: set_deadline(teacher, every_task))
    deadline.start()
    blocked_or_done(deadline)
    go.set()
    finish(handing, deadline)
    assert deadline.answer == 302 and handing.answer.row is not None
    assert Submission.objects.get().late  # handed in after the deadline, marked by it


@pytest.mark.parametrize("every_task", [False, True], ids=["one task", "every task"])
def test_a_hand_in_while_a_first_deadline_is_being_set_is_marked_by_it(monkeypatch, people, every_task):
    from grader.web.models import Submission
    from grader.web.site import views_instructor

    student, teacher = people
    # the deadline is written and the submissions marked by it, not yet committed
    reached, go = paused(monkeypatch, views_instructor, "late_change_words")
    deadline = Step(lambda: set_deadline(teacher, every_task))
    deadline.start()
    assert reached.wait(WAIT_S)
    handing = Step(lambda: hand_in(student))
    handing.start()
    blocked_or_done(handing)
    go.set()
    finish(deadline, handing)
    assert deadline.answer == 302 and handing.answer.row is not None
    assert Submission.objects.get().late
