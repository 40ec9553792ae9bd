"""A teaching assistant (``role`` ta in ``users import``; through Django's test client, on a roster of
its own): sees every page and export an instructor sees, comments on a submission (which its
student then reads), and changes nothing else: every POST of every address the portal has
(``urls.urlpatterns``, walked, not listed by hand) is refused with 403 unless it is one of the few
that act on the TA's own account or hand-ins, and nothing the course keeps has changed after the
walk; the buttons that would change something are not on the TA's pages."""

from __future__ import annotations

import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_hand_in, set_up_portal, signed_in  # noqa: E402
from support import mutate  # noqa: E402

WRONG = mutate("nim_sum", "total = total ^ row", "total = total + row")
ROSTER = "username,role\nta_ann,student\nta_tim,ta\nta_teach,instructor\n"

# Every address of the portal, in one of four kinds, so that a new one must be put in one here.
# POSTs a TA may make: their own sign-in, password, token and hand-ins, and a comment
OWN = {"login/", "logout/", "password/", "tasks/<str:task_id>/", "submissions/<int:number>/choose", "api/submissions"}
COMMENT = "submissions/<int:number>/comment"
# what changes the course, its policies, the roster, points or grading: a TA's POST is a 403 with a sentence
CHANGING = {
    "account/",  # (the POST below asks for a student's password reset)
    "api/tasks/<str:task_id>/regrade",
    "teach/class/<str:username>/extension",
    "teach/class/<str:username>/adjustment",
    "teach/class/<str:username>/drop",
    "teach/class/<str:username>/restore",
    "teach/tasks/<str:task_id>/regrade",
    "teach/tasks/<str:task_id>/limits",
    "teach/limits",
    "teach/marks",
    "teach/hidden",
    "teach/waiting",
    "teach/publish",
    "teach/time-zone",
}
# pages and exports, read only (a POST of one reads it, or is refused: it changes nothing either way)
READ = {
    "healthz",
    "api/tasks",
    "api/submissions/<int:number>",
    "api/gradebook.csv",
    "api/gradescope.zip",
    "",
    "submissions/<int:number>/",
    "submissions/<int:number>/file",
    "submissions/<int:number>/status",
    "submissions/<int:number>/report",
    "submissions/<int:number>/index.html",
    "teach/",
    "teach/class/",
    "teach/class/<str:username>/index.html",
    "teach/queue/",
    "teach/gradebook.csv",
    "teach/gradescope.zip",
    "teach/similar/",
    "teach/similar/<int:first>/<int:second>/",
}
# what a forgetful view would act on: every field of every form, right
FORM = {
    "confirm": "yes",
    "action": "reset",
    "username": "ta_ann",
    "marks_from": "best",
    "hidden_results": "after_deadline",
    "max_waiting": "3",
    "max_stored_mib": "2",
    "min_interval_s": "5",
    "max_count": "3",
    "max_per_hour": "3",
    "deadline": "2020-01-01 00:00",
    "time_zone": "Europe/Amsterdam",
    "late_rule": "penalty",
    "late_penalty": "10",
    "task": "nim_sum",
    "points": "+1",
    "comment": "by the TA",
    "text": "by the TA",
}


@pytest.fixture(scope="module", autouse=True)
def portal(tmp_path_factory):
    set_up_portal(tmp_path_factory.mktemp("portal"), ROSTER)


@pytest.fixture
def graded(grade_queue):
    number = api_hand_in("ta_ann", "nim_sum", WRONG)
    grade_queue()
    return number


def kept_state() -> tuple:
    """What the course keeps that a TA must not change: policies, settings, extensions,
    adjustments, accounts (role, active, password), first sign-ins, tokens, grading owed."""
    from django.contrib.auth import get_user_model

    from grader.web import models

    def rows(model, *fields):
        return sorted(model.objects.values_list(*fields))

    return (
        rows(models.TaskPolicy, "task", "min_interval_s", "max_count", "max_per_hour", "deadline", "late_rule"),
        rows(models.CourseSetting, "marks_from", "max_waiting", "max_stored_mib", "hidden_results"),
        rows(models.Extension, "student_id", "task", "deadline"),
        rows(models.Adjustment, "student_id", "task", "points", "comment"),
        rows(get_user_model(), "username", "is_staff", "is_active", "password"),
        rows(models.FirstSignIn, "user_id"),
        rows(models.Submission, "id", "wanted", "late", "chosen"),
    )


