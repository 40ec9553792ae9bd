"""``inspect_source``: may a submission run, and if not, what does the student read?"""

from __future__ import annotations

import pytest

from grader.model import Rule, Verdict
from grader.submission.source import inspect_source

XOR = Rule("operator", "^", instead="use your exclusive_or function.")


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="empty-file"),
        pytest.param(b"\n\n", id="blank-lines"),
        pytest.param(b"# only a comment\n", id="only-a-comment"),
        pytest.param(b"def f(a, b):\n    return a | b\n\nprint(f(1, 2))\n", id="valid-code"),
        pytest.param(b"x = 1\r\nprint(x)\r\n", id="crlf-line-ends"),
        pytest.param("print('é → ü')\n".encode(), id="non-ascii-utf8"),
        pytest.param(b"\xef\xbb\xbfprint(1)\n", id="utf8-bom"),
    ],
)
def test_code_that_may_run(data):
    assert inspect_source(data, [XOR]) is None


def syntax(id, data, line, words, marks=()):
    return pytest.param(data, line, words, id=id, marks=marks)


SYNTAX_ERRORS = [
    syntax("python2-print", b'x = 1\nprint "x"\n', 2, ["Line 2", "print is a function", "print(x)"]),
    syntax(
        "python2-except-comma", b"try:\n    x = 1\nexcept ValueError, e:\n    pass\n", 3, ["except ValueError as e"]
    ),
    syntax("python2-raise-comma", b'raise ValueError, "no"\n', 1, ['raise ValueError("no")']),
    syntax("python2-not-equal", b"if 1 <> 2:\n    pass\n", 1, ["!="]),
    syntax("python2-octal", b"x = 0777\n", 1, ["0o777"]),
    syntax("python2-long", b"x = 10L\n", 1, ["write 10"]),
    syntax("python2-backticks", b"x = `3`\n", 1, ["repr(x)"]),
    syntax("missing-colon-if", b"x = 2\nif x > 1\n    print(x)\n", 2, ["Line 2", "colon"]),
    syntax("missing-colon-def", b"def f(x)\n    return x\n", 1, ["Line 1", "colon"]),
    syntax("missing-colon-for", b"for i in range(3)\n    print(i)\n", 1, ["Line 1", "colon"]),
    syntax("unexpected-indent", b"x = 1\n    y = 2\n", 2, ["Line 2", "indentation", "same column"]),
    syntax("block-not-indented", b"def f():\nreturn 1\n", 2, ["Line 2", "indentation"]),
    syntax("never-closed-bracket", b"x = [1, 2\n", 1, ["Line 1", "never closed"]),
    syntax("never-closed-call", b"print(bin_num(5)\n", 1, ["Line 1", "never closed"]),
    syntax(
        "never-closed-bracket-on-a-for-line",
        b"for i in range(3): print(i\n",
        1,
        ["Line 1", "never closed"],
    ),
]


@pytest.mark.parametrize("data, line, words", SYNTAX_ERRORS)
def test_syntax_error(data, line, words):
    problem = inspect_source(data, [XOR])
    assert problem is not None
    assert problem.verdict is Verdict.SYNTAX_ERROR
    assert problem.line == line
    assert problem.source_line == data.decode().splitlines()[line - 1]
    for word in words:
        assert word in problem.message
    if "colon" not in words:
        assert "colon" not in problem.message


def test_syntax_error_is_reported_before_rules():
    problem = inspect_source(b"a = 1 ^ 2\nif a\n    pass\n", [XOR])
    assert problem.verdict is Verdict.SYNTAX_ERROR
    assert problem.line == 2


def test_caret_of_syntax_error_is_on_its_line():
    problem = inspect_source(b"if x > 1\n    pass\n", [])
    assert 0 <= problem.caret <= len(problem.source_line)


def test_null_bytes():
    problem = inspect_source(b"x = 1\x00\n", [])
    assert problem.verdict is Verdict.SYNTAX_ERROR
    assert "null bytes" in problem.message
    assert "plain text" in problem.message


def test_bytes_that_are_not_utf8():
    problem = inspect_source(b"x = '\xff'\n", [])
    assert problem.verdict is Verdict.SYNTAX_ERROR
    assert "UTF-8" in problem.message


def test_latin1_file():
    problem = inspect_source("print('café')\n".encode("latin-1"), [])
    assert problem.verdict is Verdict.SYNTAX_ERROR
    assert "UTF-8" in problem.message


def test_indentation_message_grammar():
    problem = inspect_source(b"x = 1\n    y = 2\n", [])
    assert "indentation" in problem.message
    assert " a indentation" not in problem.message


def test_no_double_punctuation_after_python_message():
    problem = inspect_source(b'print "x"\n', [])
    assert "?." not in problem.message


# -- rule violations ----------------------------------------------------------------------------


def test_rule_violation_has_line_source_line_and_caret():
    data = b"def f(a, b):\n    total = a ^ b\n    return total\n"
    problem = inspect_source(data, [XOR])
    assert problem.verdict is Verdict.RULE_VIOLATION
    assert problem.line == 2
    assert problem.source_line == "    total = a ^ b"
    assert problem.caret == problem.source_line.index("a ^ b")
    assert "Line 2" in problem.message
    assert "use your exclusive_or function." in problem.message


def test_rule_violation_on_a_line_of_a_megabyte_shows_the_part_around_the_caret():
    data = b"total = 1 ^ 2  # " + b"x" * 1_000_000 + b"\n"
    problem = inspect_source(data, [XOR])
    assert problem.verdict is Verdict.RULE_VIOLATION and len(problem.source_line) <= 122
    assert problem.source_line.startswith("total = 1 ^ 2") and problem.source_line.endswith("…")
    assert problem.source_line[problem.caret] == "1"


def test_rule_violation_with_crlf_line_ends():
    problem = inspect_source(b"x = 1\r\ny = x ^ 1\r\n", [XOR])
    assert problem.line == 2
    assert problem.source_line == "y = x ^ 1"


def test_every_broken_rule_is_in_the_message_and_the_first_sets_the_line():
    data = b"import operator\n\nx = bin(3)\ny = 1 ^ 2\n"
    rules = [XOR, Rule("name", "bin", instead="divide by 2."), Rule("import", "operator")]
    problem = inspect_source(data, rules)
    assert problem.verdict is Verdict.RULE_VIOLATION
    assert problem.line == 1
    assert problem.source_line == "import operator"
    for words in ("Line 1", "Line 3", "Line 4", "divide by 2.", "use your exclusive_or function."):
        assert words in problem.message


def test_rules_that_are_kept_let_the_file_run():
    assert inspect_source(b"x = 1 | 2\n", [XOR, Rule("name", "bin")]) is None


def test_rule_violation_caret_after_non_ascii_text():
    data = 'print("Résultat :", a ^ b)\n'.encode()
    problem = inspect_source(data, [XOR])
    assert problem.source_line == 'print("Résultat :", a ^ b)'
    assert problem.caret == problem.source_line.index("a ^ b")


def test_rule_violation_source_line_after_a_form_feed():
    problem = inspect_source(b"# part 1\x0c part 2\nx = a ^ b\n", [XOR])
    assert problem.line == 2
    assert problem.source_line == "x = a ^ b"
