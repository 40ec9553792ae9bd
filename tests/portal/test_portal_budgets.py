"""A new course is safe without configuration (issue 35, invariant 2): each task's hand-ins per
student are bounded in all and in any hour, the bytes a student's hand-ins keep are bounded with
the files sent with them (``also``), and the pages read a bounded number of rows however long a
student's history is, their marks picked in the database. The instructor loosens each budget on
/teach/. The attacks: many hand-ins, many 1 MiB companions, a history of hundreds of graded rows."""

from __future__ import annotations

import datetime
import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import signed_in  # noqa: E402
from support import solution  # noqa: E402

MIB = 1024 * 1024


@pytest.fixture(scope="module", autouse=True)
def people(tmp_path_factory):
    from django.contrib.auth import get_user_model
    from portal_client import set_up_portal

    set_up_portal(tmp_path_factory.mktemp("roster"), "username,role\nann,student\nben,student\nteach,instructor\n")
    return {name: get_user_model().objects.get(username=name) for name in ("ann", "ben", "teach")}


def post(client, path, data):
    client.get("/teach/")
    return client.post(path, dict(data, csrfmiddlewaretoken=client.cookies["csrftoken"].value))


def graded(student, task="nim_sum"):
    """Every submission of ``student`` graded, so the waiting bound never refuses first."""
    from grader.web.models import DONE, Submission

    Submission.objects.filter(student=student, task=task).update(status=DONE, pending=False, graded=1, score=1.0)


def aged(student, hours=2):
    """Every submission of ``student`` handed in ``hours`` ago: out of the hourly window."""
    from django.utils import timezone

    from grader.web.models import Submission

    Submission.objects.filter(student=student).update(submitted_at=timezone.now() - datetime.timedelta(hours=hours))


def hand_in(student, task, data, companions=()):
    from grader.web.site.handin import hand_in as handing_in

    return handing_in(student, task, data if isinstance(data, bytes) else data.encode(), companions=companions)


# --- hand-ins per task: in any hour, and in all -------------------------------------------------


def test_a_new_course_refuses_the_hand_in_past_the_hourly_budget_and_says_when(people):
    from grader.web.models import MAX_PER_HOUR, Submission

    ann = people["ann"]
    for number in range(MAX_PER_HOUR):
        assert hand_in(ann, "nim_sum", solution("nim_sum") + f"# {number}\n").row is not None
        graded(ann)
    refused = hand_in(ann, "nim_sum", solution("nim_sum"))
    assert refused.status == 429 and 3500 <= refused.retry_after <= 3600
    assert f"handed in nim_sum {MAX_PER_HOUR} times in the last hour" in refused.message
    assert f"again in {refused.retry_after} s" in refused.message
    assert Submission.objects.filter(student=ann).count() == MAX_PER_HOUR
    # another task, and another student, have budgets of their own
    assert hand_in(ann, "bin_num", solution("bin_num")).row is not None
    assert hand_in(people["ben"], "nim_sum", solution("nim_sum")).row is not None
    aged(ann)  # an hour later the budget is whole again
    assert hand_in(ann, "nim_sum", solution("nim_sum")).row is not None


def test_a_new_course_refuses_the_hand_in_past_the_tasks_count(people):
    from django.utils import timezone

    from grader.web.models import DONE, MAX_COUNT_PER_TASK, Submission

    ann = people["ann"]
    old = timezone.now() - datetime.timedelta(days=3)
    Submission.objects.bulk_create(
        Submission(student=ann, task="nim_sum", file_name="nim_sum.py", data=b"x", sha256="", submitted_at=old,
                   status=DONE, pending=False, graded=1)
        for _ in range(MAX_COUNT_PER_TASK - 1)
    )  # fmt: skip
    assert hand_in(ann, "nim_sum", solution("nim_sum")).row is not None
    graded(ann)
    refused = hand_in(ann, "nim_sum", solution("nim_sum"))
    assert refused.status == 429 and f"the {MAX_COUNT_PER_TASK} times allowed" in refused.message


def test_the_instructor_sees_the_default_budgets_and_lifts_them(people):
    from grader.web.models import MAX_COUNT_PER_TASK, MAX_PER_HOUR, MAX_STORED_MIB

    teach, ann = signed_in("teach"), people["ann"]
    page = teach.get("/teach/").content.decode()
    assert f'name="max_per_hour" id="id_hourly_nim_sum" value="{MAX_PER_HOUR}"' in page
    assert f'name="max_count" id="id_count_nim_sum" value="{MAX_COUNT_PER_TASK}"' in page
    assert f'name="max_stored_mib" id="id_max_stored_mib" value="{MAX_STORED_MIB}"' in page
    answer = post(teach, "/teach/tasks/nim_sum/limits", {"min_interval_s": "0", "max_count": "", "max_per_hour": ""})
    assert answer.status_code == 302
    for number in range(MAX_PER_HOUR + 5):
        assert hand_in(ann, "nim_sum", solution("nim_sum") + f"# {number}\n").row is not None
        graded(ann)
    # the every-task form sets the hourly budget on every task at once (and a wrong value changes nothing)
    assert post(teach, "/teach/limits", {"max_per_hour": "0"}).status_code == 400
    assert post(teach, "/teach/limits", {"max_per_hour": "2"}).status_code == 302
    assert [hand_in(ann, "bin_num", solution("bin_num")).status for _ in range(3)][2] == 429


