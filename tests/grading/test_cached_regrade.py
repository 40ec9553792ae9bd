"""A cached result is the result the grader would compute now (docs/security.md, "Cached results").

A class run keeps each task's results under the key of everything that decides them
(``grade/result_key.py``). Each test here grades a file with the cache, changes one thing the
results depend on (a hint, a limit, a checker's option, an expected answer, checkers.py, the task's
rules, a setting), grades again with the cache, and compares with a fresh grading without it:
they must be the same, marks and words. The programs are hostile to a cache that would reuse part
of a task or miss part of the key: one answers according to how its case's runs are arranged, one
earns a hint that waits for other cases, one breaks a rule only the run-time guard sees, one runs
out of time where quick feedback decides the rest.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from support import course_of

from grader.classrun.grade_class import grade_class
from grader.classrun.progress import Progress
from grader.classrun.result_cache import ResultCache
from grader.course.course_checkers import course_checkers
from grader.course.loader import load_course

# Right only when it does not lead a process group of its own: when a file's cases shared one
# process, the first grading of a whole file ran it so, and a case graded again by itself (its hint
# edited: the per-case key) ran alone and printed 7: the red team's 36 -> 35. Since every case runs
# in a process of its own it prints 7 always; it stays for any arrangement of a task's runs that
# could decide a case's answer.
WITH_OTHERS = """import os, sys
a, b = [int(word) for word in sys.stdin.read().split()]
if os.getpgid(0) == os.getpid():
    print(7)
elif a == b:
    print(0)
else:
    print(1)
"""
# Plain "or": right on three rows, and on '1 1' it earns the hint that waits for two other cases.
PLAIN_OR = """import sys
a, b = [int(word) for word in sys.stdin.read().split()]
if a == 1 or b == 1:
    print(1)
else:
    print(0)
"""
# operator.xor by a name built at run time: the static check cannot see it, the run-time guard can.
INDIRECT_XOR = """import operator, sys
a, b = [int(word) for word in sys.stdin.read().split()]
print(getattr(operator, "x" + "or")(a, b))
"""
# Runs out of time on the two visible cases, right on the hidden ones.
SLOW_ON_VISIBLE = """import sys, time
a, b = [int(word) for word in sys.stdin.read().split()]
if a == 0 and b == 0 or a == 1 and b == 0:
    time.sleep(60)
print(0 if a == b else 1)
"""


def _inserted_after_row_1_0(text: str, line: str) -> str:
    row = "    input: '1 0'\n"
    assert row in text
    return text.replace(row, row + line, 1)


def _replaced(old: str, new: str):
    def edit(course: Path) -> None:
        path = course / "testcases" / "exclusive_or.yaml"
        text = path.read_text(encoding="utf-8")
        assert old in text
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    return edit


def _case_file_edit(change):
    def edit(course: Path) -> None:
        path = course / "testcases" / "exclusive_or.yaml"
        path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")

    return edit


def _checkers_py(course: Path) -> None:
    (course / "checkers.py").write_text(
        (course / "checkers.py").read_text(encoding="utf-8") + "\n# the course's checkers, edited\n"
        if (course / "checkers.py").is_file()
        else "def register(registry):\n    pass\n",
        encoding="utf-8",
    )


RULES = """rules:
  - operator: "^"
    instead: write the truth table of exclusive or with if statements.
  - operator: "!="
    instead: compare the bits with == and if statements.
  - name: operator.xor
    instead: write the truth table of exclusive or with if statements.
