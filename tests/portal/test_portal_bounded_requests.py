"""What a hand-in costs the web process before a limit can refuse it is bounded: whatever a student
sends (a megabyte of one deep chain, of brackets, of ordinary code; as the task's file or as files
sent with it), nothing larger than ``wrong_file.PARSED_AT_MOST`` is parsed there; and a hand-in is
stamped when it arrived, not when the web process got round to it."""

from __future__ import annotations

import ast
import io
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from unittest import mock

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from support import PROJECT, solution  # noqa: E402

MEGABYTE = 1024 * 1024 - 64
# Sources that are slow or dangerous to parse, a megabyte each: the class, not one example.
HOSTILE = {
    "chain": b"x = a" + b".b" * ((MEGABYTE - 8) // 2) + b"\n",
    "brackets": b"x = " + b"(" * 2000 + b"1" + b")" * 2000 + b"\n" + b"# pad\n" * ((MEGABYTE - 4010) // 6),
    "sums": b"x = 1" + b"+1" * ((MEGABYTE - 8) // 2) + b"\n",
    "ordinary": (b"def nim_sum(board):\n    return 0\n" * (MEGABYTE // 32))[:MEGABYTE],
    "another task's functions": (b"def present_board(board):\n    pass\n" + b"# padding\n" * (MEGABYTE // 10))[
        :MEGABYTE
    ],
}


@pytest.fixture(scope="module")
def token(tmp_path_factory):
    from grader.web.models import FirstSignIn
    from grader.web.site import roster

    path = tmp_path_factory.mktemp("roster") / "roster.csv"
    path.write_text("username,role\ncarl,student\n")
    roster.import_roster(path)
    FirstSignIn.objects.all().delete()
    return dict(roster.new_tokens(["carl"]))["carl"]


def _post(token, task, data, also=()):
    from django.test import Client

    upload = io.BytesIO(data)
    upload.name = f"{task}.py"
    fields = {"task": task, "file": upload}
    if also:
        fields["also"] = [_named(content, name) for name, content in also]
    return Client().post("/api/submissions", fields, HTTP_AUTHORIZATION=f"Token {token}")


def _named(data, name):
    upload = io.BytesIO(data)
    upload.name = name
    return upload


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_large_hand_in_is_never_parsed_in_the_web_process(token, kind):
    from grader.submission.wrong_file import PARSED_AT_MOST

    parsed = []
    real_parse, real_compile = ast.parse, compile

    def parse(source, *args, **kwargs):
        parsed.append(len(source))
        return real_parse(source, *args, **kwargs)

    def compiled(source, *args, **kwargs):
        parsed.append(len(source))
        return real_compile(source, *args, **kwargs)

    with mock.patch("ast.parse", parse), mock.patch("builtins.compile", compiled):
        answers = [
            _post(token, "nim_sum", HOSTILE[kind]),
            _post(token, "working_game", solution("working_game").encode(), also=[("ui.py", HOSTILE[kind])]),
        ]
    assert all(answer.status_code in (202, 400, 413, 429) for answer in answers), [a.content for a in answers]
    assert max(parsed, default=0) <= PARSED_AT_MOST, f"parsed {max(parsed):,} bytes in the web process"


PYTHON_310 = Path("/root/.pyenv/versions/3.10.13/bin/python3.10")


@pytest.mark.skipif(not PYTHON_310.exists(), reason="no Python 3.10 here (its parser has no depth guard)")
@pytest.mark.parametrize("kind", ["chain", "sums"])
def test_the_wrong_file_check_survives_what_kills_python_3_10s_parser(kind, tmp_path):
    """On Python 3.10 a 300 kB chain overflows the parser's C stack: the web process must not parse it."""
    source = tmp_path / "deep.py"
    source.write_bytes(HOSTILE[kind][: 300 * 1024] + b"\n")
    probe = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from grader.submission.wrong_file import another_tasks_file\n"
        "stubs = {'nim_sum': b'def nim_sum(board):\\n    pass\\n', 'ui': b'def ask(q):\\n    pass\\n'}\n"
        "print(another_tasks_file(open(sys.argv[2], 'rb').read(), 'nim_sum', stubs))\n"
    )
    done = subprocess.run([str(PYTHON_310), "-c", probe, str(PROJECT), str(source)], capture_output=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == b"None", (done.returncode, done.stderr[-500:])


def test_a_hand_in_is_stamped_when_it_arrived_not_when_its_turn_came(token):
    """The deadline passes while the hand-in waits its turn (another hand-in holding the student, a
    busy process): it arrived before the deadline, so it is on time, and stamped as it arrived."""
    from django.utils import timezone

    from grader.web.models import Submission, TaskPolicy
    from grader.web.site import handin

    arrived = timezone.now()
    TaskPolicy.objects.update_or_create(task="nim_sum", defaults={"deadline": arrived + timedelta(seconds=5)})
    clock = [arrived]
    real_hold = handin.hold

    def slow_hold(student):  # its turn comes a minute later, after the deadline
        clock[0] = arrived + timedelta(seconds=60)
        return real_hold(student)

    try:
        with mock.patch("django.utils.timezone.now", lambda: clock[0]), mock.patch.object(handin, "hold", slow_hold):
            answer = _post(token, "nim_sum", solution("nim_sum").encode())
        assert answer.status_code == 202, answer.content
        row = Submission.objects.get(id=answer.json()["id"])
        assert not row.late and row.submitted_at == arrived, (row.submitted_at, arrived)
    finally:
        TaskPolicy.objects.filter(task="nim_sum").update(deadline=None)
