"""Credentials under attack (issue 35, invariant 6), through Django's test client with a clock the
tests move: a lock-out an attacker keeps up never keeps the owner out of a new browser at another
address, one address gets few checked guesses a day, /password/'s old password is throttled like a
sign-in, no API token works before the first password change, a word and a number is no password,
and expired sessions are cleared."""

from __future__ import annotations

import sys
from datetime import timedelta

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

PASSWORD = "a long enough password 1"
DAY_S = 24 * 3600


@pytest.fixture(scope="module")
def roster(tmp_path_factory):
    from grader.web.site import roster as accounts

    path = tmp_path_factory.mktemp("roster") / "roster.csv"
    path.write_text("username,role\nann,student\nben,student\nnew,student\n")
    return dict(accounts.import_roster(path).created)


@pytest.fixture(autouse=True)
def chosen(roster):
    """ann and ben have chosen their password; new has not."""
    from django.contrib.auth import get_user_model

    from grader.web.models import FailedSignIn, FirstSignIn

    FailedSignIn.objects.all().delete()
    for name in ("ann", "ben"):
        user = get_user_model().objects.get(username=name)
        user.set_password(PASSWORD)
        user.save()
        FirstSignIn.objects.filter(user=user).delete()


class Clock:
    """The time the portal reads (``django.utils.timezone.now``), moved on by the test."""

    def __init__(self, monkeypatch):
        from django.utils import timezone

        self.now = timezone.now()
        monkeypatch.setattr(timezone, "now", lambda: self.now)

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch)


def sign_in(address: str, name: str, password: str):
    """A sign-in from a browser that never signed in (no cookie) at ``address``."""
    from django.test import Client

    return Client(REMOTE_ADDR=address).post("/login/", {"username": name, "password": password})


def test_an_attacker_spread_over_time_and_addresses_never_keeps_the_owner_out_of_a_new_browser(clock):
    """About a request a minute, from five addresses in turn, for six hours: every half hour, right
    after the attacker's latest try, the owner signs in from a new browser at an address of their
    own, with the right password, and gets in at once."""
    attackers = [f"203.0.113.{n}" for n in range(1, 6)]
    checked = 0
    for minute in range(6 * 60):
        answer = sign_in(attackers[minute % len(attackers)], "ann", f"guess {minute}")
        assert answer.status_code in (200, 429), answer.status_code
        checked += answer.status_code == 200
        if minute % 30 == 29:
            owner = sign_in(f"198.51.100.{minute // 30}", "ann", PASSWORD)
            assert owner.status_code == 302, f"the owner was refused after {minute + 1} minutes of attack"
        clock.advance(60)
    assert checked < 6 * 60  # and the attacker was held back some of the time


def test_an_attacker_at_one_address_gets_few_checked_guesses_a_day(clock):
    """An attacker who waits exactly what each 429 says, a whole day long, gets a few dozen
    checked guesses, not one a minute."""
    checked = elapsed = 0
    while elapsed < DAY_S and checked <= 60:
        answer = sign_in("203.0.113.9", "ann", f"guess {elapsed}")
        if answer.status_code == 429:
            wait = int(answer["Retry-After"])
            assert wait > 0
        else:
            assert answer.status_code == 200
            checked, wait = checked + 1, 1
        clock.advance(wait)
        elapsed += wait
    assert checked <= 60, f"{checked} checked guesses in {elapsed} s from one address"
    # the owner, at another address, is not held back by it
    assert sign_in("198.51.100.1", "ann", PASSWORD).status_code == 302


def test_the_right_password_resets_the_budgets_it_was_counted_against(clock):
    from grader.web.site.sign_in_limits import FREE_FAILURES

    for _ in range(FREE_FAILURES):  # the owner's own typos, at their address
        assert sign_in("198.51.100.7", "ben", "typo").status_code == 200
    assert sign_in("198.51.100.7", "ben", PASSWORD).status_code == 302
    # counted afresh: the free failures again, then the delay
    answers = [sign_in("198.51.100.7", "ben", "typo").status_code for _ in range(FREE_FAILURES + 2)]
    assert answers[: FREE_FAILURES + 1] == [200] * (FREE_FAILURES + 1) and answers[-1] == 429


def test_an_ipv6_network_is_one_address():
    """A /64 holds more addresses than an attacker could ever use: it is one address for the budgets."""
    from grader.web.site.sign_in_limits import FREE_FAILURES

    answers = [sign_in(f"2001:db8:1:2::{n:x}", "ann", "guess").status_code for n in range(FREE_FAILURES + 3)]
    assert answers[: FREE_FAILURES + 1] == [200] * (FREE_FAILURES + 1) and 429 in answers
    assert sign_in("2001:db8:1:3::1", "ann", PASSWORD).status_code == 302  # another network


