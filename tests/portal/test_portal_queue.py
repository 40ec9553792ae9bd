"""The grading queue in the database: fair claims (one running per student, round robin), and
the claims of dispatchers that stopped given back, without grading anything."""

from __future__ import annotations

import subprocess
import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)


@pytest.fixture(scope="module")
def students(tmp_path_factory):
    from django.contrib.auth import get_user_model

    return {name: get_user_model().objects.get_or_create(username=name)[0] for name in ("q-ann", "q-ben", "q-cid")}


def queued(student, count=1):
    """``count`` submissions of ``student``, queued; their ids."""
    from django.utils import timezone

    from grader.web.models import Submission

    return [
        Submission.objects.create(
            student=student, task="nim_sum", file_name="nim_sum.py", data=b"", sha256="", submitted_at=timezone.now()
        ).id
        for _ in range(count)
    ]


def done(number, attempt):
    from grader.web.worker import queue

    assert queue.finish(number, attempt, {"status": "done", "verdict": "accepted", "score": 1.0})


def test_a_flood_of_one_student_waits_behind_one_grading_of_anothers(students):
    from grader.web.worker import queue

    flood = queued(students["q-ann"], 10)
    (other,) = queued(students["q-ben"])
    first = queue.claim("one")
    assert first[0] == flood[0]
    assert queue.claim("two")[0] == other  # at most one of ann's at a time: ben's goes now
    assert queue.claim("three") is None  # both students have one being graded


def test_one_dispatcher_takes_turns_between_students(students):
    from grader.web.worker import queue

    flood = queued(students["q-ann"], 3)
    (bens,) = queued(students["q-ben"])
    (cids,) = queued(students["q-cid"])
    order = []
    while (claimed := queue.claim("only")) is not None:
        order.append(claimed[0])
        done(*claimed)
    # every student's first before anyone's second; then ann's rest, oldest first
    assert order == [flood[0], bens, cids, flood[1], flood[2]]


def test_a_student_served_longer_ago_goes_first(students):
    from grader.web.worker import queue

    (earlier,) = queued(students["q-ben"])
    done(*queue.claim("only"))  # ben was just served
    (bens,) = queued(students["q-ben"])
    (anns,) = queued(students["q-ann"])  # handed in after ben's, never served
    assert queue.claim("only")[0] == anns and queue.claim("other")[0] == bens and earlier < bens


def test_the_claims_of_a_stopped_dispatcher_are_given_back_and_a_live_ones_kept(students):
    from grader.web.models import Submission
    from grader.web.worker import queue

    ann, ben = queued(students["q-ann"])[0], queued(students["q-ben"])[0]
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = f"{queue.worker_name().split(':')[0]}:{gone.stdout.strip()}:1"  # this machine, a process that ended
    alive = queue.worker_name()
    queue.say_alive(dead, 1, "this machine")
    queue.say_alive(alive, 1, "this machine")
    assert queue.claim(dead)[0] == ann and queue.claim(alive)[0] == ben
    assert queue.release_stale() == 1  # the dead one's, at once: no need to wait for it to fall silent
    assert set(queue.live_workers()) == {alive}
    row = Submission.objects.get(id=ann)
    assert row.status == "queued" and row.claimed_at is None and row.pending
    assert Submission.objects.get(id=ben).claimed_by == alive


def test_a_result_lost_with_its_worker_is_queued_again(students):
    from grader.web.models import Submission
    from grader.web.worker import queue

    (number,) = queued(students["q-ann"])
    claimed = queue.claim("one")
    assert queue.give_back(*claimed)
    row = Submission.objects.get(id=number)
    assert (row.status, row.pending, row.claimed_at, row.attempt) == ("queued", True, None, 1)
    assert not queue.finish(*claimed, {"status": "done"})  # the lost attempt writes nothing
    assert queue.claim("two") == (number, 2)


def test_a_unit_lost_with_its_worker_again_and_again_is_the_graders_failure(students):
    from grader.web.models import Submission
    from grader.web.worker import queue
    from grader.web.worker.course_state import course_tasks
    from grader.web.worker.dispatcher import MAX_ATTEMPTS, grade_claimed
    from grader.web.worker.grading_backends import WorkLost

    class Lost:  # a cluster whose worker dies under every unit
        where = "nowhere"

        class answered:
            @staticmethod
            def get(tasks, task_id):
                return course_tasks()[task_id], "cases"

        def grade(self, work, shrink=False):
            raise WorkLost("the worker died")

    (number,) = queued(students["q-ann"])
    for attempt in range(1, MAX_ATTEMPTS + 1):
        assert queue.claim("one") == (number, attempt)
        assert grade_claimed(number, attempt, Lost(), "one")
        row = Submission.objects.get(id=number)
        if attempt < MAX_ATTEMPTS:  # queued again, never the student's result
            assert (row.status, row.pending, row.verdict) == ("queued", True, None)
    assert (row.status, row.pending) == ("error", False)
    assert row.error == f"its grading was lost with its worker {MAX_ATTEMPTS} times (the worker died)"
