"""The portal grading on a Dask cluster (``serve --dask``): a ``LocalCluster`` started here, its
workers holding the course and never the database; a worker killed mid-grading loses nothing."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
distributed = pytest.importorskip("distributed", reason="serve --dask needs the dask extra")
dask = pytest.importorskip("dask")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from support import COURSE, solution  # noqa: E402

# graded by threads or processes of their own, which see committed rows only
pytestmark = pytest.mark.committed


@pytest.fixture(scope="module")
def student(tmp_path_factory):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get_or_create(username="dask-ann")[0]


@pytest.fixture(autouse=True)
def empty_queue(student):
    """Nothing left by another module's tests in the queue (the database is the process's)."""
    from grader.web.models import Submission

    Submission.objects.all().delete()


@pytest.fixture(scope="module")
def cluster():
    # No retries of its own: a unit whose worker dies comes back to the dispatcher as lost, which
    # queues it again (with Dask's default of 3 retries, Dask would rerun it itself first).
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=True, dashboard_address=":0"
        ) as local:
            yield local


@pytest.fixture
def grading(cluster, context):
    from grader.web.worker.grading_backends import DaskGrading, grading_context

    backend = DaskGrading(cluster.scheduler_address, grading_context(context.runner, COURSE))
    yield backend
    backend.close()


def hand_in(student, task, text):
    from grader.web.site.handin import hand_in as queue_it

    return queue_it(student, task, text.encode()).row.id


def test_the_cluster_grades_a_submission_as_here(student, grading):
    from grader.web.models import Submission
    from grader.web.worker.dispatcher import drain

    right = hand_in(student, "exclusive_or", solution("exclusive_or"))
    wrong = hand_in(student, "exclusive_or", solution("exclusive_or").replace("    return 1", "    return 0"))
    assert grading.threads() == 2 and grading.where.startswith("Dask at tcp://")
    assert drain(grading, "dask-dispatcher") == 2
    graded = {row.id: row for row in Submission.objects.filter(id__in=[right, wrong])}
    assert graded[right].verdict == "accepted" and graded[right].score == graded[right].max_score
    assert graded[wrong].verdict != "accepted" and "exclusive_or" in graded[wrong].report
    assert graded[right].graded_by == "dask-dispatcher"


def test_a_worker_killed_mid_grading_loses_nothing(student, grading, cluster):
    from grader.web.models import Submission
    from grader.web.worker import queue
    from grader.web.worker.dispatcher import drain, grade_claimed

    slow = "import time\ntime.sleep(0.2)\n" + solution("exclusive_or")
    number = hand_in(student, "exclusive_or", slow)
    claimed = queue.claim("dask-dispatcher")
    done = []
    grader = threading.Thread(target=lambda: done.append(grade_claimed(*claimed, grading, "dask-dispatcher")))
    grader.start()
    deadline = time.monotonic() + 60
    while not any(grading.client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # well into its cases
    for pid in grading.client.run(os.getpid).values():
        os.kill(pid, signal.SIGKILL)
    grader.join(120)
    assert done == [True]  # given back, not written as the student's result
    row = Submission.objects.get(id=number)
    assert (row.status, row.pending, row.verdict) == ("queued", True, None)
    grading.client.wait_for_workers(1, timeout=60)  # the nanny starts a new worker
    assert drain(grading, "dask-dispatcher") == 1
    row = Submission.objects.get(id=number)
    assert (row.status, row.verdict, row.attempt) == ("done", "accepted", 2)


def test_an_unreachable_scheduler_is_a_sentence(context):
    from grader.errors import UsageError
    from grader.web.worker.grading_backends import DaskGrading, grading_context

    with pytest.raises(UsageError, match="cannot reach the Dask scheduler"):
        DaskGrading("tcp://127.0.0.1:9", grading_context(context.runner, COURSE), timeout_s=2)