# --- bytes kept per student, files sent with a hand-in included ---------------------------------


def padded(task, size):
    """``task``'s reference solution, made ``size`` bytes long by a comment."""
    text = solution(task) + "\n# "
    return (text + "x" * (size - len(text) - 1) + "\n").encode()


def test_one_mib_companions_stop_at_the_students_byte_budget_with_a_413(people):
    from django.db.models import Sum

    from grader.web.models import MAX_STORED_MIB, Submission, SubmissionFile

    ann, sent, refused = people["ann"], 0, None
    near = MIB - 64
    also = [(f"{name}.py", padded(name, near)) for name in ("present_board", "make_move", "optimal_move", "ui")]
    for _ in range(12):  # 5 MiB a hand-in: 60 MiB if nothing stopped it
        outcome = hand_in(ann, "working_game", padded("working_game", near), companions=also)
        if outcome.row is None:
            refused = outcome
            break
        sent += 1
        graded(ann, "working_game")
        aged(ann)
    assert refused is not None, "12 hand-ins of 5 MiB each were all kept"
    assert refused.status == 413 and f"over the {MAX_STORED_MIB} MiB one student's hand-ins may keep" in refused.message
    assert "ask your instructor to raise the limit" in refused.message
    kept = Submission.objects.filter(student=ann).aggregate(n=Sum("stored_bytes"))["n"]
    files = SubmissionFile.objects.filter(submission__student=ann).count()
    assert kept <= MAX_STORED_MIB * MIB and sent == MAX_STORED_MIB // 5 and files == 4 * sent
    # a file of a usual size still fits, and another student has a budget of their own
    assert hand_in(ann, "nim_sum", solution("nim_sum")).row is not None
    assert hand_in(people["ben"], "working_game", padded("working_game", near), companions=also).row is not None
    # the instructor raises it
    assert post(signed_in("teach"), "/teach/waiting", {"max_waiting": "10", "max_stored_mib": "64"}).status_code == 302
    assert hand_in(ann, "working_game", padded("working_game", near), companions=also).row is not None


def test_the_stored_bytes_are_counted_for_rows_kept_before(people):
    """The migration's sum (its file and the files sent with it) is the one ``hand_in`` keeps."""
    import importlib

    from django.apps import apps

    from grader.web.models import Submission

    ann = people["ann"]
    row = hand_in(ann, "working_game", solution("working_game"), companions=[("ui.py", solution("ui").encode())]).row
    expected = len(solution("working_game").encode()) + len(solution("ui").encode())
    assert row.stored_bytes == expected
    Submission.objects.filter(id=row.id).update(stored_bytes=0)
    importlib.import_module("grader.web.migrations.0014_budgets").stored_bytes(apps, None)
    assert Submission.objects.get(id=row.id).stored_bytes == expected


# --- owed idle work (a regrade) in turns per student, after fresh hand-ins ----------------------


def test_a_fresh_hand_in_is_claimed_before_the_classes_owed_regrades_and_each_student_holds_one(people):
    """A regrade of the whole class owes work for every student (each served long ago); a student's
    fresh hand-in is claimed first, and the grading threads take the owed work one row per student."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from grader.web.models import DONE, Submission
    from grader.web.worker import queue

    long_ago = timezone.now() - datetime.timedelta(hours=5)
    others = [get_user_model().objects.create(username=f"r{n}") for n in range(6)]
    owed = [
        Submission(student=student, task="nim_sum", file_name="nim_sum.py", data=b"#", sha256="",
                   submitted_at=long_ago, status=DONE, pending=True, wanted=2, graded=1, graded_at=long_ago,
                   score=1.0)
        for student in [*others, people["ann"]] for _ in range(5)
    ]  # fmt: skip
    Submission.objects.bulk_create(owed)
    ben = people["ben"]
    now = timezone.now()  # ben was served a moment ago: the round robin alone would put him last
    Submission.objects.create(student=ben, task="nim_sum", file_name="x", data=b"#", sha256="",
                              submitted_at=now, status=DONE, pending=False, graded=1, graded_at=now)  # fmt: skip
    fresh = hand_in(ben, "nim_sum", solution("nim_sum")).row
    claims = [queue.claim(f"thread-{n}") for n in range(4)]  # four grading threads at once
    first = claims[0][0]
    assert first == fresh.id, "a fresh hand-in waited behind the class's owed regrades"
    holders = [Submission.objects.get(id=number).student_id for number, _ in claims]
    assert len(set(holders)) == len(holders), "a student held two grading threads"
