"""A new case as YAML text, spliced into a case file's text without disturbing the rest.

``case_text`` writes a case's keys as lines in the style of the course's files, each value a
quoted scalar that reads back exactly (``yaml_scalar``); ``new_text`` puts those lines after the
file's last case, found from the YAML nodes (``CasesLayout``), so the comments, blank lines and
layout the instructor wrote stay as they are. Texts in, text out: nothing here reads or writes a file.
"""

from __future__ import annotations

import re
from typing import Any, List, Optional, Tuple

import yaml

from grader.errors import UsageError

# Characters a YAML single-quoted scalar may hold as they are: printable (as PyYAML reads a stream)
# and not a line break (which YAML would fold into a space); tabs and the BOM are escaped too.
_PLAIN_CHARS = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]*")
# Characters a double-quoted scalar may hold as they are; the others are escaped.
_KEPT_CHARS = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def yaml_scalar(text: str) -> str:
    """``text`` as a YAML scalar that reads back exactly: single-quoted (``'`` doubled) when it
    is one line of printable characters, else double-quoted with escapes (``\\n``, ``\\t``...)."""
    if _PLAIN_CHARS.fullmatch(text):
        return "'" + text.replace("'", "''") + "'"
    return '"' + "".join(_escape(char) for char in text) + '"'


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    if _KEPT_CHARS.match(char):
        return char
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def case_text(
    name: str,
    case_input: str,
    expected: Optional[str],
    *,
    hidden: bool = False,
    hint: str = "",
    dash_column: int = 2,
    key_column: int = 4,
) -> List[str]:
    """The lines (without line ends) of a new case, in the style of the course's files: its name,
    input, expected answer (none when None), ``hidden`` and hint, the dash of the list item at
    ``dash_column`` and the keys at ``key_column``."""
    written_input = case_input
    if written_input.endswith("\n") and not written_input[:-1].endswith("\n"):
        written_input = written_input[:-1]  # the loader adds it back; one line stays single-quoted
    pairs: List[Tuple[str, Any]] = [("name", name), ("input", written_input)]
    if expected is not None:
        pairs.append(("expected", expected))
    if hidden:
        pairs.append(("hidden", True))
    if hint:
        pairs.append(("hint", hint))
    first = " " * dash_column + "-" + " " * (key_column - dash_column - 1)
    lines = []
    for number, (key, value) in enumerate(pairs):
        written = "true" if value is True else yaml_scalar(value)
        lines.append(f"{first if number == 0 else ' ' * key_column}{key}: {written}")
    return lines


class CasesLayout:
    """Where the file's ``cases`` list is and how its items are indented, from the YAML nodes."""

    def __init__(self, text: str, shown: str) -> None:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        cases = next((value for key, value in root.value if key.value == "cases"), None)
        if root.flow_style or not isinstance(cases, yaml.SequenceNode) or cases.flow_style:
            raise UsageError(
                f"The cases of {shown} are written in the [..., ...] flow style, so a case cannot be appended to "
                "them as text: add it by hand."
            )
        self.items = cases.value
        self.dash_column = cases.start_mark.column
        last = self.items[-1]
        key_column = last.start_mark.column if isinstance(last, yaml.MappingNode) else self.dash_column + 2
        self.key_column = key_column if key_column > self.dash_column else self.dash_column + 2
        self.text = text
        self.after_last = self.after(last)

    def after(self, item: yaml.Node) -> int:
        """The index just after the line where ``item``'s content ends (its last value)."""
        end, node = max(_content_ends(item), key=lambda pair: pair[0])
        if end > 0 and self.text[end - 1] not in "\r\n":
            return _next_line(self.text, end)
        # A block scalar (| or >) ends after the blank lines that follow it; they belong to its
        # value only with keep chomping (|+), which leaves more than one line break at its end.
        if isinstance(node, yaml.ScalarNode) and node.value.endswith("\n\n"):
            return end
        while end > 0:
            start = _line_start(self.text, end)
            if self.text[start:end].strip():
                break
            end = start
        return end

    def blank_separated(self) -> bool:
        """True when most cases follow a blank line, as in optimal_move.yaml."""
        gaps = []
        for item in self.items[1:]:
            start = self.text.rfind("\n", 0, item.start_mark.index) + 1
            previous = self.text.rfind("\n", 0, max(start - 1, 0)) + 1
            gaps.append(start > 0 and not self.text[previous:start].strip())
        return bool(gaps) and sum(gaps) * 2 >= len(gaps)


def _content_ends(node: yaml.Node) -> List[Tuple[int, yaml.Node]]:
    """(end index, node) of everything written in ``node``: its scalars and flow collections.

    A block collection's own end mark lies after the comments that follow it, so it is not used.
    """
    if isinstance(node, yaml.ScalarNode) or node.flow_style:
        return [(node.end_mark.index, node)]
    children = node.value if isinstance(node, yaml.SequenceNode) else [part for pair in node.value for part in pair]
    ends = [end for child in children for end in _content_ends(child)]
    return ends or [(node.end_mark.index, node)]


def _line_start(text: str, end: int) -> int:
    """The index where the line ending (with its line break) at ``end`` starts."""
    brk = end - 1
    if text[brk] == "\n" and brk > 0 and text[brk - 1] == "\r":
        brk -= 1
    return max(text.rfind("\n", 0, brk), text.rfind("\r", 0, brk)) + 1


def _next_line(text: str, index: int) -> int:
    """The index of the start of the line after the one holding ``index`` (or the text's end)."""
    match = re.compile(r"\r\n|\r|\n").search(text, index)
    return match.end() if match else len(text)


def new_text(text: str, shown: str, lines: List[str], layout: Optional[CasesLayout] = None) -> str:
    """``text`` with the case ``lines`` added after the last case.

    When only comments and blank lines follow the last case (``cases`` is the last key), the lines
    are appended at the end of the file; otherwise they go right after the last case's last line.
    """
    layout = layout or CasesLayout(text, shown)
    newline = "\r\n" if "\r\n" in text[: _next_line(text, 0)] else "\n"
    rest = text[layout.after_last :]
    only_comments = all(not line.strip() or line.lstrip().startswith("#") for line in rest.splitlines())
    at = len(text) if only_comments else layout.after_last
    before = text[:at]
    prefix = ""
    if before and not before.endswith(("\n", "\r")):
        prefix = newline
    elif layout.blank_separated() and not re.search(r"(\r\n|\r|\n)[ \t]*(\r\n|\r|\n)$", "\n" + before):
        prefix = newline
    return before + prefix + "".join(line + newline for line in lines) + text[at:]