def test_the_old_password_at_password_is_throttled_like_a_sign_in():
    """Someone holding a signed-in session (a lab PC left open) guesses its owner's password at
    /password/: the same budget as a sign-in from that address, and the right password refused
    unchecked while it waits."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    from grader.web.site.sign_in_limits import FREE_FAILURES

    session = Client(REMOTE_ADDR="203.0.113.20")
    session.force_login(get_user_model().objects.get(username="ann"))
    new = "another long password 2"
    answers = []
    for n in range(FREE_FAILURES + 3):
        fields = {"old_password": f"guess {n}", "new_password1": new, "new_password2": new}
        answers.append(session.post("/password/", fields))
    codes = [a.status_code for a in answers]
    assert codes[: FREE_FAILURES + 1] == [200] * (FREE_FAILURES + 1) and codes[-1] == 429, codes
    assert "Try again in" in answers[-1].content.decode() and int(answers[-1]["Retry-After"]) > 0
    right = session.post("/password/", {"old_password": PASSWORD, "new_password1": new, "new_password2": new})
    assert right.status_code == 429  # unchecked while it waits
    assert sign_in("203.0.113.20", "ann", PASSWORD).status_code == 429  # one budget with the sign-in page
    assert get_user_model().objects.get(username="ann").check_password(PASSWORD)  # unchanged


def test_a_right_old_password_with_a_refused_new_one_counts_no_failure():
    from django.contrib.auth import get_user_model
    from django.test import Client

    from grader.web.site.sign_in_limits import FREE_FAILURES

    session = Client(REMOTE_ADDR="203.0.113.21")
    session.force_login(get_user_model().objects.get(username="ben"))
    for _ in range(FREE_FAILURES + 3):
        weak = session.post("/password/", {"old_password": PASSWORD, "new_password1": "x", "new_password2": "x"})
        assert weak.status_code == 200 and "too short" in weak.content.decode()


def test_no_api_token_works_before_the_first_password_change(roster):
    from django.test import Client

    from grader.web.site import roster as accounts

    ((_, token),) = accounts.new_tokens(["new"])  # as `users token new` makes it
    refused = Client().get("/api/tasks", HTTP_AUTHORIZATION=f"Token {token}")
    assert refused.status_code == 403
    assert "choose your own password" in refused.json()["error"]
    handed = Client().post("/api/submissions", {"task": "nim_sum"}, HTTP_AUTHORIZATION=f"Token {token}")
    assert handed.status_code == 403
    page = Client()
    assert page.post("/login/", {"username": "new", "password": roster["new"]}).status_code == 302
    fields = {"old_password": roster["new"], "new_password1": PASSWORD, "new_password2": PASSWORD}
    assert page.post("/password/", fields).status_code == 302
    ((_, token),) = accounts.new_tokens(["new"])
    assert Client().get("/api/tasks", HTTP_AUTHORIZATION=f"Token {token}").status_code == 200


def test_users_token_says_the_token_waits_for_the_first_password_change(django_site, capsys, monkeypatch):
    from grader.cli.main import main

    monkeypatch.setattr("grader.web.server.prepare", lambda *args: None)  # the session's portal, as it is

    assert main(["users", "token", "new", "ann", "--data", str(django_site)]) == 0
    out, err = capsys.readouterr()
    assert [line.split()[0] for line in out.splitlines()] == ["new", "ann"]
    assert "new is still on the one-time password" in err and "ann" not in err


@pytest.mark.parametrize(
    "weak",
    ["nimlab2024", "Summer2023!", "password1999", "Summer 2023", "2024nimlab", "!!Autumn-1999",
     "ｎｉｍｌａｂ２０２４", "Zuerich2024", "Équipe2025"],
)  # fmt: skip
def test_a_word_and_a_number_is_no_password(weak):
    from django.contrib.auth.password_validation import validate_password
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as refused:
        validate_password(weak)
    assert any("only a word and a number" in m for m in refused.value.messages), refused.value.messages


@pytest.mark.parametrize("fine", [PASSWORD, "correct horse battery staple", "nim lab 2024 is fun", "x7Kq!m2Pz9"])
def test_passphrases_and_mixed_passwords_still_pass(fine):
    from django.contrib.auth.password_validation import validate_password

    validate_password(fine)


def test_the_password_page_says_the_rule(roster):
    from django.test import Client

    page = Client()
    assert page.post("/login/", {"username": "new", "password": roster["new"]}).status_code == 302
    fields = {"old_password": roster["new"], "new_password1": "nimlab2024", "new_password2": "nimlab2024"}
    answer = page.post("/password/", fields)
    assert answer.status_code == 200 and "only a word and a number" in answer.content.decode()


def test_expired_sessions_are_cleared_when_someone_signs_in():
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    old, live = SessionStore(), SessionStore()
    old["left"], live["left"] = 1, 1
    old.create()
    live.create()
    Session.objects.filter(session_key=old.session_key).update(expire_date=timezone.now() - timedelta(seconds=1))
    assert sign_in("198.51.100.50", "ann", PASSWORD).status_code == 302
    kept = set(Session.objects.values_list("session_key", flat=True))
    assert old.session_key not in kept and live.session_key in kept
