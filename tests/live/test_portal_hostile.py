"""The portal against what a hostile user or a careless course does to it, in processes of its own:
a data folder planted before the first start (another user's, links or a named pipe inside), NUL
characters in any field (PostgreSQL refuses them), a course's ``checkers.py`` that calls
``sys.exit``, requests made to fill the error log, a forwarded address made to forge access-log fields.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
pytest.importorskip("waitress", reason="the portal needs the web extra (waitress)")

from portal_http import Tables  # noqa: E402
from support import PROJECT, solution  # noqa: E402
from test_portal_serve import hand_in  # noqa: E402

NOBODY = 65534  # the uid of Debian's nobody


def grader(*args, timeout=120):
    command = [sys.executable, "-m", "grader", *args]
    return subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=timeout)


def answer(url, headers=None, timeout=30):
    """(status, content type, body) of a GET; an error status is an answer too."""
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=timeout) as got:
            return got.status, got.headers.get("Content-Type", ""), got.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read().decode()


def start(data, db, *options):
    command = [sys.executable, "-m", "grader", "serve", "--data", str(data), *db, "--port", "0", "--allow-unprotected"]
    server = subprocess.Popen(
        [*command, "--workers", "1", *options], cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    line = server.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert found, (line, server.stderr.read() if server.poll() is not None else "")
    return server, f"http://127.0.0.1:{found.group(1)}"


def stop(server):
    server.send_signal(signal.SIGTERM)
    assert server.wait(timeout=60) == 0


@pytest.fixture
def roster(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text("username,role\nann,student\nteach,instructor\n")
    return path


def test_links_planted_in_a_data_folder_are_refused_and_what_they_name_is_untouched(tmp_path, roster):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o755)
    precious = elsewhere / "precious.conf"
    precious.write_text("keep me\n")
    precious.chmod(0o644)
    for planted in ("logs", "portal.sqlite3", "secret_key"):
        data = tmp_path / f"data-{planted}"
        data.mkdir()
        (data / planted).symlink_to(elsewhere if planted == "logs" else precious)
        made = grader("users", "import", str(roster), "--data", str(data))
        if planted != "logs":  # users import keeps no logs; serve does
            assert made.returncode == 2 and f"{data / planted} is a symbolic link" in made.stderr, made.stderr
            continue
        assert made.returncode == 0, made.stderr
        served = grader("serve", "--data", str(data), "--port", "0", "--allow-unprotected", timeout=60)
        assert served.returncode == 2 and f"{data / 'logs'} is a symbolic link" in served.stderr, served.stderr
    assert oct(elsewhere.stat().st_mode & 0o777) == "0o755" and oct(precious.stat().st_mode & 0o777) == "0o644"
    assert precious.read_text() == "keep me\n" and sorted(p.name for p in elsewhere.iterdir()) == ["precious.conf"]


def test_a_log_file_planted_as_a_link_is_refused(tmp_path, roster):
    data = tmp_path / "data"
    assert grader("users", "import", str(roster), "--data", str(data)).returncode == 0
    target = tmp_path / "readable.txt"
    target.write_text("")
    target.chmod(0o644)
    (data / "logs").mkdir(mode=0o700)
    (data / "logs" / "access.log").symlink_to(target)
    served = grader("serve", "--data", str(data), "--port", "0", "--allow-unprotected", timeout=60)
    assert served.returncode == 2 and "access.log is a symbolic link" in served.stderr, served.stderr
    assert target.read_text() == "" and oct(target.stat().st_mode & 0o777) == "0o644"


def test_a_named_pipe_planted_as_the_secret_key_is_refused_and_never_waited_on(tmp_path, roster):
    data = tmp_path / "data"
    assert grader("users", "import", str(roster), "--data", str(data)).returncode == 0
    (data / "secret_key").unlink()
    os.mkfifo(data / "secret_key", 0o600)
    # (before the fix: serve waited for a writer to the pipe, and this timed out)
    served = grader("serve", "--data", str(data), "--port", "0", "--allow-unprotected", timeout=60)
    assert served.returncode == 2, served.stderr
    assert f"{data / 'secret_key'} is a named pipe (FIFO), not a plain file" in served.stderr, served.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a folder to another user")
def test_a_data_folder_or_secret_key_of_another_user_is_refused(tmp_path, roster):
    data = tmp_path / "data"
    data.mkdir(mode=0o777)
    os.chown(data, NOBODY, NOBODY)
    made = grader("users", "import", str(roster), "--data", str(data))
    assert made.returncode == 2 and f"{data} belongs to user id {NOBODY}" in made.stderr, made.stderr
    os.chown(data, 0, 0)
    key = data / "secret_key"
    key.write_text("a key its planter knows, long enough to pass for one of ours\n")
    os.chown(key, NOBODY, NOBODY)
    made = grader("users", "import", str(roster), "--data", str(data))
    assert made.returncode == 2 and f"{key} belongs to user id {NOBODY}" in made.stderr, made.stderr
    assert not (data / "portal.sqlite3").exists() or (data / "portal.sqlite3").stat().st_size == 0


@pytest.fixture(scope="module")
def site(tmp_path_factory, portal_database):
    """A running ``serve`` behind a pretend proxy (``--proxy 127.0.0.1``), on a copy of the course:
    (url, data folder, course folder, ann's token)."""
    folder = tmp_path_factory.mktemp("hostile")
    course = folder / "course"
    for part in ("testcases", "solutions", "exercises"):
        shutil.copytree(PROJECT / part, course / part)
    data, db = folder / "data", portal_database.options()
    (folder / "roster.csv").write_text("username,role\nann,student\n")
    assert grader("users", "import", str(folder / "roster.csv"), "--data", str(data), *db).returncode == 0
    Tables(data, db).passwords_chosen()  # (no token works before)
    Tables(data, db).hidden_cases_at_once()  # graded in full at once (not the deadline's test)
    (token,) = re.findall(r"^ann (\S+)$", grader("users", "token", "ann", "--data", str(data), *db).stdout, re.M)
    server, url = start(data, db, "--course", str(course), "--proxy", "127.0.0.1")
    yield url, data, course, token
    stop(server)


def test_a_nul_anywhere_in_a_request_is_a_400_with_a_sentence(site):
    url, _, _, token = site
    auth = {"Authorization": f"Token {token}"}
    for path in ("/api/submissions?task=%00", "/api/submissions?task=a%00b", "/api/submissions?%00=1"):
        status, kind, body = answer(url + path, auth)
        assert (status, kind) == (400, "application/json") and "NUL" in json.loads(body)["error"], (path, body)
    status, kind, body = answer(url + "/teach/class/%00/index.html")
    assert status == 400 and kind.startswith("text/html") and "NUL character" in body


def test_api_without_its_slash_answers_json(site):
    status, kind, body = answer(site[0] + "/api")
    assert (status, kind) == (404, "application/json") and json.loads(body)["error"]


def test_requests_a_client_gets_wrong_do_not_fill_the_error_log(site):
    url, data, _, _ = site
    log = data / "logs" / "error.log"
    before = log.stat().st_size
    for _ in range(40):  # a host the portal does not answer to: Django's 400, with a traceback once
        assert answer(url + "/healthz", {"Host": "evil.example"})[0] == 400
    assert log.stat().st_size - before < 400  # not a kilobyte of traceback each
    access = (data / "logs" / "access.log").read_text()
    assert access.count(" GET /healthz 400 ") >= 40  # each is in the access log


def test_a_forwarded_address_stays_one_field_of_the_access_log(site):
    url, data, _, _ = site
    assert answer(url + "/healthz", {"X-Forwarded-For": "1.2.3.4 ann GET /api/x 200 1 0.001"})[0] == 200
    lines = (data / "logs" / "access.log").read_text().splitlines()
    (forged,) = [line for line in lines if "1.2.3.4" in line]
    assert forged.split(" ")[1:4] == ["1.2.3.4%20ann%20GET%20%2Fapi%2Fx%20200%201%200.001", "-", "GET"], forged


def test_a_checkers_file_that_calls_sys_exit_is_a_broken_course_not_a_dead_server(site):
    url, _, course, token = site
    auth = {"Authorization": f"Token {token}"}
    assert answer(url + "/api/tasks", auth)[0] == 200  # a good course, loaded
    checkers = course / "checkers.py"  # the course's own checkers: code the portal imports
    try:
        for hostile in ("import sys\nsys.exit(3)\n", "raise KeyboardInterrupt\n"):
            checkers.write_text(hostile)
            status, kind, body = answer(url + "/api/tasks", auth)  # answered at once, the last good course
            assert (status, kind) == (200, "application/json") and "exclusive_or" in body, body
            status, handed = hand_in(url, token, "exclusive_or", solution("exclusive_or"))
            graded = _graded(url, auth, handed["id"])
            assert graded["verdict"] == "accepted", graded
    finally:
        checkers.unlink()


def _graded(url, auth, number, within_s=120):
    import time

    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        found = json.loads(answer(f"{url}/api/submissions/{number}", auth)[2])
        if found["status"] in ("done", "error"):
            return found
        time.sleep(0.3)
    raise AssertionError(f"submission {number} was never graded: {found}")
