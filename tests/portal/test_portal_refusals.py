"""A hand-in that is not text, or plainly another task's file, is refused by the API and the task's
page with a sentence to act on (400), is not stored and costs none of the task's hand-ins; the
right file, a stub, a half-written or broken file are graded as before."""

from __future__ import annotations

import html
import io
import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import page_hand_in, signed_in  # noqa: E402
from support import COURSE, solution  # noqa: E402

TASKS = COURSE.task_ids()
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06"


@pytest.fixture(scope="module")
def tokens(tmp_path_factory):
    from grader.web.site import roster

    path = tmp_path_factory.mktemp("roster") / "roster.csv"
    path.write_text("username,role\nann,student\nben,student\n")
    roster.import_roster(path)
    from grader.web.models import FirstSignIn

    FirstSignIn.objects.all().delete()  # (the pages would lead to /password/ first)
    return dict(roster.new_tokens(["ann", "ben"]))


def api(tokens, task, data, user="ann", name=None):
    from django.test import Client

    upload = io.BytesIO(data.encode() if isinstance(data, str) else data)
    upload.name = name or f"{task}.py"
    headers = {"HTTP_AUTHORIZATION": f"Token {tokens[user]}"}
    return Client().post("/api/submissions", {"task": task, "file": upload}, **headers)


def rows():
    from grader.web.models import Submission

    return Submission.objects.count()


@pytest.mark.parametrize(
    "data, words",
    [
        pytest.param(PNG, "this file is not text (it starts like a PNG image)", id="png"),
        pytest.param(b"def nim_sum(board):\n    return 0\x00\n", "NUL byte (line 2)", id="nul"),
        pytest.param(solution("nim_sum").encode() + b"# \xe9\n", "is not UTF-8", id="not-utf8"),
    ],
)
def test_the_api_refuses_a_file_that_is_not_text_and_keeps_nothing(tokens, data, words):
    answer = api(tokens, "nim_sum", data)
    assert answer.status_code == 400 and answer["Content-Type"] == "application/json"
    error = answer.json()["error"]
    assert error.startswith("nim_sum.py must be a Python file") and words in error
    assert rows() == 0


@pytest.mark.parametrize(
    "file, task, words",
    [
        pytest.param(
            "make_move", "nim_sum", "defines make_move, the function of make_move.py", id="make_move-as-nim_sum"
        ),
        pytest.param(
            "nim_sum", "make_move", "the functions of nim_sum.py, and none of make_move's", id="nim_sum-as-make_move"
        ),
        pytest.param(
            "ui", "working_game", "the functions of ui.py, and none of working_game's", id="ui-as-working_game"
        ),
    ],
)
def test_the_api_refuses_another_tasks_file_naming_where_it_goes(tokens, file, task, words):
    answer = api(tokens, task, solution(file), name=f"{file}.py")
    error = answer.json()["error"]
    assert answer.status_code == 400 and words in error
    assert "did you choose the wrong file?" in error and error.endswith(f"this file as {file}.")
    assert rows() == 0


@pytest.mark.parametrize("task", TASKS)
def test_each_reference_solution_is_accepted_for_its_own_task(tokens, task):
    answer = api(tokens, task, COURSE.solution(task).read_bytes())
    assert answer.status_code == 202, answer.content
    assert rows() == 1


def test_the_exercise_stub_is_accepted_and_graded_and_scores_0(tokens, grade_queue):
    from grader.web.models import Submission

    for task in TASKS:
        assert api(tokens, task, COURSE.exercise(task).read_bytes()).status_code == 202, task
    grade_queue()
    graded = Submission.objects.get(task="nim_sum")
    assert graded.status == "done" and graded.score == 0 and graded.max_score > 0


def test_a_file_with_a_syntax_error_is_accepted_and_graded(tokens, grade_queue):
    from grader.web.models import Submission

    broken = solution("nim_sum").replace("def nim_sum(board):", "def nim_sum(board)")
    assert broken != solution("nim_sum")
    assert api(tokens, "nim_sum", broken).status_code == 202
    grade_queue()
    graded = Submission.objects.get()
    assert graded.status == "done" and graded.verdict == "syntax_error" and graded.score == 0


def test_a_refused_file_costs_no_hand_in_of_the_tasks_limits(tokens):
    from grader.web.models import TaskPolicy

    TaskPolicy.objects.create(task="nim_sum", max_count=1, min_interval_s=3600)
    assert api(tokens, "nim_sum", PNG).status_code == 400
    assert api(tokens, "nim_sum", solution("make_move")).status_code == 400
    assert page_hand_in(signed_in("ann"), "nim_sum", text=solution("make_move")).status_code == 400
    assert rows() == 0
    assert api(tokens, "nim_sum", solution("nim_sum")).status_code == 202
    assert rows() == 1
    over = api(tokens, "nim_sum", solution("nim_sum"))
    assert over.status_code == 429 and "the 1 time allowed" in over.json()["error"]


def test_the_page_shows_the_sentence_and_keeps_the_pasted_text(tokens):
    ann = signed_in("ann")
    pasted = solution("make_move")
    answer = page_hand_in(ann, "nim_sum", text=pasted)
    page = answer.content.decode()
    assert answer.status_code == 400
    assert "This file defines make_move, the function of make_move.py, and none of nim_sum&#x27;s" in page
    assert "this file as make_move.</p>" in page  # one full stop, not two
    textarea = page[page.index('<textarea name="text"') :]
    kept = html.unescape(textarea[textarea.index(">") + 1 : textarea.index("</textarea>")])
    assert kept == "\n" + pasted  # (a browser drops the newline that follows <textarea>)
    assert rows() == 0


def test_the_page_refuses_an_uploaded_image_saying_so(tokens):
    upload = io.BytesIO(PNG)
    upload.name = "screenshot.png"
    answer = page_hand_in(signed_in("ann"), "nim_sum", upload=upload)
    page = html.unescape(answer.content.decode())
    assert answer.status_code == 400
    assert "Nim_sum.py must be a Python file (text); this file is not text (it starts like a PNG image)" in page
    assert rows() == 0
