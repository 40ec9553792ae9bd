"""``wrong_file.refusal``: a file handed in for a task that is not text, or plainly another task's
file, is refused with a sentence; every other file (right, half written, broken) is graded."""

from __future__ import annotations

import pytest
from support import COURSE, solution

from grader.submission.wrong_file import another_tasks_file, not_text, read_stubs, refusal, refusal_in_course

TASKS = COURSE.task_ids()
STUBS = read_stubs(COURSE, TASKS)
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10"


def test_the_course_has_nine_tasks_each_with_a_stub():
    assert len(TASKS) == 9 and sorted(STUBS) == sorted(TASKS)


@pytest.mark.parametrize("task", TASKS)
def test_each_reference_solution_is_graded_as_its_own_task(task):
    assert refusal_in_course(COURSE.solution(task).read_bytes(), task, COURSE) is None


@pytest.mark.parametrize("task", TASKS)
def test_each_exercise_stub_is_graded_as_its_own_task(task):
    assert refusal(STUBS[task], task, STUBS) is None


def test_every_known_wrong_solution_is_graded_as_its_own_task():
    found = [(task, path) for task in TASKS if COURSE.wrong(task).is_dir() for path in COURSE.wrong(task).glob("*.py")]
    assert found
    assert [str(path) for task, path in found if refusal(path.read_bytes(), task, STUBS)] == []


@pytest.mark.parametrize(
    "data, words",
    [
        pytest.param(PNG, "it starts like a PNG image", id="png"),
        pytest.param(b"\xff\xd8\xff\xe0\x00\x10JFIF", "JPEG image", id="jpeg"),
        pytest.param(b"PK\x03\x04\x14\x00\x06\x00word/document.xml", "a Word .docx", id="docx"),
        pytest.param(b"\x7fELF\x02\x01\x01\x00", "compiled program", id="elf"),
        pytest.param(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "a PDF document", id="pdf"),
        pytest.param("print(1)\n".encode("utf-16"), "UTF-16", id="utf-16"),
    ],
)
def test_a_file_that_is_not_text_is_refused_saying_what_it_looks_like(data, words):
    said = refusal(data, "nim_sum", STUBS)
    assert said.startswith("nim_sum.py must be a Python file (text); this file is not text")
    assert words in said


def test_a_nul_byte_is_refused_with_its_line():
    said = refusal(b"def nim_sum(board):\n    return 0\x00\n", "nim_sum", STUBS)
    assert "NUL byte (line 2)" in said and said.startswith("nim_sum.py must be a Python file")


def test_bytes_that_are_not_utf8_are_refused_with_the_byte_and_its_line():
    data = solution("nim_sum").encode() + "# écrit par moi\n".encode("latin-1")
    said = refusal(data, "nim_sum", STUBS)
    assert "byte 0xe9 on line" in said and "Save it as UTF-8" in said
    line = data.decode("latin-1").count("\n")
    assert f"on line {line} " in said


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"\xef\xbb\xbf" + solution("nim_sum").encode(), id="utf8-bom"),
        pytest.param(
            "# -*- coding: latin-1 -*-\n# écrit\n".encode("latin-1") + solution("nim_sum").encode(),
            id="latin-1-declared",
        ),
        pytest.param("# naïve → ü\n".encode() + solution("nim_sum").encode(), id="utf8-non-ascii"),
        pytest.param(b"", id="empty"),
        pytest.param(b"MZ = 1\n", id="printable-magic-that-is-python"),
    ],
)
def test_text_python_can_read_is_not_refused_as_not_text(data):
    assert not_text(data, "nim_sum.py") is None


def test_make_move_handed_in_as_nim_sum_is_refused_naming_both():
    said = refusal(solution("make_move").encode(), "nim_sum", STUBS)
    assert said == (
        "This file defines make_move, the function of make_move.py, and none of nim_sum's "
        "(nim_sum, is_n_position, is_p_position): did you choose the wrong file? Hand in your nim_sum.py "
        "here, and this file as make_move."
    )


