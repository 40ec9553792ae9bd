"""The portal with its web processes and its dispatchers apart, on SQLite and on PostgreSQL: two
web processes (``serve --no-grading`` and the WSGI module under waitress-serve) and two
dispatchers started side by side: everything handed in is graded, each attempt by one of them."""

from __future__ import annotations

import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
pytest.importorskip("waitress", reason="the portal needs the web extra (waitress)")

from portal_database import WANTED  # noqa: E402
from portal_http import Tables  # noqa: E402
from support import PROJECT, solution  # noqa: E402
from test_portal_serve import grader, hand_in  # noqa: E402

STUDENTS = ("s1", "s2", "s3", "s4")
EACH = 4  # submissions per student


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def started(command, env=None, expect=None):
    """The process running ``command``, and what its first line matched of ``expect``."""
    process = subprocess.Popen(command, cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if not expect:
        return process, None
    line = process.stdout.readline()
    found = re.search(expect, line)
    assert found, (line, process.stderr.read() if process.poll() is not None else "")
    return process, found


def wait_healthy(url, within_s=60):
    deadline = time.monotonic() + within_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.2)


def rows(data, db):
    """(id, status, verdict, attempt, graded_by) of every submission, read from the database itself."""
    query = "SELECT id, status, verdict, attempt, graded_by FROM portal_submission ORDER BY id"
    if not db:
        with sqlite3.connect(data / "portal.sqlite3") as database:
            return database.execute(query).fetchall()
    import psycopg

    with psycopg.connect(db[1]) as database:
        return database.execute(query).fetchall()


# (a session on PostgreSQL, tox's portal-postgres, leaves SQLite to the session on SQLite, which runs both)
@pytest.fixture(params=["PostgreSQL"] if WANTED == "postgresql" else ["SQLite", "PostgreSQL"])
def database(request, tmp_path):
    """``--db URL`` options (none for SQLite) and the data folder, with the students and tokens."""
    db = request.getfixturevalue("postgres").new_database() if request.param == "PostgreSQL" else None
    options = ["--db", db] if db else []
    data = tmp_path / "data"
    roster = tmp_path / "roster.csv"
    roster.write_text("username,role\n" + "".join(f"{s},student\n" for s in STUDENTS))
    assert grader("users", "import", str(roster), "--data", str(data), *options).returncode == 0
    Tables(data, options).passwords_chosen()  # (no token works before)
    Tables(data, options).hidden_cases_at_once()  # graded in full at once (not the deadline's test)
    made = grader("users", "token", *STUDENTS, "--data", str(data), *options)
    assert made.returncode == 0, made.stderr
    return data, options, dict(line.split() for line in made.stdout.splitlines())


def test_two_web_processes_and_two_dispatchers_grade_each_attempt_once(database):
    data, db, tokens = database
    command = [sys.executable, "-m", "grader"]
    grading = ["--data", str(data), *db, "--workers", "1", "--allow-unprotected"]
    dispatchers = [started([*command, "dispatch", *grading], expect=r"Grading for the portal")[0] for _ in range(2)]
    serving, said = started(
        [*command, "serve", "--no-grading", "--data", str(data), *db, "--port", "0"],
        expect=r"Serving the portal on (http://127\.0\.0\.1:\d+)/ \(no grading here",
    )
    port = free_port()
    env = {**os.environ, "NIM_GRADER_DATA": str(data), "NIM_GRADER_DB": db[1] if db else ""}
    wsgi, _ = started(
        [sys.executable, "-m", "waitress", f"--listen=127.0.0.1:{port}", "grader.web.wsgi:application"], env
    )
    web = [serving, wsgi]
    urls = [said.group(1), f"http://127.0.0.1:{port}"]
    try:
        wait_healthy(urls[1])
        ids = []
        for number in range(EACH):
            for index, student in enumerate(STUDENTS):
                url = urls[index % 2]  # half through each web process
                status, body = hand_in(url, tokens[student], "exclusive_or", solution("exclusive_or") + f"# {number}\n")
                assert status == 202
                ids.append(body["id"])
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if all(r[1] == "done" for r in rows(data, db)):
                break
            time.sleep(0.5)
        found = rows(data, db)
        assert [r[0] for r in found] == sorted(ids)  # none lost, none twice
        assert all(r[1:4] == ("done", "accepted", 1) for r in found), found  # each claimed once, graded once
        assert len({r[4] for r in found}) == 2  # both dispatchers graded
    finally:
        for process in dispatchers + web:
            process.send_signal(signal.SIGTERM)
        for process in dispatchers + web:
            process.wait(timeout=60)


def test_forwarded_headers_are_believed_from_the_proxy_alone():
    from grader.web.site.forwarded import ForwardedBy

    seen = []
    app = ForwardedBy(lambda environ, _: seen.append((environ["REMOTE_ADDR"], environ["wsgi.url_scheme"])), "10.0.0.1")
    forwarded = {"HTTP_X_FORWARDED_FOR": "6.6.6.6, 192.0.2.7", "HTTP_X_FORWARDED_PROTO": "https"}
    app({"REMOTE_ADDR": "10.0.0.1", "wsgi.url_scheme": "http", **forwarded}, None)
    app({"REMOTE_ADDR": "192.0.2.99", "wsgi.url_scheme": "http", **forwarded}, None)
    # the proxy's own entry (the last) names the client; a student's own header names nobody
    assert seen == [("192.0.2.7", "https"), ("192.0.2.99", "http")]


def test_the_wsgi_module_says_what_it_lacks(tmp_path):
    def imported(**env):
        clean = {k: v for k, v in os.environ.items() if not k.startswith("NIM_GRADER_")}
        command = [sys.executable, "-c", "import grader.web.wsgi"]
        return subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, env={**clean, **env})

    assert "set NIM_GRADER_DATA to the portal's data folder" in imported().stderr
    not_ready = imported(NIM_GRADER_DATA=str(tmp_path / "data"))
    assert "is not ready: start python -m grader dispatch (or serve) once" in not_ready.stderr
    elsewhere = imported(NIM_GRADER_DATA=str(tmp_path / "data"), NIM_GRADER_COURSE=str(tmp_path))
    assert "not a course folder" in elsewhere.stderr
