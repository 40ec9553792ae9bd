"""Output a checker cannot parse is the student's wrong answer, and checking is linear in the output.

A program's output is untrusted: a number of 5,000 digits (Python refuses int() of more than 4,300),
200,000 nested brackets (RecursionError) or a 4,301-digit row in a move must give a wrong answer
with a sentence, from every checker the registry hands out, from a course's own checkers and from
the game's session, never an exception out of grading. The end-to-end runs are in
``test_hostile_runs.py``.
"""

from __future__ import annotations

import inspect
import random

import pytest
from support import render

from grader.check.guard import GuardedSession, unreadable_message
from grader.check.random_answers import answer_key
from grader.check.text import extra_lines_message, find_lines, same_but_spacing
from grader.model import Verdict
from grader.nim import game
from grader.nim.lab import lab_checkers
from grader.run.run_facts import RunResult

DIGITS = "1" * 5000
NESTED = "[" * 200_000 + "]" * 200_000
ROW_DIGITS = "[" + "1" * 4301 + ", 1]"
ZEROS_ROW = "0" * 5000
HOSTILE = {"5000-digits": DIGITS, "200000-nested": NESTED, "4301-digit-row": ROW_DIGITS}
# checker → (expected, case input, options): a case each checker can grade
CASES = {
    "text": ("1\n", "", {}),
    "tokens": ("1 2\n", "", {}),
    "json": ("[1, 2]", "", {}),
    "float": ("1.5", "", {}),
    "regex": ("[0-9]{1,3}", "", {}),
    "optimal_move": ("", "[1, 3, 5]", {}),
}
# What the checkers that read numbers or JSON say of each hostile output.
REASONS = {
    "5000-digits": "more than 4,300 digits",
    "200000-nested": "nested too deeply",
    "4301-digit-row": "more than 4,300 digits",
}


def readable(message: str) -> bool:
    """A message a student can read: a sentence or two, not a dump of their output."""
    return 20 < len(message) < 400 and message.endswith(".")


@pytest.mark.parametrize("checker", sorted(CASES))
@pytest.mark.parametrize("hostile", sorted(HOSTILE))
def test_every_checker_gives_a_wrong_answer_for_hostile_output(checker, hostile):
    expected, case_input, options = CASES[checker]
    outcome = lab_checkers().get(checker)(HOSTILE[hostile], expected, case_input, options)
    assert outcome.verdict is Verdict.WRONG_ANSWER
    assert readable(outcome.message), outcome.message
    if checker in ("json", "optimal_move"):
        assert REASONS[hostile] in outcome.message


def test_json_answer_among_unreadable_lines_is_found():
    outcome = lab_checkers().get("json")("[1, 2]\n" + DIGITS + "\n", "[1, 2]", "", {})
    assert outcome.verdict is Verdict.WRONG_ANSWER and outcome.answer_found
    assert "1 line after it" in outcome.message


def test_a_move_with_a_4300_digit_row_is_illegal_and_said_briefly():
    outcome = lab_checkers().get("optimal_move")("[" + "1" * 4300 + ", 1]", "", "[1, 3, 5]", {})
    assert outcome.verdict is Verdict.WRONG_ANSWER
    assert "(a number of 4,300 digits) does not exist" in outcome.message and readable(outcome.message)


def test_a_course_checker_that_raises_gives_a_wrong_answer():
    def fragile(actual, expected, case_input, *, base: int = 10):
        return int(actual, base)  # raises on anything but a number

    registry = lab_checkers()
    registry.register("fragile", fragile)
    checker = registry.get("fragile")
    assert checker.option_errors({"base": 2}) == [] and checker.option_errors({"bsae": 2})  # options still checked
    assert list(inspect.signature(checker.function).parameters) == ["actual", "expected", "case_input", "base"]
    for output, words in [(DIGITS, "more than 4,300 digits"), ("x", "ValueError"), ("", "ValueError")]:
        outcome = checker(output, "", "", {})
        assert outcome.verdict is Verdict.WRONG_ANSWER and words in outcome.message


def test_unreadable_messages_say_what_they_can():
    assert unreadable_message(MemoryError()).startswith("Your output could not be read as an answer: it is too large")
    try:
        int(DIGITS)
    except ValueError as error:
        assert "a number of more than 4,300 digits" in unreadable_message(error)
    assert "(reading it stopped with KeyError)" in unreadable_message(KeyError("row"))


@pytest.mark.parametrize("hostile", sorted(HOSTILE))
def test_answer_key_never_raises(hostile):
    assert answer_key(HOSTILE[hostile]) == " ".join(HOSTILE[hostile].split())
    assert answer_key(" [1,  2] ") == "[1, 2]"


# -- the game's session ---------------------------------------------------------------------------


def started(players, board):
    """A working_game session that has typed the setup lines (two names and the board)."""
    session = game.nim_game(players=list(players), board=list(board), human="script")
    assert [session.waiting() for _ in range(3)] == [players[0], players[1], " ".join(map(str, board))]
    return session