def test_nim_sum_handed_in_as_make_move_is_refused():
    said = refusal(solution("nim_sum").encode(), "make_move", STUBS)
    assert "defines nim_sum, is_n_position and is_p_position, the functions of nim_sum.py" in said
    assert "none of make_move's (make_move)" in said and said.endswith("this file as nim_sum.")


def test_ui_handed_in_as_working_game_is_refused_and_working_game_as_ui_too():
    said = refusal(solution("ui").encode(), "working_game", STUBS)
    assert "the functions of ui.py" in said and "none of working_game's (play_nim, run_game)" in said
    # working_game.py imports ui's functions; importing is not defining them
    said = refusal(solution("working_game").encode(), "ui", STUBS)
    assert said and "play_nim and run_game, the functions of working_game.py" in said


def test_the_task_named_is_the_one_whose_functions_the_file_defines_most_of():
    said = refusal(solution("optimal_move").encode(), "make_move", STUBS)
    assert "this file as optimal_move." in said  # not nim_sum, whose nim_sum it also defines
    said = refusal(solution("exclusive_or").encode(), "make_move", STUBS)
    assert "this file as exclusive_or." in said  # not bitwise_xor, which copies exclusive_or in
    partial = "def bitwise_exclusive_or(a, b):\n    return 0\n\ndef exclusive_or(a, b):\n    return 0\n"
    said = refusal(partial.encode(), "make_move", STUBS)
    assert "exclusive_or, functions of bitwise_xor.py" in said and said.endswith("this file as bitwise_xor.")


@pytest.mark.parametrize(
    "text, task",
    [
        pytest.param(solution("nim_sum") + "\n" + solution("make_move"), "nim_sum", id="both-own-and-another"),
        pytest.param(solution("make_move") + "\nnim_sum = None\n", "nim_sum", id="own-name-assigned"),
        pytest.param("print(0)\n", "nim_sum", id="no-function-of-any-task"),
        pytest.param("def my_nim_sum(board):\n    return 0\n", "nim_sum", id="other-names"),
        pytest.param("def make_move(board, row, elements)\n    return board\n", "nim_sum", id="syntax-error"),
        pytest.param("def self_test():\n    pass\n", "nim_sum", id="only-what-every-stub-has"),
        pytest.param(solution("exclusive_or"), "bitwise_xor", id="a-helper-the-stub-copies-in"),
        pytest.param(solution("nim_sum"), "optimal_move", id="optimal_move-defines-nim_sum-too"),
        pytest.param("from make_move import make_move\nfrom ui import parse_move\n", "working_game", id="imports-only"),
        pytest.param(
            "try:\n    from ui import parse_move\nexcept ImportError:\n"
            "    def parse_move(text):\n        return None\n",
            "ui",
            id="defined-in-a-block-at-the-top",
        ),
    ],
)
def test_files_that_are_not_plainly_another_tasks_are_graded(text, task):
    assert another_tasks_file(text.encode(), task, STUBS) is None


def test_without_the_tasks_stub_no_file_is_refused_as_anothers():
    stubs = {task: stub for task, stub in STUBS.items() if task != "nim_sum"}
    assert refusal(solution("make_move").encode(), "nim_sum", stubs) is None
    assert refusal(solution("make_move").encode(), "nim_sum", {}) is None


def test_the_functions_come_from_the_stubs_not_from_a_list():
    test = b"\n\ndef self_test():\n    return\n"  # in every stub: no task's own
    stubs = {"alpha": b"def one():\n    pass\n" + test, "beta": b"def two():\n    ...\n" + test}
    said = refusal(b"def two():\n    return 2\n" + test, "alpha", stubs)
    assert said and "defines two, the function of beta.py, and none of alpha's (one)" in said
    assert refusal(b"def one():\n    return 1\n", "alpha", stubs) is None
