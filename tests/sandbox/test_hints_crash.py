"""A hint tied to a crash names a cause, and the exception's class alone seldom proves it
(docs/testcases.md, "Hints: tied to the failures they explain"): ``exception`` holds for Python's
own class only, and ``exception_text`` is a regular expression found in the exception's message.
The red team's optimal_move: an off-by-one ``board[row]`` raises IndexError as random.choice of an
empty list does, and must not be told of a random.choice it never made, on a visible case or a
hidden one.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from support import PROJECT, mutate

from grader.course.loader import load_task
from grader.errors import CaseFileError
from grader.grade.grading import grade_file
from grader.model import Verdict, When
from grader.nim.lab import lab_checkers

# The words of optimal_move's two hints about random.choice of an empty list.
CHOICE_HINTS = ("random.choice of an empty list crashes", "If your list of good rows is empty")
P_BRANCH = "    index = random.choice(non_empty_rows)\n    return index + 1, random.randint(1, board[index])\n"


def messages(result) -> dict:
    """The message of each case not accepted, by case name."""
    return {c.case.name: c.message for c in result.cases if not c.accepted}


@pytest.mark.parametrize(
    "new",
    [
        pytest.param(
            "    row = random.randint(1, len(board))\n    return row, random.randint(1, board[row])\n",
            id="random-row-off-by-one",
        ),
        pytest.param("    row = len(board)\n    return row, random.randint(1, board[row])\n", id="last-row-off-by-one"),
    ],
)
def test_an_off_by_one_index_error_gets_no_random_choice_hint_visible_or_hidden(grade, new):
    result = grade("optimal_move", mutate("optimal_move", P_BRANCH, new))
    crashed = {c.case.name: c for c in result.cases if c.verdict is Verdict.RUNTIME_ERROR}
    assert any("IndexError (list index out of range)" in c.message for c in crashed.values()), messages(result)
    for name, message in messages(result).items():
        wrong = [words for words in CHOICE_HINTS if words in message]
        assert not wrong, f"{name!r}: {message}"
    if "len(board)\n" in new:  # every P-position crashes on board[len(board)]: the hidden ones too
        hidden = [c for c in crashed.values() if c.case.hidden]
        assert {c.case.name for c in hidden} >= {"hidden case 2: a board with empty rows"}
        for case in hidden:
            assert case.message == "This hidden case was not accepted: your program crashed.", case.message


@pytest.mark.parametrize(
    "source",
    [
        pytest.param((PROJECT / "solutions/wrong/optimal_move/crash_on_p_position.py").read_text(), id="good-rows"),
        pytest.param(mutate("optimal_move", "        if size > 0:\n", "        if size > 1000:\n"), id="no-non-empty"),
    ],
)
def test_random_choice_of_an_empty_list_still_gets_its_hint(grade, source):
    result = grade("optimal_move", source)
    case = next(c for c in result.cases if c.case.name.startswith("P-position 1, 2, 3"))
    assert case.verdict is Verdict.RUNTIME_ERROR, case.message
    # on every Python: 3.9 and 3.10 say "list index out of range" inside random.choice, which the
    # process that ran the program reports in 3.11's words
    assert "random.choice of an empty list crashes" in case.hint, case.message
    hidden = next(c for c in result.cases if c.case.name == "hidden case 2: a board with empty rows")
    assert hidden.verdict is Verdict.RUNTIME_ERROR
    assert "random.choice of an empty list crashes" in hidden.message, hidden.message


# -- a demo task -----------------------------------------------------------------------------------

CRASHES = r"""
task: demo
time_limit: 2
cases:
  - name: one
    input: '1'
    expected: '1'
    hints:
      - when: {exception: IndexError, exception_text: 'empty sequence'}
        text: Choose from a list with items in it.
      - when: {exception: IndexError}
        text: An index past the end.
      - when: {verdict: runtime_error}
        text: It crashed.
