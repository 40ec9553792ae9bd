"""What the tests against a real ``serve`` share: a visitor that keeps its cookies and does the
CSRF dance as a browser does, and the portal's tables read and written directly (SQLite in the data
folder, or the PostgreSQL database a ``--db`` option names), to stand for time passing or a long
attack without sleeping through it."""

from __future__ import annotations

import http.cookiejar
import re
import signal
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple


@dataclass(frozen=True)
class Answer:
    status: int
    headers: Dict[str, str]
    text: str
    set_cookies: List[str]


class _Stay(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer to look at, not followed."""

    def redirect_request(self, *args, **kwargs):
        return None


class Visitor:
    """One browser: its cookies, and the address a proxy would say it has (``forwarded_for``)."""

    def __init__(self, url: str, forwarded_for: Optional[str] = None) -> None:
        self.url = url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), _Stay())
        self.extra = {"X-Forwarded-For": forwarded_for} if forwarded_for else {}

    def _open(self, request) -> Answer:
        try:
            answer = self.opener.open(request, timeout=60)
        except urllib.error.HTTPError as error:
            answer = error
        with answer:
            text = answer.read().decode("utf-8", "replace")
            return Answer(answer.status, dict(answer.headers.items()), text, answer.headers.get_all("Set-Cookie") or [])

    def get(self, path: str, headers: Optional[dict] = None) -> Answer:
        return self._open(urllib.request.Request(self.url + path, headers={**self.extra, **(headers or {})}))

    def post(self, path: str, fields: dict, form_page: Optional[str] = None, follow: bool = False) -> Answer:
        """POST ``fields`` to ``path`` with the CSRF token of the form ``form_page`` (default: ``path``)
        shows; with ``follow``, the page a redirect leads to."""
        page = self.get(form_page or path)
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert found, f"{form_page or path} ({page.status}) has no form"
        data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": found.group(1)}).encode()
        headers = {**self.extra, "Referer": self.url + (form_page or path)}
        answer = self._open(urllib.request.Request(self.url + path, data=data, headers=headers))
        for _ in range(5 if follow else 0):
            if answer.status not in (301, 302, 303) or "Location" not in answer.headers:
                break
            answer = self.get(urllib.parse.urlsplit(answer.headers["Location"]).path)
        return answer

    def sign_in(self, username: str, password: str) -> Answer:
        return self.post("/login/", {"username": username, "password": password})

    def first_sign_in(self, username: str, one_time: str, password: str) -> Answer:
        """Sign in with the one-time password and change it to ``password``, as a new user does."""
        self.sign_in(username, one_time)  # (which proves the one-time password: /password/ asks only for the new one)
        # the current password goes too, for an account whose first sign-in a test already marked done
        # (``Tables.passwords_chosen``): there the page still asks for it; a form ignores a field it has not
        fields = {"old_password": one_time, "new_password1": password, "new_password2": password}
        changed = self.post("/password/", fields, follow=True)
        assert changed.status == 200 and "Your new password is set." in changed.text, changed
        return changed

    def cookie(self, name: str) -> Optional[str]:
        return next((c.value for c in self.jar if c.name == name), None)


def file_form(task: str, text: str) -> Tuple[bytes, str]:
    """The body and content type of ``POST /api/submissions`` handing ``text`` in as ``task``.py."""
    boundary = uuid.uuid4().hex
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="task"\r\n\r\n{task}\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{task}.py"\r\n'
        f"Content-Type: text/x-python\r\n\r\n{text}\r\n--{boundary}--\r\n"
    ).encode()
    return body, f"multipart/form-data; boundary={boundary}"


class Tables:
    """The portal's tables, for a test to read and to stand for time passing (``age_failures``) or
    for a long attack (``pile_failures``)."""

    def __init__(self, data: Path, db_options: Sequence[str]) -> None:
        self.url = db_options[1] if db_options else None
        self.path = data / "portal.sqlite3"

    def run(self, sql: str, params: tuple = ()) -> list:
        if self.url:
            import psycopg

            with psycopg.connect(self.url, autocommit=True) as db:
                cursor = db.execute(sql, params)
                return cursor.fetchall() if cursor.description else []
        with sqlite3.connect(self.path, timeout=30) as db:
            return db.execute(sql.replace("%s", "?"), params).fetchall()

    def stamp(self, moment: datetime):
        """A time as the database keeps it (SQLite: Django's naive UTC text)."""
        return moment if self.url else str(moment.astimezone(timezone.utc).replace(tzinfo=None))

    def read_time(self, value) -> datetime:
        return value if isinstance(value, datetime) else datetime.fromisoformat(value).replace(tzinfo=timezone.utc)

    def clear_failures(self) -> None:
        self.run("DELETE FROM portal_failedsignin")

    def age_failures(self, seconds: float) -> None:
        """Every failed sign-in happened ``seconds`` earlier: as if that long had passed."""
        for number, at in self.run("SELECT id, at FROM portal_failedsignin"):
            earlier = self.read_time(at) - timedelta(seconds=seconds)
            self.run("UPDATE portal_failedsignin SET at = %s WHERE id = %s", (self.stamp(earlier), number))

    def pile_failures(self, count: int, address: bool = False) -> None:
        """More failures, now, against the key of the latest failure (its address's key, or the
        account's at its address), until it has ``count``: a long attack, without making each one."""
        where = "key LIKE 'addr:%%'" if address else "key LIKE 'pair:%%'"
        (key,) = self.run(f"SELECT key FROM portal_failedsignin WHERE {where} ORDER BY id DESC LIMIT 1")[0]
        (have,) = self.run("SELECT COUNT(*) FROM portal_failedsignin WHERE key = %s", (key,))[0]
        now = self.stamp(datetime.now(timezone.utc))
        for _ in range(count - have):
            self.run("INSERT INTO portal_failedsignin (key, at) VALUES (%s, %s)", (key, now))

    def passwords_chosen(self) -> None:
        """Every account past its one-time password, as if each had signed in and chosen its own (no
        API token works before): for tests whose students use the API only."""
        self.run("DELETE FROM portal_firstsignin")

    def hidden_cases_at_once(self) -> None:
        """Hidden cases run at every hand-in, as an instructor chooses on ``/teach/`` (a new course
        runs them after each student's deadline): for tests of grading, not of the deadline."""
        if self.run("SELECT id FROM portal_coursesetting WHERE id = 1"):
            self.run("UPDATE portal_coursesetting SET hidden_results = 'at_once' WHERE id = 1")
            return
        self.run(
            "INSERT INTO portal_coursesetting (id, marks_from, max_waiting, max_stored_mib, hidden_results, time_zone) "
            "VALUES (1, 'latest', 10, 16, 'at_once', 'UTC')"
        )

    def session_expiry(self, session_key: str) -> datetime:
        (at,) = self.run("SELECT expire_date FROM django_session WHERE session_key = %s", (session_key,))[0]
        return self.read_time(at)

    def expire_session(self, session_key: str) -> None:
        past = self.stamp(datetime.now(timezone.utc) - timedelta(seconds=1))
        self.run("UPDATE django_session SET expire_date = %s WHERE session_key = %s", (past, session_key))


def one_time_passwords(said: str) -> Dict[str, str]:
    """Each account's one-time password from what ``users import`` printed (username → password)."""
    return dict(re.findall(r"^(\S+): sign in the first time with the password (\S+) ", said, re.M))


@contextmanager
def served(args: Sequence[str], cwd: Path) -> Iterator[str]:
    """``python -m grader serve ARGS --port 0`` in a process of its own, run from ``cwd``: its address
    while the block runs; then stopped with SIGTERM, which it must answer by ending with 0."""
    server = subprocess.Popen(
        [sys.executable, "-m", "grader", "serve", *args, "--port", "0"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    ended = False
    try:
        line = server.stdout.readline() if server.stdout else ""
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, (line, server.stderr.read() if server.poll() is not None and server.stderr else "")
        yield f"http://127.0.0.1:{found.group(1)}"
        server.send_signal(signal.SIGTERM)
        ended = server.wait(timeout=60) == 0
        assert ended, "serve did not end with 0 on SIGTERM"
    finally:
        if not ended and server.poll() is None:  # (a failed block or start-up leaves no server behind)
            server.kill()
            server.wait()
