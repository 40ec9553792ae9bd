"""Floods, amplification and limits under concurrency, against a real ``serve`` (SQLite, or
PostgreSQL with ``NIM_GRADER_TEST_DB=postgresql``): a student's submissions waiting to be graded are
bounded (429 and ``Retry-After`` past the bound, again welcome once one is graded); a program that
prints floods gets a bounded API answer and a bounded, readable stored report; the list of
submissions comes in pages; and parallel hand-ins never get past a limit together.

The site is served without grading (``serve --no-grading``), so what waits stays waiting until a
test starts a dispatcher (``python -m grader dispatch``) and stops it again.
"""

from __future__ import annotations

import contextlib
import html.parser
import json
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
pytest.importorskip("waitress", reason="the portal needs the web extra (waitress)")

from portal_http import Tables, Visitor, file_form  # noqa: E402
from support import PROJECT, solution  # noqa: E402
from test_portal_serve import grader  # noqa: E402

STUDENTS = ("flo", "wade", "xena", "ann", "pat", "cc", "cw")
PASSWORD = "a password of my own 7"
MESSAGE_CHARS = 2000  # a case's message, at most, as the API and the report show it (docs/portal.md)
PAGE_BYTES = 1_000_000  # a stored report, at most (docs/portal.md)


def call(url, token=None, data=None, content_type=None):
    """(status, headers, body) of one request; an error status is an answer, not an exception."""
    headers = {"Authorization": f"Token {token}"} if token else {}
    if content_type:
        headers["Content-Type"] = content_type
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers), timeout=60) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def hand_in(server, token, task, text):
    """(status, headers, JSON body) of ``POST /api/submissions``."""
    body, content_type = file_form(task, text)
    status, headers, raw = call(f"{server}/api/submissions", token, body, content_type)
    return status, headers, json.loads(raw)


