"""Accounts fit for a lab, against a real ``serve``: passwords checked by Django's validators,
sign-in limits that keep guessing slow yet never lock a room or a named student out for long,
``users password`` ending the old token and sessions, sessions that end with the browser and a lab
day, and the account page where a student makes or revokes a token and an instructor resets a
student's password."""

from __future__ import annotations

import concurrent.futures
import http.cookiejar
import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
pytest.importorskip("waitress", reason="the portal needs the web extra (waitress)")

from portal_http import Tables, Visitor, one_time_passwords, served  # noqa: E402
from support import PROJECT  # noqa: E402

PASSWORD = "a long enough password 1"
ACCOUNTS = ("ann", "ben", "cat", "dan", "eve", "gus", "margaret", "teach")
FREE_FAILURES = 3  # wrong passwords an account's budget takes before its delays (sign_in_limits.FREE_FAILURES)
KNOWN_ALL_FREE = 10  # the same, for all the account's known browsers together (known_browsers.KNOWN_ALL_FREE)
# the most an account waits at an address after its last wrong password there, while it is not under
# attack (sign_in_limits.MAX_DELAY_S)
LONGEST_WAIT_S = 60
# "password" in mathematical Fraktur letters: NFKC reads it as the most common password of all
FRAKTUR_PASSWORD = "\U0001d52d\U0001d51e\U0001d530\U0001d530\U0001d534\U0001d52c\U0001d52f\U0001d521"


