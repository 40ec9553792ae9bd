"""The course's record through Django's test client: a task's late rule (in full, a penalty, not
counted), a student's extension, an instructor's adjustment with a comment, and a submission the
student chose; the gradebook (pages and API), the class page, the Gradescope zip and the student's
own pages all count the same."""

from __future__ import annotations

import csv
import io
import json
import re
import sys
import zipfile
from datetime import datetime, timedelta, timezone

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_get, api_hand_in, set_up_portal, signed_in  # noqa: E402
from support import mutate, solution  # noqa: E402

WRONG = mutate("nim_sum", "total = total ^ row", "total = total + row")
ROSTER = "username,role\nrec_ann,student\nrec_ben,student\nrec_teach,instructor\n"
PAST = "2020-06-01 12:00"


@pytest.fixture(scope="module", autouse=True)
def portal(tmp_path_factory):
    set_up_portal(tmp_path_factory.mktemp("portal"), ROSTER)


def post(client, path, data):
    return client.post(path, dict(data, csrfmiddlewaretoken=client.cookies["csrftoken"].value))


def teacher():
    client = signed_in("rec_teach")
    client.get("/teach/")  # the CSRF cookie
    return client


def set_rule(client, rule, penalty="", deadline=PAST):
    answer = post(
        client,
        "/teach/tasks/nim_sum/limits",
        {"min_interval_s": "0", "max_count": "", "deadline": deadline, "late_rule": rule, "late_penalty": penalty},
    )
    assert answer.status_code == 302, answer.content.decode()[-800:]


def handed_in_at(number: int, moment: datetime) -> None:
    """Pretend submission ``number`` came at ``moment`` (a test cannot wait for a deadline)."""
    from grader.web.marks.late_work import refresh_late
    from grader.web.models import Submission

    Submission.objects.filter(id=number).update(submitted_at=moment)
    refresh_late(["nim_sum"])


def gradebook(client) -> dict:
    rows = list(csv.reader(io.StringIO(client.get("/teach/gradebook.csv").content.decode())))
    return {row[0]: dict(zip(rows[0], row)) for row in rows[1:]}


def gradescope(client) -> dict:
    archive = zipfile.ZipFile(io.BytesIO(client.get("/teach/gradescope.zip").content))
    return {name.split("/")[0]: json.loads(archive.read(name)) for name in archive.namelist()}


def words(page) -> str:
    import html

    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page.content.decode())))


def worth() -> float:
    from grader.web.worker.course_state import course_tasks

    return course_tasks()["nim_sum"].max_score


def agree(client, student: str, points: float) -> None:
    """Every export and page counts ``points`` for ``student``'s nim_sum (and the same total)."""
    from django.test import Client

    from grader.web.site import roster as accounts

    book = gradebook(client)
    assert float(book[student]["nim_sum"]) == pytest.approx(points)
    ((_, token),) = accounts.new_tokens(["rec_teach"])
    api = Client().get("/api/gradebook.csv", HTTP_AUTHORIZATION=f"Token {token}").content.decode()
    assert api == client.get("/teach/gradebook.csv").content.decode()
    assert gradescope(client)[student]["score"] == pytest.approx(float(book[student]["total"]))
    overview = client.get("/teach/class/").content.decode()
    row = overview.split(f'title="{student}"')[1].split("</tr>")[0]
    assert f"{points:g}/{worth():g}" in row
    mine = words(signed_in(student).get("/tasks/nim_sum/"))
    assert f"{points:g} / {worth():g}" in mine


def test_a_late_penalty_takes_its_share_everywhere_and_the_student_reads_why(grade_queue):
    client = teacher()
    set_rule(client, "penalty", "20")
    api_hand_in("rec_ann", "nim_sum", solution("nim_sum"))
    grade_queue()
    points = worth() * 0.8
    agree(client, "rec_ann", points)
    book = gradebook(client)
    assert book["rec_ann"]["late"] == "nim_sum late -20 %" and book["rec_ann"]["adjustments"] == ""
    assert "nim_sum: 37 graded" in gradescope(client)["rec_ann"]["output"].replace(f"{worth():g} graded", "37 graded")
    page = words(signed_in("rec_ann").get("/tasks/nim_sum/"))
    assert f"it counts for {points:g} / {worth():g} (late -20 %)" in page
    assert "(late work loses 20 % of its points)" in page