def shown(board) -> str:
    return render(board) + "\n"


def ran() -> RunResult:
    return RunResult(
        exit_code=0, signal=None, stdout=b"", stderr=b"", stdout_bytes=0, stderr_bytes=0, time_s=0.1, timed_out=False
    )


def test_a_computer_move_with_a_5000_digit_row_is_illegal():
    session = started(("Computer", "Alice"), (1, 2))
    session.output(shown([1, 2]) + f"Computer removes 1 from row {'1' * 5000}\n")
    assert session.done()
    problem = session.outcome(ran())
    assert problem.verdict is Verdict.WRONG_ANSWER
    assert problem.message.startswith('The move "Computer removes 1 from row 1111111111 ... 1111')
    assert problem.message.endswith(
        "is illegal: it has a number of more than 4,300 digits, and no row or heap is that large."
    )
    assert readable(problem.message) and problem.line == 7


def test_leading_zeros_do_not_count_as_digits():
    session = started(("Computer", "Alice"), (1, 2))
    session.output(shown([1, 2]) + f"Computer removes 1 from row {ZEROS_ROW}1\n")
    assert session.problem is not None  # row 1 is read as row 1: a legal move, but not the winning one
    assert "must play the winning strategy" in session.problem.message


def test_a_board_row_numbered_with_5000_digits_is_out_of_order():
    session = started(("Alice", "Bob"), (1, 2))
    session.output(f"Nim:\n1: X\n{DIGITS}: X X\nAlice, make a move: ")
    assert session.waiting() is None
    assert session.problem.message == "The rows of the board must be numbered 1, 2, 3, ... in order."


class Fragile:
    """A session whose reading of the output raises, as an unguarded one may."""

    transcript = "Alice\nBob\n"

    def output(self, text: str) -> None:
        int(text)

    def waiting(self):
        return "1 1"

    def done(self) -> bool:
        return False

    def outcome(self, run):
        return None


def test_a_guarded_session_turns_its_error_into_a_wrong_answer():
    session = GuardedSession(Fragile())
    assert not session.done() and session.waiting() == "1 1"
    session.output(DIGITS)
    assert session.done() and session.waiting() is None
    problem = session.outcome(ran())
    assert problem.verdict is Verdict.WRONG_ANSWER and problem.line == 3
    assert problem.message.startswith("The grader could not read what your program printed: it holds a number")


def test_registered_sessions_are_guarded():
    session = lab_checkers().get("nim_game").function(players=["Alice", "Bob"], board=[1, 2], human="script")
    assert isinstance(session, GuardedSession) and isinstance(session.inner, game.NimGameSession)
    assert session.waiting() == "Alice" and session.moves == 0  # the session's own attributes pass through


# -- the text checker's work is linear in the output ------------------------------------------------


def naive_find(lines: list, wanted: list) -> int:
    for start in range(len(lines) - len(wanted) + 1):
        if lines[start : start + len(wanted)] == wanted:
            return start
    return -1


def test_find_lines_agrees_with_the_naive_search():
    rng = random.Random(7)
    for _ in range(3000):
        lines = [rng.choice("ab") for _ in range(rng.randint(0, 12))]
        wanted = [rng.choice("abc") for _ in range(rng.randint(1, 4))]
        assert find_lines(lines, wanted) == naive_find(lines, wanted), (lines, wanted)


def counted_lines(texts, calls: list) -> list:
    """``texts`` as distinct string objects that count every comparison and hash made of them."""

    class Line(str):
        __slots__ = ()

        def __eq__(self, other):
            calls[0] += 1
            return str.__eq__(self, other)

        def __ne__(self, other):
            calls[0] += 1
            return str.__ne__(self, other)

        __hash__ = str.__hash__

    return [Line(text) for text in texts]


def test_the_search_for_the_answer_among_extra_lines_is_linear():
    # Every start of the output matches the expected lines but for the last one: comparing at every
    # start costs output lines * expected lines (190,000 here); a linear search a few per line.
    calls = [0]
    actual = counted_lines(["a"] * 2000, calls)
    expected = counted_lines(["a"] * 99 + ["b"], calls)
    assert extra_lines_message(actual, expected) is None
    assert calls[0] <= 4 * (len(actual) + len(expected)), calls[0]
    calls[0] = 0
    actual = counted_lines(["a"] * 2000 + ["b"], calls)
    assert "1901 lines before the answer" in extra_lines_message(actual, expected)
    assert calls[0] <= 4 * (len(actual) + len(expected)), calls[0]


def test_spacing_is_compared_as_str_split_does():
    rng = random.Random(11)
    alphabet = "ab \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x1b\xa0"
    for _ in range(5000):
        one, two = ("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))) for _ in range(2))
        assert same_but_spacing(one, two) == ("".join(one.split()) == "".join(two.split())), (one, two)