@pytest.fixture(scope="module")
def portal(tmp_path_factory, portal_database):
    """The site, served without grading: its URL, the students' tokens, the instructor's signed-in
    session, ``ann``'s, and ``grading()`` (a dispatcher while the ``with`` block runs)."""
    folder = tmp_path_factory.mktemp("floods")
    data, db = folder / "data", portal_database.options()
    (folder / "roster.csv").write_text(
        "username,role\nteach,instructor\n" + "".join(f"{s},student\n" for s in STUDENTS)
    )
    made = grader("users", "import", str(folder / "roster.csv"), "--data", str(data), *db)
    assert made.returncode == 0, made.stderr
    first = dict(re.findall(r"^(\S+): sign in the first time with the password (\S+) ", made.stdout, re.M))
    command = [sys.executable, "-m", "grader"]
    server = subprocess.Popen(
        [*command, "serve", "--no-grading", "--data", str(data), *db, "--port", "0"],
        cwd=PROJECT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = server.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:\d+", line)
    assert found, (line, server.stderr.read() if server.poll() is not None else "")

    @contextlib.contextmanager
    def grading():
        options = ["--data", str(data), *db, "--workers", "2", "--allow-unprotected"]
        dispatcher = subprocess.Popen(
            [*command, "dispatch", *options], cwd=PROJECT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            assert "Grading for the portal" in dispatcher.stdout.readline()
            yield
        finally:
            dispatcher.send_signal(signal.SIGTERM)
            dispatcher.communicate(timeout=120)

    url = found.group(0)
    try:
        browsers = {name: Visitor(url) for name in ("teach", "ann")}
        for name, browser in browsers.items():
            browser.first_sign_in(name, first[name], PASSWORD)
        # the tokens after the first sign-ins: a password changed by its owner ends the old token
        Tables(data, db).passwords_chosen()  # the others' too (no token works before)
        Tables(data, db).hidden_cases_at_once()  # graded in full at once (not the deadline's test)
        tokens = grader("users", "token", *STUDENTS, "--data", str(data), *db)
        assert tokens.returncode == 0, tokens.stderr
        yield {
            "url": url,
            "tokens": dict(line.split() for line in tokens.stdout.splitlines()),
            **browsers,
            "grading": grading,
        }
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=60)


def graded(portal, token, ids, within_s=600):
    """The API's documents of ``ids`` once every one is graded (or the wait gives up)."""
    deadline = time.monotonic() + within_s
    while True:
        found = [json.loads(call(f"{portal['url']}/api/submissions/{n}", token)[2]) for n in ids]
        if all(s["status"] in ("done", "error") for s in found) or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


def set_waiting_bound(portal, bound):
    answer = portal["teach"].post("/teach/waiting", {"max_waiting": bound}, "/teach/", follow=True)
    assert answer.status == 200 and f'id="id_max_waiting" value="{bound or 0}"' in answer.text, answer


def test_a_students_submissions_waiting_are_bounded_and_welcome_again_once_graded(portal):
    url, tokens = portal["url"], portal["tokens"]
    # the default: one student's flood fills the queue no further than the bound (10)
    flood = [hand_in(url, tokens["flo"], "exclusive_or", f"print({n})") for n in range(12)]
    assert [status for status, _, _ in flood] == [202] * 10 + [429] * 2
    _, headers, body = flood[-1]
    assert int(headers["Retry-After"]) > 0
    assert body["error"].startswith("you have 10 submissions waiting to be graded")
    assert "hand in again when one is done" in body["error"]
    # an instructor sets another bound on /teach/; a bad one changes nothing and says why
    bad = portal["teach"].post("/teach/waiting", {"max_waiting": "many"}, "/teach/")
    bad, page = bad.status, bad.text
    assert bad == 400 and "must be a whole number, not &#x27;many&#x27;" in page and "nothing was changed" in page
    set_waiting_bound(portal, 2)
    try:
        first = [hand_in(url, tokens["wade"], "exclusive_or", solution("exclusive_or") + f"# {n}\n") for n in range(3)]
        assert [status for status, _, _ in first] == [202, 202, 429]
        assert "you have 2 submissions waiting" in first[2][2]["error"] and int(first[2][1]["Retry-After"]) > 0
        assert hand_in(url, tokens["xena"], "exclusive_or", "print(0)")[0] == 202  # another student's own bound
        shown = portal["ann"].get("/tasks/exclusive_or/").text
        assert "At most 2 of your submissions may wait to be graded at once; you have 0 waiting now." in shown
        with portal["grading"]():
            done = graded(portal, tokens["wade"], [body["id"] for _, _, body in first[:2]])
        assert [s["verdict"] for s in done] == ["accepted", "accepted"]
        assert hand_in(url, tokens["wade"], "exclusive_or", "print(1)")[0] == 202  # graded: welcome again
        set_waiting_bound(portal, "")  # empty: no bound
        assert [hand_in(url, tokens["wade"], "nim_sum", f"print({n})")[0] for n in range(4)] == [202] * 4
    finally:
        set_waiting_bound(portal, 10)


# 110 bytes that print 100 lines of 3,000 characters and 99 KB of error output on every case
LINES_FLOOD = (
    "import sys\nsys.stdin.read()\nfor i in range(100):\n    print(str(i % 10) * 3000)\n"
    'sys.stderr.write("ERRSTART" + "e" * 99000 + "ERREND")\n'
)
# a rule broken while it runs, on a line of 99 KB the message quotes on every case
LONG_LINE = 'getattr(__builtins__, "b" + "in")(5)  # ' + "y" * 99000 + "LINEEND\n"


class Checked(html.parser.HTMLParser):
    """The elements a page opens and closes, to see that cutting it left it whole."""

    VOID = {"meta", "link", "br", "input", "img", "hr"}

    def __init__(self):
        super().__init__()
        self.open = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, (tag, self.open[-5:])
        self.open.pop()


def test_a_flooding_program_gets_a_bounded_answer_and_a_bounded_readable_report(portal):
    url, token = portal["url"], portal["tokens"]["ann"]
    ids = [hand_in(url, token, "nim_sum", LINES_FLOOD)[2]["id"], hand_in(url, token, "bin_num", LONG_LINE)[2]["id"]]
    with portal["grading"]():
        flood, long_line = graded(portal, token, ids)
    assert flood["status"] == long_line["status"] == "done"
    # the API: each case's message is its start and its end, and says how much was left out
    status, _, raw = call(f"{url}/api/submissions/{ids[1]}", token)
    assert status == 200 and len(raw) < 27 * (MESSAGE_CHARS + 1000)  # 27 cases; it was 2.7 MB
    for case in json.loads(raw)["cases"]:
        message = case["message"]
        assert len(message) < MESSAGE_CHARS + 100 and "characters left out]" in message
        assert message.startswith("Line 1 uses bin()") and message.endswith("LINEEND.)")
    # the stored report: under its bound, whole HTML, saying that it was cut and how to see all
    status, _, page = call(f"{url}{flood['report_url']}", token)
    assert status == 200 and len(page) <= PAGE_BYTES  # it was 7.7 MB
    text = page.decode()
    assert "This page is shortened" in text and "python -m grader check nim_sum.py" in text
    assert "ERRSTART" in text and "ERREND" in text and "characters left out]" in text
    assert text.count("<details") == len(flood["cases"])  # every case is there, shortened
    checked = Checked()
    checked.feed(text)
    checked.close()
    assert checked.open == []


def test_the_list_of_submissions_comes_in_pages_linked_by_the_link_header(portal):
    url, token = portal["url"], portal["tokens"]["pat"]
    ids = [hand_in(url, token, "nim_sum", f"print({n})")[2]["id"] for n in range(5)]
    hand_in(url, token, "exclusive_or", "print(0)")
    seen, next_url = [], f"{url}/api/submissions?task=nim_sum&limit=2"
    while next_url:
        status, headers, raw = call(next_url, token)
        page = json.loads(raw)
        assert status == 200 and isinstance(page, list) and len(page) <= 2
        seen.append([s["id"] for s in page])
        link = headers.get("Link")
        next_url = re.fullmatch(r'<([^>]+)>; rel="next"', link).group(1) if link else None
        assert next_url is None or "task=nim_sum" in next_url
    assert seen == [ids[:2:-1], ids[2:0:-1], ids[:1]]  # newest first, none twice, none lost
    status, headers, raw = call(f"{url}/api/submissions", token)
    assert status == 200 and len(json.loads(raw)) == 6 and "Link" not in headers  # the default page: 50
    for query in ("limit=abc", "limit=0", "limit=201", "before=-1", "before=x", "before=" + "9" * 30, "limit=1e3"):
        status, _, raw = call(f"{url}/api/submissions?{query}", token)
        answer = json.loads(raw)
        assert status == 400 and set(answer) == {"error"} and re.match(r"the (limit|before id) ", answer["error"])


def concurrently(count, action):
    """The results of ``action()`` run by ``count`` threads let go at once."""
    start, results = threading.Barrier(count), [None] * count

    def run(index):
        start.wait()
        results[index] = action()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return results


def test_twelve_parallel_hand_ins_against_a_maximum_count_of_one_give_one_submission(portal):
    url, tokens = portal["url"], portal["tokens"]
    form = {"min_interval_s": "0", "max_count": "1", "deadline": ""}
    limits = portal["teach"].post("/teach/tasks/exclusive_or/limits", form, "/teach/", follow=True)
    assert limits.status == 200 and 'id="id_count_exclusive_or" value="1"' in limits.text
    answers = concurrently(12, lambda: hand_in(url, tokens["cc"], "exclusive_or", "print(0)"))
    assert sorted(status for status, _, _ in answers) == [202] + [429] * 11
    assert all("the 1 time allowed" in body["error"] for status, _, body in answers if status == 429)
    _, _, raw = call(f"{url}/api/submissions?task=exclusive_or", tokens["cc"])
    assert len(json.loads(raw)) == 1


def test_twelve_parallel_hand_ins_against_a_bound_of_three_waiting_give_three(portal):
    url, tokens = portal["url"], portal["tokens"]
    set_waiting_bound(portal, 3)
    try:
        statuses = [s for s, _, _ in concurrently(12, lambda: hand_in(url, tokens["cw"], "nim_sum", "print(0)"))]
        assert sorted(statuses) == [202] * 3 + [429] * 9
    finally:
        set_waiting_bound(portal, 10)
