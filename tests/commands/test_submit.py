"""``submit``: handing files in to the portal from the terminal, against a small fake portal that keeps
to the HTTP API of portal.md (token, 202, queued → running → done, 400, 413, 429, error, junk)."""

from __future__ import annotations

import email.parser
import email.policy
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, List, Optional, Tuple

import pytest

from grader.cli import submit
from grader.cli.main import main
from grader.submission.files import MAX_SOURCE_BYTES

TOKEN = "tok-5ecret-81f3a9"
WRONG_TOKEN = "tok-wrong-77c2e0"
TABLE_HEADER = re.compile(r"^task\s+verdict\s+score\s+first case not accepted$", re.M)
CASES = {
    "accepted": [{"name": "tutorial board 1 3 5 7", "verdict": "accepted", "message": ""}],
    "wrong_answer": [
        {"name": "tutorial board 1 3 5 7", "verdict": "accepted", "message": ""},
        {"name": "big board \x1b[2J", "verdict": "wrong_answer", "message": "Check the carry."},
        {"name": "empty board", "verdict": "runtime_error", "message": ""},
    ],
    # graded on its public cases only, its hidden ones waiting for the deadline (the portal's "public_only")
    "public_only": [
        {"name": "tutorial board 1 3 5 7", "verdict": "accepted", "message": "", "hidden": False},
        {"name": "hidden case 1", "verdict": "not_run", "message": "Hidden case: it runs after", "hidden": True},
        {"name": "hidden case 2", "verdict": "not_run", "message": "Hidden case: it runs after", "hidden": True},
    ],
}


