"""The portal's pages through Django's test client: who may see what, sign-in and its limits,
handing in through the page, and that nothing hidden reaches a student's page."""

from __future__ import annotations

import html
import io
import re
import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_hand_in, page_hand_in, signed_in  # noqa: E402
from support import UNSEEN_PROGRAM, mutate, solution, unseen  # noqa: E402

from grader.submission.files import MAX_SOURCE_BYTES  # noqa: E402

PASSWORD = "a long enough password 1"


@pytest.fixture(scope="module")
def roster(tmp_path_factory):
    from grader.web.site import roster as accounts

    path = tmp_path_factory.mktemp("roster") / "roster.csv"
    path.write_text("username,role\nann,student\nben,student\nteach,instructor\nnew,student\n")
    first = dict(accounts.import_roster(path).created)
    return first


@pytest.fixture(autouse=True)
def fresh(roster):
    from django.contrib.auth import get_user_model

    from grader.web.models import FailedSignIn, FirstSignIn, Submission, TaskPolicy, Worker

    Submission.objects.all().delete()
    TaskPolicy.objects.all().delete()
    FailedSignIn.objects.all().delete()
    Worker.objects.all().delete()
    users = get_user_model().objects
    for name in ("ann", "ben", "teach"):  # these have chosen their password; "new" has not
        user = users.get(username=name)
        user.set_password(PASSWORD)
        user.save()
        FirstSignIn.objects.filter(user=user).delete()


STUDENT_PAGES = ["/", "/tasks/nim_sum/", "/submissions/{n}/", "/submissions/{n}/file", "/submissions/{n}/report"]
TEACHER_PAGES = ["/teach/", "/teach/class/", "/teach/queue/", "/teach/class/ann/index.html", "/teach/gradebook.csv"]


def test_signed_out_every_page_leads_to_the_sign_in_page():
    from django.test import Client

    number = api_hand_in("ann", "nim_sum", "print(0)")
    for page in STUDENT_PAGES + TEACHER_PAGES:
        answer = Client().get(page.format(n=number), HTTP_ACCEPT="text/html")
        assert answer.status_code == 302 and answer["Location"].startswith("/login/?next="), page


def test_another_students_submission_file_and_report_are_404(grade_queue):
    mine = api_hand_in("ann", "nim_sum", solution("nim_sum"))
    grade_queue()
    ben = signed_in("ben")
    for page in ("/submissions/{n}/", "/submissions/{n}/file", "/submissions/{n}/report"):
        assert ben.get(page.format(n=mine)).status_code == 404
        assert ben.get(page.format(n=999999)).status_code == 404
        assert signed_in("ann").get(page.format(n=mine)).status_code == 200
        assert signed_in("teach").get(page.format(n=mine)).status_code == 200
    assert b"nim_sum" not in ben.get("/tasks/nim_sum/").content.split(b"Your submissions")[1].split(b"#")[0]
    assert ben.get("/tasks/no_such_task/").status_code == 404


def test_a_student_on_an_instructor_page_is_403_and_cannot_regrade():
    ann = signed_in("ann")
    for page in TEACHER_PAGES:
        assert ann.get(page).status_code == 403, page
    assert ann.post("/teach/tasks/nim_sum/regrade", {"confirm": "yes"}).status_code == 403


def test_every_page_has_a_policy_a_viewport_and_no_script(grade_queue):
    number = api_hand_in("ann", "nim_sum", solution("nim_sum"))
    grade_queue()
    for user, pages in (("ann", STUDENT_PAGES), ("teach", TEACHER_PAGES[:4])):
        client = signed_in(user)
        for page in pages:
            answer = client.get(page.format(n=number))
            if answer["Content-Type"].startswith("text/html"):
                assert "default-src" in answer["Content-Security-Policy"], page
                text = answer.content.decode()
                assert 'name="viewport"' in text and "<script" not in text, page
                assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), page  # nothing from elsewhere


def test_the_session_cookie_is_httponly_and_samesite():
    from django.test import Client

    client = Client()
    answer = client.post("/login/", {"username": "ann", "password": PASSWORD})
    assert answer.status_code == 302
    cookie = client.cookies["sessionid"]
    assert cookie["httponly"] and cookie["samesite"] == "Lax"


def test_failed_sign_ins_are_throttled_with_when_to_retry():
    from django.test import Client
    from django.utils import timezone

    from grader.web.models import FailedSignIn
    from grader.web.site.sign_in_limits import FREE_FAILURES, MAX_DELAY_S

    client = Client()
    for _ in range(FREE_FAILURES + 1):  # the free ones, and the one that starts the delay
        assert client.post("/login/", {"username": "ann", "password": "wrong"}).status_code == 200
    # more of them, now, from this address: the delay grows to its longest
    pair = FailedSignIn.objects.filter(key__startswith="pair:").latest("id").key
    FailedSignIn.objects.bulk_create([FailedSignIn(key=pair, at=timezone.now()) for _ in range(10)])
    refused = client.post("/login/", {"username": "ann", "password": PASSWORD})
    assert refused.status_code == 429 and 0 < int(refused["Retry-After"]) <= MAX_DELAY_S
    assert "Try again in" in refused.content.decode()
    # another account from the same address may still sign in
    assert Client().post("/login/", {"username": "ben", "password": PASSWORD}).status_code == 302


