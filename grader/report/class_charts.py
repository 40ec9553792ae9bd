"""The class overview's charts: the score histogram and each task's pass rates, placed in SVG units.

Pure functions of StudentMarks, CaseTally and Task values, returning frozen dataclasses the
template (``templates/class.html``) only loops over: bars and ticks are placed and their texts
worded here, so the template holds no arithmetic and the charts can be tested without a browser.
How a rate reads (``percent_text``, ``rate_text``) and its colour (``tone``) are shared with the
rest of the page (``class_overview``). No I/O, and no HTML: the template escapes every text
(student and case names are untrusted).
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from grader.marks import CaseTally, StudentMarks, score_histogram
from grader.model import Task
from grader.safe_text import plural

# A no-break space before "%", so "30 %" never breaks across lines.
PERCENT = "\u00a0%"

# Pass rates below these are drawn red, then amber; the rest green (the page's --bad/--warn/--ok).
_BAD_BELOW = 0.5
_WARN_BELOW = 0.8

# Histogram, in viewBox units (the SVG scales to its box; fonts are set in the same units).
_HIST_WIDTH = 400.0
_HIST_HEIGHT = 232.0
_HIST_LEFT = 30.0
_HIST_RIGHT = 392.0
_HIST_TOP = 26.0
_HIST_BOTTOM = 192.0
_HIST_GAP = 4.0

# Pass-rate charts, one per task: narrow enough that three fit side by side on a desktop and one
# fills a phone at about the same scale, so their 13-unit text reads as ~13 px on both.
_CASE_WIDTH = 360.0
_CASE_TRACK = 250.0  # the bar's full length; its label goes to the right of it
_CASE_LINE = 16.0  # one line of a case name
_CASE_BAR = 12.0
_CASE_GAP = 12.0  # between one case and the next
_CASE_WRAP = 46  # characters per line of a case name (13-unit text in 360 units)


@dataclass(frozen=True)
class Bar:
    """One bar of a chart, in viewBox units; ``label`` is drawn by it, ``title`` is its hover text."""

    x: float
    y: float
    width: float
    height: float
    label: str
    title: str
    tone: str  # "ok", "warn" or "bad": the colour class


@dataclass(frozen=True)
class Tick:
    """A labelled position on an axis (x for the horizontal axis, y for the vertical one)."""

    position: float
    label: str


@dataclass(frozen=True)
class Histogram:
    """The score distribution: a bar per range of the share of points, the count of students as height."""

    width: float
    height: float
    left: float
    right: float
    top: float
    bottom: float
    bars: Tuple[Bar, ...]
    x_ticks: Tuple[Tick, ...]
    y_ticks: Tuple[Tick, ...]
    counts: Tuple[Tuple[str, int], ...]  # (range, students) for the text version
    summary: str  # the chart's aria-label


@dataclass(frozen=True)
class CaseBar:
    """One case in a task's pass-rate chart: its name (wrapped into lines), track and filled bar."""

    tally: CaseTally
    name_lines: Tuple[Tick, ...]  # position = the line's baseline
    track: Bar  # the whole length (100 %)
    bar: Bar  # the share that passed; its label reads "passed/students (xx %)"
    label_x: float
    label_y: float


@dataclass(frozen=True)
class TaskChart:
    """A task's cases and their pass rates, one SVG."""

    task: Task
    anchor: str
    width: float
    height: float
    cases: Tuple[CaseBar, ...]
    summary: str  # the chart's aria-label
    handed_in: str = ""  # "handed in by 38 of 40 students" ("" with no students)


def percent_text(rate: float) -> str:
    """``rate`` (0 to 1) as a whole percentage, e.g. ``38 %``.

    Never rounds a rate that is not exactly 0 or 1 to "0 %" or "100 %": 39 of 40 reads 98 %, and
    1 of 300 reads 1 %, so a reader never takes "100 %" for "everybody".
    """
    value = math.floor(rate * 100 + 0.5)  # half up: 12.5 % reads 13 %, not round()'s 12 %
    if rate > 0 and value == 0:
        value = 1
    elif rate < 1 and value == 100:
        value = 99
    return f"{value}{PERCENT}"


def tone(rate: float) -> str:
    """The colour class of a pass rate or share: ``bad`` under 50 %, ``warn`` under 80 %, else ``ok``."""
    if rate < _BAD_BELOW:
        return "bad"
    if rate < _WARN_BELOW:
        return "warn"
    return "ok"


def rate_text(tally: CaseTally) -> str:
    """``passed of students who handed it in (xx %)`` for a case, e.g. ``12 of 40 who handed it in
    (30 %)``: a case's students are those who handed its task in (``Tallies``), not the class."""
    if not tally.students:
        return "no student ran it"
    return f"{tally.passed} of {tally.students} who handed it in ({percent_text(tally.pass_rate)})"


def short_rate_text(tally: CaseTally) -> str:
    """``passed/students (xx %)``, e.g. ``12/40 (30 %)``: the label beside a bar, where a line is short."""
    if not tally.students:
        return "no student ran it"
    return f"{tally.passed}/{tally.students} ({percent_text(tally.pass_rate)})"


def handed_in_text(handed_in: int, students: int) -> str:
    """How many of the class handed a task in: ``handed in by 38 of 40 students`` (the pass rates'
    denominator, said where they are shown)."""
    if not students:
        return ""
    return f"handed in by {handed_in} of {_students(students)}"


def _students(count: int) -> str:
    return plural(count, "student")


