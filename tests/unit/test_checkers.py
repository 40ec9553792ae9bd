"""The built-in checkers and the checker registry, as a student or an instructor sees them.

Each row of ``ROWS`` is ``(checker, expected, actual, options, verdict, words_in_message)``: the
checker called ``checker`` compares ``actual`` (what the program printed) with ``expected`` and
must give ``verdict`` with a message containing every one of ``words_in_message``.
"""

from __future__ import annotations

import pytest

from grader.check.registry import CheckerRegistry
from grader.model import CheckOutcome, Verdict
from grader.nim.lab import lab_checkers

OK = Verdict.ACCEPTED
WA = Verdict.WRONG_ANSWER
PE = Verdict.PRESENTATION_ERROR


def row(id, checker, expected, actual, verdict, words=(), options=None, marks=()):
    return pytest.param(checker, expected, actual, options or {}, verdict, tuple(words), id=id, marks=marks)


ROWS = [
    # -- text -----------------------------------------------------------------------------------
    row("text/same", "text", "1 2 3\n", "1 2 3\n", OK),
    row("text/no-final-newline", "text", "1 2 3\n", "1 2 3", OK),
    row("text/trailing-spaces", "text", "a\nb\n", "a   \nb\t\n", OK),
    row("text/trailing-blank-lines", "text", "a\nb\n", "a\nb\n\n\n  \n", OK),
    row("text/crlf", "text", "a\nb\n", "a\r\nb\r\n", OK),
    row(
        "text/extra-space-inside-line",
        "text",
        "1 2 3\n",
        "1  2 3\n",
        PE,
        ["spacing", "line 1", "column 3", '"1·2·3"', '"1··2·3"'],
    ),
    row("text/leading-space", "text", "1 2 3\n", " 1 2 3\n", PE, ["spacing", "line 1"]),
    row("text/tab-instead-of-space", "text", "1 2\n", "1\t2\n", PE, ["spacing"]),
    row("text/line-split-in-two", "text", "1 2 3\n", "1 2\n3\n", PE, ["spacing", "line 1"]),
    row("text/two-lines-joined", "text", "1\n2\n", "1 2\n", PE, ["spacing"]),
    row("text/blank-line-inside", "text", "a\nb\n", "a\n\nb\n", PE, ["spacing", "line 2"]),
    row("text/wrong-line", "text", "1\n2\n3\n", "1\n4\n3\n", WA, ["Line 2", '"2"', '"4"']),
    row("text/wrong-first-line", "text", "yes\n", "no\n", WA, ["Line 1", '"yes"', '"no"']),
    row("text/case-matters", "text", "Yes\n", "yes\n", WA, ["Line 1"]),
    row("text/missing-lines", "text", "1\n2\n3\n", "1\n", WA, ["stops after 1 line", "3 were expected", '"2"']),
    row("text/extra-line-after", "text", "1\n2\n", "1\n2\n3\n", WA, ["1 line after", '"3"']),
    row("text/extra-lines-when-nothing-expected", "text", "", "oops\n", WA, ["too many", '"oops"']),
    row("text/debug-print-before-answer", "text", "5\n", "x = 3\n5\n", WA, ["before the answer", "debug", '"x = 3"']),
    row(
        "text/two-debug-prints-before-answer",
        "text",
        "5\n",
        "start\nx = 3\n5\n",
        WA,
        ["2 lines before the answer", "debug", '"start"'],
    ),
    # -- tokens ---------------------------------------------------------------------------------
    row("tokens/same", "tokens", "1 2 3", "1 2 3", OK),
    row("tokens/spacing-free", "tokens", "1 2 3\n", "  1\t2\n\n 3  ", OK),
    row("tokens/wrong-word", "tokens", "1 2 3", "1 5 3", WA, ["Word 2", '"2"', '"5"']),
    row("tokens/missing-word", "tokens", "1 2 3", "1 2", WA, ["2 words", "3 were expected"]),
    row("tokens/extra-word", "tokens", "1 2", "1 2 3", WA, ["too many", '"3"']),
    row("tokens/case-sensitive-by-default", "tokens", "Yes", "yes", WA, ["Word 1"]),
    row("tokens/case-insensitive", "tokens", "Yes NO", "yes no", OK, options={"case_sensitive": False}),
    row(
        "tokens/case-insensitive-still-compares-words",
        "tokens",
        "Yes",
        "no",
        WA,
        ["Word 1"],
        options={"case_sensitive": False},
    ),
    # -- json -----------------------------------------------------------------------------------
    row("json/same", "json", "[[3, 2, 5], true]", "[[3, 2, 5], true]", OK),
    row("json/formatting-free", "json", "[[3, 2, 5], true]", "[[3,2,5],\n  true]\n", OK),
    row("json/tuple-printed-as-list", "json", "[3, 2, 5]", "[3, 2, 5]\n", OK),
    row("json/int-equals-float", "json", "[1, 2]", "[1.0, 2]", OK),
    row("json/key-order-free", "json", '{"a": 1, "b": [1, 2]}', '{"b": [1, 2], "a": 1}', OK),
    row("json/true-is-not-1", "json", "true", "1", WA, ['"true"', '"1"']),
    row("json/1-is-not-true", "json", "[1]", "[true]", WA, ["item 1"]),
    row("json/false-is-not-0", "json", "[0, false]", "[0, 0]", WA, ["item 2", "false"]),
    row("json/string-is-not-number", "json", "3", '"3"', WA, ['"3"']),
    row("json/nested-list-path", "json", "[[1, 2, 3]]", "[[1, 2, 4]]", WA, ["item 3 of item 1", '"3"', '"4"']),
    row("json/nested-dict-path", "json", '{"board": [1, 2]}', '{"board": [1, 3]}', WA, ['item 2 of key "board"']),
    row("json/list-too-long", "json", "[1, 2]", "[1, 2, 3]", WA, ["has 3 items; 2 were expected"]),
    row("json/missing-key", "json", '{"a": 1, "b": 2}', '{"a": 1}', WA, ["differs"]),
    row("json/python-True", "json", "[[3, 2, 5], true]", "[[3, 2, 5], True]", WA, ["not valid JSON", "json.dumps"]),
    row("json/python-None", "json", "[1, null]", "[1, None]", WA, ["not valid JSON", "json.dumps"]),
    row("json/python-single-quotes", "json", '{"a": 1}', "{'a': 1}", WA, ["not valid JSON", "json.dumps"]),
    row("json/python-tuple-with-False", "json", "[[3, 4, 5], false]", "([3, 4, 5], False)", WA, ["json.dumps"]),
    row("json/debug-line-then-right-answer", "json", "[1]", "x is 3\n[1]\n", WA, ["debug"]),
    row("json/debug-line-then-wrong-answer", "json", "[1]", "x is 3\n[2]\n", WA, ["not valid JSON", "debug"]),
    row("json/only-white-space", "json", "[1]", " \n", WA, ["white space"]),
    # -- float ----------------------------------------------------------------------------------
    row("float/exact", "float", "0.5", "0.5", OK),
    row("float/within-default-tolerance", "float", "0.3", "0.30000000000000004", OK),
    row("float/int-and-float-spelling", "float", "3", "3.000", OK),
    row("float/outside-default-tolerance", "float", "0.3", "0.31", WA, ["Value 1", '"0.3"', '"0.31"']),
    row("float/within-abs-tol", "float", "1.0 2.0", "1.004 1.996", OK, options={"abs_tol": 0.01}),
    row("float/outside-abs-tol", "float", "1.0 2.0", "1.0 2.02", WA, ["Value 2", "0.01"], options={"abs_tol": 0.01}),
    row("float/within-rel-tol", "float", "1000", "1001", OK, options={"rel_tol": 0.01}),
    row("float/words-equal", "float", "total 0.5 ok", "total 0.5 ok", OK),
    row("float/words-differ", "float", "yes", "no", WA, ["Value 1", '"yes"', '"no"']),
    row("float/word-case-matters", "float", "YES", "yes", WA, ["Value 1"]),
    row("float/word-versus-number", "float", "1.0", "one", WA, ["Value 1"]),
    row("float/missing-value", "float", "1.0 2.0", "1.0", WA, ["1 words", "2 were expected"]),
    # -- regex ----------------------------------------------------------------------------------
    row("regex/fullmatch", "regex", r"\d+ moves?", "3 moves\n", OK),
    row("regex/trailing-white-space-ignored", "regex", r"\d+", "42  \n\n", OK),
    row("regex/prefix-is-not-enough", "regex", r"\d+", "42 and more", WA, ["expected form", '"42 and more"']),
    row("regex/suffix-is-not-enough", "regex", r"\d+", "answer 42", WA, ["expected form"]),
    row("regex/case-sensitive-by-default", "regex", "yes", "YES", WA, ["expected form"]),
    row("regex/ignorecase", "regex", "yes", "YES", OK, options={"flags": ["IGNORECASE"]}),
    row("regex/dotall", "regex", "a.*b", "a\nb", OK, options={"flags": ["DOTALL"]}),
    row("regex/windows-line-ends", "regex", "yes\nno", "yes\r\nno\r\n", OK),
    row("regex/newline-not-matched-by-dot", "regex", "a.*b", "a\nb", WA, ["expected form"]),
]