def test_a_session_ends_a_lab_day_after_its_sign_in_however_active():
    from django.conf import settings
    from django.test import Client

    from grader.web.site.login import SIGNED_IN_AT

    client = Client()
    assert client.post("/login/", {"username": "ann", "password": PASSWORD}).status_code == 302
    assert client.get("/").status_code == 200
    session = client.session
    session[SIGNED_IN_AT] -= settings.SESSION_COOKIE_AGE + 1  # signed in a lab day ago
    session.save()
    ended = client.get("/")
    assert ended.status_code == 302 and ended["Location"].startswith("/login/")
    assert client.get("/").status_code == 302  # signed out, not only sent away


def test_a_first_sign_in_leads_to_the_password_change_before_anything_else(roster):
    from django.test import Client

    client = Client()
    assert client.post("/login/", {"username": "new", "password": roster["new"]}).status_code == 302
    for page in ("/", "/tasks/nim_sum/", "/teach/"):
        answer = client.get(page)
        assert answer.status_code == 302 and answer["Location"] == "/password/", page
    changed = client.post(
        "/password/", {"old_password": roster["new"], "new_password1": PASSWORD, "new_password2": PASSWORD}
    )
    assert changed.status_code == 302 and changed["Location"] == "/"
    assert client.get("/").status_code == 200
    client.post("/logout/")
    assert Client().post("/login/", {"username": "new", "password": PASSWORD}).status_code == 302


def test_handing_in_through_the_page_makes_the_same_row_as_the_api():
    from grader.web.models import Submission

    ann = signed_in("ann")
    answer = page_hand_in(ann, "nim_sum", text=solution("nim_sum"))
    assert answer.status_code == 302
    page_row = Submission.objects.get(id=int(answer["Location"].strip("/").split("/")[-1]))
    api_row = Submission.objects.get(id=api_hand_in("ann", "nim_sum", solution("nim_sum")))
    fields = ("task", "file_name", "sha256", "late", "status", "pending", "student_id")
    assert {f: getattr(page_row, f) for f in fields} == {f: getattr(api_row, f) for f in fields}
    assert bytes(page_row.data) == bytes(api_row.data)
    upload = io.BytesIO(solution("exclusive_or").encode())
    upload.name = "anything.py"
    by_file = page_hand_in(ann, "exclusive_or", upload=upload)
    shown = ann.get(by_file["Location"])
    page = shown.content.decode()
    assert "queued" in page and "as soon as it is graded" in page and "http-equiv" not in page
    # its one script runs by its hash, and asks a status only its owner reads
    from grader.web.site.waiting_page import WAIT_POLICY, WAIT_SCRIPT

    assert f"<script>{WAIT_SCRIPT}</script>" in page and shown["Content-Security-Policy"] == WAIT_POLICY
    number = by_file["Location"].strip("/").split("/")[-1]
    assert ann.get(f"/submissions/{number}/status").json() == {"waiting": True}
    assert signed_in("ben").get(f"/submissions/{number}/status").status_code == 404


def test_the_page_refuses_with_the_apis_reasons():
    from grader.web.models import Submission, TaskPolicy

    ann = signed_in("ann")
    assert page_hand_in(ann, "nim_sum", text="   ").status_code == 400
    big = io.BytesIO(b"#" * (MAX_SOURCE_BYTES + 1))
    big.name = "nim_sum.py"
    too_large = page_hand_in(ann, "nim_sum", upload=big)
    assert too_large.status_code == 413 and "over the limit" in too_large.content.decode()
    TaskPolicy.objects.create(task="nim_sum", min_interval_s=60)
    assert page_hand_in(ann, "nim_sum", text="print(0)").status_code == 302
    again = page_hand_in(ann, "nim_sum", text="print(0)")
    assert again.status_code == 429 and "again in" in again.content.decode() and int(again["Retry-After"]) > 0
    assert Submission.objects.count() == 1
    hostile = page_hand_in(ann, "exclusive_or", text="<script>alert(1)</script>")
    history = ann.get("/tasks/exclusive_or/").content.decode()
    assert hostile.status_code == 302 and "<script>" not in history


def test_nothing_hidden_reaches_a_students_page(grade_queue):
    from grader.web.worker.course_state import course_tasks

    wrong = mutate("nim_sum", "total = total ^ row", "total = total + row")
    number = api_hand_in("ann", "nim_sum", wrong)
    grade_queue()
    ann = signed_in("ann")
    pages = [ann.get(p.format(n=number)).content.decode() for p in STUDENT_PAGES[:3] + STUDENT_PAGES[4:]]
    assert "wrong answer" in pages[2].lower() or "wrong" in pages[2].lower()
    hidden = [c for c in course_tasks()["nim_sum"].cases if c.hidden]
    assert hidden
    for case in hidden:
        assert case.name in pages[2]
        secrets = [case.input.strip(), *(e.strip() for e in case.expected if len(e.strip()) > 5)]
        for text in pages:
            for secret in secrets:
                assert secret not in text and html.escape(secret) not in text