def _range_text(index: int, bins: int) -> str:
    low, high = 100 * index / bins, 100 * (index + 1) / bins
    return f"{low:g}–{high:g}{PERCENT}"


def _nice_step(largest: int) -> int:
    """A step of 1, 2 or 5 times a power of ten that puts at most five ticks above zero."""
    step = 1
    while True:
        for factor in (1, 2, 5):
            if largest <= 5 * step * factor:
                return step * factor
        step *= 10


def histogram(students: Sequence[StudentMarks], bins: int = 10) -> Histogram:
    """The score distribution of ``students`` in ``bins`` equal ranges of 0–100 % (see ``score_histogram``)."""
    counts = score_histogram(students, bins)
    largest = max(counts, default=0)
    step = _nice_step(largest) if largest else 1
    top_value = step * math.ceil(largest / step) if largest else 1  # an empty class still gets axes
    plot_height = _HIST_BOTTOM - _HIST_TOP
    slot = (_HIST_RIGHT - _HIST_LEFT) / bins
    bars = []
    for index, count in enumerate(counts):
        height = plot_height * count / top_value
        scored = f"scored {_range_text(index, bins)}"
        bars.append(
            Bar(
                x=round(_HIST_LEFT + index * slot + _HIST_GAP / 2, 1),
                y=round(_HIST_BOTTOM - height, 1),
                width=round(slot - _HIST_GAP, 1),
                height=round(height, 1),
                label=str(count) if count else "",
                title=f"{_students(count) if count else 'No student'} {scored}",
                tone=tone(index / bins),  # by where the range starts: 40–50 % is still under half
            )
        )
    x_ticks = tuple(Tick(round(_HIST_LEFT + i * slot, 1), f"{100 * i / bins:g}") for i in range(bins + 1))
    y_ticks = tuple(
        Tick(round(_HIST_BOTTOM - plot_height * value / top_value, 1), str(value))
        for value in range(0, top_value + 1, step)
    )
    if students:
        most = max(range(bins), key=lambda i: (counts[i], i))
        summary = (
            f"Bar chart of the share of points of {_students(len(students))}, in steps of {100 / bins:g}{PERCENT}: "
            f"the most, {counts[most]}, scored {_range_text(most, bins)}."
        )
    else:
        summary = "Bar chart of the share of points: no students."
    return Histogram(
        width=_HIST_WIDTH,
        height=_HIST_HEIGHT,
        left=_HIST_LEFT,
        right=_HIST_RIGHT,
        top=_HIST_TOP,
        bottom=_HIST_BOTTOM,
        bars=tuple(bars),
        x_ticks=x_ticks,
        y_ticks=y_ticks,
        counts=tuple((_range_text(i, bins), count) for i, count in enumerate(counts)),
        summary=summary,
    )


def chart_anchor(task_id: str) -> str:
    """The id of ``task_id``'s chart on the page, for links to it."""
    return f"cases-{task_id}"


def _wrapped(name: str) -> List[str]:
    # Words stay whole where they fit; a longer "word" (an input written without spaces) is cut.
    return textwrap.wrap(name, _CASE_WRAP, break_on_hyphens=False) or [""]


def task_chart(task: Task, tallies: Sequence[CaseTally], handed_in: str = "") -> TaskChart:
    """The pass-rate chart of ``task``: a bar per tally, in the order given, each under its name;
    ``handed_in`` says how many handed the task in (``handed_in_text``)."""
    cases = []
    y = 0.0
    for tally in tallies:
        name = f"{tally.case} (hidden)" if tally.hidden else tally.case
        lines = []
        for line in _wrapped(name):
            y += _CASE_LINE
            lines.append(Tick(round(y - 4, 1), line))  # baseline a little above the line's bottom
        y += 3
        text = short_rate_text(tally)
        if tally.students:
            rate = percent_text(tally.pass_rate)
            title = f"{name}: {tally.passed} of {_students(tally.students)} who handed it in passed ({rate})"
        else:
            title = f"{name}: {text}"
        top = round(y, 1)
        track = Bar(0.0, top, _CASE_TRACK, _CASE_BAR, "", title, "")
        filled = round(_CASE_TRACK * tally.pass_rate, 1)
        bar = Bar(0.0, top, filled, _CASE_BAR, text, title, tone(tally.pass_rate))
        cases.append(CaseBar(tally, tuple(lines), track, bar, _CASE_TRACK + 6, round(y + _CASE_BAR - 2, 1)))
        y += _CASE_BAR + _CASE_GAP
    summary = f"Pass rate of each case of {task.id}: " + "; ".join(c.bar.title for c in cases)
    return TaskChart(
        task=task,
        anchor=chart_anchor(task.id),
        width=_CASE_WIDTH,
        height=round(max(y - _CASE_GAP + 2, 0), 1),
        cases=tuple(cases),
        summary=summary,
        handed_in=handed_in,
    )


def task_charts(
    tallies: Sequence[CaseTally], tasks: Sequence[Task], handed_in: Optional[Mapping[str, str]] = None
) -> List[TaskChart]:
    """A chart per task in ``tasks`` (even one with no cases), then one per task only the tallies
    name; ``handed_in``: each task's ``handed_in_text``, by id."""
    by_task: Dict[str, List[CaseTally]] = {}
    for tally in tallies:
        by_task.setdefault(tally.task, []).append(tally)
    known = {task.id for task in tasks}
    extra = [Task(id=task_id, title=task_id, cases=()) for task_id in by_task if task_id not in known]
    said = handed_in or {}
    return [task_chart(task, by_task.get(task.id, []), said.get(task.id, "")) for task in [*tasks, *extra]]