"""

EDITS = {
    "one hint": (WITH_OTHERS, _replaced("hint: Exactly one 1 gives 1.", "hint: Exactly one 1 gives 1 (one and zero).")),
    "a limit": (WITH_OTHERS, _case_file_edit(lambda text: _inserted_after_row_1_0(text, "    time_limit: 3\n"))),
    "a checker option": (
        WITH_OTHERS,
        _case_file_edit(lambda text: _inserted_after_row_1_0(text, "    checker_options: {trailing_space: true}\n")),
    ),
    "checkers.py": (WITH_OTHERS, _checkers_py),
    "an expected answer another case's hint waits for": (
        PLAIN_OR,
        _replaced("input: '1 0'\n    expected: '1'", "input: '1 0'\n    expected: '0'"),
    ),
    "the task's rules": (INDIRECT_XOR, _replaced("rules: []\n", RULES)),
}


@pytest.fixture
def exclusive_or_course(tmp_path):
    """The exclusive_or task alone, its rules written as a block the tests may take out."""
    course = course_of(tmp_path / "course", ["exclusive_or"])
    path = course / "testcases" / "exclusive_or.yaml"
    text = path.read_text(encoding="utf-8")
    assert RULES in text
    path.write_text(text.replace("task: exclusive_or", "task: exclusive_or\ntime_limit: 1", 1), encoding="utf-8")
    return course


def graded(course: Path, room: Path, out: Path, context, cache=None, **settings) -> list:
    """One class run of ``room`` on ``course`` as its files are now: ann's marks and words, case by case."""
    tasks = list(load_course(course).values())
    here = replace(context, checkers=course_checkers(course), course=course, task_ids=("exclusive_or",), **settings)
    grade_class(room, tasks, out, here, cache=cache, progress=Progress(1, io.StringIO()))
    report = json.loads((out / "ann" / "results.json").read_text(encoding="utf-8"))
    return [report["score"]] + [(t["name"], t["score"], t["status"], t["output"]) for t in report["tests"]]


def class_of(room: Path, **files: str) -> Path:
    for student, text in files.items():
        (room / student).mkdir(parents=True, exist_ok=True)
        (room / student / "exclusive_or.py").write_text(text, encoding="utf-8")
    return room


@pytest.mark.parametrize("what", list(EDITS))
def test_a_regrade_after_an_edit_is_a_fresh_grading(what, exclusive_or_course, tmp_path, context):
    program, edit = EDITS[what]
    course = exclusive_or_course
    if what == "the task's rules":  # graded first without rules, then with them
        _replaced(RULES, "rules: []\n")(course)
    room = class_of(tmp_path / "class", ann=program)
    with ResultCache(tmp_path / "cache.sqlite") as cache:
        before = graded(course, room, tmp_path / "first", context, cache)
        edit(course)
        again = graded(course, room, tmp_path / "again", context, cache)
    fresh = graded(course, room, tmp_path / "fresh", context)
    assert again == fresh, f"after an edit to {what}, the cache gave {again}, a fresh grading {fresh}"
    if what in ("one hint", "a limit", "a checker option", "checkers.py"):
        assert fresh[0] == before[0]  # none of these changes what the file earns


def test_a_regrade_with_another_setting_is_a_fresh_grading(exclusive_or_course, tmp_path, context):
    """``grade --all`` runs every case; ``grade`` leaves out those after a second time-out."""
    course = exclusive_or_course
    room = class_of(tmp_path / "class", ann=SLOW_ON_VISIBLE)
    with ResultCache(tmp_path / "cache.sqlite") as cache:
        every_case = graded(course, room, tmp_path / "all", context, cache, quick_feedback=False)
        again = graded(course, room, tmp_path / "again", context, cache, quick_feedback=True)
    fresh = graded(course, room, tmp_path / "fresh", context, quick_feedback=True)
    assert every_case[0] == 2 and fresh[0] == 0  # the hidden cases were not run
    # (the processor time a sleeping program used is measured anew by each grading: 0.01 or 0.02 s)
    assert _unmeasured(again) == _unmeasured(fresh)


def _unmeasured(results: list) -> list:
    """``graded``'s results with the processor time a message measured left out."""
    return [re.sub(r"used only [0-9.]+ seconds", "used only ... seconds", str(entry)) for entry in results]


def test_identical_files_of_two_students_are_each_their_own(exclusive_or_course, tmp_path, context):
    """A traceback names the file as its student handed it in: ben's report never names ann."""
    crashes = "import sys\nsys.stdin.read()\nraise ValueError('no xor here')\n"
    room = class_of(tmp_path / "class", ann=crashes)
    with ResultCache(tmp_path / "cache.sqlite") as cache:
        graded(exclusive_or_course, room, tmp_path / "first", context, cache)
        class_of(room, ben=crashes)
        graded(exclusive_or_course, room, tmp_path / "both", context, cache)
    ann = (tmp_path / "both" / "ann" / "exclusive_or.html").read_text(encoding="utf-8")
    ben = (tmp_path / "both" / "ben" / "exclusive_or.html").read_text(encoding="utf-8")
    assert "ann/exclusive_or.py" in ann
    assert "ann/" not in ben and "ben/exclusive_or.py" in ben
