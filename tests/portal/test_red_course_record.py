"""The course record attacked, as a hostile student and a careless instructor would: what the
red team found wrong in the late rules, extensions, adjustments and chosen submissions, each
kept as a test (through Django's test client, in this process, on a roster of its own)."""

from __future__ import annotations

import html
import re
import sys
from datetime import datetime, timezone

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_hand_in, set_up_portal, signed_in  # noqa: E402
from support import mutate, solution  # noqa: E402

WRONG = mutate("nim_sum", "total = total ^ row", "total = total + row")
ROSTER = "username,role\nred_ann,student\nred_ben,student\nred_teach,instructor\n"
PAST = "2020-06-01 12:00"


@pytest.fixture(scope="module", autouse=True)
def portal(tmp_path_factory):
    set_up_portal(tmp_path_factory.mktemp("portal"), ROSTER)


def post(client, path, data):
    return client.post(path, dict(data, csrfmiddlewaretoken=client.cookies["csrftoken"].value))


def teacher():
    client = signed_in("red_teach")
    client.get("/teach/")  # the CSRF cookie
    return client


def words(page) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page.content.decode())))


def set_rule(client, rule, penalty="", deadline=PAST):
    fields = {"min_interval_s": "0", "max_count": "", "deadline": deadline, "late_rule": rule, "late_penalty": penalty}
    answer = post(client, "/teach/tasks/nim_sum/limits", fields)
    assert answer.status_code == 302, words(answer)[-800:]


def on_time(number: int) -> None:
    """Pretend submission ``number`` came before the deadline (a test cannot wait for one)."""
    from grader.web.marks.late_work import refresh_late
    from grader.web.models import Submission

    Submission.objects.filter(id=number).update(submitted_at=datetime(2020, 1, 1, tzinfo=timezone.utc))
    refresh_late(["nim_sum"])


def early_wrong_late_right(grade_queue, student: str = "red_ann"):
    """Under "late work does not count": an on-time wrong submission, then a late right one."""
    set_rule(teacher(), "not_counted")
    early = api_hand_in(student, "nim_sum", WRONG)
    late = api_hand_in(student, "nim_sum", solution("nim_sum"))
    grade_queue()
    on_time(early)
    return early, late


def test_a_regrade_queues_the_on_time_submission_that_counts_when_late_work_does_not(grade_queue):
    """Under "latest", a regrade queued each student's latest only: with late work not counted,
    the on-time one that counts kept its marks on the old cases."""
    from grader.web.models import Submission

    early, late = early_wrong_late_right(grade_queue)
    client = teacher()
    page = words(client.get("/teach/tasks/nim_sum/regrade"))
    assert "2 submissions" in page and "each student's latest and the one that counts" in page
    done = post(client, "/teach/tasks/nim_sum/regrade", {"confirm": "yes"})
    assert done.status_code == 302
    assert "nim_sum: 2 submissions queued for grading again" in words(client.get(done["Location"]))
    assert set(Submission.objects.filter(pending=True).values_list("id", flat=True)) == {early, late}


def test_a_regrade_queues_the_graded_submission_that_counts_when_the_latest_could_not_be_graded(grade_queue):
    from grader.web.models import ERROR, Submission
    from grader.web.site.handin import regrade_ids

    graded = api_hand_in("red_ann", "nim_sum", WRONG)
    broken = api_hand_in("red_ann", "nim_sum", WRONG)
    grade_queue()
    Submission.objects.filter(id=broken).update(status=ERROR, error="the grader failed")
    assert regrade_ids("nim_sum") == [graded, broken]


def test_the_task_page_says_the_students_own_deadline_after_an_extension():
    """The exercise list said the extension's deadline, the task's page the course's: a student
    with a week more read that their work was already late."""
    client = teacher()
    set_rule(client, "penalty", "20")
    post(client, "/teach/class/red_ann/extension", {"task": "nim_sum", "deadline": "2099-01-01 00:00"})
    page = words(signed_in("red_ann").get("/tasks/nim_sum/"))
    assert "Deadline: 2099-01-01 00:00 UTC (your extension): a hand-in up to 00:00:59 UTC is on time" in page
    assert PAST not in page
    assert f"Deadline: {PAST} UTC: a hand-in up to" in words(signed_in("red_ben").get("/tasks/nim_sum/"))
    # a task with no deadline of its own: the extension is still theirs to read
    post(client, "/teach/class/red_ann/extension", {"task": "make_move", "deadline": "2099-02-01 00:00"})
    assert "Deadline: 2099-02-01 00:00 UTC (your extension)" in words(signed_in("red_ann").get("/tasks/make_move/"))


