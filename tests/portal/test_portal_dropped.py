"""A student dropped during the term (through Django's test client, on a roster of its own): gone
from every listing and export the instructor reads (the students on /teach/, the class overview
with its statistics, "Students who need help first" and "Common mistakes", the gradebook CSV of
the page, the LMS and the API, the Gradescope zip of the page and the API), unable to sign in, hand
in through the pages or the API, their hand-ins and results kept and listed as dropped; restored,
every export is byte for byte what it was. ``users import`` neither drops nor restores anyone."""

from __future__ import annotations

import io
import sys
import zipfile

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_hand_in, set_up_portal, signed_in  # noqa: E402
from support import mutate  # noqa: E402

WRONG = mutate("nim_sum", "total = total ^ row", "total = total + row")  # a known mistake of the class
ROSTER = "username,role\ndrp_ann,student\ndrp_ben,student\ndrp_cy,student\ndrp_teach,instructor\n"
GONE = "drp_ben"


@pytest.fixture(scope="module", autouse=True)
def portal(tmp_path_factory):
    folder = tmp_path_factory.mktemp("portal")
    set_up_portal(folder, ROSTER)
    return folder


def post(client, path, data=None):
    """A form's POST (the test client leaves CSRF unchecked; tests/live checks the forms carry it)."""
    return client.post(path, data or {})


@pytest.fixture
def graded(grade_queue):
    """drp_ann and drp_ben hand in the class's known mistake, drp_cy nothing; graded."""
    ids = {name: api_hand_in(name, "nim_sum", WRONG) for name in ("drp_ann", GONE)}
    grade_queue()
    return ids


def exports(teach) -> dict:
    """Everything the instructor reads the class from, by where it was read."""
    from django.test import Client

    from grader.web.site import roster as accounts

    ((_, token),) = accounts.new_tokens(["drp_teach"])
    api = Client(HTTP_AUTHORIZATION=f"Token {token}")
    return {
        # (the list of students only: the sentence that a form saved, and the dropped list, are not it)
        "/teach/": teach.get("/teach/").content.decode().split("<h2>Students</h2>")[1].split('<h2 id="dropped">')[0],
        "/teach/class/": teach.get("/teach/class/").content.decode(),
        "/teach/gradebook.csv": teach.get("/teach/gradebook.csv").content.decode(),
        "/teach/gradebook.csv?lms=1": teach.get("/teach/gradebook.csv?lms=1").content.decode(),
        "/api/gradebook.csv": api.get("/api/gradebook.csv").content.decode(),
        "/teach/gradescope.zip": zipfile.ZipFile(io.BytesIO(teach.get("/teach/gradescope.zip").content)).namelist(),
        "/api/gradescope.zip": zipfile.ZipFile(io.BytesIO(api.get("/api/gradescope.zip").content)).namelist(),
    }


def test_a_dropped_student_is_gone_from_every_listing_and_export_and_back_as_before_when_restored(graded):
    from grader.web.models import Submission

    teach = signed_in("drp_teach")
    before = exports(teach)
    assert all(GONE in str(shown) for shown in before.values()), "the student is listed everywhere before"
    assert "Common mistakes" in before["/teach/class/"]
    kept = list(Submission.objects.filter(student__username=GONE).values_list("id", "score", "record"))

    asked = teach.get(f"/teach/class/{GONE}/drop")  # the confirmation, which drops nobody
    assert asked.status_code == 200 and "Their hand-ins and results are kept" in asked.content.decode()
    assert post(teach, f"/teach/class/{GONE}/drop").status_code == 200  # (no confirm: the question again)
    assert GONE in exports(teach)["/teach/gradebook.csv"]
    dropped = post(teach, f"/teach/class/{GONE}/drop", {"confirm": "yes"})
    assert dropped.status_code == 302

    after = exports(teach)
    for where, shown in after.items():
        assert GONE not in str(shown), f"{where} still lists the dropped student"
        assert "drp_ann" in str(shown) and "drp_cy" in str(shown), where
    assert "Common mistakes" in after["/teach/class/"]  # drp_ann's is still there
    start = teach.get("/teach/").content.decode()
    assert GONE in start.split('id="dropped-list"')[1], "the dropped student is listed as dropped"
    record = teach.get(f"/teach/class/{GONE}/index.html").content.decode()
    assert "is dropped from the class" in record and f"/submissions/{graded[GONE]}/" in record
    assert list(Submission.objects.filter(student__username=GONE).values_list("id", "score", "record")) == kept

    assert post(teach, f"/teach/class/{GONE}/restore").status_code == 302
    assert exports(teach) == before, "restoring brings every listing and export back as it was"


def test_a_dropped_student_cannot_sign_in_nor_hand_in_and_is_told_why(graded):
    from django.contrib.auth import get_user_model
    from django.test import Client

    from grader.web.enrolment import drop
    from grader.web.models import Submission
    from grader.web.site import roster as accounts

    user = get_user_model().objects.get(username=GONE)
    user.set_password("a long password of theirs")
    user.save()
    session = signed_in(GONE)
    ((_, token),) = accounts.new_tokens([GONE])
    count = Submission.objects.count()
    drop(user)

    answer = Client().post("/login/", {"username": GONE, "password": "a long password of theirs"})
    assert answer.status_code == 200 and "_auth_user_id" not in answer.client.session
    assert "dropped from the class" in answer.content.decode()
    wrong = Client().post("/login/", {"username": GONE, "password": "not theirs"}).content.decode()
    assert "dropped" not in wrong  # a wrong password says nothing about the account
    assert session.get("/").status_code == 302  # the session they had is over
    assert session.post("/tasks/nim_sum/", {"text": WRONG}).status_code == 302  # to the sign-in page
    upload = io.BytesIO(WRONG.encode())
    upload.name = "nim_sum.py"
    api = Client().post("/api/submissions", {"task": "nim_sum", "file": upload}, HTTP_AUTHORIZATION=f"Token {token}")
    assert api.status_code == 403 and "dropped from the class" in api.json()["error"]
    assert Submission.objects.count() == count


def test_users_import_neither_drops_nor_restores(graded, portal):
    from django.contrib.auth import get_user_model

    from grader.web.enrolment import drop
    from grader.web.site import roster as accounts

    drop(get_user_model().objects.get(username=GONE))
    path = portal / "again.csv"
    path.write_text("username,role\ndrp_ann,student\ndrp_ben,student\n")  # drp_cy not named
    outcome = accounts.import_roster(path)
    assert outcome.dropped == (GONE,)  # said: the command prints it
    users = get_user_model().objects
    assert not users.get(username=GONE).is_active and users.get(username="drp_cy").is_active


def test_an_instructor_or_a_student_is_not_dropped_and_a_student_cannot_drop(graded):
    from django.contrib.auth import get_user_model

    teach = signed_in("drp_teach")
    assert post(teach, "/teach/class/drp_teach/drop", {"confirm": "yes"}).status_code == 302
    assert get_user_model().objects.get(username="drp_teach").is_active
    student = signed_in("drp_ann")
    assert post(student, f"/teach/class/{GONE}/drop", {"confirm": "yes"}).status_code == 403
    assert get_user_model().objects.get(username=GONE).is_active
