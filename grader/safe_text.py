"""Text for people: the one rule for text a program or a student controls, in every place a person
reads it (a terminal, a page, a spreadsheet), and a count with its noun in the right number (``plural``).

A program prints what it likes, and a student names their folder and files. A terminal obeys escape
sequences (``\\x1b]0;...`` retitles the window, ``\\x1b[2J`` clears it); a page and a terminal both
let bidirectional overrides and isolates reorder what is read (``\\u202e``), zero-width characters
and tags hide text, line separators break lines where none is seen. The rule: every control, format
and separator character of Unicode (categories Cc, Cf, Zl, Zp, and the code points its version
keeps for format characters) and every lone surrogate (the bytes of a name that is not UTF-8) is
written as a marker a person can read, as Python's ``repr`` writes it (``\\x1b``, ``\\u202e``,
``\\U000e0041``); letters, marks, digits, symbols and spaces of every script are left alone. Each
place keeps only the white space it shows as itself: a page its line breaks and tabs (``for_page``,
before the page's own HTML escaping), a terminal its line breaks when asked (``for_terminal``), a
spreadsheet none (``for_spreadsheet``, which also keeps a cell from being read as a formula). JSON
is data and keeps the text exactly. Showing twice gives the same text as showing once.
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Pattern, Tuple

# Every character of Unicode 15.1 in the categories Cc (C0 and C1 controls, DEL), Cf (the soft hyphen,
# Arabic number signs and letter mark, the Mongolian vowel separator, zero-width space, joiners and
# marks, bidirectional embeddings, overrides (U+202A-202E) and isolates (U+2066-2069), invisible
# operators, deprecated format characters, the byte order mark, interlinear annotations, format
# controls of Kaithi, Egyptian hieroglyphs, shorthand and musical notation, tags), Zl and Zp (U+2028,
# U+2029), every surrogate (Cs), and the code points Unicode keeps unassigned for format characters
# (U+2065, U+FFF0-FFF8, U+E0000-E0FFF but the variation selectors U+E0100-E01EF, which are marks).
# tests/unit/test_safe_text.py checks this against the categories of the Python that runs it.
_AFTER_C0 = (
    "\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u2028-\u202e"
    "\u2060-\u206f\ud800-\udfff\ufeff\ufff0-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e00ff\U000e01f0-\U000e0fff"
)
# Each as (the rule for ASCII text, the rule for any text): a class of a few ranges is matched several
# times faster than the whole rule, and nearly everything a program prints is ASCII.
_UNSEEN = (re.compile("[\x00-\x1f\x7f]"), re.compile(f"[\x00-\x1f{_AFTER_C0}]"))
_UNSEEN_BUT_LINES = (re.compile("[\x00-\x09\x0b-\x1f\x7f]"), re.compile(f"[\x00-\x09\x0b-\x1f{_AFTER_C0}]"))
_UNSEEN_BUT_LINES_AND_TABS = (re.compile("[\x00-\x08\x0b-\x1f\x7f]"), re.compile(f"[\x00-\x08\x0b-\x1f{_AFTER_C0}]"))
_NAMED = MappingProxyType({"\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _marker(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _marked(rule: Tuple[Pattern[str], Pattern[str]], text: str) -> str:
    return rule[0 if text.isascii() else 1].sub(_marker, text)


def for_terminal(text: str, keep_newlines: bool = False) -> str:
    """``text`` for a terminal: every character of the rule (see the module) as its marker.

    Takes any text (a file or folder name, a message that quotes one); returns text with no
    control, format or separator character and no lone surrogate in it. ``keep_newlines`` leaves
    ``\\n`` as it is, for a message of several lines.
    """
    return _marked(_UNSEEN_BUT_LINES if keep_newlines else _UNSEEN, text)


def for_page(text: str) -> str:
    """``text`` for an HTML page, before the page's own escaping: every character of the rule as its
    marker but line breaks and tabs, which a page shows as white space (in ``<pre>``) or not at all.

    The report's templates apply it to every value they show (``report/pages.py``), the portal's
    views to each text a program or a student controls.
    """
    return _marked(_UNSEEN_BUT_LINES_AND_TABS, text)


# A spreadsheet reads a cell that starts with one of these as a formula (OWASP, "CSV Injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def for_spreadsheet(value):
    """A CSV cell a spreadsheet shows as it is: numbers as they are; text with every character of the
    rule as its marker, and with a ``'`` in front when it starts like a formula (``=HYPERLINK(...)``)."""
    if not isinstance(value, str):
        return value
    text = for_terminal(value)
    return f"'{text}" if text.startswith(_FORMULA_START) else text


# What no database may keep as it is: PostgreSQL refuses NUL in text and JSON, and a lone
# surrogate in JSON; SQLite keeps both. One rule for both, so a row says the same on each.
_NOT_KEPT = re.compile("[\x00\ud800-\udfff]")


def for_database(value):
    """``value`` (text, or lists and mappings of it, as a row's JSON, keys too) with every NUL and
    lone surrogate as its marker; everything else exactly as it was."""
    if isinstance(value, str):
        return _NOT_KEPT.sub(_marker, value) if "\x00" in value or not _encodes(value) else value
    if isinstance(value, dict):
        return {for_database(key): for_database(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [for_database(item) for item in value]
    return value


def _encodes(text: str) -> bool:
    """Whether ``text`` has no lone surrogate (it encodes as UTF-8): many times faster than the
    pattern on a page of text, which nearly always has none."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def plural(count: int, word: str, words: str = "") -> str:
    """``count`` and its noun, in the singular for exactly one: ``plural(1, "task")`` is "1 task",
    ``plural(2, "task")`` "2 tasks"; ``words`` is the plural when it is not ``word`` + "s"."""
    return f"{count} {word if count == 1 else words or word + 's'}"