def test_choosing_late_work_that_does_not_count_is_refused_not_announced_as_counting(grade_queue):
    """The student was told "Your submission #2 of nim_sum now counts." while #1 (on time) did."""
    from grader.web.marks.policies import store_marks_from
    from grader.web.models import Submission

    _, late = early_wrong_late_right(grade_queue)
    store_marks_from("chosen")
    ann = signed_in("red_ann")
    ann.get("/")
    answer = post(ann, f"/submissions/{late}/choose", {})
    assert answer.status_code == 302
    page = words(ann.get(answer["Location"]))
    assert "now counts" not in page
    assert "Late work of nim_sum does not count: choose one handed in on time." in page
    assert not Submission.objects.filter(id=late, chosen=True).exists()


def test_an_adjustment_comment_with_a_bidirectional_override_is_refused():
    """C0 and C1 controls were refused, but U+202E went through to every page the student reads
    (the gradebook escapes it; the pages reordered the marks beside it)."""
    from grader.web.models import Adjustment

    for comment in ("fair \u202e0 = 73", "mark\u2066ed", "ok\u200f"):
        answer = post(
            teacher(), "/teach/class/red_ann/adjustment", {"task": "nim_sum", "points": "1", "comment": comment}
        )
        assert answer.status_code == 400 and "the comment holds a control character" in words(answer)
    assert not Adjustment.objects.exists()


def test_a_student_with_only_an_adjustment_is_not_told_none_of_theirs_may_count():
    """ "none of yours may count" is said of late work that does not count; a student who handed
    nothing in read it beside an adjustment."""
    made = post(teacher(), "/teach/class/red_ben/adjustment", {"task": "nim_sum", "points": "4", "comment": "oral"})
    assert made.status_code == 302
    page = words(signed_in("red_ben").get("/tasks/nim_sum/"))
    assert "none of yours is graded yet; it counts for 4 / " in page
    assert "may count" not in page


def test_late_work_that_does_not_count_is_not_accepted_on_the_class_overview(grade_queue):
    """An accepted late submission under "not counted" earns 0 but kept its green "accepted":
    a student with nothing counted was "all accepted" and never among those to help first."""
    from grader.web.marks.class_marks import class_marks
    from grader.web.worker.course_state import course_tasks

    client = teacher()
    set_rule(client, "not_counted")
    api_hand_in("red_ben", "nim_sum", solution("nim_sum"))
    grade_queue()
    marks, _ = class_marks(list(course_tasks().values()))
    (ben,) = [m for m in marks if m.student == "red_ben"]
    assert "nim_sum" in {t.task for t in ben.not_accepted}
    page = client.get("/teach/class/").content.decode()
    row = page.split('title="red_ben"')[1].split("</tr>")[0]
    assert 'class="badge accepted"' not in row


def test_the_gradescope_total_is_the_gradebooks_to_the_digit_under_a_late_penalty(grade_queue):
    """16 points less 7 % is 14.879999999999999 in floating point: the gradebook wrote 14.88 (its
    numbers have 4 decimals at most), the Gradescope zip the raw float."""
    import csv
    import io
    import json
    import zipfile

    client = teacher()
    set_rule(client, "penalty", "7")
    api_hand_in("red_ann", "nim_sum", WRONG)
    grade_queue()
    rows = list(csv.reader(io.StringIO(client.get("/teach/gradebook.csv").content.decode())))
    book = {row[0]: dict(zip(rows[0], row)) for row in rows[1:]}
    archive = zipfile.ZipFile(io.BytesIO(client.get("/teach/gradescope.zip").content))
    text = archive.read("red_ann/results.json").decode()
    assert book["red_ann"]["late"] == "nim_sum late -7 %"
    total = book["red_ann"]["total"]
    assert len(total.split(".")[-1]) <= 4
    assert json.loads(text)["score"] == float(total)
    assert f'"score": {total},' in text
