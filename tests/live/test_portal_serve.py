"""``serve``, ``users import`` and ``users token`` as a course runs them, in processes of their own:
the database is the queue's truth, so a server killed with SIGKILL loses nothing."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import replace

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
pytest.importorskip("waitress", reason="the portal needs the web extra (waitress)")

from portal_http import Tables, Visitor, file_form  # noqa: E402
from support import PROJECT, solution  # noqa: E402

SUBMISSIONS = 20  # from two students: each may have 10 waiting to be graded at once


def grader(*args, **options):
    return subprocess.run(
        [sys.executable, "-m", "grader", *args], cwd=PROJECT, capture_output=True, text=True, **options
    )


def start(data, *options):
    process = subprocess.Popen(
        # a trial on any machine; the refusal without every protection is tested on its own below
        [sys.executable, "-m", "grader", "serve", "--data", str(data), "--port", "0", "--allow-unprotected", *options],
        cwd=PROJECT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert found, (line, process.stderr.read() if process.poll() is not None else "")
    return process, f"http://127.0.0.1:{found.group(1)}"


def request(url, token, data=None, content_type=None):
    headers = {"Authorization": f"Token {token}"}
    if content_type:
        headers["Content-Type"] = content_type
    with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers), timeout=30) as answer:
        return answer.status, json.loads(answer.read())


def hand_in(server, token, task, text):
    body, content_type = file_form(task, text)
    return request(f"{server}/api/submissions", token, body, content_type)


@pytest.fixture
def data_with_users(tmp_path, portal_database):
    """A data folder with ann, bob and teach, their tokens, and ``--db URL`` when the tests run on
    PostgreSQL (a database of the test's own)."""
    db = portal_database.options()
    data = tmp_path / "data"
    roster = tmp_path / "roster.csv"
    roster.write_text("username,role\nann,student\nbob,student\nteach,instructor\n")
    made = grader("users", "import", str(roster), "--data", str(data), *db)
    assert made.returncode == 0, made.stderr
    assert re.search(r"^ann: sign in the first time with the password \S+ and change it at once\.$", made.stdout, re.M)
    again = grader("users", "import", str(roster), "--data", str(data), *db)
    assert "0 accounts created, 0 changed, 3 unchanged." in again.stderr  # nothing to change
    early = grader("users", "token", "ann", "--data", str(data), *db)
    assert early.returncode == 0 and "ann is still on the one-time password: no token of theirs works" in early.stderr
    Tables(data, db).passwords_chosen()  # as if each had signed in and chosen their own
    Tables(data, db).hidden_cases_at_once()  # graded in full at once (not the deadline's test)
    tokens = grader("users", "token", "ann", "bob", "teach", "--data", str(data), *db)
    assert tokens.returncode == 0 and not tokens.stderr, tokens.stderr
    pairs = dict(line.split() for line in tokens.stdout.splitlines())
    assert set(pairs) == {"ann", "bob", "teach"}
    assert oct(os.stat(data / "secret_key").st_mode & 0o777) == "0o600"
    return data, pairs, db


def test_a_server_killed_with_sigkill_loses_nothing_and_grades_everything(data_with_users):
    data, tokens, db = data_with_users
    server, url = start(data, *db)
    try:
        ids, owners = [], []
        for number in range(SUBMISSIONS):
            # a right answer that takes a tenth of a second a case: the kill comes while most wait
            slow = "import time\ntime.sleep(0.1)\n" + solution("exclusive_or") + f"# {number}\n"
            owners.append(tokens[("ann", "bob")[number % 2]])
            status, body = hand_in(url, owners[-1], "exclusive_or", slow)
            assert status == 202
            ids.append(body["id"])
        before = [request(f"{url}/api/submissions/{n}", token)[1]["status"] for n, token in zip(ids, owners)]
        assert before.count("done") < SUBMISSIONS  # the kill comes while some wait or are being graded
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()
    server, url = start(data, *db)
    try:
        deadline = time.monotonic() + 120
        while True:
            states = [request(f"{url}/api/submissions/{n}", token)[1] for n, token in zip(ids, owners)]
            if all(s["status"] == "done" for s in states) or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert [s["status"] for s in states] == ["done"] * SUBMISSIONS
        assert all(s["verdict"] == "accepted" and s["score"] == s["max_score"] for s in states)
        _, listed = request(f"{url}/api/submissions", tokens["teach"])
        assert sorted(s["id"] for s in listed) == sorted(ids)  # none lost, none twice
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0


def sign_in(url, username, password, forwarded_for=None):
    """The status of one sign-in through the page's form (its CSRF token included)."""
    return Visitor(url, forwarded_for).sign_in(username, password).status


def test_sign_in_limits_hold_across_a_restart_and_the_proxy_is_believed_alone(data_with_users):
    data, _, db = data_with_users
    tables = Tables(data, db)
    server, url = start(data, *db, "--proxy", "127.0.0.1", "--allowed-host", "nim.example.edu")
    try:
        for name, status in (("nim.example.edu", 200), ("evil.example.com", 400)):
            try:
                with urllib.request.urlopen(urllib.request.Request(f"{url}/login/", headers={"Host": name})) as page:
                    assert page.status == status
            except urllib.error.HTTPError as error:
                assert error.code == status
        assert [sign_in(url, "ann", "wrong", "10.1.1.1") for _ in range(4)] == [200] * 4  # checked, counted
        tables.pile_failures(20)  # ann's account at 10.1.1.1 at its longest delay
        tables.pile_failures(60, address=True)  # and 10.1.1.1 over its bound
        assert sign_in(url, "ann", "wrong", "10.1.1.1") == 429  # ann's account is held at that address
        assert sign_in(url, "ann", "wrong", "10.1.1.2") == 200  # and checked at another
        assert sign_in(url, "teach", "wrong", "10.1.1.1") == 429  # that address's wrong passwords are held back
        assert sign_in(url, "teach", "wrong", "10.1.1.2") == 200  # another client behind the proxy is not
        assert [sign_in(url, "ann", "wrong") for _ in range(4)] == [200] * 4  # the proxy's own address
        tables.pile_failures(20)  # ann's account at 127.0.0.1 at its longest delay
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0
    server, url = start(data, *db)  # no proxy now: a forwarded address is nobody's word
    try:
        assert sign_in(url, "ann", "wrong", "10.9.9.9") == 429  # from 127.0.0.1: its failures outlived the restart
        assert [sign_in(url, f"user{n}", "wrong", f"10.2.2.{n}") for n in range(5)] == [200] * 5
        tables.pile_failures(60, address=True)  # the address of the latest failure over its bound
        assert sign_in(url, "x", "wrong", "10.3.3.3") == 429  # all from 127.0.0.1, whatever the header said
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0


def test_without_a_token_the_api_answers_401_and_health_200(data_with_users):
    data, _, db = data_with_users
    server, url = start(data, *db)
    try:
        with urllib.request.urlopen(f"{url}/healthz", timeout=10) as answer:
            assert json.loads(answer.read()) == {"ok": True}
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{url}/api/tasks", timeout=10)
        assert refused.value.code == 401
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0


def test_users_commands_say_what_is_wrong(tmp_path):
    missing = grader("users", "import", str(tmp_path / "none.csv"), "--data", str(tmp_path / "d"))
    assert missing.returncode == 2 and "cannot be read" in missing.stderr and "Traceback" not in missing.stderr
    unknown = grader("users", "token", "nobody", "--data", str(tmp_path / "d"))
    assert unknown.returncode == 2 and "no such user: nobody" in unknown.stderr


def test_a_database_url_the_portal_cannot_use_is_a_sentence(tmp_path):
    other = grader("users", "token", "x", "--data", str(tmp_path / "d"), "--db", "mysql://u@h/n")
    assert other.returncode == 2 and "only postgresql://user@host/name URLs" in other.stderr
    try:
        import psycopg  # noqa: F401
    except ImportError:
        driverless = grader("users", "token", "x", "--data", str(tmp_path / "d"), "--db", "postgresql://u@h/n")
        assert driverless.returncode == 2 and "needs the psycopg driver" in driverless.stderr


def test_serve_refuses_a_sandbox_without_every_protection_unless_allowed():
    from grader.run.sandbox import Protections
    from grader.web.server import unprotected_problem

    everything = Protections(**{name: True for name in Protections._NAMES}, fork_server=True)
    assert unprotected_problem(everything, False) is None
    lacking = replace(everything, separate_user=False, no_network=False, files_hidden=False)
    problem = unprotected_problem(lacking, False)
    assert problem and "could then read the portal's data" in problem and "--allow-unprotected" in problem
    assert unprotected_problem(lacking, True) is None


def _children(pid):
    """The command lines of ``pid``'s children, by pid (Linux's /proc)."""
    found = {}
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as handle:
            for child in handle.read().split():
                with open(f"/proc/{child}/cmdline", "rb") as line:
                    found[int(child)] = line.read().split(b"\0")
    return found


@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="finds serve's processes through Linux's /proc")
def test_serve_grades_in_a_process_of_its_own_that_ends_with_it(data_with_users):
    """No request can stall or grow the process that grades: serve's grading is a dispatch process of
    its own, which grades what is handed in, and ends when serve is killed outright."""
    data, tokens, db = data_with_users
    server, url = start(data, *db)
    try:
        graders = [pid for pid, line in _children(server.pid).items() if b"dispatch" in line]
        assert len(graders) == 1, _children(server.pid)
        status, body = hand_in(url, tokens["ann"], "exclusive_or", solution("exclusive_or"))
        assert status == 202
        deadline = time.monotonic() + 120
        while request(f"{url}/api/submissions/{body['id']}", tokens["ann"])[1]["status"] != "done":
            assert time.monotonic() < deadline, "not graded in 120 s"
            time.sleep(0.3)
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()
    deadline = time.monotonic() + 60
    while (
        os.path.exists(f"/proc/{graders[0]}")
        and open(f"/proc/{graders[0]}/stat").read().split(")")[-1].split()[0] != "Z"
    ):
        assert time.monotonic() < deadline, "serve's grading process outlived it by a minute"
        time.sleep(0.2)