class FakePortal:
    """The portal's API as portal.md writes it, with the answers a test asks for. Every request is
    recorded (method, path, headers, body); a submission is queued, then running, then ``outcome``."""

    def __init__(self) -> None:
        self.tasks = ["nim_sum", "make_move"]
        self.gone: List[str] = []  # tasks listed by GET /api/tasks but refused when handed in
        self.requests: List[Tuple[str, str, Dict[str, str], bytes]] = []
        self.outcome = "accepted"  # or "wrong_answer", "error", "never" (stays queued)
        self.late = False  # every submission handed in after the deadline
        self.said: Dict[str, object] = {}  # keys a newer portal adds to a finished submission ("cause"...)
        self.answers: Dict[Tuple[str, str], Tuple[int, Dict[str, str], bytes]] = {}  # (method, path) → answer
        self.stream: Optional[int] = None  # a body of this many bytes, without Content-Length, for every call
        self.gets: Dict[str, int] = {}
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def posts(self) -> List[Tuple[str, str, Dict[str, str], bytes]]:
        return [r for r in self.requests if r[0] == "POST"]

    def answer(self, method: str, path: str, status: int, body=b"", **headers: str) -> None:
        self.answers[(method, path)] = (status, headers, body if isinstance(body, bytes) else json.dumps(body).encode())

    def _handler(self):
        portal = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                self._serve("GET")

            def do_POST(self):
                self._serve("POST")

            def _serve(self, method: str) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                portal.requests.append((method, self.path, dict(self.headers), body))
                try:
                    self._answer(method, body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading a huge answer, as it should

            def _answer(self, method: str, body: bytes) -> None:
                if portal.stream is not None:
                    self.send_response(200)
                    self.end_headers()
                    for _ in range(portal.stream // 65536 + 1):
                        self.wfile.write(b"[" * 65536)
                    return
                if (method, self.path) in portal.answers:
                    self._send(*portal.answers[(method, self.path)])
                elif self.path == "/healthz":
                    self._json(200, {"ok": True})
                elif self.headers.get("Authorization") != f"Token {TOKEN}":
                    self._json(401, {"detail": "Invalid token."})
                elif method == "GET" and self.path == "/api/tasks":
                    self._json(200, [{"id": task, "title": task, "max_score": 9} for task in portal.tasks])
                elif method == "POST" and self.path == "/api/submissions":
                    fields = form_fields(self.headers["Content-Type"], body)
                    task = fields["task"][1].decode()
                    if task not in portal.tasks or task in portal.gone:
                        self._json(400, {"detail": "unknown task"})
                        return
                    number = str(len(portal.posts()))
                    answer = {"id": int(number), "status": "queued", "url": f"/api/submissions/{number}"}
                    self._json(202, {**answer, "late": portal.late})
                elif method == "GET" and self.path.startswith("/api/submissions/"):
                    number = self.path.rsplit("/", 1)[1]
                    portal.gets[number] = portal.gets.get(number, 0) + 1
                    self._json(200, portal.state(number, portal.gets[number]))
                else:
                    self._json(404, {"detail": "Not found."})

            def _json(self, status: int, document) -> None:
                self._send(status, {"Content-Type": "application/json"}, json.dumps(document).encode())

            def _send(self, status: int, headers: Dict[str, str], body: bytes) -> None:
                self.send_response(status)
                for name, value in {"Content-Length": str(len(body)), **headers}.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

        return Handler

    def state(self, number: str, asked: int) -> dict:
        status = ("queued", "running")[asked - 1] if asked <= 2 else "done"
        if self.outcome == "never":
            status = "queued"
        if status == "done" and self.outcome == "error":
            status = "error"
        done = status == "done"
        cases = CASES[self.outcome] if done else None
        verdict = next((c["verdict"] for c in cases if c["verdict"] != "accepted"), "accepted") if done else None
        return {
            "id": int(number),
            "task": "nim_sum",
            "student": "ada",
            "status": status,
            "submitted_at": "2024-05-01T10:00:00Z",
            "late": self.late,
            "verdict": verdict,
            "score": (9 if verdict == "accepted" else 7) if done else None,
            "max_score": 9 if done else None,
            "cases": cases,
            "notes": (["nim_sum.py imports your ui.py \x1b[31m, hand it in."] if self.outcome == "wrong_answer" else [])
            if done
            else None,
            "report_url": f"/submissions/{number}/report/" if done else None,
            **({"public_only": True} if done and self.outcome == "public_only" else {}),
            **(self.said if done else {}),
        }


def form_fields(content_type: str, body: bytes) -> Dict[str, Tuple[Optional[str], bytes]]:
    """A multipart/form-data body, parsed by the standard library's e-mail parser: name → (file name, bytes)."""
    head = f"Content-Type: {content_type}\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
    return {
        part.get_param("name", header="content-disposition"): (part.get_filename(), part.get_payload(decode=True))
        for part in message.iter_parts()
    }


@pytest.fixture(autouse=True)
def _no_token_or_proxy(monkeypatch):
    for name in ("NIM_GRADER_TOKEN", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


@pytest.fixture
def portal():
    fake = FakePortal()
    fake.thread.start()
    yield fake
    fake.server.shutdown()
    fake.server.server_close()


@pytest.fixture
def run(capsys):
    """run(*args) → (exit status, stdout, stderr) of ``python -m grader submit ARGS``; no token is ever printed."""

    def call(*args) -> Tuple[int, str, str]:
        code = main(["submit", *map(str, args)])
        out, err = capsys.readouterr()
        assert TOKEN not in out + err and WRONG_TOKEN not in out + err
        assert "Traceback" not in out + err
        return code, out, err

    return call


@pytest.fixture
def nim_sum(tmp_path):
    path = tmp_path / "nim_sum.py"
    path.write_text("print(0)\n", encoding="utf-8")
    return path


def test_wait_prints_checks_table_and_exits_0_when_accepted(portal, run, nim_sum):
    code, out, err = run(nim_sum, "--server", portal.url, "--token", TOKEN, "--wait")
    assert code == 0
    assert f"submission 1 (queued): {portal.url}/submissions/1/" in out  # the page a student opens
    assert TABLE_HEADER.search(out)
    assert re.search(r"^nim_sum\s+accepted\s+9/9$", out, re.M)
    assert f"{portal.url}/submissions/1/report/" in out
    assert portal.gets == {"1": 3}  # asked until done: queued, running, done
    assert "warning" not in err  # plain http, but to this machine


def test_wait_exits_1_and_names_the_first_case_not_accepted(portal, run, nim_sum):
    portal.outcome = "wrong_answer"
    code, out, _ = run(nim_sum, "--server", portal.url, "--token", TOKEN, "--wait")
    assert code == 1
    # the case's name comes from the portal: its escape sequence is shown, never obeyed
    assert re.search(r"^nim_sum\s+wrong_answer\s+7/9\s+big board \\x1b\[2J$", out, re.M)
    assert "\nnim_sum: nim_sum.py imports your ui.py \\x1b[31m, hand it in.\n" in out  # the notes, escaped


def test_wait_prints_the_cause_and_the_known_mistake_under_the_task_as_check_does(portal, run, nim_sum):
    from grader.model import KnownMistake
    from grader.report.pages import mistake_sentence

    portal.outcome = "wrong_answer"
    portal.said = {
        "cause": "wrong answer: Expected 0, got 16. \x1b[2J",
        "known_mistake": {"mistake": "the rows are added up with + instead of XOR-ed", "matched": 5, "failing": 6},
    }
    code, out, _ = run(nim_sum, "--server", portal.url, "--token", TOKEN, "--wait")
    assert code == 1
    lines = out.splitlines()
    row = next(i for i, line in enumerate(lines) if re.match(r"nim_sum\s+wrong_answer", line))
    sentence = mistake_sentence(KnownMistake("", "the rows are added up with + instead of XOR-ed", "", 5, 6))
    # as check prints them (``report.terminal_table``), the program's escape shown, never obeyed
    assert lines[row + 1 : row + 3] == ["    wrong answer: Expected 0, got 16. \\x1b[2J", f"    {sentence}"]
    assert sentence.endswith("known mistake: the rows are added up with + instead of XOR-ed (5 of 6 failing cases).")


@pytest.mark.parametrize(
    "said",
    [
        {},  # an older portal says neither
        {"cause": None, "known_mistake": None},
        {"cause": ["wrong"], "known_mistake": {"mistake": "x", "matched": "5", "failing": 6}},
        {"cause": "", "known_mistake": {"mistake": "", "matched": 5, "failing": 6}},
        {"known_mistake": {"mistake": "x", "matched": True, "failing": 6}},
    ],
)
def test_wait_prints_no_line_under_the_task_for_a_cause_or_mistake_it_cannot_read(portal, run, nim_sum, said):
    portal.outcome = "wrong_answer"
    portal.said = said
    code, out, err = run(nim_sum, "--server", portal.url, "--token", TOKEN, "--wait")
    assert code == 1 and "error" not in err
    lines = out.splitlines()
    row = next(i for i, line in enumerate(lines) if re.match(r"nim_sum\s+wrong_answer", line))
    assert lines[row + 1].startswith("nim_sum: ")  # the notes come next, as before


def test_wait_names_no_waiting_hidden_case_as_not_accepted_and_says_every_public_case_passed(portal, run, nim_sum):
    portal.outcome = "public_only"
    code, out, _ = run(nim_sum, "--server", portal.url, "--token", TOKEN, "--wait")
    lines = out.splitlines()
    row = next(i for i, line in enumerate(lines) if re.match(r"nim_sum\s+not_run", line))
    assert "hidden case" not in lines[row]  # no first case not accepted: the hidden ones wait
    assert (
        lines[row + 1]
        == "    every public case accepted; the 2 hidden cases run after your deadline (the note below says when)"
    )
    assert code == 1  # the portal's verdict is not_run: the exit status keeps its meaning


def test_wait_says_a_submission_handed_in_after_the_deadline_is_late(portal, run, nim_sum):
    code, out, _ = run(nim_sum, "--server", portal.url, "--token", TOKEN, "--wait")
    assert code == 0 and "late" not in out
    portal.late = True
    code, out, _ = run(nim_sum, "--server", portal.url, "--token", TOKEN, "--wait")
    assert code == 0 and re.search(r"^nim_sum\s+accepted\s+9/9$", out, re.M)
    assert "\nnim_sum: late: handed in after the task's deadline (graded all the same, and marked late).\n" in out


def test_without_wait_prints_the_submission_and_its_url_and_does_not_wait(portal, run, nim_sum, tmp_path):
    make_move = tmp_path / "make_move.py"
    make_move.write_text("pass\n", encoding="utf-8")
    code, out, _ = run(nim_sum, make_move, "--server", portal.url, "--token", TOKEN)
    assert code == 0
    assert out.splitlines() == [
        f"{nim_sum}: handed in as nim_sum, submission 1 (queued): {portal.url}/submissions/1/",
        f"{make_move}: handed in as make_move, submission 2 (queued): {portal.url}/submissions/2/",
    ]
    assert "/api/" not in out
    assert portal.gets == {}


def test_without_wait_a_late_hand_in_says_so_at_once(portal, run, nim_sum):
    portal.late = True
    code, out, _ = run(nim_sum, "--server", portal.url, "--token", TOKEN)
    assert code == 0
    page = f"{portal.url}/submissions/1/"
    assert out == f"{nim_sum}: handed in as nim_sum, submission 1 (queued, late: after the deadline): {page}\n"


def test_a_file_the_portal_refuses_gets_the_portals_own_sentence(portal, run, nim_sum):
    refusal = "This file defines make_move, the function of make_move.py, and none of nim_sum's: \x1b[31mwrong file?"
    portal.answer("POST", "/api/submissions", 400, {"error": refusal})
    code, out, err = run(nim_sum, "--server", portal.url, "--token", TOKEN)
    assert code == 2 and out == ""
    assert "nim_sum.py: the portal refused it: This file defines make_move" in err and "\x1b" not in err


def test_the_token_comes_from_the_environment_and_travels_only_in_the_header(portal, run, nim_sum, monkeypatch):
    monkeypatch.setenv("NIM_GRADER_TOKEN", TOKEN + "\n")  # as copied, with a line break
    assert run(nim_sum, "--server", portal.url, "--wait")[0] == 0
    for _, path, headers, body in portal.requests:
        assert headers["Authorization"] == f"Token {TOKEN}"
        assert TOKEN not in path and TOKEN.encode() not in body


def test_token_option_wins_over_the_environment(portal, run, nim_sum, monkeypatch):
    monkeypatch.setenv("NIM_GRADER_TOKEN", WRONG_TOKEN)
    assert run(nim_sum, "--server", portal.url, "--token", TOKEN)[0] == 0


def test_no_token_is_a_sentence_and_nothing_is_sent(portal, run, nim_sum):
    code, _, err = run(nim_sum, "--server", portal.url)
    assert code == 2
    assert "no token: pass --token TOKEN or set NIM_GRADER_TOKEN" in err
    assert "make one on the portal's account page (sign in, then Account: /account/)" in err
    assert portal.requests == []


def test_a_refused_token_sends_the_student_to_the_account_page(portal, run, nim_sum):
    code, _, err = run(nim_sum, "--server", portal.url, "--token", WRONG_TOKEN)
    assert code == 2
    assert f"the token was refused: make a new one on the portal's account page, {portal.url}/account/" in err
    assert portal.posts() == []


def test_the_multipart_body_carries_the_task_and_the_files_exact_bytes(portal, run, tmp_path):
    data = b"# \xc3\xa9t\xc3\xa9\r\nprint(1)\n\x00\xff--nim-grader-\r\n\r\n"
    path = tmp_path / 'my "answer".py'
    path.write_bytes(data)
    assert run(path, "--task", "nim_sum", "--server", portal.url, "--token", TOKEN)[0] == 0
    ((_, _, headers, body),) = portal.posts()
    assert headers["Content-Type"].startswith("multipart/form-data; boundary=")
    fields = form_fields(headers["Content-Type"], body)
    assert fields["task"] == (None, b"nim_sum")
    assert fields["file"] == ("my %22answer%22.py", data)


def test_a_file_named_after_no_task_of_the_portal_is_refused_before_anything_is_sent(portal, run, nim_sum, tmp_path):
    other = tmp_path / "nim_summ.py"
    other.write_text("pass\n", encoding="utf-8")
    code, _, err = run(nim_sum, other, "--server", portal.url, "--token", TOKEN)
    assert code == 2
    assert "nim_summ.py: the file name names no task of the portal (it has make_move, nim_sum)" in err
    assert portal.posts() == []


def test_task_names_one_files_task_only(portal, run, nim_sum, tmp_path):
    code, _, err = run(nim_sum, nim_sum, "--task", "nim_sum", "--server", portal.url, "--token", TOKEN)
    assert code == 2 and "--task names the task of one file" in err
    assert portal.requests == []


def _not_a_file(kind: str, tmp_path):
    target = tmp_path / "real.py"
    target.write_text("print(1)\n", encoding="utf-8")
    path = tmp_path / "nim_sum.py"
    if kind == "link":
        path.symlink_to(target)
    elif kind == "hard link":
        os.link(target, path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "too large":
        path.write_bytes(b"#" * (MAX_SOURCE_BYTES + 1))
    return path


@pytest.mark.parametrize(
    "kind, says",
    [
        ("link", "nim_sum.py is a symbolic link: hand in the file itself"),
        ("hard link", "nim_sum.py is a hard link (the same file also has another name"),
        ("folder", "nim_sum.py is a folder"),
        ("fifo", "nim_sum.py is a named pipe (FIFO)"),
        ("missing", "nim_sum.py: no such file"),
        ("too large", "nim_sum.py is larger than the grader takes (1 MiB a file)"),
    ],
)
def test_a_file_that_cannot_be_handed_in_is_a_sentence_and_nothing_is_sent(portal, run, tmp_path, kind, says):
    if kind == "fifo" and not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes on this system")
    code, out, err = run(_not_a_file(kind, tmp_path), "--server", portal.url, "--token", TOKEN)
    assert code == 2
    assert says in err and "nothing was handed in" in err.lower()
    assert out == ""
    assert portal.requests == []


@pytest.mark.parametrize(
    "status, headers, says",
    [
        (400, {}, "nim_sum.py: the portal has no task nim_sum: name the file after its task or pass --task."),
        (413, {}, "nim_sum.py: the portal refused the file as too large (the grader takes at most 1 MiB a file)"),
        (429, {"Retry-After": "120"}, "nim_sum.py: the portal takes hand-ins more slowly than this: try again in 2 m"),
        (429, {"Retry-After": "30"}, "try again in 30 seconds"),
        (429, {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, "try again in a second"),  # a date long past
        (429, {}, "try again in a little while"),
        (500, {}, "failed (HTTP 500): try again in a few minutes"),
        (302, {"Location": "https://elsewhere.example/"}, "sends its visitors to https://elsewhere.example/"),
    ],
)
def test_each_refusal_of_a_hand_in_is_a_sentence_and_exit_2(portal, run, nim_sum, status, headers, says):
    portal.answer("POST", "/api/submissions", status, {"detail": "no"}, **headers)
    code, out, err = run(nim_sum, "--server", portal.url, "--token", TOKEN, "--wait")
    assert code == 2
    assert says in err
    assert out == "" and portal.gets == {}


def test_a_later_files_refusal_says_the_earlier_ones_were_handed_in(portal, run, nim_sum, tmp_path):
    make_move = tmp_path / "make_move.py"
    make_move.write_text("pass\n", encoding="utf-8")
    portal.tasks.append("ghost")
    portal.gone.append("ghost")  # removed between the task list and the hand-in
    ghost = tmp_path / "ghost.py"
    ghost.write_text("pass\n", encoding="utf-8")
    code, out, err = run(nim_sum, ghost, "--server", portal.url, "--token", TOKEN)
    assert code == 2
    assert "submission 1" in out
    assert "ghost.py: the portal has no task ghost" in err and "the files before it were handed in" in err


@pytest.mark.parametrize(
    "body, says",
    [
        (b"<html><body>Welcome to nginx!</body></html>", "(not JSON)"),
        (b"[" * 200_000, "(not JSON)"),  # nested beyond what Python's parser takes
        (b"\xff\xfe{}", "(not JSON)"),
        (json.dumps({"id": None, "status": "queued"}).encode(), "(a submission without an id or a status)"),
        (json.dumps({"id": 1, "status": "lost"}).encode(), "(a submission without an id or a status)"),
        (b" " * (5 * 1024 * 1024), "(an answer larger than 4 MiB)"),
    ],
    ids=["html", "deep", "not utf-8", "no id", "unknown status", "huge"],
)
def test_junk_answers_are_a_sentence_never_a_traceback(portal, run, nim_sum, body, says):
    portal.answer("POST", "/api/submissions", 202, body)
    code, _, err = run(nim_sum, "--server", portal.url, "--token", TOKEN)
    assert code == 2
    assert f"the portal at {portal.url} answered something its API never does {says}" in err


def test_a_huge_answer_without_length_is_read_only_up_to_the_limit(portal, run, nim_sum):
    portal.stream = 64 * 1024 * 1024
    code, _, err = run(nim_sum, "--server", portal.url, "--token", TOKEN)
    assert code == 2
    assert "(an answer larger than 4 MiB)" in err


@pytest.mark.parametrize(
    "state, says",
    [
        ({"id": 1, "task": "nim_sum", "status": "done", "verdict": "splendid", "score": 1, "max_score": 1, "cases": []},
         "(a finished submission without a verdict or a score)"),
        ({"id": 1, "task": "nim_sum", "status": "done", "verdict": "accepted", "score": 1, "max_score": 1,
          "cases": [{"name": 3}]}, "(a finished submission whose cases are not name, verdict and message)"),
        ({"id": 1, "status": "done"}, "(a submission without its task)"),
    ],
)  # fmt: skip
def test_a_junk_submission_state_is_a_sentence(portal, run, nim_sum, state, says):
    portal.answer("GET", "/api/submissions/1", 200, state)
    code, out, err = run(nim_sum, "--server", portal.url, "--token", TOKEN, "--wait")
    assert code == 2
    assert "submission 1 (queued)" in out and not TABLE_HEADER.search(out)
    assert says in err


def test_a_submission_the_portal_could_not_grade_exits_2(portal, run, nim_sum):
    portal.outcome = "error"
    code, out, err = run(nim_sum, "--server", portal.url, "--token", TOKEN, "--wait")
    assert code == 2
    assert re.search(r"^nim_sum\s+error\s+-$", out, re.M)
    assert "(submission 1): the portal could not grade it" in err


def test_the_wait_has_a_limit_with_a_sentence_when_it_runs_out(portal, run, nim_sum):
    portal.outcome = "never"
    code, _, err = run(nim_sum, "--server", portal.url, "--token", TOKEN, "--wait", "--timeout", "0.3")
    assert code == 2
    url = f"{portal.url}/submissions/1/"
    assert f"(submission 1) was still queued after 0.3 s: the portal keeps it; see {url} later" in err
    assert "wait longer with --timeout" in err


def test_polling_starts_short_and_grows_to_a_ceiling():
    class Queued:
        def submission(self, submission_id):
            return submit.SubmissionState(submission_id, "nim_sum", "queued")

    now, sleeps = [0.0], []

    def sleep(seconds):
        sleeps.append(seconds)
        now[0] += seconds

    with pytest.raises(submit._StillWaiting):
        submit.wait_for(Queued(), "1", deadline=60.0, sleep=sleep, clock=lambda: now[0])
    assert sleeps[0] == submit.FIRST_POLL_S
    assert sleeps[:-1] == sorted(sleeps[:-1]) and max(sleeps) == submit.LONGEST_POLL_S  # the last: what is left
    assert sum(sleeps) == pytest.approx(60.0)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_refused_connection_names_the_server(run, nim_sum):
    server = f"http://127.0.0.1:{_free_port()}"
    code, _, err = run(nim_sum, "--server", server, "--token", TOKEN)
    assert code == 2
    assert f"the portal at {server} refused the connection" in err


def test_an_unknown_host_names_it_and_plain_http_to_another_machine_is_warned_of(run, nim_sum):
    code, _, err = run(nim_sum, "--server", "http://portal.invalid", "--token", TOKEN)
    assert code == 2
    assert "warning: http://portal.invalid is plain http to another machine: your token travels unencrypted" in err
    assert "the server name portal.invalid could not be found" in err


def test_tls_to_a_server_that_does_not_speak_it_names_the_server(portal, run, nim_sum):
    server = portal.url.replace("http://", "https://")
    code, _, err = run(nim_sum, "--server", server, "--token", TOKEN)
    assert code == 2
    assert f"no secure (TLS) connection could be made to {server}" in err


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make a certificate")
def test_a_certificate_not_trusted_names_the_server(portal, run, nim_sum, tmp_path):
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"]
        + ["-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    portal.server.socket = context.wrap_socket(portal.server.socket, server_side=True)
    server = portal.url.replace("http://", "https://")
    code, _, err = run(nim_sum, "--server", server, "--token", TOKEN)
    assert code == 2
    assert f"the portal at {server} could not prove it is 127.0.0.1 (its TLS certificate: self-signed" in err
    assert portal.requests == []  # the token never left


def test_a_server_that_does_not_speak_http_is_a_sentence(run, nim_sum):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def answer():
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            connection.sendall(b"SSH-2.0-OpenSSH_9.2\r\n")

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        server = f"http://127.0.0.1:{listener.getsockname()[1]}"
        code, _, err = run(nim_sum, "--server", server, "--token", TOKEN)
    finally:
        thread.join(timeout=10)
        listener.close()
    assert code == 2
    assert f"the portal at {server} answered something its API never does (not HTTP)" in err


@pytest.mark.parametrize(
    "server, says",
    [
        ("ftp://portal.example", "(http:// or https://)"),
        ("portal.example", "(http:// or https://)"),
        (f"https://ada:{TOKEN}@portal.example", "with no name or password in it"),
        ("https://portal.example:99999", "give the portal's address"),
    ],
)
def test_the_server_must_be_an_http_address(run, nim_sum, server, says):
    code, _, err = run(nim_sum, "--server", server, "--token", TOKEN)
    assert code == 2
    assert says in err


def test_a_token_with_a_line_break_inside_is_refused_without_showing_it(portal, run, nim_sum):
    code, _, err = run(nim_sum, "--server", portal.url, "--token", f"{TOKEN}\nX-Evil: 1")
    assert code == 2
    assert "the token holds characters no token has" in err
    assert portal.requests == []