"""


def grade_demo(tmp_path, context, program: str, text: str = CRASHES):
    path = tmp_path / "testcases" / "demo.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    program_path = tmp_path / "demo.py"
    program_path.write_text(textwrap.dedent(program), encoding="utf-8")
    (case,) = grade_file(load_task(path, lab_checkers()), program_path, context).cases
    return case


def expect_hint(case, hint: str) -> None:
    assert case.verdict is Verdict.RUNTIME_ERROR, case.message
    assert case.hint == hint, case.message
    assert (f"Hint: {hint}" in case.message) if hint else ("Hint:" not in case.message)


@pytest.mark.parametrize(
    "program, hint",
    [
        ("raise IndexError('Cannot choose from an empty sequence')\n", "Choose from a list with items in it."),
        ("[][0]\n", "An index past the end."),
        ("raise ValueError('empty sequence')\n", "It crashed."),  # the text, but not the class
        ("class IndexError(Exception):\n    pass\nraise IndexError('empty sequence')\n", "It crashed."),
    ],
)
def test_exception_text_is_searched_in_the_message_of_pythons_own_class(tmp_path, context, program, hint):
    expect_hint(grade_demo(tmp_path, context, program), hint)


OWN_CLASS = """
task: demo
time_limit: 2
cases:
  - name: one
    input: '1'
    expected: '1'
    hints:
      - when: {exception: IndexError}
        text: An index past the end.
      - when: {verdict: runtime_error}
        text: It crashed.
"""


@pytest.mark.parametrize(
    "program, hint",
    [
        ("[][0]\n", "An index past the end."),
        # the student's own classes: neither tells what Python's would
        ("class IndexError(Exception):\n    pass\nraise IndexError('list index out of range')\n", "It crashed."),
        ("class IndexError(LookupError):\n    pass\nraise IndexError('list index out of range')\n", "It crashed."),
        # a student's own NameError is not a file set up wrong: the case's hints still apply
        ("class NameError(Exception):\n    pass\nraise NameError('x')\n", "It crashed."),
        ("print(undefined_name)\n", ""),  # Python's own NameError: the grader's sentence says it all
    ],
)
def test_exception_holds_for_pythons_own_class_only(tmp_path, context, program, hint):
    expect_hint(grade_demo(tmp_path, context, program, OWN_CLASS), hint)


def test_exception_text_alone_is_a_crash_whose_message_matches(tmp_path, context):
    text = CRASHES.replace("{exception: IndexError, exception_text: 'empty sequence'}", "{exception_text: 'empty'}")
    task_case = grade_demo(tmp_path, context, "raise ValueError('empty range for randrange()')\n", text)
    assert task_case.hint == "Choose from a list with items in it."
    path = tmp_path / "testcases" / "demo.yaml"
    (case,) = load_task(path, lab_checkers()).cases
    assert case.hints[0].when == When(verdicts=(Verdict.RUNTIME_ERROR,), exception_text="empty")


def test_an_exception_text_that_backtracks_for_ever_is_not_matched(tmp_path, context):
    text = CRASHES.replace("exception_text: 'empty sequence'", r"exception_text: '^(\w+\s?)*$'")
    case = grade_demo(tmp_path, context, "raise IndexError('an index ' + 'word ' * 30 + '!')\n", text)
    assert case.hint == "An index past the end."


@pytest.mark.parametrize(
    "when, problem",
    [
        pytest.param(
            "{exception: IndexError, exception_text: 'empty (sequence'}",
            "'exception_text' in the 'when' of hint 1 in case 'second' is not a valid regular expression",
            id="bad-regex",
        ),
        pytest.param(
            "{verdict: wrong_answer, exception_text: 'empty'}",
            "'exception_text' in the 'when' of hint 1 in case 'second' needs the verdict runtime_error",
            id="without-crash",
        ),
        pytest.param(
            "{exception: IndexError, exception_txt: 'empty'}",
            "unknown key 'exception_txt' in the 'when' of hint 1 in case 'second' (did you mean 'exception_text'?)",
            id="typo",
        ),
    ],
)
def test_a_bad_exception_text_is_refused_naming_file_line_and_key(tmp_path, when, problem):
    text = f"""
task: demo
cases:
  - name: first
    input: '1'
    expected: '1'
  - name: second
    input: '2'
    expected: '2'
    hints:
      - text: x
        when: {when}
"""
    path = Path(tmp_path) / "testcases" / "demo.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(text.lstrip("\n"), encoding="utf-8")
    with pytest.raises(CaseFileError) as caught:
        load_task(path, lab_checkers())
    assert str(caught.value).startswith(f"{path}, line 11: "), str(caught.value)
    assert problem in str(caught.value)
