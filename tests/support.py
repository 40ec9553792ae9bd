"""What tests share besides fixtures: the project folder, its reference solutions (and mutants of
them), small oracles of the Nim rules that the grader itself has no use for, and where Chromium is."""

from __future__ import annotations

import shutil
import unicodedata
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from grader.course.layout import Course

PROJECT = Path(__file__).resolve().parent.parent
COURSE = Course(PROJECT)
# the tasks in the handout's order: the numbers "Exercise N" on the first line of each stub's docstring
HANDOUT = [
    "present_board",
    "make_move",
    "exclusive_or",
    "bin_num",
    "bitwise_xor",
    "nim_sum",
    "optimal_move",
    "ui",
    "working_game",
]


def solution(task_id: str) -> str:
    """The reference solution's text."""
    return COURSE.solution(task_id).read_text(encoding="utf-8")


def gradebook_students(text: str) -> List[Dict[str, str]]:
    """The students' rows of a gradebook CSV's ``text``, by column: without the header and the
    "Points Possible" row after it, where there is one (``exports.POINTS_POSSIBLE``, the LMS file)."""
    import csv
    import io

    from grader.report.exports import POINTS_POSSIBLE

    return [row for row in csv.DictReader(io.StringIO(text)) if row["student"] != POINTS_POSSIBLE]


def mutate(task_id: str, old: str, new: str) -> str:
    """The reference solution with ``old`` replaced by ``new`` (which must be there)."""
    text = solution(task_id)
    assert old in text, f"{old!r} is not in solutions/{task_id}.py"
    return text.replace(old, new)


# Characters that act on a terminal or a page without being seen: controls, format characters (bidirectional
# overrides and isolates, zero-width spaces and joiners, the byte order mark, tags), line and paragraph
# separators, and lone surrogates. A page or a terminal may hold a line break and a tab as they are.
UNSEEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})

# A program for exclusive_or that prints one of every kind of such character (all C0 controls but the line
# break and tab, DEL, C1, the bidirectional controls, zero-width and tag characters, the separators, the byte
# order mark) to its output and error output, then bytes that are not UTF-8, and then, given "crash", raises
# an exception that says them too, with a lone surrogate. Its source is ASCII but for the comment, whose
# right-to-left override is raw ("Trojan Source"): a page that shows the file must show it too.
UNSEEN_PROGRAM = """\
# total = a \u202e ^ b \u2066 (the rules of exclusive_or forbid neither in a comment)
import sys
codes = [c for c in range(0x20) if c not in (9, 10)] + list(range(0x7F, 0xA0))
codes += [0xAD, 0x61C, 0x180E, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2028, 0x2029, 0x2060, 0xFEFF]
codes += list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A)) + [0xFFF9, 0x110BD, 0xE0001, 0xE0041]
said = "<" + "".join(chr(c) for c in codes) + ">"
line = sys.stdin.readline()
sys.stdout.buffer.write(said.encode("utf-8") + b" \\xff\\xed\\xa0\\x80\\n")
sys.stdout.flush()
sys.stderr.write(said + "\\n")
if "MODE" == "crash":
    raise ValueError(said + "\\ud800")
"""


def unseen(text: str) -> list:
    """The characters of ``text`` in ``UNSEEN_CATEGORIES`` but a line break and a tab (as escapes, sorted)."""
    return sorted({ascii(c) for c in text if c not in "\n\t" and unicodedata.category(c) in UNSEEN_CATEGORIES})


def course_of(folder: Path, task_ids: Sequence[str] = (), known_wrong: bool = False) -> Path:
    """A course folder at ``folder`` made of the project's tasks ``task_ids`` (every task when empty):
    each task's case file and its data folder, reference solution and stub, and with ``known_wrong``
    its known-wrong solutions. Without them a class run makes no signatures. Out: ``folder``."""
    for task_id in task_ids or COURSE.task_ids():
        parts = [
            f"testcases/{task_id}.yaml",
            f"testcases/{task_id}",
            f"solutions/{task_id}.py",
            f"exercises/{task_id}.py",
        ]
        if known_wrong:
            parts.append(f"solutions/wrong/{task_id}")
        for part in parts:
            source, target = PROJECT / part, folder / part
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, target)
            elif source.is_file():
                shutil.copy(source, target)
    for folder_name in ("testcases", "solutions", "exercises"):
        (folder / folder_name).mkdir(parents=True, exist_ok=True)
    if (PROJECT / "checkers.py").is_file():
        shutil.copy(PROJECT / "checkers.py", folder)
    return folder


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
    from grader.web.worker.dispatcher import drain
    from grader.web.worker.grading_backends import LocalGrading, grading_context

    if runner is None:
        with best_runner() as started:
            return grade_portal_queue(started)
    context = replace(grading_context(runner, COURSE), case_jobs=2)  # tests: the cases two at a time
    return drain(LocalGrading(context))


def pooled_users_while(action: Callable[[], object]) -> Tuple[object, List[Dict[int, set]]]:
    """Run ``action`` while watching, from outside the runs, which processes run with a user id of
    the pool (``uid_pool``): its result and each look (real user id → the process namespaces of the
    processes that have it: one for a run's own). A program sees its id as a fixed one
    (docs/security.md), so only the machine's side can tell which it really has."""
    import os
    import threading

    from grader.run.uid_pool import FIRST_UID, POOL_SIZE

    looks: List[Dict[int, set]] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            look: Dict[int, set] = {}
            for name in filter(str.isdigit, os.listdir("/proc")):
                try:
                    with open(f"/proc/{name}/status", encoding="ascii", errors="replace") as handle:
                        uid = next(int(line.split()[1]) for line in handle if line.startswith("Uid:"))
                    if FIRST_UID <= uid < FIRST_UID + POOL_SIZE:
                        # read before recording: a process that ends between the two reads is not seen
                        space = os.readlink(f"/proc/{name}/ns/pid")
                        look.setdefault(uid, set()).add(space)
                except (OSError, ValueError, StopIteration):
                    continue
            looks.append(look)
            done.wait(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        return action(), looks
    finally:
        done.set()
        watcher.join()
