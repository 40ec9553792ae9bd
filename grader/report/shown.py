"""How much of a long text a report shows: its lines (the start, around the first difference, the
end), each line's characters, and a message's or error output's characters (its start and end).

In: untrusted text (what a program printed, a message quoting it) and a ``Shown`` bound. Out: the
text as lines for a page (``shown_lines``) or as one shortened string (``clipped``); every cut says
how much it left out. ``check`` shows with ``EVERYTHING`` (long lines and outputs cut, messages
whole); the portal, which keeps what it shows, with tighter bounds (``pages.bounded_task_page``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple

from grader.check.text import visible


@dataclass(frozen=True)
class Shown:
    """How much a page shows of a long text."""

    head_lines: int = 60  # an output's first lines
    context_lines: int = 15  # lines either side of the first difference
    tail_lines: int = 5  # an output's last lines
    line_chars: int = 2000  # a line longer than this is cut (one printed line can be megabytes long)
    text_chars: int = 0  # a case's message and error output: their start and end this long (0: whole)


EVERYTHING = Shown()


@dataclass(frozen=True)
class ShownLine:
    """One line of output as shown: the text split around the highlighted character."""

    number: int
    before: str
    marked: str
    after: str
    differs: bool
    gap: int = 0  # >0: this entry stands for that many lines left out


def clipped(text: str, limit: int, keep: str = "start") -> str:
    """At most ``limit`` characters of ``text`` (0: all of it) and a marker saying how many were left
    out: its start (``keep="start"``), its end (``"end"``), or both halves around the marker
    (``"both"``)."""
    if not limit or len(text) <= limit:
        return text
    cut = f"[{len(text) - limit:,} characters left out]"
    if keep == "end":
        return f"{cut} {text[-limit:]}"
    if keep == "both":
        head = limit // 2
        return f"{text[:head]} {cut} {text[len(text) - (limit - head) :]}"
    return f"{text[:limit]} {cut}"


def shown_lines(
    text: str, mark_line: int = 0, mark_column: int = 0, shown: Shown = EVERYTHING
) -> Tuple[ShownLine, ...]:
    """``text`` as lines for a page, the (1-based) marked line split at its column; long texts cut."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    head, context, tail = shown.head_lines, shown.context_lines, shown.tail_lines
    keep = set(range(min(len(lines), head))) | set(range(max(len(lines) - tail, 0), len(lines)))
    if mark_line:
        keep |= set(range(max(mark_line - 1 - context, 0), min(mark_line + context, len(lines))))
    if len(lines) <= head + 2 * context + tail:
        keep = set(range(len(lines)))

    def clip(line: str, keep_end: bool = False) -> str:
        return clipped(line, shown.line_chars, "end" if keep_end else "start")

    result: List[ShownLine] = []
    skipped = 0
    for index, raw in enumerate(lines):
        if index not in keep:
            skipped += 1
            continue
        if skipped:
            result.append(ShownLine(0, "", "", "", False, gap=skipped))
            skipped = 0
        number = index + 1
        if number == mark_line and mark_column <= 0:  # the whole line, no single character
            result.append(ShownLine(number, visible(clip(raw)), "", "", True))
        elif number == mark_line:
            column = mark_column - 1
            before, rest = clip(raw[:column], keep_end=True), raw[column:]
            result.append(ShownLine(number, visible(before), visible(rest[:1]) or "⏎", visible(clip(rest[1:])), True))
        else:
            result.append(ShownLine(number, visible(clip(raw)), "", "", False))
    if skipped:
        result.append(ShownLine(0, "", "", "", False, gap=skipped))
    if mark_line > len(lines):
        result.append(ShownLine(mark_line, "", "(nothing here)", "", True))
    return tuple(result)
