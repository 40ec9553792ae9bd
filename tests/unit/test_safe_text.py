"""The one rule for text a program or a student controls, in every place a person reads it: every
control, format and separator character of Unicode (categories Cc, Cf, Zl, Zp) and every lone
surrogate (Cs) is shown as a marker, on a terminal, on a page and in a spreadsheet; nothing else is
touched. Checked over the whole of Unicode as this Python knows it, not over a list.
"""

from __future__ import annotations

import sys
import unicodedata

import pytest
from support import UNSEEN_CATEGORIES

from grader.safe_text import for_page, for_spreadsheet, for_terminal

CATEGORIES = {chr(code): unicodedata.category(chr(code)) for code in range(sys.maxunicode + 1)}
UNSEEN = [c for c, category in CATEGORIES.items() if category in UNSEEN_CATEGORIES]
# Unassigned code points are left alone or marked (those the rule marks are reserved for format characters).
SEEN = [c for c, category in CATEGORIES.items() if category not in UNSEEN_CATEGORIES | {"Cn"}]
SINKS = {
    "terminal": (for_terminal, ""),
    "terminal, several lines": (lambda text: for_terminal(text, keep_newlines=True), "\n"),
    "page": (for_page, "\n\t"),
    "spreadsheet": (for_spreadsheet, ""),
}


def marker(char: str) -> str:
    """The marker of ``char``: as Python writes it in a string (``\\x1b``, ``\\u202e``, ``\\U000e0041``)."""
    named = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}
    if char in named:
        return named[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def test_the_classes_are_what_the_rule_is_about():
    categories = {CATEGORIES[c] for c in UNSEEN}
    assert categories == UNSEEN_CATEGORIES  # (this Python knows characters of every one of them)
    assert len(UNSEEN) > 2048 + 65  # every surrogate, every control, and the format characters


@pytest.mark.parametrize("sink", SINKS)
def test_every_unseen_character_is_its_marker_in_every_sink(sink):
    shown, kept = SINKS[sink]
    wrong = [ascii(c) for c in UNSEEN if shown(c) != (c if c in kept else marker(c))]
    assert wrong == []
    for text in ("".join(UNSEEN), "".join(c for c in UNSEEN if c.isascii())):
        assert [c for c in shown(text) if CATEGORIES[c] in UNSEEN_CATEGORIES and c not in kept] == []


@pytest.mark.parametrize("sink", SINKS)
def test_every_other_character_is_left_as_it_is(sink):
    shown, _ = SINKS[sink]
    text = "a" + "".join(SEEN)  # (a cell that starts like a formula gets a ' in front in a spreadsheet)
    assert shown(text) == text
    ascii_only = "a" + "".join(c for c in SEEN if c.isascii())  # (ASCII text takes a quicker path)
    assert shown(ascii_only) == ascii_only


@pytest.mark.parametrize("sink", SINKS)
def test_showing_twice_is_showing_once(sink):
    shown, _ = SINKS[sink]
    text = "x" + "".join(UNSEEN[::7]) + "é 名前 🙂 \\x1b"
    assert shown(shown(text)) == shown(text)


def test_a_spreadsheet_never_reads_a_cell_as_a_formula():
    for start in ("=", "+", "-", "@"):
        assert for_spreadsheet(f"{start}HYPERLINK(1)") == f"'{start}HYPERLINK(1)"
    assert for_spreadsheet("\tHYPERLINK(1)") == "\\tHYPERLINK(1)"  # (a cell may start with neither)
    assert for_spreadsheet("\r=1") == "\\r=1"
    assert for_spreadsheet(3) == 3 and for_spreadsheet("3") == "3"


def test_a_row_keeps_every_nul_and_lone_surrogate_as_its_marker_on_every_database():
    """PostgreSQL keeps no NUL in text or JSON and no lone surrogate in JSON: a row holds their
    markers on every database, and everything else exactly."""
    from grader.safe_text import for_database

    row = {"results": [{"message": "a\x00b\ud800c\x1b\u202e"}], "score": 3, "notes": ("x\udfff",)}
    assert for_database(row) == {
        "results": [{"message": "a\\x00b\\ud800c\x1b\u202e"}],
        "score": 3,
        "notes": ["x\\udfff"],
    }
    every = "".join(chr(code) for code in range(0x110000))
    kept = for_database(every)
    assert "\x00" not in kept and not any(0xD800 <= ord(char) <= 0xDFFF for char in kept)
    assert kept.replace("\\x00", "\x00", 1).startswith("\x00\x01")


def test_a_rows_json_keys_are_kept_as_their_markers_too():
    """A mapping's keys are text PostgreSQL keeps or refuses as any other (a key of a program's
    choosing would otherwise fail the whole row)."""
    from grader.safe_text import for_database

    assert for_database({"a\x00": {"\udcff": 1}, 2: "b"}) == {"a\\x00": {"\\udcff": 1}, 2: "b"}
