"""Text for people: text from students made safe for the places that act on what they read (a
terminal, a spreadsheet), and a count with its noun in the right number (``plural``).

A student names their folder and their files. A terminal obeys escape sequences in what it prints
(``\\x1b]0;...`` retitles the window, ``\\x1b[2J`` clears it) and bidirectional overrides reorder
what the instructor sees; ``for_terminal`` writes every such character as an escape a person can
read (``\\x1b``, ``\\u202e``), as Python's ``repr`` does, and leaves letters of every script alone.
"""

from __future__ import annotations

import re
from types import MappingProxyType

# C0 controls and DEL, C1 controls (a terminal obeys \x9b as ESC [), lone surrogates (the bytes of a
# name that is not UTF-8), the Arabic letter mark, left-to-right and right-to-left marks, line and
# paragraph separators, bidirectional embeddings and overrides (U+202A-202E) and isolates (U+2066-2069).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = MappingProxyType({"\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _escape(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def for_terminal(text: str, keep_newlines: bool = False) -> str:
    """``text`` with every character a terminal could act on written as a visible escape.

    Takes any text (a file or folder name, a message that quotes one); returns text with no control
    character, bidirectional control or lone surrogate in it. ``keep_newlines`` leaves ``\\n`` as
    it is, for a message of several lines. Escaping twice gives the same text as escaping once.
    """
    if keep_newlines:
        return "\n".join(_UNSAFE.sub(_escape, line) for line in text.split("\n"))
    return _UNSAFE.sub(_escape, text)


def plural(count: int, word: str, words: str = "") -> str:
    """``count`` and its noun, in the singular for exactly one: ``plural(1, "task")`` is "1 task",
    ``plural(2, "task")`` "2 tasks"; ``words`` is the plural when it is not ``word`` + "s"."""
    return f"{count} {word if count == 1 else words or word + 's'}"