def test_users_import_makes_a_ta_who_sees_what_an_instructor_sees(graded):
    from grader.web.enrolment import role_of
    from grader.web.usernames import find_account

    assert [role_of(find_account(name)) for name in ("ta_ann", "ta_tim", "ta_teach")] == ["student", "ta", "instructor"]
    ta, teach = signed_in("ta_tim"), signed_in("ta_teach")
    for path in (
        "/teach/",
        "/teach/class/",
        "/teach/class/ta_ann/index.html",
        "/teach/queue/",
        "/teach/gradebook.csv",
        "/teach/gradebook.csv?lms=1",
        "/teach/gradescope.zip",
        f"/submissions/{graded}/",
        f"/submissions/{graded}/report",
        f"/submissions/{graded}/file",
    ):
        seen = ta.get(path)
        assert seen.status_code == 200, path
        if path.endswith((".csv", ".zip", "/report", "/file", "/class/")):
            assert seen.content == teach.get(path).content, path
    start = ta.get("/teach/").content.decode()
    changing = ("/teach/marks", "/teach/hidden", "/teach/waiting", "/teach/limits", "/limits", "/regrade", "/drop")
    for action in (*changing, "/teach/publish", "/teach/time-zone"):
        assert action not in start, f"the TA's /teach/ shows the button of {action}"
    record = ta.get("/teach/class/ta_ann/index.html").content.decode()
    assert "/extension" not in record and "/adjustment" not in record and "/drop" not in record


def test_a_ta_comments_and_the_student_reads_it(graded):
    ta = signed_in("ta_tim")
    assert 'id="comment-form"' in ta.get(f"/submissions/{graded}/").content.decode()
    assert ta.post(f"/submissions/{graded}/comment", {"text": "Look at the XOR in nim_sum."}).status_code == 302
    assert ta.post(f"/submissions/{graded}/comment", {"text": "   "}).status_code == 302  # refused, said
    page = signed_in("ta_ann").get(f"/submissions/{graded}/").content.decode()
    assert "Look at the XOR in nim_sum." in page and "ta_tim" in page
    assert page.count('class="note"><p class="muted">ta_tim') == 1  # the empty one was not saved
    assert 'id="comment-form"' not in page  # a student comments on nothing
    assert signed_in("ta_ann").post(f"/submissions/{graded}/comment", {"text": "mine"}).status_code == 403


def test_every_changing_post_of_the_portal_is_refused_to_a_ta_on_the_server(graded):
    from django.test import Client

    from grader.web.models import Comment
    from grader.web.site import roster as accounts
    from grader.web.urls import urlpatterns

    ((_, token),) = accounts.new_tokens(["ta_tim"])
    before = kept_state()
    args = {"task_id": "nim_sum", "username": "ta_ann", "number": str(graded), "first": str(graded), "second": "1"}
    walked = set()
    for pattern in urlpatterns:
        route = str(pattern.pattern)
        walked.add(route)
        if route in OWN:
            continue
        path = "/" + route
        for name, value in args.items():
            path = path.replace(f"<str:{name}>", value).replace(f"<int:{name}>", value)
        ta = signed_in("ta_tim")  # (a fresh session each time: no POST may end it for the next)
        answer = ta.post(path, FORM, HTTP_AUTHORIZATION=f"Token {token}")
        if route == COMMENT:
            assert answer.status_code == 302, route
        elif route in CHANGING:  # refused on the server, with the sentence saying why (not a 405 or a page)
            assert answer.status_code == 403 and b"only an instructor" in answer.content, (route, answer.status_code)
        else:
            assert route in READ, f"{route} is new: put it in OWN, CHANGING or READ above"
            assert answer.status_code in (200, 302, 403, 404, 405), (route, answer.status_code)
        assert kept_state() == before, f"a TA's POST to {path} changed what the course keeps"
    assert walked == OWN | CHANGING | READ | {COMMENT}, "an address listed above is gone: take it out"
    assert Comment.objects.filter(submission_id=graded).count() == 1
    assert Client().get("/teach/", HTTP_AUTHORIZATION=f"Token {token}").status_code == 302  # (no session: sign in)
