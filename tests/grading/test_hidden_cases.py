"""What a hidden case says when it fails: its name, verdict, one fixed sentence and the course's
hint, never anything of its input, its expected output, or what the program did (its output, error
output, a crash's text or exception name, the time it took).

A crash at start-up (an import that fails, a name used before it is defined, a companion file that
crashes as it is imported) is named by the visible cases, which crash the same way; the hidden ones
say "crashed".
"""

from __future__ import annotations

import shutil

import pytest
from support import PROJECT, mutate, solution

from grader.grade.grading import grade_file
from grader.model import Verdict

DEBUG_PRINTS = "debug prints"


def hidden_failures(result):
    cases = [c for c in result.cases if c.case.hidden]
    assert cases, "the task should have hidden cases"
    assert all(not c.accepted for c in cases)
    return cases


def assert_leaks_nothing(case) -> None:
    for secret in (case.case.input.strip(), *(e.strip() for e in case.case.expected)):
        if secret:
            assert secret not in case.message


@pytest.mark.parametrize(
    "start, crash",
    [
        pytest.param("from math import no_such_function\n", "ImportError", id="import-error"),
        pytest.param("import no_such_module_here\n", "ModuleNotFoundError", id="module-not-found"),
        pytest.param("print(undefined_helper(1))\n", "NameError", id="name-error-at-module-level"),
    ],
)
def test_a_crash_at_start_up_is_named_by_the_visible_cases_and_hidden_ones_say_crashed(grade, start, crash):
    result = grade("nim_sum", start + solution("nim_sum"))
    for case in hidden_failures(result):
        assert case.verdict is Verdict.RUNTIME_ERROR
        assert case.message.startswith("This hidden case was not accepted: your program crashed.")
        assert crash not in case.message
        assert_leaks_nothing(case)
    visible = [c for c in result.cases if not c.case.hidden]
    assert all(crash in c.message for c in visible)


def test_a_companion_that_crashes_as_it_is_imported(tmp_path, course, context):
    folder = tmp_path / "ann"
    folder.mkdir()
    for path in (PROJECT / "solutions").glob("*.py"):
        shutil.copy(path, folder)
    board = folder / "present_board.py"
    board.write_text('raise ValueError("not finished yet")\n' + board.read_text())
    result = grade_file(course["working_game"], folder / "working_game.py", context, "ann/working_game.py")
    for case in hidden_failures(result):
        assert case.verdict is Verdict.RUNTIME_ERROR
        assert case.message.startswith("This hidden case was not accepted: your program crashed.")
    visible = [c for c in result.cases if not c.case.hidden]
    assert any("present_board.py" in c.message and "ValueError" in c.message for c in visible)


def test_debug_prints_are_named_by_the_visible_cases_only(grade):
    source = mutate(
        "nim_sum", "        print(json.dumps(result))\n", "        print('debug')\n        print(json.dumps(result))\n"
    )
    result = grade("nim_sum", source)
    for case in hidden_failures(result):
        assert case.message.startswith("This hidden case was not accepted: your program gave a wrong answer.")
        assert DEBUG_PRINTS not in case.message
        assert_leaks_nothing(case)
    assert any(DEBUG_PRINTS in c.message for c in result.cases if not c.case.hidden)


def test_right_answer_with_other_spacing_is_not_called_debug_prints(grade):
    source = mutate("present_board", 'str(number) + ":" + " X" * size', 'str(number) + ":  " + " X" * size')
    result = grade("present_board", source)
    spacing = [c for c in result.cases if c.case.hidden and c.verdict is Verdict.PRESENTATION_ERROR]
    assert spacing, "a hidden case should show the doubled space"
    for case in spacing:
        assert case.message.startswith("This hidden case was not accepted: your program gave the right answer with")
        assert DEBUG_PRINTS not in case.message