def test_late_work_not_counted_leaves_the_on_time_one_counting_or_nothing(grade_queue):
    client = teacher()
    set_rule(client, "not_counted")
    early = api_hand_in("rec_ann", "nim_sum", WRONG)
    api_hand_in("rec_ann", "nim_sum", solution("nim_sum"))  # late, and right
    api_hand_in("rec_ben", "nim_sum", solution("nim_sum"))  # late only
    grade_queue()
    handed_in_at(early, datetime(2020, 1, 1, tzinfo=timezone.utc))
    wrong_score = api_get("rec_ann", f"/api/submissions/{early}")["score"]
    assert wrong_score < worth()
    agree(client, "rec_ann", wrong_score)
    agree(client, "rec_ben", 0.0)
    book = gradebook(client)
    assert book["rec_ben"]["late"] == "nim_sum late, not counted"
    assert "nim_sum" not in book["rec_ben"]["not_handed_in"]  # he did hand it in: late
    overview = client.get("/teach/class/").content.decode().split('title="rec_ben"')[1].split("</tr>")[0]
    assert 'class="badge failed" title="accepted; late, not counted"' in overview  # never green for 0 points
    page = words(signed_in("rec_ben").get("/tasks/nim_sum/"))
    assert "none of yours may count; it counts for 0 / " in page
    assert "it counts for 0 / 37 (late, not counted)".replace("37", f"{worth():g}") in page
    assert "(late work is graded but does not count)" in page


def test_an_extension_makes_a_students_late_work_on_time_and_taking_it_back_late_again(grade_queue):
    client = teacher()
    set_rule(client, "penalty", "50")
    number = api_hand_in("rec_ben", "nim_sum", solution("nim_sum"))
    grade_queue()
    assert api_get("rec_ben", f"/api/submissions/{number}")["late"] is True
    later = (datetime.now(timezone.utc) + timedelta(days=7)).strftime("%Y-%m-%d %H:%M")
    granted = post(client, "/teach/class/rec_ben/extension", {"task": "nim_sum", "deadline": later})
    assert granted.status_code == 302
    said = words(client.get(granted["Location"]))
    last = f"{later[-5:]}:59 UTC"  # on time to the minute's last second
    assert f"rec_ben: nim_sum is due {later} UTC (a hand-in at {last} is on time) for them." in said
    assert "1 submission is no longer late." in said
    assert api_get("rec_ben", f"/api/submissions/{number}")["late"] is False
    agree(client, "rec_ben", worth())
    home = signed_in("rec_ben").get("/").content.decode()
    assert later.replace(" ", " ") in home  # the exercise list shows his own deadline
    taken = post(client, "/teach/class/rec_ben/extension", {"task": "nim_sum", "deadline": ""})
    assert "1 submission is now late." in words(client.get(taken["Location"]))
    agree(client, "rec_ben", worth() / 2)


def test_an_adjustment_with_a_comment_is_counted_shown_and_exported(grade_queue):
    client = teacher()
    api_hand_in("rec_ann", "nim_sum", WRONG)
    grade_queue()
    graded = gradebook(client)["rec_ann"]["nim_sum"]
    made = post(
        client, "/teach/class/rec_ann/adjustment", {"task": "nim_sum", "points": "+3", "comment": "fixed by hand"}
    )
    assert made.status_code == 302
    agree(client, "rec_ann", float(graded) + 3)
    assert gradebook(client)["rec_ann"]["adjustments"] == "nim_sum +3: fixed by hand"
    assert "adjusted +3: fixed by hand" in gradescope(client)["rec_ann"]["output"]
    assert "adjusted +3: fixed by hand" in words(signed_in("rec_ann").get("/"))
    too_much = post(client, "/teach/class/rec_ann/adjustment", {"task": "nim_sum", "points": "+500", "comment": "x"})
    assert too_much.status_code == 302
    agree(client, "rec_ann", worth())  # never above the task's points
    removed = post(client, "/teach/class/rec_ann/adjustment", {"task": "nim_sum", "points": ""})
    assert removed.status_code == 302
    agree(client, "rec_ann", float(graded))


