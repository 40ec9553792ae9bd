"""``serve`` as a class meets it, in a process of its own: idle connections, bad input from an
instructor, a case file broken while it runs, errors in JSON, its logs and the modes of its files.

One server for the module, on a copy of the course (its files are broken and mended here) and a
data folder that existed before with the modes of a careless ``mkdir`` (0755, a 0644 database).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
pytest.importorskip("waitress", reason="the portal needs the web extra (waitress)")

from portal_http import Tables, Visitor  # noqa: E402
from support import PROJECT, solution  # noqa: E402
from test_portal_serve import hand_in, request  # noqa: E402

PASSWORD = "a-Long-lab-Passphrase-2026"
BROKEN = "exclusive_or"  # the case file broken and mended while the server runs
UNANSWERED = "bitwise_xor"  # its generated cases need a reference solution, removed from the copy
IDLE_CONNECTIONS = 150


def grader(*args):
    return subprocess.run([sys.executable, "-m", "grader", *args], cwd=PROJECT, capture_output=True, text=True)


@pytest.fixture(scope="module")
def site(tmp_path_factory, portal_database):
    """(url, data folder, course copy, tokens, first passwords) of a running ``serve``."""
    folder = tmp_path_factory.mktemp("service")
    course = folder / "course"
    for part in ("testcases", "solutions", "exercises"):
        shutil.copytree(PROJECT / part, course / part)
    (course / "solutions" / f"{UNANSWERED}.py").unlink()  # grading that task fails: the grader's own failure
    data = folder / "data"
    db = portal_database.options()
    roster = folder / "roster.csv"
    roster.write_text("username,role\nann,student\nteach,instructor\n")
    made = grader("users", "import", str(roster), "--data", str(data), "--course", str(course), *db)
    assert made.returncode == 0, made.stderr
    first = dict(re.findall(r"^(\S+): sign in the first time with the password (\S+) ", made.stdout, re.M))
    Tables(data, db).passwords_chosen()  # (the tokens work once the one-time passwords are replaced)
    Tables(data, db).hidden_cases_at_once()  # graded in full at once (not the deadline's test)
    tokens = dict(
        line.split() for line in grader("users", "token", "ann", "teach", "--data", str(data), *db).stdout.splitlines()
    )
    # a folder that existed, as a plain mkdir and an old version left it
    data.chmod(0o755)
    if (data / "portal.sqlite3").exists():
        (data / "portal.sqlite3").chmod(0o644)
    command = [sys.executable, "-m", "grader", "serve", "--data", str(data), "--course", str(course), *db]
    server = subprocess.Popen(
        [*command, "--port", "0", "--allow-unprotected", "--workers", "1"],
        cwd=PROJECT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line = server.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert found, line
    yield f"http://127.0.0.1:{found.group(1)}", data, course, tokens, first
    server.send_signal(signal.SIGTERM)
    assert server.wait(timeout=60) == 0


def answer(url, method="GET", token=None, data=None):
    """(status, content type, body) of one request; an error status is an answer too."""
    headers = {"Authorization": f"Token {token}"} if token else {}
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data, headers, method=method), timeout=60) as got:
            return got.status, got.headers.get("Content-Type", ""), got.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read().decode()


def test_health_answers_with_150_idle_connections_open(site):
    url = site[0]
    port = int(url.rsplit(":", 1)[1])
    idle = []
    try:
        for _ in range(IDLE_CONNECTIONS):  # a class's browsers, each keeping a connection open
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=30))
        status, kind, body = answer(f"{url}/healthz")
        assert (status, json.loads(body)) == (200, {"ok": True})
    finally:
        for connection in idle:
            connection.close()


@pytest.fixture(scope="module")
def teacher(site):
    """The instructor, signed in (their one-time password changed to ``PASSWORD`` first)."""
    url, _, _, _, first = site
    visitor = Visitor(url)
    visitor.first_sign_in("teach", first["teach"], PASSWORD)
    return visitor


def test_a_deadline_beyond_the_years_utc_holds_is_a_400_with_a_sentence(site, teacher):
    fields = {"min_interval_s": "0", "max_count": "", "deadline": "9999-12-31 23:59-14:00"}
    refused = teacher.post("/teach/tasks/nim_sum/limits", fields, "/teach/")
    page = refused.text
    assert refused.status == 400
    assert "falls outside the years 1 to 9999 in UTC" in page and "nothing was changed" in page


def graded(url, token, number, within_s=120):
    deadline = time.monotonic() + within_s
    while True:
        _, found = request(f"{url}/api/submissions/{number}", token)
        if found["status"] in ("done", "error") or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


def test_a_case_file_broken_while_serving_waits_unpublished_and_the_live_course_grades(site, teacher):
    url, _, course, tokens, _ = site
    case_file = course / "testcases" / f"{BROKEN}.yaml"
    good = case_file.read_text()
    _, before = request(f"{url}/api/tasks", tokens["ann"])
    case_file.write_text(good.replace("    expected: '0'\n", "    expected: '0'\n    colour: red\n", 1))
    try:
        status, listed = request(f"{url}/api/tasks", tokens["ann"])
        assert status == 200 and listed == before  # the published course
        status, made = hand_in(url, tokens["ann"], BROKEN, solution(BROKEN))
        assert status == 202
        found = graded(url, tokens["ann"], made["id"])
        assert (found["status"], found["verdict"]) == ("done", "accepted")
        shown = teacher.get("/teach/").text
        assert f"Waiting in the course folder, not graded until published: {BROKEN} changed." in shown
        assert "stopped loading" not in shown  # the live version loads: only the folder is broken
    finally:
        case_file.write_text(good)
    assert "No changes waiting" in teacher.get("/teach/").text  # mended: the folder is the live version again
    assert request(f"{url}/api/tasks", tokens["ann"]) == (200, before)


def test_every_api_error_is_json_and_a_page_error_is_a_plain_page(site):
    url, _, _, tokens, _ = site
    for method, path, status in (
        ("GET", "/api/nothing/here", 404),
        ("GET", "/api/", 404),
        ("DELETE", "/api/tasks", 405),
        ("PUT", "/api/submissions/1", 405),
        ("POST", "/api/gradebook.csv", 405),
    ):
        for token in (tokens["ann"], None):
            got, kind, body = answer(f"{url}{path}", method, token)
            expected = status if token or status == 404 else 401
            assert (got, kind) == (expected, "application/json"), (method, path, token, body)
            assert json.loads(body)["error"]
    got, kind, body = answer(f"{url}/no/such/page/")
    assert got == 404 and kind.startswith("text/html") and "Traceback" not in body and "no such page" in body


def test_the_logs_say_each_request_without_secrets_and_the_graders_failures_with_tracebacks(site):
    url, data, _, tokens, _ = site
    answer(f"{url}/api/submissions?task=secret-query", token=tokens["ann"])
    status, made = hand_in(url, tokens["ann"], UNANSWERED, solution(UNANSWERED))
    assert status == 202
    found = graded(url, tokens["ann"], made["id"])
    assert found["status"] == "error"
    logs = data / "logs"
    access = (logs / "access.log").read_text()
    assert re.search(r"^\S+Z 127\.0\.0\.1 ann GET /api/submissions 200 \d+ [0-9.]+$", access, re.M), access
    assert re.search(r" - GET /healthz 200 ", access)
    assert "secret-query" not in access and tokens["ann"] not in access and tokens["teach"] not in access
    assert PASSWORD not in access
    errors = (logs / "error.log").read_text()
    assert "serve started" in errors
    assert f"submission {made['id']}: the grader failed on it" in errors
    assert "Traceback (most recent call last)" in errors and "which is missing" in errors
    # the events log, written by serve's web process (the hand-in) and its grading process (the failure)
    events = (logs / "events.log").read_text()
    number, task = made["id"], UNANSWERED
    assert re.search(rf"^\S+Z handin user=ann task={task} submission={number} bytes=\d+ files=1 late=no$", events, re.M)
    failed = rf"^\S+Z grading-failed submission={number} task={task} user=ann reason=grader-fault:\w+ attempt=1 "
    assert re.search(failed, events, re.M), events
    for path in (logs / "access.log", logs / "error.log", logs / "events.log"):
        assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    assert oct(os.stat(logs).st_mode & 0o777) == "0o700"


def test_an_existing_data_folder_and_its_database_become_private(site):
    _, data, _, _, _ = site
    assert oct(os.stat(data).st_mode & 0o777) == "0o700"
    if (data / "portal.sqlite3").exists() or not os.environ.get("NIM_GRADER_TEST_DB"):
        assert oct(os.stat(data / "portal.sqlite3").st_mode & 0o777) == "0o600"


def test_two_processes_share_a_rotating_log_each_line_in_the_current_file(tmp_path, monkeypatch):
    import logging

    from grader.web import logs

    monkeypatch.setattr(logs, "MAX_BYTES", 200)
    first, second = (logs.SharedRotatingFileHandler(tmp_path / "error.log", tmp_path / ".lock") for _ in range(2))
    try:
        for handler in (first, second):
            handler.setFormatter(logging.Formatter("%(message)s"))

        def line(handler, text):
            handler.handle(logging.LogRecord("grader", logging.ERROR, __file__, 1, text, None, None))

        line(second, "second opens the file")
        for number in range(8):  # the first writer rotates the file under the second
            line(first, f"first {number} " + "x" * 40)
        line(second, "second after the rotation")
        assert "second after the rotation" in (tmp_path / "error.log").read_text()  # not in a rotated file
        rotated = sorted(tmp_path.glob("error.log.*"))
        assert rotated and all("second after" not in path.read_text() for path in rotated)
        assert all(oct(path.stat().st_mode & 0o777) == "0o600" for path in [tmp_path / "error.log", *rotated])
    finally:
        first.close()
        second.close()
