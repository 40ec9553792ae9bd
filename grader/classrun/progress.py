"""Progress of a class run, for the person waiting: students, cases and failures so far.

On a terminal one line is redrawn in place (a bar, counts, rate and time left); anywhere else (a
log file, CI) each finished student gets a plain line of its own, so the log reads top to bottom.
"""

from __future__ import annotations

import shutil
import sys
import time
from typing import Callable, Optional, TextIO

from grader.marks import StudentMarks
from grader.safe_text import for_terminal, plural

# A terminal line is redrawn at most this often, in seconds (drawing costs more than grading).
_REDRAW_S = 0.1


def _number(value: float) -> str:
    return f"{value:g}"


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """Counts a class run as students finish, and shows it on ``stream``.

    ``terminal`` defaults to whether the stream is one; ``clock`` is for tests.
    """

    def __init__(
        self,
        students: int,
        stream: Optional[TextIO] = None,
        terminal: Optional[bool] = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total = students
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = self.stream.isatty() if terminal is None else terminal
        self.clock = clock
        self.start = clock()
        self.students = 0
        self.cases = 0
        self.failed = 0
        self.from_cache = 0
        self._drawn = 0.0

    def student_done(self, marks: StudentMarks, from_cache: int) -> None:
        """Count one student whose every task is graded; ``from_cache`` cases were not run again."""
        self.students += 1
        self.cases += sum(t.cases for t in marks.tasks)
        self.failed += sum(t.failed for t in marks.tasks)
        self.from_cache += from_cache
        if self.terminal:
            now = self.clock()
            if now - self._drawn >= _REDRAW_S or self.students == self.total:
                self._drawn = now
                self._draw()
        else:
            self._line(marks)

    def _counts(self) -> str:
        cached = f", {self.from_cache:,} from the cache" if self.from_cache else ""
        return f"{self.cases:,} case{'' if self.cases == 1 else 's'} ({self.failed:,} not accepted{cached})"

    def _draw(self) -> None:
        elapsed = self.clock() - self.start
        width = shutil.get_terminal_size((80, 24)).columns
        done = self.students / self.total if self.total else 1.0
        rate = self.students / elapsed if elapsed > 0 else 0.0
        left = f", {_clock((self.total - self.students) / rate)} left" if rate and self.students < self.total else ""
        text = f" {self.students}/{plural(self.total, 'student')} · {self._counts()} · {rate:.1f} students/s{left}"
        bar_width = max(10, min(30, width - len(text) - 3))
        filled = int(done * bar_width)
        line = f"[{'#' * filled}{'-' * (bar_width - filled)}]{text}"
        self.stream.write("\r" + line[: width - 1].ljust(width - 1))
        self.stream.flush()

    def _line(self, marks: StudentMarks) -> None:
        failing = ", ".join(
            f"{t.task} ({'not handed in' if t.missing else t.verdict.label})" for t in marks.not_accepted
        )
        state = f"not accepted: {failing}" if failing else "every task accepted"
        points = f"{_number(marks.score)}/{_number(marks.max_score)} points"
        # A student names their own folder: a name must not be able to drive the instructor's terminal.
        name = for_terminal(marks.student)
        self.stream.write(f"[{self.students}/{self.total}] {name}: {points}; {state}\n")
        self.stream.flush()

    def finish(self) -> str:
        """End the display; returns the summary sentence (students, cases, rates, time)."""
        if self.terminal and self.students:
            self.stream.write("\n")
            self.stream.flush()
        elapsed = max(self.clock() - self.start, 1e-9)
        return (
            f"{plural(self.students, 'student')}, {self._counts()} in {elapsed:.1f} s: "
            f"{self.students / elapsed:.1f} students/s, {self.cases / elapsed:.0f} cases/s."
        )
