"""What tests share besides fixtures: the project folder, its reference solutions (and mutants of
them), small oracles of the Nim rules that the grader itself has no use for, and where Chromium is."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from grader.course.layout import Course

PROJECT = Path(__file__).resolve().parent.parent
COURSE = Course(PROJECT)


def solution(task_id: str) -> str:
    """The reference solution's text."""
    return COURSE.solution(task_id).read_text(encoding="utf-8")


def mutate(task_id: str, old: str, new: str) -> str:
    """The reference solution with ``old`` replaced by ``new`` (which must be there)."""
    text = solution(task_id)
    assert old in text, f"{old!r} is not in solutions/{task_id}.py"
    return text.replace(old, new)


def legal_moves(board: Sequence[int]) -> List[Tuple[int, int]]:
    """Every legal move (row from 1, elements taken), in row order: the brute-force oracle."""
    return [(row, taken) for row, size in enumerate(board, start=1) for taken in range(1, size + 1)]


def render(board: Sequence[int]) -> str:
    """The ``present_board`` text: ``Nim:`` then ``1: X X X``, an empty row as ``3:``."""
    return "\n".join(["Nim:"] + [f"{row}:" + " X" * size for row, size in enumerate(board, start=1)])


# Headless Chromium as the browser tests drive it: quiet, no network of its own.
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
]


def find_browser() -> Tuple[Optional[str], Optional[str]]:
    """The paths of Chromium and chromedriver, None for what is missing."""
    names = ("chromium", "chromium-browser", "google-chrome")
    chromium = next((shutil.which(n) for n in names if shutil.which(n)), None)
    return chromium, shutil.which("chromedriver")


def grade_portal_queue(runner=None) -> int:
    """Grade everything the configured portal's queue holds, here, one at a time, with ``runner``
    (default: the best runner, started for the call); returns how many were graded."""
    from dataclasses import replace

    from grader.run.forkserver import best_runner
    from grader.web.dispatcher import drain
    from grader.web.grading_backends import LocalGrading, grading_context

    if runner is None:
        with best_runner() as started:
            return grade_portal_queue(started)
    context = replace(grading_context(runner, COURSE), case_jobs=2)  # tests: the cases two at a time
    return drain(LocalGrading(context))
