"""Password checks sent at the same moment, each on a connection of its own (threads, as web
processes would): however many arrive together, a budget gets its free failures and one more
checked guess, at the sign-in page and at /password/ alike. Run on PostgreSQL as well
(``NIM_GRADER_TEST_DB=postgresql``), where the budgets are serialised by advisory locks."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

# the threads' connections see committed rows only
pytestmark = pytest.mark.committed

PASSWORD = "a long enough password 1"
BURST = 16


@pytest.fixture(scope="module")
def owner():
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username="burst_ann")
    user.set_password(PASSWORD)
    user.save()
    return user


@pytest.fixture(autouse=True)
def no_failures(owner):
    from grader.web.models import FailedSignIn

    FailedSignIn.objects.all().delete()


def _together(send) -> list:
    """``send()`` from ``BURST`` threads at once, each on its own database connection: the statuses."""
    from django.db import connection

    def one(_):
        try:
            return send()
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=BURST) as pool:
        return list(pool.map(one, range(BURST)))


def test_sign_ins_sent_together_are_counted_one_after_another(owner):
    from django.test import Client

    from grader.web.site.sign_in_limits import FREE_FAILURES

    def guess():
        return Client(REMOTE_ADDR="203.0.113.30").post("/login/", {"username": "burst_ann", "password": "guess"})

    answers = [a.status_code for a in _together(guess)]
    checked = answers.count(200)
    assert 1 <= checked <= FREE_FAILURES + 1 and answers.count(429) == BURST - checked, answers


def test_old_passwords_sent_together_are_counted_one_after_another(owner):
    from django.test import Client

    from grader.web.site.sign_in_limits import FREE_FAILURES

    sessions = []
    for _ in range(BURST):  # a session each (a stolen cookie copied many times)
        session = Client(REMOTE_ADDR="203.0.113.31")
        session.force_login(owner)
        sessions.append(session)
    new = "another long password 2"
    fields = {"old_password": "guess", "new_password1": new, "new_password2": new}
    answers = [a.status_code for a in _together(lambda: sessions.pop().post("/password/", fields))]
    checked = answers.count(200)
    assert 1 <= checked <= FREE_FAILURES + 1 and answers.count(429) == BURST - checked, answers
