"""Fair under load, with real grading: one student's ten looping files delay another student's
correct one by at most one grading, and a looping file holds a grader for two time limits only."""

from __future__ import annotations

import sys

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from support import COURSE, solution  # noqa: E402

LOOPS = "while True:\n    pass\n"

# graded by threads or processes of their own, which see committed rows only
pytestmark = pytest.mark.committed


@pytest.fixture(scope="module")
def students(tmp_path_factory):
    from django.contrib.auth import get_user_model

    return [get_user_model().objects.get_or_create(username=name)[0] for name in ("f-ann", "f-ben")]


@pytest.fixture(autouse=True)
def empty_queue(students):
    """Nothing left by another module's tests in the queue (the database is the process's)."""
    from grader.web.models import AT_ONCE, CourseSetting, Submission, TaskPolicy

    Submission.objects.all().delete()
    TaskPolicy.objects.all().delete()  # nor limits or settings another module set
    CourseSetting.objects.all().delete()
    CourseSetting.objects.create(pk=1, hidden_results=AT_ONCE)  # graded in full, as the times measured assume


def test_ten_looping_files_delay_anothers_correct_one_by_one_grading_at_most(students, context):
    from grader.web.models import Submission
    from grader.web.site.handin import hand_in
    from grader.web.worker import queue
    from grader.web.worker.dispatcher import grade_claimed
    from grader.web.worker.grading_backends import LocalGrading, grading_context

    flooder, other = students
    loops = [hand_in(flooder, "exclusive_or", (LOOPS + f"# {n}\n").encode()).row.id for n in range(10)]
    correct = hand_in(other, "exclusive_or", solution("exclusive_or").encode()).row.id
    grading = LocalGrading(grading_context(context.runner, COURSE))
    graded = []
    while correct not in graded:  # one dispatcher, one submission at a time: the worst case
        number, attempt = queue.claim("only")
        assert grade_claimed(number, attempt, grading, "only")
        graded.append(number)
    assert graded == [loops[0], correct]
    assert Submission.objects.get(id=correct).verdict == "accepted"
    looped = Submission.objects.get(id=loops[0])
    verdicts = [case["verdict"] for case in looped.results]
    assert verdicts[:2] == ["time_limit_exceeded"] * 2 and set(verdicts[2:]) == {"not_run"}
    assert all(c["message"].endswith("then hand the file in again.") for c in looped.results[2:])
    Submission.objects.filter(id__in=loops).delete()  # the rest is not this test's business