def test_text_a_program_controls_shows_every_unseen_character_as_a_marker(grade_queue):
    """The submission page (its cases' messages, the file with its Trojan comment), the report and the
    queue's error: no control, format or separator character as it is, each shown as its marker."""
    from grader.web.worker import queue

    crash = api_hand_in("ann", "exclusive_or", UNSEEN_PROGRAM.replace('"MODE"', "'crash'"))
    wrong = api_hand_in("ann", "exclusive_or", UNSEEN_PROGRAM.replace('"MODE"', "'wrong'"))
    grade_queue()
    failed = api_hand_in("ann", "exclusive_or", solution("exclusive_or"))
    _, attempt = queue.claim("a-grader")
    queue.finish(failed, attempt, {"status": "error", "error": "the grader failed (OSError: \x1b]0;owned\x07\u202e)"})
    ann, teach = signed_in("ann"), signed_in("teach")
    pages = {
        f"{who} {page}": client.get(page).content.decode()
        for number in (crash, wrong, failed)
        for page in (f"/submissions/{number}/", f"/submissions/{number}/report")
        for who, client in (("ann", ann), ("teach", teach))
    }
    pages["queue"] = teach.get("/teach/queue/").content.decode()
    assert {name: unseen(text) for name, text in pages.items() if unseen(text)} == {}
    shown = pages[f"ann /submissions/{crash}/"]
    assert "ValueError" in shown and "\\x1b" in shown and "\\u200b" in shown
    assert "# total = a \\u202e ^ b \\u2066" in shown  # the file as handed in, its override shown
    assert "\\x9b" in pages[f"ann /submissions/{wrong}/"] and "\\u202e" in pages["queue"]


def test_the_instructor_sees_the_class_regrades_and_exports(grade_queue):
    from grader.web.models import Submission

    api_hand_in("ann", "nim_sum", solution("nim_sum"))
    api_hand_in("ben", "nim_sum", mutate("nim_sum", "total = total ^ row", "total = total + row"))
    grade_queue()
    teach = signed_in("teach")
    overview = teach.get("/teach/class/")
    text = overview.content.decode()
    assert overview.status_code == 200 and "ann" in text and "ben" in text and 'href="ben/index.html"' in text
    assert "ann" in teach.get("/teach/class/ann/index.html").content.decode()
    assert teach.get("/teach/class/nobody/index.html").status_code == 404
    answer = teach.post("/teach/tasks/nim_sum/regrade", {"confirm": "yes"}, follow=True)
    assert "2 latest submissions queued" in answer.content.decode()
    assert Submission.objects.filter(pending=True, status="done").count() == 2  # old results stay
    assert "(regrade)" in teach.get("/teach/queue/").content.decode()
    assert teach.post("/teach/tasks/no_such/regrade", {"confirm": "yes"}).status_code == 404
    assert teach.get("/teach/tasks/nim_sum/regrade").status_code == 200  # the confirmation (test_portal_edges)
    gradebook = teach.get("/teach/gradebook.csv").content.decode().splitlines()
    # every student of the roster, handed in or not: "new" has handed in nothing, and says so
    assert gradebook[0].startswith("student,")
    lms = teach.get("/teach/gradebook.csv?lms=1").content.decode().splitlines()
    assert lms[1].startswith("Points Possible,") and lms[2:] == gradebook[1:]  # as an LMS import reads it
    rows = {line.split(",")[0]: line for line in gradebook[1:]}  # (other modules' students too: one database)
    assert {"ann", "ben", "new"} <= set(rows) and list(rows).index("ann") < list(rows).index("ben")
    tasks = " ".join(t for t in gradebook[0].split(",")[1:-6])
    assert rows["new"].endswith(",0," + tasks + ",,,,")  # no name, no email in this roster, nothing late


def test_a_regrade_of_one_submission_says_it_in_the_singular(grade_queue):
    api_hand_in("ann", "nim_sum", solution("nim_sum"))
    grade_queue()
    answer = signed_in("teach").post("/teach/tasks/nim_sum/regrade", {"confirm": "yes"}, follow=True)
    assert "nim_sum: 1 latest submission queued for grading again" in answer.content.decode()


def test_the_queue_shows_what_could_not_be_graded():
    from grader.web.worker import queue

    number = api_hand_in("ann", "nim_sum", "print(0)")
    assert "None is running" in signed_in("teach").get("/teach/queue/").content.decode()
    queue.say_alive("a-grader", 3, "this machine")
    _, attempt = queue.claim("a-grader")
    shown = signed_in("teach").get("/teach/queue/").content.decode()
    graders = shown[shown.index("Graders (1)") : shown.index("Being graded")]
    assert "3 at once" in graders and f"#{number}" in graders
    queue.finish(number, attempt, {"status": "error", "error": "the grader failed (OSError: disk full)"})
    assert "disk full" in signed_in("teach").get("/teach/queue/").content.decode()
    shown = signed_in("ann").get(f"/submissions/{number}/").content.decode()
    assert "could not be graded" in shown and "as soon as it is graded" not in shown and "<script>" not in shown