@pytest.mark.parametrize("checker, expected, actual, options, verdict, words", ROWS)
def test_checker(checker, expected, actual, options, verdict, words):
    outcome = lab_checkers().get(checker)(actual, expected, "", options)
    assert outcome.verdict is verdict, outcome.message
    for word in words:
        assert word in outcome.message
    if verdict is OK:
        assert outcome.message == ""


# -- the registry -------------------------------------------------------------------------------


def test_builtin_checker_names():
    assert lab_checkers().names() == ["float", "json", "nim_game", "optimal_move", "regex", "text", "tokens"]


def test_each_call_gives_a_fresh_registry():
    first = lab_checkers()
    first.register("mine", lambda actual, expected, case_input: CheckOutcome(Verdict.ACCEPTED))
    assert first.get("mine") is not None
    assert lab_checkers().get("mine") is None


def test_unknown_checker_is_none():
    assert lab_checkers().get("jsn") is None


def test_register_custom_checker_and_call_it():
    def parity(actual, expected, case_input, *, modulus=2):
        same = int(actual) % modulus == int(expected) % modulus
        return CheckOutcome(Verdict.ACCEPTED if same else Verdict.WRONG_ANSWER, "" if same else "odd")

    registry = CheckerRegistry()
    registry.register("parity", parity)
    checker = registry.get("parity")
    assert registry.names() == ["parity"]
    assert checker.name == "parity"
    assert checker("4", "10", "", {}).verdict is Verdict.ACCEPTED
    assert checker("4", "11", "", {}).verdict is Verdict.WRONG_ANSWER
    assert checker("4", "7", "", {"modulus": 3}).verdict is Verdict.ACCEPTED


