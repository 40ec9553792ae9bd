"""The first sign-in (docs/portal.md, "Accounts"; docs/students.md): right after signing in with the
one-time password, ``/password/`` asks only for the new password (the sign-in proved the old one;
that proof is kept in the session, on the server, for ``PROOF_S``); a visit without that proof asks
for the current password as before; and a refused password is told its real reason."""

from __future__ import annotations

import sys
import time

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

NEW = "correct horse battery staple"
FRAKTUR = "\U0001d52d\U0001d51e\U0001d530\U0001d530\U0001d534\U0001d52c\U0001d52f\U0001d521"  # "password"


@pytest.fixture
def newcomer(tmp_path):
    """(username, one-time password) of a new student, as ``users import`` made them."""
    from grader.web.site import roster

    path = tmp_path / "roster.csv"
    path.write_text("username,role\nNia,student\n", encoding="utf-8")
    ((name, password),) = roster.import_roster(path).created
    return name, password


def _signed_in(name: str, password: str):
    from django.test import Client

    client = Client()
    answer = client.post("/login/", {"username": name, "password": password})
    assert answer.status_code == 302 and client.get("/")["Location"] == "/password/"
    return client


def _asks_current(client) -> bool:
    page = client.get("/password/")
    assert page.status_code == 200
    return 'name="old_password"' in page.content.decode()


def _choose(client, new: str, **more):
    return client.post("/password/", {"new_password1": new, "new_password2": new, **more})


def test_right_after_the_one_time_sign_in_only_the_new_password_is_asked(newcomer):
    name, password = newcomer
    client = _signed_in(name.lower(), password)
    assert not _asks_current(client)
    answer = _choose(client, NEW)
    assert answer.status_code == 302 and answer["Location"] == "/"
    assert client.get("/").status_code == 200  # no longer led to /password/
    assert _asks_current(client)  # a later change asks for the current password again
    assert _signed_in_with(name, NEW) and not _signed_in_with(name, password)


def _signed_in_with(name: str, password: str) -> bool:
    from django.test import Client

    return Client().post("/login/", {"username": name, "password": password}).status_code == 302


def test_without_the_sign_ins_proof_the_current_password_is_asked(newcomer):
    from django.contrib.auth import get_user_model
    from django.test import Client

    name, password = newcomer
    other = Client()  # signed in some other way than the sign-in page (no proof in its session)
    other.force_login(get_user_model().objects.get(username=name))
    assert _asks_current(other)
    refused = _choose(other, NEW)  # the new password alone is not enough here
    assert refused.status_code == 200 and "This field is required." in refused.content.decode()
    assert not _signed_in_with(name, NEW)
    assert _choose(other, NEW, old_password=password).status_code == 302


def test_the_proof_lasts_a_short_time_only(newcomer):
    from grader.web.site.login import PASSWORD_PROVED, PROOF_S

    name, password = newcomer
    client = _signed_in(name, password)
    session = client.session
    assert isinstance(session[PASSWORD_PROVED], int)  # kept in the session, on the server
    session[PASSWORD_PROVED] = int(time.time()) - PROOF_S - 1
    session.save()
    assert _asks_current(client)
    assert _choose(client, NEW).status_code == 200 and not _signed_in_with(name, NEW)


def test_an_ordinary_sign_in_proves_nothing_for_a_later_change(newcomer):
    name, password = newcomer
    client = _signed_in(name, password)
    assert _choose(client, NEW).status_code == 302
    assert _asks_current(_signed_in_plain(name, NEW))


def _signed_in_plain(name: str, password: str):
    from django.test import Client

    client = Client()
    assert client.post("/login/", {"username": name, "password": password}).status_code == 302
    return client


# what is typed, what the page must say (its real reason), and what it must not say (a reason that is not)
REASONS = [
    ("a", "This password is too short", "mostly blank"),
    ("abc def", "This password is too short", "mostly blank"),
    (" " * 20, "This password is mostly blank", "too short"),
    (FRAKTUR, "Read as plain letters (𝔭 and ｐ are p), this password is too common.", "too short"),
    ("ＰＡＳＳＷＯＲＤ", "Read as plain letters (𝔭 and ｐ are p), this password is too common.", "mostly blank"),
    ("nimlab2024", "only a word and a number", "too common"),
]


@pytest.mark.parametrize("typed, said, unsaid", REASONS, ids=[r[1][:30] for r in REASONS])
def test_a_refused_password_is_told_its_real_reason(newcomer, typed, said, unsaid):
    import html

    client = _signed_in(*newcomer)
    answer = _choose(client, typed)
    page = html.unescape(answer.content.decode())
    assert answer.status_code == 200 and said in page and unsaid not in page, page[page.find("<form") :][:800]


def test_the_page_lists_the_rules_before_anything_is_typed(newcomer):
    import html

    page = html.unescape(_signed_in(*newcomer).get("/password/").content.decode())
    for rule in ("at least 8 characters", "commonly used", "entirely numeric", "Spaces do not count", "a word and"):
        assert rule in page, rule
