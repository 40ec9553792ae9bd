"""The events log (``DATA/logs/events.log``, ``grader.web.logs.event``): the lines docs/portal.md's
"What the log says" promises an operator, each one line in its fixed format, for a hand-in, its
grading (how long it waited and took, its verdict, where), a grading that failed, a regrade, and a
failed sign-in; never a password, and never what a program printed."""

from __future__ import annotations

import io
import logging
import re
import sys

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_hand_in, set_up_portal  # noqa: E402
from support import mutate  # noqa: E402

WRONG = mutate("nim_sum", "total = total ^ row", "total = total + row")
ROSTER = "username,role\nev_ann,student\nev_teach,instructor\n"


@pytest.fixture(scope="module", autouse=True)
def portal(tmp_path_factory):
    set_up_portal(tmp_path_factory.mktemp("portal"), ROSTER)


@pytest.fixture
def events(caplog):
    """events() → the lines of the events log written so far in this test."""
    caplog.set_level(logging.INFO, logger="grader.events")
    return lambda: [r.getMessage() for r in caplog.records if r.name == "grader.events"]


def test_a_hand_in_and_its_grading_are_a_line_each(events, grade_queue):
    from grader.web.models import Submission

    number = api_hand_in("ev_ann", "nim_sum", WRONG)
    size = len(WRONG.encode())
    assert events() == [f"handin user=ev_ann task=nim_sum submission={number} bytes={size} files=1 late=no"]
    grade_queue()
    row = Submission.objects.get(id=number)
    (graded,) = events()[1:]
    pattern = (
        rf"graded submission={number} task=nim_sum user=ev_ann kind=handin verdict={row.verdict} "
        rf"score={row.score:g}/{row.max_score:g} public_only=no waited=\d+\.\ds took=\d+\.\ds "
        r'backend="this machine" dispatcher=-'
    )
    assert re.fullmatch(pattern, graded), graded


def test_a_regrade_says_who_asked_and_how_many_and_its_grading_is_a_regrade(events, grade_queue):
    from django.test import Client

    from grader.web.models import FirstSignIn
    from grader.web.site import roster as accounts

    number = api_hand_in("ev_ann", "nim_sum", WRONG)
    grade_queue()
    FirstSignIn.objects.filter(user__username="ev_teach").delete()
    ((_, token),) = accounts.new_tokens(["ev_teach"])
    answer = Client().post("/api/tasks/nim_sum/regrade", HTTP_AUTHORIZATION=f"Token {token}")
    assert answer.status_code == 202
    queued = answer.json()["queued"]
    assert f"regrade by=ev_teach task=nim_sum queued={queued}" in events()
    grade_queue()
    again = [line for line in events() if line.startswith(f"graded submission={number} ")][-1]
    assert " kind=regrade " in again and " waited=- " in again, again


def test_a_grading_that_fails_names_the_submission_and_never_what_the_program_printed(events, grade_queue, monkeypatch):
    from grader.web.worker import dispatcher

    def fails(number, grading):
        raise RuntimeError("the program printed SECRET-OUTPUT-42")

    number = api_hand_in("ev_ann", "nim_sum", WRONG)
    monkeypatch.setattr(dispatcher, "grade_row", fails)
    grade_queue()
    failed = [line for line in events() if line.startswith("grading-failed")]
    expected = f"grading-failed submission={number} task=nim_sum user=ev_ann reason=grader-fault:RuntimeError attempt=1"
    assert failed == [expected + " dispatcher=-"]
    assert not any("SECRET-OUTPUT" in line for line in events())


def test_a_failed_sign_in_names_the_account_and_address_never_the_password(events):
    from django.test import Client

    Client().post("/login/", {"username": "ev_ann", "password": "wrong-Secret-917"})
    hostile = 'ev"ann\nadmin signed in'
    Client().post("/login/", {"username": hostile, "password": "wrong-Secret-917"})
    lines = events()
    assert lines[0] == "sign-in-failed user=ev_ann address=127.0.0.1"
    assert lines[1] == 'sign-in-failed user="ev\\"ann\\nadmin signed in" address=127.0.0.1'
    assert not any("Secret-917" in line or "\n" in line for line in lines)


def test_a_wrong_old_password_at_the_password_page_is_a_line(events):
    from portal_client import signed_in

    client = signed_in("ev_ann")
    form = {"old_password": "not-it-4821", "new_password1": "a long new pass 88", "new_password2": "a long new pass 88"}
    client.post("/password/", form)
    assert "password-check-failed user=ev_ann address=127.0.0.1" in events()


def test_hand_ins_through_the_page_are_lines_too(events):
    from portal_client import page_hand_in, signed_in

    upload = io.BytesIO(WRONG.encode())
    upload.name = "nim_sum.py"
    page_hand_in(signed_in("ev_ann"), "nim_sum", upload=upload)
    assert [line.split(" submission=")[0] for line in events()] == ["handin user=ev_ann task=nim_sum"]