@pytest.mark.parametrize("name", ["text", "mine"])
def test_register_duplicate_name_raises(name):
    registry = lab_checkers()
    registry.register("mine", lambda actual, expected, case_input: CheckOutcome(Verdict.ACCEPTED))
    with pytest.raises(ValueError, match=f"'{name}'"):
        registry.register(name, lambda actual, expected, case_input: CheckOutcome(Verdict.ACCEPTED))


OPTION_ROWS = [
    pytest.param("tokens", {}, [], id="no-options"),
    pytest.param("tokens", {"case_sensitive": False}, [], id="right-type"),
    pytest.param("float", {"abs_tol": 1, "rel_tol": 0.5}, [], id="int-for-float-option"),
    pytest.param("regex", {"flags": ["IGNORECASE"]}, [], id="list-option"),
    pytest.param(
        "text",
        {"ignore_case": True},
        ["no option 'ignore_case'", "its options: trailing_space"],
        id="unknown-option-of-text",
    ),
    pytest.param(
        "tokens",
        {"case_sensitiv": False},
        ["no option 'case_sensitiv'", "case_sensitive"],
        id="unknown-option-lists-known",
    ),
    pytest.param(
        "tokens", {"case_sensitive": "no"}, ["'case_sensitive'", "true or false", "not text"], id="text-for-bool"
    ),
    pytest.param("tokens", {"case_sensitive": 0}, ["'case_sensitive'", "true or false"], id="int-for-bool"),
    pytest.param("float", {"abs_tol": "0.1"}, ["'abs_tol'", "a number", "not text"], id="text-for-number"),
    pytest.param("float", {"abs_tol": True}, ["'abs_tol'", "a number"], id="bool-for-number"),
    pytest.param("regex", {"flags": "IGNORECASE"}, ["'flags'", "a list", "not text"], id="text-for-list"),
]


@pytest.mark.parametrize("checker, options, words", OPTION_ROWS)
def test_option_errors(checker, options, words):
    errors = lab_checkers().get(checker).option_errors(options)
    if not words:
        assert errors == []
    else:
        assert len(errors) == 1
        for word in words:
            assert word in errors[0]


def test_option_errors_missing_required_option():
    def at_most(actual, expected, case_input, *, limit):
        return CheckOutcome(Verdict.ACCEPTED)

    registry = CheckerRegistry()
    registry.register("at_most", at_most)
    checker = registry.get("at_most")
    errors = checker.option_errors({})
    assert len(errors) == 1
    assert "needs the option 'limit'" in errors[0]
    assert checker.option_errors({"limit": 3}) == []
