"""What a file's failures prove together (``grade/mistakes/evidence.py``), the hints it keeps for the
failures they are about (``hints.resolve``) and the companion file a game's failure comes from
(``grade/mistakes/companion_cause.py``): pure functions over results and source text, no program runs."""

from __future__ import annotations

from grader.check.text import quote
from grader.grade.mistakes import evidence, hints
from grader.grade.mistakes.companion_cause import named, takes_from
from grader.model import Case, CaseResult, Conjecture, Hint, Limits, Verdict, When
from grader.run.run_facts import ChildCrash, Frame

SHIFT = Conjecture("rows counted from 0", "Rows count from 1: your move would be right as [2, 1].")


def _case(name: str, hidden: bool = False, hint: str = "", hints_: tuple = ()) -> Case:
    return Case(name, "[1]", (), "text", {}, Limits(), hidden=hidden, hint=hint, hints=hints_)


def _failed(name, message="Wrong.", conjecture=None, hidden=False, verdict=Verdict.WRONG_ANSWER, hint=""):
    case = _case(name, hidden, hint)
    choices = hints.choices(case, verdict, "out", None)
    return CaseResult(
        case=case,
        verdict=verdict,
        message=message,
        hint_choices=choices,
        failure=evidence.failure_key(verdict, message),
        conjecture=conjecture,
    )


def _passed(name):
    return CaseResult(case=_case(name), verdict=Verdict.ACCEPTED, message="")


# -- how a run failed -----------------------------------------------------------------------------


def test_two_messages_of_one_kind_differ_only_in_their_case_s_values():
    first = 'Line 2 differs from column 4: expected "1: X X X", your program printed "1: | | |".'
    second = 'Line 7 differs from column 5: expected "6: X", your program printed "6: |".'
    assert evidence.message_kind(first) == evidence.message_kind(second)
    board = "Your answer differs in item 4 of item 1 (counting from 1): expected 2, your program printed 5."
    flag = "Your answer differs in item 2 (counting from 1): expected true, your program printed false."
    assert evidence.message_kind(board) != evidence.message_kind(flag)
    assert evidence.message_kind("a list of 1 item: [1]") == evidence.message_kind("a list of 3 items: [1, 2, 3]")
    # another kind of answer: a nim-sum wrong, then a position wrong because of it
    number = 'Your answer differs: expected "0", your program printed "16".'
    truth = 'Your answer differs: expected "true", your program printed "false".'
    assert evidence.message_kind(number) != evidence.message_kind(truth)
    row = quote("1: " + " ".join(["X"] * 1000)), quote("1: " + " ".join(["|"] * 1000))  # shortened, as shown
    long_row = "Line 2 differs from column 4: expected {}, your program printed {}.".format(*row)
    assert evidence.message_kind(long_row) == evidence.message_kind(first)
    short_row = 'Line 3 differs from column 4: expected "2: X X X", your program printed "2: | | |".'
    assert evidence.message_detail(long_row) == evidence.message_detail(short_row)


def test_a_crash_is_its_exception_and_the_line_it_was_raised_at():
    def crash(exception, line):
        return ChildCrash(exception, True, "text", (Frame("make_move.py", line),))

    key = evidence.failure_key(Verdict.RUNTIME_ERROR, "one", crash("IndexError", 7))
    assert key == evidence.failure_key(Verdict.RUNTIME_ERROR, "another", crash("IndexError", 7))
    assert key != evidence.failure_key(Verdict.RUNTIME_ERROR, "one", crash("IndexError", 8))
    assert key != evidence.failure_key(Verdict.RUNTIME_ERROR, "one", crash("RuntimeError", 7))
    assert evidence.failure_key(Verdict.ACCEPTED, "") == ()


def test_a_smaller_input_fails_the_same_way_only_with_the_same_verdict_and_kind():
    wrong = _failed(
        "a", "Your answer differs in item 4 of item 1 (counting from 1): expected 2, your program printed 5."
    )
    smaller = _failed(
        "b", "Your answer differs in item 3 of item 1 (counting from 1): expected 0, your program printed 3."
    )
    assert evidence.same_failure(wrong, smaller)
    crashed = _failed("c", "Your program crashed with RuntimeError.", verdict=Verdict.RUNTIME_ERROR)
    assert not evidence.same_failure(wrong, crashed)
    other = _failed("d", "Your answer differs in item 2 (counting from 1): expected true, your program printed false.")
    assert not evidence.same_failure(wrong, other)


# -- a cause one case suggests ---------------------------------------------------------------------


def test_a_conjecture_that_explains_one_failure_of_many_is_not_said():
    results = [_failed("a", conjecture=SHIFT)] + [_failed(n) for n in "bcdef"]
    settled = evidence.settle(results)
    assert all("Rows count from 1" not in r.message and r.conjecture is None for r in settled)


