"""A corpus of realistic wrong submissions (tests/submissions/): each gets the verdict and the words
that tests/submissions/expected.yaml says (see that file's header for its keys).

Each file is graded with ``grade_file`` a few cases at a time (as many as the grader runs at once),
stopping at the first case that is not accepted: the task's verdict and the first failing case's
message are the same as when every case is graded, and the suite stays fast.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Optional

import pytest
import yaml

from conftest import PROJECT
from grader.grade.grading import GradingContext, grade_file
from grader.model import CaseResult, Task, Verdict

SUBMISSIONS = PROJECT / "tests" / "submissions"
EXPECTED_FILE = SUBMISSIONS / "expected.yaml"
EXPECTED = yaml.safe_load(EXPECTED_FILE.read_text(encoding="utf-8"))
KEYS = {"verdict", "message", "absent", "cases", "quick", "xfail"}
TASKS = (
    "present_board",
    "make_move",
    "exclusive_or",
    "bin_num",
    "bitwise_xor",
    "nim_sum",
    "optimal_move",
    "ui",
    "working_game",
)
QUICK_TIME_S = 0.5  # the time limit of every case of a `quick` entry
QUICK_CASES = 2  # the cases a `quick` entry grades, unless it names them


def submission_files() -> list:
    """Every file under tests/submissions/ but expected.yaml, as <task>/<file>."""
    return sorted(
        path.relative_to(SUBMISSIONS).as_posix()
        for path in SUBMISSIONS.rglob("*")
        if path.is_file() and path != EXPECTED_FILE and "__pycache__" not in path.parts
    )


def params() -> list:
    """One pytest param per entry; an entry with `xfail` is a strict xfail with that reason."""
    found = []
    for name, entry in EXPECTED.items():
        marks = pytest.mark.xfail(strict=True, reason=entry["xfail"]) if entry.get("xfail") else ()
        found.append(pytest.param(name, marks=marks, id=name))
    return found


def graded_task(task: Task, entry: dict) -> Task:
    """The task as the entry grades it: the cases it names, or for `quick` the first few, faster."""
    cases = task.cases
    if entry.get("cases"):
        wanted = entry["cases"]
        unknown = [w for w in wanted if not any(c.name.startswith(w) for c in cases)]
        assert not unknown, f"no case of {task.id} has a name that starts with {unknown}"
        cases = tuple(c for c in cases if any(c.name.startswith(w) for w in wanted))
    elif entry.get("quick"):
        cases = cases[:QUICK_CASES]
    if entry.get("quick"):
        cases = tuple(replace(c, limits=replace(c.limits, time_s=QUICK_TIME_S)) for c in cases)
    return replace(task, cases=cases)


def first_failure(task: Task, path: Path, context: GradingContext) -> Optional[CaseResult]:
    """The first case of ``task`` that ``path`` does not pass (None when it passes them all)."""
    step = max(1, context.jobs)
    for start in range(0, len(task.cases), step):
        result = grade_file(replace(task, cases=task.cases[start : start + step]), path, context)
        for case in result.cases:
            if not case.accepted:
                return case
    return None


def test_every_submission_has_an_entry_and_every_entry_a_submission():
    files = set(submission_files())
    assert sorted(files - set(EXPECTED)) == [], "files under tests/submissions/ without an entry in expected.yaml"
    assert sorted(set(EXPECTED) - files) == [], "entries in expected.yaml without a file"


def test_entries_are_well_formed():
    for name, entry in EXPECTED.items():
        task, _, file = name.partition("/")
        assert task in TASKS and file.endswith((".py", ".py.txt")), name
        assert set(entry) <= KEYS, f"{name}: unknown keys {sorted(set(entry) - KEYS)}"
        assert entry["verdict"] in {v.value for v in Verdict} - {"accepted"}, name
        assert entry["message"] and all(isinstance(w, str) and w for w in entry["message"]), name
        assert all(isinstance(w, str) and w for w in entry.get("absent", ())), name


@pytest.mark.parametrize("task", TASKS)
def test_every_task_has_at_least_four_mistakes(task):
    assert len([name for name in EXPECTED if name.startswith(task + "/")]) >= 4


@pytest.mark.parametrize("name", submission_files())
def test_submission_says_which_mistake_it_makes(name):
    first = (SUBMISSIONS / name).read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# Mistake: ") and len(first) > len("# Mistake: "), name


@pytest.mark.parametrize("name", params())
def test_submission(name, course, context, tmp_path):
    entry = EXPECTED[name]
    task_id = name.split("/")[0]
    task = course[task_id]
    path = tmp_path / f"{task_id}.py"
    shutil.copyfile(SUBMISSIONS / name, path)
    for companion in task.uses_files:  # working_game imports the reference files of exercises 1, 2, 7, 8
        shutil.copyfile(PROJECT / "solutions" / f"{companion}.py", tmp_path / f"{companion}.py")

    failed = first_failure(graded_task(task, entry), path, context)

    assert failed is not None, f"{name} was accepted; expected {entry['verdict']}"
    assert failed.verdict.value == entry["verdict"], (
        f"case {failed.case.name!r}, {failed.verdict.value}: {failed.message}"
    )
    message = failed.message.lower()
    missing = [word for word in entry["message"] if word.lower() not in message]
    assert not missing, f"case {failed.case.name!r}: {missing} not in: {failed.message}"
    misleading = [word for word in entry.get("absent", ()) if word.lower() in message]
    assert not misleading, f"case {failed.case.name!r}: {misleading} in: {failed.message}"
