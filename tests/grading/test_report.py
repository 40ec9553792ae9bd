"""HTML reports: self-contained, escaped, opening on the first failing case, highlighting it."""

from __future__ import annotations

import json
import re

import pytest
from support import UNSEEN_PROGRAM, mutate, solution, unseen

from grader.report import exports
from grader.report import pages as report


def write(results, tmp_path):
    report.write_html(results, tmp_path, "graded with Python 3")
    return {p.name: p.read_text(encoding="utf-8") for p in tmp_path.glob("*.html")}


def test_student_html_stays_text(grade, tmp_path):
    source = 'print("<script>alert(1)</script><b>bold</b>")\n'
    pages = write([grade("exclusive_or", source)], tmp_path)
    page = pages["exclusive_or.html"]
    assert "<script>alert(1)" not in page and "<b>bold" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_pages_are_self_contained(grade, tmp_path):
    pages = write([grade("nim_sum", solution("nim_sum"))], tmp_path)
    for page in pages.values():
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
        assert "<link" not in page and "<script" not in page
        assert "<style>" in page


def test_first_failing_case_is_open_and_highlighted(grade, tmp_path):
    result = grade("nim_sum", mutate("nim_sum", "total = total ^ row", "total = total + row"))
    page = write([result], tmp_path)["nim_sum.html"]
    details = re.findall(r"<details[^>]*>", page)
    first_failing = next(i for i, c in enumerate(result.cases) if not c.accepted)
    assert [i for i, tag in enumerate(details) if " open" in tag] == [first_failing]
    assert "<mark>" in page


def test_trailing_spaces_are_made_visible(grade, tmp_path):
    source = 'print("1 ")\nprint()\n'
    page = write([grade("exclusive_or", source)], tmp_path)["exclusive_or.html"]
    assert "1·" in page


def test_index_lists_failing_tasks_first(grade, tmp_path):
    good = grade("exclusive_or", solution("exclusive_or"))
    bad = grade("nim_sum", "")
    index = write([good, bad], tmp_path)["index.html"]
    assert index.index("nim_sum.html") < index.index("exclusive_or.html")
    assert "1 of 2 tasks still needs work" in index


def test_hidden_failures_are_announced_on_the_task_page(grade, tmp_path):
    result = grade("make_move", mutate("make_move", "if row < 1 or row > len(board):", "if row > len(board):"))
    page = write([result], tmp_path)["make_move.html"]
    assert "hidden case" in page and "not passed yet" in page


def test_rule_violation_shows_the_line_and_caret(grade, tmp_path):
    source = mutate(
        "bitwise_xor", "    bits_a = numeral_binary(a)\n", "    return a ^ b\n    bits_a = numeral_binary(a)\n"
    )
    page = write([grade("bitwise_xor", source)], tmp_path)["bitwise_xor.html"]
    assert "Your file was not run" in page
    assert "return a ^ b" in page and "^</pre>" in page


def test_terminal_table_has_one_row_per_task(grade):
    table = report.terminal_table([grade("exclusive_or", solution("exclusive_or")), grade("nim_sum", "")])
    lines = table.splitlines()
    assert lines[0].split()[:3] == ["task", "verdict", "score"]
    assert lines[1].startswith("exclusive_or") and "accepted" in lines[1]
    assert lines[2].startswith("nim_sum") and "no_output" in lines[2]


def test_the_foot_says_which_protections_were_active(grade, tmp_path):
    report.write_html([grade("exclusive_or", solution("exclusive_or"))], tmp_path, "protections: no network")
    for page in ("index.html", "exclusive_or.html"):
        text = (tmp_path / page).read_text(encoding="utf-8")
        foot = text[text.index("<footer") : text.index("</footer>")]
        assert "protections: no network" in foot and text.index("</footer>") > text.index(
            "</table>" if page == "index.html" else "</details>"
        )


def test_a_line_megabytes_long_is_shown_cut_around_the_difference():
    from grader.report.pages import shown_lines

    line = "X " * 2_000_000 + "Y" + " X" * 1_000_000
    shown = shown_lines(line + "\n", mark_line=1, mark_column=4_000_001)
    (marked,) = shown
    assert marked.differs and marked.marked == "Y"
    assert len(marked.before) + len(marked.after) < 10_000
    assert "characters left out" in marked.before and "characters left out" in marked.after


# What a page shows of each: the marker the terminal shows too, as Python writes the character in a string.
MARKERS = ("\\x00", "\\x1b", "\\r", "\\x7f", "\\x85", "\\x9b", "\\xad", "\\u200b", "\\u200d", "\\u2028", "\\u202e")
MARKERS += ("\\u2066", "\\ufeff", "\\U000e0041")


@pytest.mark.parametrize("mode", ["crash", "wrong answer"])
def test_text_a_program_controls_shows_every_unseen_character_as_a_marker(grade, tmp_path, mode):
    """Its output, error output, the exception's text, the expected-against-got message and its
    source's Trojan comment: on the page, in the JUnit file, in the gradebook and on the terminal,
    no control, format or separator character is left as it is, and each shows as its marker."""
    result = grade("exclusive_or", UNSEEN_PROGRAM.replace('"MODE"', repr(mode)))
    assert result.score == 0 and unseen("".join(c.actual + c.stderr for c in result.cases))
    page = write([result], tmp_path)["exclusive_or.html"]
    assert unseen(page) == []
    for marker in MARKERS:
        assert marker in page, marker
    assert unseen(exports.junit_suites("ann", [result]).replace("\n", "")) == []
    assert unseen(report.terminal_table([result])) == []
    (document,) = json.loads(report.json_text([result]))["tasks"]  # data: the program's text kept exactly
    assert [c["message"] for c in document["cases"]] == [c.message for c in result.cases]
    assert unseen("".join(c.message for c in result.cases))