def test_a_conjecture_that_explains_most_failures_is_said_on_each_it_explains():
    results = [_failed("a", conjecture=SHIFT), _failed("b", conjecture=SHIFT), _failed("c"), _passed("d")]
    settled = evidence.settle(results)
    assert [("Rows count from 1" in r.message) for r in settled] == [True, True, False, False]


def test_one_failure_alone_proves_no_conjecture_and_hidden_cases_are_no_evidence():
    assert "Rows count from 1" not in evidence.settle([_failed("a", conjecture=SHIFT)])[0].message
    results = [_failed("a", conjecture=SHIFT), _failed("b", conjecture=SHIFT, hidden=True)]
    assert all("Rows count from 1" not in r.message for r in evidence.settle(results))


# -- a failure explained by an earlier case ------------------------------------------------------------


def test_a_plain_hint_is_not_shown_where_an_earlier_case_failed_the_same_way():
    fmt = 'Line 2 differs from column 4: expected "{}", your program printed "{}".'
    small = _failed("small", fmt.format("1: X", "1: |"), hint="Print one X per object.")
    big = _failed("big", fmt.format("1: X X X", "1: | | |"), hidden=True, hint="A row can hold up to 1000 objects.")
    first, second = hints.resolve([small, big])
    assert first.hint == "Print one X per object." and first.message.endswith("Hint: Print one X per object.")
    assert second.hint == "" and "1000" not in second.message
    assert first.failure == () and second.failure == ()  # kept while grading only


def test_a_hint_of_a_case_that_fails_its_own_way_is_shown():
    small = _failed("small", 'Your output has 2 line(s) too many after the expected 2; the first extra one is "x".')
    big = _failed(
        "big", 'Line 2 differs from column 4: expected "1: X", your program printed "1: Y".', hint="Big rows."
    )
    assert hints.resolve([_passed("first"), small, big])[2].hint == "Big rows."


def test_a_hidden_case_keeps_its_hint_where_its_answer_is_another_one_or_it_is_visible():
    # the truth table of "and": 1 xor 0 gives 0 (shown), 1 xor 1 gives 1 (another row, hidden)
    differs = 'Line 1 differs from column 1: expected "{}", your program printed "{}".'
    shown = _failed("1 xor 0", differs.format(1, 0), hint="Exactly one 1 gives 1.")
    same_row = _failed("0 xor 1", differs.format(1, 0), hidden=True, hint="Whichever bit it is.")
    other_row = _failed("1 xor 1", differs.format(0, 1), hidden=True, hint="Two equal bits give 0.")
    visible_again = _failed("1 xor 0 again", differs.format(1, 0), hint="Exactly one 1 gives 1.")
    resolved = hints.resolve([shown, visible_again, same_row, other_row])
    assert [r.hint for r in resolved] == [
        "Exactly one 1 gives 1.",
        "Exactly one 1 gives 1.",
        "",
        "Two equal bits give 0.",
    ]


def test_a_hint_tied_to_the_output_is_shown_even_after_the_same_failure():
    case = _case("zero", hint="The plain one.", hints_=(Hint("Rows count from 1.", When(pattern="^0:")),))
    message = 'Line 2 differs from column 1: expected "1: X", your program printed "0: X".'
    earlier = _failed("earlier", message)
    later = CaseResult(
        case=case,
        verdict=Verdict.WRONG_ANSWER,
        message=message,
        hint_choices=hints.choices(case, Verdict.WRONG_ANSWER, "0: X", None),
        failure=evidence.failure_key(Verdict.WRONG_ANSWER, message),
    )
    assert hints.resolve([earlier, later])[1].hint == "Rows count from 1."


# -- a failure that comes from a companion file ------------------------------------------------------

GAME = "from present_board import present_board\n\n\ndef play(board):\n    print(present_board(board))\n"


def test_a_game_s_board_text_is_named_after_the_companion_it_comes_from():
    said = named("The rows must be numbered 1, 2, 3.", "present_board", GAME, ("present_board.py",), "working_game.py")
    assert said.startswith("This comes from your present_board.py")
    assert "The rows must be numbered 1, 2, 3." in said


def test_no_companion_is_named_where_the_file_does_the_work_itself():
    own = GAME + "\n\ndef present_board(board):\n    return 'Nim:'\n"
    assert not takes_from(own, "present_board")  # its own function, defined after the import
    assert not takes_from("import present_board\n", "present_board")  # imported, never called
    assert takes_from("import present_board\npresent_board.present_board([1])\n", "present_board")
    message = "The rows must be numbered 1, 2, 3."
    assert named(message, "present_board", own, ("present_board.py",), "working_game.py") == message
    assert named(message, "present_board", GAME, (), "working_game.py") == message  # no file of theirs
    assert named(message, "", GAME, ("present_board.py",), "working_game.py") == message
