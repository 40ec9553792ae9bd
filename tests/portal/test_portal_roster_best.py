"""The roster's names and emails, kept by ``users import`` and shown in the portal's gradebooks, and
a regrade that queues what may count: each student's latest, or under "best" every graded one.
Through Django's test client."""

from __future__ import annotations

import csv
import io
import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_hand_in, signed_in  # noqa: E402
from support import mutate, solution  # noqa: E402

WRONG = mutate("nim_sum", "total = total ^ row", "total = total + row")
ROSTER = (
    "username,role,name,email\nann,student,Ann Lee,ann@example.org\nben,student,=HYPERLINK(1),\nteach,instructor,,\n"
)


@pytest.fixture(scope="module")
def roster_file(tmp_path_factory):
    from grader.web.models import FirstSignIn
    from grader.web.site import roster as accounts

    path = tmp_path_factory.mktemp("roster") / "roster.csv"
    path.write_text(ROSTER)
    accounts.import_roster(path)
    FirstSignIn.objects.all().delete()  # these have chosen their password already
    return path


@pytest.fixture(autouse=True)
def fresh(roster_file):
    from grader.web.models import CourseSetting, Submission, TaskPolicy
    from grader.web.site import roster as accounts

    Submission.objects.all().delete()
    TaskPolicy.objects.all().delete()
    CourseSetting.objects.all().delete()
    roster_file.write_text(ROSTER)
    accounts.import_roster(roster_file)


def hand_in(user: str, text: str) -> None:
    api_hand_in(user, "nim_sum", text)


def regrade_by_api() -> int:
    from django.test import Client

    from grader.web.site import roster as accounts

    ((_, token),) = accounts.new_tokens(["teach"])
    answer = Client().post("/api/tasks/nim_sum/regrade", HTTP_AUTHORIZATION=f"Token {token}")
    assert answer.status_code == 202
    return answer.json()["queued"]


def test_a_regrade_queues_the_latest_or_under_best_every_graded_submission(grade_queue):
    from grader.web.marks.policies import store_marks_from
    from grader.web.models import Submission

    hand_in("ann", solution("nim_sum"))
    hand_in("ann", WRONG)
    hand_in("ben", WRONG)
    grade_queue()
    latest = {row.student.username: row.id for row in Submission.objects.order_by("id")}
    teach = signed_in("teach")
    assert "2 latest submissions" in teach.get("/teach/tasks/nim_sum/regrade").content.decode()
    done = teach.post("/teach/tasks/nim_sum/regrade", {"confirm": "yes"}, follow=True)
    assert "nim_sum: 2 latest submissions queued for grading again" in done.content.decode()
    assert set(Submission.objects.filter(pending=True).values_list("id", flat=True)) == set(latest.values())
    assert regrade_by_api() == 2
    grade_queue()

    store_marks_from("best")  # ann's first, better submission may count again: each of the three is graded
    asked = teach.get("/teach/tasks/nim_sum/regrade").content.decode()
    assert "3 submissions" in asked and "every graded one of each student" in asked
    done = teach.post("/teach/tasks/nim_sum/regrade", {"confirm": "yes"}, follow=True)
    assert "nim_sum: 3 submissions queued for grading again" in done.content.decode()
    assert Submission.objects.filter(pending=True).count() == 3
    grade_queue()
    assert not Submission.objects.filter(pending=True).exists()
    assert regrade_by_api() == 3
    assert signed_in("ann").post("/teach/tasks/nim_sum/regrade", {"confirm": "yes"}).status_code == 403


def test_the_roster_keeps_names_and_emails_and_a_reimport_updates_them(roster_file):
    from django.contrib.auth import get_user_model

    from grader.errors import UsageError
    from grader.web.site import roster as accounts

    users = get_user_model().objects
    ann = users.get(username="ann")
    assert (ann.first_name, ann.last_name, ann.email) == ("Ann", "Lee", "ann@example.org")
    roster_file.write_text("username,role,email,name\nann,student,ann.lee@example.org,Ann Marie Lee\n")
    accounts.import_roster(roster_file)
    ann = users.get(username="ann")
    assert (ann.get_full_name(), ann.email) == ("Ann Marie Lee", "ann.lee@example.org")
    roster_file.write_text("username,role\nann,student\n")  # no such columns: kept
    accounts.import_roster(roster_file)
    assert users.get(username="ann").email == "ann.lee@example.org"
    for bad in ("not-an-email", "ann@", "a b@example.org", "x" * 250 + "@example.org"):
        roster_file.write_text(f"username,role,email\nzed,student,\nann,student,{bad}\n")
        with pytest.raises(UsageError, match="line 3: .* is not an email address"):
            accounts.import_roster(roster_file)
        assert not users.filter(username="zed").exists()  # nothing of it was imported
        assert users.get(username="ann").email == "ann.lee@example.org"
    roster_file.write_text(f"username,role,name\nann,student,{'A' * 151}\n")
    with pytest.raises(UsageError, match="line 2: the name .* is longer than 150 characters"):
        accounts.import_roster(roster_file)


def test_the_portals_gradebooks_end_with_name_email_late_and_adjustments_and_grades_has_none(grade_queue):
    from grader.marks import StudentMarks
    from grader.report.exports import gradebook_csv

    hand_in("ann", solution("nim_sum"))
    grade_queue()
    page = signed_in("teach").get("/teach/gradebook.csv").content.decode()
    assert page == api_get_text("/api/gradebook.csv")
    header, *rows = list(csv.reader(io.StringIO(page)))
    assert header[0] == "student" and header[-5:] == ["not_handed_in", "name", "email", "late", "adjustments"]
    by_name = {row[0]: dict(zip(header, row)) for row in rows}
    assert (by_name["ann"]["name"], by_name["ann"]["email"]) == ("Ann Lee", "ann@example.org")
    assert by_name["ben"]["name"] == "'=HYPERLINK(1)" and by_name["ben"]["email"] == ""  # never a formula
    assert "teach" not in by_name
    plain = gradebook_csv([StudentMarks("ann", ())], [])
    assert plain.splitlines()[0] == "student,total,not_handed_in"  # grade's gradebook, as the spec has it


def api_get_text(path: str) -> str:
    from django.test import Client

    from grader.web.site import roster as accounts

    ((_, token),) = accounts.new_tokens(["teach"])
    return Client().get(path, HTTP_AUTHORIZATION=f"Token {token}").content.decode()


def test_the_class_page_shows_each_students_name_beside_the_username(roster_file, grade_queue):
    from grader.web.site import roster as accounts

    hand_in("ann", solution("nim_sum"))
    grade_queue()
    roster_file.write_text("username,role,name\nben,student,<b>Ben</b> Ode\n")
    accounts.import_roster(roster_file)
    page = signed_in("teach").get("/teach/class/").content.decode()
    # in the table of every student (the list of who needs help first shows ten, and the database
    # holds other modules' students too, so ann need not be among them)
    assert '<span class="who">Ann Lee</span>' in page
    assert "&lt;b&gt;Ben&lt;/b&gt; Ode" in page and "<b>Ben" not in page