@pytest.mark.parametrize(
    "fields, sentence",
    [
        ({"points": "3"}, "say why in the comment"),
        ({"points": "three", "comment": "x"}, "the points must be a number such as +3 or -1.5"),
        ({"points": "nan", "comment": "x"}, "the points must be a number"),
        ({"points": "1e400", "comment": "x"}, "the points must be a number"),
        ({"points": "99999", "comment": "x"}, "the points must be between -10,000 and +10,000"),
        ({"points": "1", "comment": "a\x00b"}, "the comment holds a control character"),
        ({"points": "1", "comment": "y" * 600}, "keep it under 500"),
        ({"points": "1", "comment": "x", "task": "nope"}, "choose a task of the course"),
        ({"points": "1", "comment": "x", "task": "*"}, "an adjustment is for one task"),
    ],
)
def test_a_bad_adjustment_is_refused_with_a_sentence_and_nothing_is_stored(fields, sentence):
    from grader.web.models import Adjustment

    answer = post(teacher(), "/teach/class/rec_ann/adjustment", {"task": "nim_sum", **fields})
    assert answer.status_code == 400
    assert sentence in words(answer) and "nothing was changed" in words(answer)
    assert not Adjustment.objects.exists()


def test_a_bad_extension_or_late_rule_is_refused_and_students_cannot_touch_the_record():
    from grader.web.models import Extension, TaskPolicy

    client = teacher()
    bad = post(client, "/teach/class/rec_ann/extension", {"task": "nim_sum", "deadline": "next friday"})
    assert bad.status_code == 400 and "is not a date and time" in words(bad)
    assert not Extension.objects.exists()
    for rule, penalty, said in (
        ("penalty", "", "between 1 and 100"),
        ("penalty", "150", "between 1 and 100"),
        ("lenient", "", "the late rule is 'accept', 'penalty' or 'not_counted'"),
    ):
        refused = post(
            client, "/teach/tasks/nim_sum/limits", {"deadline": PAST, "late_rule": rule, "late_penalty": penalty}
        )
        assert refused.status_code == 400 and said in words(refused).replace("&#x27;", "'")
    assert not TaskPolicy.objects.exists()
    student = signed_in("rec_ann")
    student.get("/")
    for path in ("/teach/class/rec_ann/adjustment", "/teach/class/rec_ann/extension"):
        assert (
            post(
                student, path, {"task": "nim_sum", "points": "5", "comment": "me", "deadline": "2099-01-01"}
            ).status_code
            == 403
        )
    assert post(client, "/teach/class/nobody/adjustment", {"task": "nim_sum"}).status_code == 404


def test_where_the_course_lets_students_choose_the_chosen_submission_counts(grade_queue):
    from grader.web.marks.policies import store_marks_from

    client = teacher()
    right = api_hand_in("rec_ann", "nim_sum", solution("nim_sum"))
    api_hand_in("rec_ann", "nim_sum", WRONG)
    grade_queue()
    ann = signed_in("rec_ann")
    ann.get("/")
    assert post(ann, f"/submissions/{right}/choose", {}).status_code == 403  # the course counts the latest
    store_marks_from("chosen")
    page = words(ann.get("/tasks/nim_sum/"))
    assert "The graded submission you choose counts (your latest until you choose one): #2," in page
    assert "Make it count" in page
    ben = signed_in("rec_ben")
    ben.get("/")
    assert post(ben, f"/submissions/{right}/choose", {}).status_code == 404  # not his
    chosen = post(ann, f"/submissions/{right}/choose", {})
    assert chosen.status_code == 302
    assert "Your submission #1 of nim_sum now counts." in words(ann.get(chosen["Location"]))
    agree(client, "rec_ann", worth())
    regrade = words(client.get("/teach/tasks/nim_sum/regrade"))
    assert "each student's latest and the one they chose" in regrade and "2 submissions" in regrade
