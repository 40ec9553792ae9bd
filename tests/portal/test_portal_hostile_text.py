"""Invariant 5, the same program gets the same result on both databases: a program that writes a NUL,
bytes that are not UTF-8 (read back as lone surrogates) or a control character, wherever its text
lands (its output, its error stream, an exception's message, a file name in a traceback, the output
a hint or a known mistake quotes, a hidden case), is graded, stored and shown, with the same verdict
and marks on SQLite and PostgreSQL (``NIM_GRADER_TEST_DB=postgresql``): every text a grading writes
goes through ``safe_text.for_database`` (``queue.finish``), and every page shows it through
``for_page``. The verdicts and marks below are each program's, so a run on either database that gives
another fails."""

from __future__ import annotations

import json
import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import set_up_portal, signed_in  # noqa: E402
from support import solution  # noqa: E402

TASK = "bin_num"
LAST_LINE = "        print(json.dumps(result))"
# What a program's text may hold that a database or a page must not take as it is.
HOSTILE = b"\\x00\\xff\\xfe\\xed\\xa0\\x80\\x1b[2J\\xe2\\x80\\xae"  # NUL, not UTF-8, a lone surrogate's bytes, ESC, RLO

# field kind → (what the program does in place of printing its answer, the verdict, the points won)
PROGRAMS = {
    "stdout": (f"sys.stdout.buffer.write(b'{HOSTILE.decode()}' + json.dumps(result).encode())", "wrong_answer", 0),
    "stderr": (
        f"sys.stderr.buffer.write(b'{HOSTILE.decode()}'); sys.stderr.flush(); print(json.dumps(result))",
        "accepted",
        27,
    ),
    "exception message": (
        f"raise ValueError(b'{HOSTILE.decode()}'.decode('utf-8', 'surrogateescape'))",
        "runtime_error",
        0,
    ),
    "file name": (
        f"exec(compile('1/0', b'{HOSTILE.decode().replace(chr(92) + 'x00', '')}.py'.decode('utf-8', 'surrogateescape'),"
        " 'exec'))",
        "runtime_error",
        0,
    ),
    "hint": (f"sys.stdout.buffer.write(b'[0, 1, 1, 0, 1]{HOSTILE.decode()}')", "wrong_answer", 0),
    "known mistake": (f"sys.stdout.buffer.write(b'[\"1{HOSTILE.decode()}\"]')", "wrong_answer", 0),
}


def program(kind: str) -> str:
    text = solution(TASK)
    assert text.count(LAST_LINE) == 1
    return text.replace(LAST_LINE, "        " + PROGRAMS[kind][0])


@pytest.fixture(scope="module")
def graded(tmp_path_factory, grade_queue):
    """Each program handed in by a student of its own and graded: field kind → its row."""
    from grader.web.models import Submission
    from grader.web.site.handin import hand_in

    set_up_portal(
        tmp_path_factory.mktemp("roster"),
        "username,role\nht-teach,instructor\n" + "".join(f"ht{n},student\n" for n in range(9)),
    )
    from django.contrib.auth import get_user_model

    ids = {}
    for number, kind in enumerate(PROGRAMS):
        student = get_user_model().objects.get(username=f"ht{number}")
        answer = hand_in(student, TASK, program(kind).encode())
        assert answer.row is not None, (kind, answer.message)
        ids[kind] = (student.username, answer.row.id)
    grade_queue()
    return {kind: (name, Submission.objects.get(id=number)) for kind, (name, number) in ids.items()}


def texts(value):
    """Every text in a row's field (JSON: its keys and values)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from texts(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from texts(item)


def unkept(text: str) -> list:
    """The characters of ``text`` that PostgreSQL refuses (NUL, lone surrogates)."""
    return [char for char in text if char == "\x00" or 0xD800 <= ord(char) <= 0xDFFF]


@pytest.mark.parametrize("kind", list(PROGRAMS))
def test_a_hostile_text_is_graded_and_stored_as_its_markers(graded, kind):
    from grader.web.models import Submission

    _, row = graded[kind]
    assert row.status == "done" and not row.pending, (kind, row.error)
    for field in Submission._meta.concrete_fields:
        value = getattr(row, field.attname)
        for text in texts(value):
            assert not unkept(text), (kind, field.name)
    _, verdict, points = PROGRAMS[kind]
    assert (row.verdict, row.score) == (verdict, points), kind  # the same on SQLite and PostgreSQL
    # what the program wrote reached the row, as markers (an accepted file's error stream is not on
    # its page; a traceback's file name may not be either)
    if kind not in ("stderr", "file name"):
        assert "\\x00" in row.report, kind


@pytest.mark.parametrize("kind", list(PROGRAMS))
def test_a_hostile_text_is_shown_on_every_page_and_in_the_api(graded, kind):
    from portal_client import api_get

    name, row = graded[kind]
    student, teacher = signed_in(name), signed_in("ht-teach")
    mine = (f"/submissions/{row.id}/", f"/submissions/{row.id}/report", f"/tasks/{TASK}/", "/")
    theirs = (f"/teach/class/{name}/index.html", "/teach/class/", "/teach/queue/", "/teach/", "/teach/gradebook.csv")
    for client, path in [(student, path) for path in mine] + [(teacher, path) for path in theirs]:
        page = client.get(path)
        assert page.status_code == 200, (kind, path)
        shown = page.content.decode("utf-8")  # strict: a lone surrogate could not have been sent
        assert "\x00" not in shown and "\x1b" not in shown and "\u202e" not in shown, (kind, path)
    answer = api_get(name, f"/api/submissions/{row.id}")
    assert answer["status"] == "done" and not unkept(json.dumps(answer, ensure_ascii=False))