def grader(*args):
    done = subprocess.run([sys.executable, "-m", "grader", *args], cwd=PROJECT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def portal(tmp_path_factory, portal_database):
    """One server for the module: (its URL, the one-time passwords, the tables, the data options)."""
    folder = tmp_path_factory.mktemp("accounts")
    db = portal_database.options()
    where = ["--data", str(folder / "data"), *db]
    roster = folder / "roster.csv"
    roster.write_text(
        "username,role\n" + "".join(f"{n},{'instructor' if n == 'teach' else 'student'}\n" for n in ACCOUNTS)
    )
    first = one_time_passwords(grader("users", "import", str(roster), *where))
    with served([*where, "--allow-unprotected", "--workers", "1"], PROJECT) as url:
        tables = Tables(folder / "data", db)
        for name in ACCOUNTS:
            if name != "margaret":  # she has not chosen her own yet
                choose(Visitor(url), name, first[name], PASSWORD)
        tables.clear_failures()
        yield url, first, tables, where


@pytest.fixture(autouse=True)
def no_failures(portal):
    portal[2].clear_failures()


def choose(visitor, name, old, new):
    """Sign in with the one-time password ``old`` and choose ``new`` at /password/ (which, right
    after that sign-in, asks only for the new one); the answer to the change."""
    assert visitor.sign_in(name, old).status == 302
    assert visitor.get("/").headers["Location"] == "/password/"
    return visitor.post("/password/", {"new_password1": new, "new_password2": new})


def held(answer) -> int:
    """The seconds a 429 says to wait (its Retry-After, also said on the page)."""
    assert answer.status == 429, answer.status
    wait = int(answer.headers["Retry-After"])
    assert 0 < wait and f"Try again in {wait} seconds" in answer.text
    return wait


def signed_in_as(visitor) -> str:
    """The username the header names on the visitor's next page ("" when signed out)."""
    found = re.search(r'<span class="who">([^<]*)</span>', visitor.get("/password/").text)
    return found.group(1) if found else ""


def test_serve_keeps_passwords_with_djangos_slow_hasher_not_the_tests_fast_one(portal):
    """The portal's own settings hash with PBKDF2 at Django's iterations (the in-process tests swap
    in a fast hasher: ``django_site`` in tests/conftest.py): a password chosen through ``serve`` and
    the one-time password of ``users import`` are both kept that way."""
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    _, _, tables, _ = portal
    kept = dict(tables.run("SELECT username, password FROM auth_user WHERE username IN ('ann', 'margaret')"))
    assert set(kept) == {"ann", "margaret"}
    for name, encoded in kept.items():
        algorithm, *fields = encoded.split("$")
        assert algorithm == "pbkdf2_sha256", f"{name}'s password is kept with {algorithm}"
        assert int(fields[0]) >= PBKDF2PasswordHasher.iterations, f"{name}: {fields[0]} iterations"


def test_weak_passwords_are_refused_at_password_with_djangos_sentences(portal):
    url, first, _, _ = portal
    visitor = Visitor(url)
    sentences = {
        "a": "This password is too short. It must contain at least 8 characters.",
        "password": "This password is too common.",
        "margaret1": "The password is too similar to the username.",
        "83729104": "This password is entirely numeric.",
        " " * 20: "This password is mostly blank",
        "\t\t p a s s \t\t": "This password is mostly blank",
        FRAKTUR_PASSWORD: "Read as plain letters (𝔭 and ｐ are p), this password is too common.",
    }
    for weak, sentence in sentences.items():
        answer = choose(visitor, "margaret", first["margaret"], weak)
        assert answer.status == 200 and sentence in answer.text, weak
        visitor = Visitor(url)
    assert choose(visitor, "margaret", first["margaret"], PASSWORD).headers["Location"] == "/"
    assert Visitor(url).sign_in("margaret", PASSWORD).status == 302


def test_a_fullwidth_name_shares_the_budget_of_the_account_it_signs_in_as(portal):
    url, _, tables, _ = portal
    for hostile in ("ｂ" * 400, b"\xed\xa0\x80\xff"):  # no account, no crash
        assert Visitor(url).sign_in(hostile, "wrong password").status == 200
    refused = Visitor(url).sign_in("b\x00en", "wrong password")  # NUL, which PostgreSQL refuses: no field takes it
    assert refused.status == 400 and "NUL character" in refused.text
    for _ in range(4):  # the first three are free, so these four are all checked and counted
        assert Visitor(url).sign_in("ｂｅｎ", "wrong password").status == 200
    tables.pile_failures(12)  # a long attack under that name
    assert held(Visitor(url).sign_in("ben", PASSWORD)) <= LONGEST_WAIT_S  # the same account's budget
    tables.age_failures(LONGEST_WAIT_S + 1)
    visitor = Visitor(url)
    assert visitor.sign_in("ｂｅｎ", PASSWORD).status == 302 and signed_in_as(visitor) == "ben"


def test_a_room_of_typos_never_refuses_a_right_password(portal):
    url, _, tables, _ = portal
    room = ["dan", "eve", "nobody", "dan", "eve", "nobody", "gus", "gus"]  # everyone behind one address
    assert [Visitor(url).sign_in(name, "typo").status for name in room] == [200] * len(room)
    visitor = Visitor(url)
    assert visitor.sign_in("cat", PASSWORD).status == 302 and signed_in_as(visitor) == "cat"
    tables.pile_failures(80, address=True)  # the address far over its bound
    wrong = Visitor(url).sign_in("ann", "typo")
    assert held(wrong) <= 300 and "a right one always signs in" in wrong.text
    assert Visitor(url).sign_in("cat", PASSWORD).status == 302


def test_an_attacker_at_the_students_address_holds_a_new_browser_back_a_minute_at_most(portal):
    """(Every visitor here comes from 127.0.0.1: the attacker shares the owner's address, as in a
    lab behind one NAT address; from another address the owner is checked at once, which
    tests/portal/test_portal_credentials.py shows.)"""
    url, _, tables, _ = portal
    for _ in range(15):  # as fast as the server answers: checked and counted, or held back unchecked
        answer = Visitor(url).sign_in("dan", "guess")
        assert answer.status == 200 or held(answer) <= LONGEST_WAIT_S
    tables.pile_failures(500)  # and a whole night of it
    owner = Visitor(url).sign_in("dan", PASSWORD)
    wait = held(owner)  # even the right password waits: it is not checked while the account is held here
    assert wait <= LONGEST_WAIT_S and "from another network" in owner.text
    tables.age_failures(wait)  # the owner waits what the page said
    assert Visitor(url).sign_in("dan", PASSWORD).status == 302


def test_an_owner_at_a_browser_they_signed_in_with_gets_in_whatever_an_attacker_does(portal):
    url, _, tables, where = portal
    owner = Visitor(url)
    assert owner.sign_in("dan", PASSWORD).status == 302
    assert owner.cookie("nim_known_browser")  # the browser is now known to dan's account
    _browser_closed(owner)
    for _ in range(6):  # the attacker, from browsers that never signed in as dan
        answer = Visitor(url).sign_in("dan", "guess")
        assert answer.status == 200 or held(answer) <= LONGEST_WAIT_S
    tables.pile_failures(500)
    assert held(Visitor(url).sign_in("dan", PASSWORD)) <= LONGEST_WAIT_S  # a new browser at the address is held
    forged = Visitor(url)
    forged.jar.set_cookie(_altered(owner.jar, "nim_known_browser"))
    assert forged.sign_in("dan", PASSWORD).status == 429  # an altered cookie is no known browser
    assert owner.sign_in("dan", PASSWORD).status == 302 and signed_in_as(owner) == "dan"
    _browser_closed(owner)
    answers = [owner.sign_in("dan", "typo").status for _ in range(5)]  # its own budget, with the same delays
    assert answers[:3] == [200, 200, 200] and 429 in answers[3:]
    tables.clear_failures()
    grader("users", "password", "dan", *where)  # a new password forgets the browsers of the old one
    tables.run("DELETE FROM portal_failedsignin")
    for _ in range(4):
        Visitor(url).sign_in("dan", "guess")
    assert held(owner.sign_in("dan", "guess")) <= LONGEST_WAIT_S


def _browser_closed(visitor) -> None:
    """The browser closed and opened again: its session cookie gone, its lasting cookies kept."""
    for cookie in [c for c in visitor.jar if c.name == "sessionid"]:
        visitor.jar.clear(cookie.domain, cookie.path, cookie.name)


def _altered(jar, name):
    """A copy of the cookie ``name`` whose signed value has one character changed."""
    (cookie,) = [c for c in jar if c.name == name]
    value = cookie.value[:-1] + ("A" if cookie.value[-1] != "A" else "B")
    return http.cookiejar.Cookie(
        0, name, value, None, False, cookie.domain, cookie.domain_specified, cookie.domain_initial_dot,
        cookie.path, cookie.path_specified, False, None, False, None, None, {},
    )  # fmt: skip


def test_guesses_sent_together_are_counted_one_after_another(portal):
    url, _, _, _ = portal
    with concurrent.futures.ThreadPoolExecutor(max_workers=24) as pool:  # a burst at one account
        answers = list(pool.map(lambda _: Visitor(url).sign_in("gus", "guess").status, range(24)))
    checked = answers.count(200)  # a wrong password checked and answered with the form
    assert checked <= FREE_FAILURES + 1 and answers.count(429) == len(answers) - checked, answers


def test_cookies_of_many_known_browsers_buy_a_guesser_a_handful_of_guesses_not_a_budget_each(portal):
    url, _, tables, _ = portal
    browsers = []
    for _ in range(5):  # five browsers the owner signed in with (or copies of their cookies)
        browser = Visitor(url)
        assert browser.sign_in("cat", PASSWORD).status == 302
        _browser_closed(browser)
        browsers.append(browser)
    tables.clear_failures()
    answers = [browser.sign_in("cat", "guess").status for browser in browsers for _ in range(FREE_FAILURES)]
    assert answers.count(200) <= KNOWN_ALL_FREE + 1 and 429 in answers, answers


def test_a_password_changed_by_its_owner_ends_the_api_token(portal):
    url, _, _, _ = portal
    owner = Visitor(url)
    assert owner.sign_in("eve", PASSWORD).status == 302
    made = owner.post("/account/", {"action": "token"})
    token = re.search(r'<pre id="token">([^<]+)</pre>', made.text).group(1)
    api = Visitor(url)
    assert api.get("/api/tasks", {"Authorization": f"Token {token}"}).status == 200
    new = PASSWORD + " changed"
    fields = {"old_password": PASSWORD, "new_password1": new, "new_password2": new}
    assert owner.post("/password/", fields).status == 302
    assert api.get("/api/tasks", {"Authorization": f"Token {token}"}).status == 401
    assert "Your API token no longer works" in owner.get("/").text
    back = {"old_password": new, "new_password1": PASSWORD, "new_password2": PASSWORD}
    assert owner.post("/password/", back).status == 302


def test_users_password_ends_the_old_token_and_the_open_sessions(portal):
    url, _, _, where = portal
    visitor = Visitor(url)
    assert visitor.sign_in("eve", PASSWORD).status == 302 and signed_in_as(visitor) == "eve"
    (token,) = re.findall(r"^eve (\S+)$", grader("users", "token", "eve", *where), re.M)
    api = Visitor(url)
    assert api.get("/api/tasks", {"Authorization": f"Token {token}"}).status == 200
    (password,) = re.findall(
        r"^eve: sign in with the password (\S+) ", grader("users", "password", "eve", *where), re.M
    )
    assert api.get("/api/tasks", {"Authorization": f"Token {token}"}).status == 401
    page = visitor.get("/")
    assert page.status == 302 and page.headers["Location"].startswith("/login/")
    assert choose(Visitor(url), "eve", password, PASSWORD).status == 302


def test_a_session_ends_with_the_browser_and_after_a_lab_day(portal):
    url, _, tables, _ = portal
    visitor = Visitor(url)
    answer = visitor.sign_in("ann", PASSWORD)
    (cookie,) = [c for c in answer.set_cookies if c.startswith("sessionid=")]
    assert "max-age" not in cookie.lower() and "expires" not in cookie.lower()  # gone with the browser
    ends = tables.session_expiry(visitor.cookie("sessionid"))
    assert ends <= datetime.now(timezone.utc) + timedelta(hours=12, minutes=5)  # on the server: a lab day
    assert visitor.get("/").status == 200
    tables.expire_session(visitor.cookie("sessionid"))
    page = visitor.get("/")
    assert page.status == 302 and page.headers["Location"].startswith("/login/")


def test_a_student_makes_a_token_on_the_account_page_and_revokes_it(portal):
    url, _, _, _ = portal
    student = Visitor(url)
    assert student.sign_in("ann", PASSWORD).status == 302
    assert 'href="/account/"' in student.get("/").text  # in every page's header
    made = student.post("/account/", {"action": "token"})
    assert made.status == 200 and made.headers.get("Cache-Control") == "no-store"
    token = re.search(r'<pre id="token">([^<]+)</pre>', made.text).group(1)
    api = Visitor(url)
    assert api.get("/api/tasks", {"Authorization": f"Token {token}"}).status == 200
    assert token not in student.get("/account/").text  # shown once
    revoked = student.post("/account/", {"action": "revoke"})
    assert revoked.status == 302 and "Your API token is revoked." in student.get("/account/").text
    assert api.get("/api/tasks", {"Authorization": f"Token {token}"}).status == 401


def test_an_instructor_resets_a_students_password_on_the_account_page(portal):
    url, _, _, _ = portal
    gus = Visitor(url)
    assert gus.sign_in("gus", PASSWORD).status == 302
    assert gus.post("/account/", {"action": "reset", "username": "ann"}).status == 403  # students may not
    teach = Visitor(url)
    assert teach.sign_in("teach", PASSWORD).status == 302
    for name, sentence in (("nobody", "There is no account named"), ("teach", "is an instructor")):
        refused = teach.post("/account/", {"action": "reset", "username": name})
        assert refused.status == 400 and sentence in refused.text
    reset = teach.post("/account/", {"action": "reset", "username": "gus"})
    assert reset.status == 200 and reset.headers.get("Cache-Control") == "no-store"
    password = re.search(r'gus: sign in with the password <code id="one-time">([^<]+)</code>', reset.text).group(1)
    assert gus.get("/").headers["Location"].startswith("/login/")  # the old session is over
    assert Visitor(url).sign_in("gus", PASSWORD).status == 200  # and the old password
    assert choose(Visitor(url), "gus", password, PASSWORD).headers["Location"] == "/"
