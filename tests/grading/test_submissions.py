"""What the grader says to realistic wrong submissions: the known-wrong solutions in solutions/wrong/
whose header has a ``# says:`` line get the verdict and the words their header declares (the keys
are in grader/authoring/known_wrong.py and docs/testcases.md).

Each file is graded with ``grade_file`` a few cases at a time (as many as the grader runs at once),
stopping at the first case that is not accepted: the task's verdict and the first failing case's
message are the same as when every case is graded, and the suite stays fast. ``verify`` (and the
pytest plugin's items) check the same files' verdicts and caught-by on every case.

A file that must not compile (a Python 2 print) is named <mistake>.py.txt so that linters and tools
that parse every .py file leave it alone; ``verify`` grades .py files only, so the message check here
is the one that grades it. Each file is copied to <task>.py before grading (working_game with the
reference files it imports beside it).
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path
from typing import Optional

import pytest
from support import PROJECT

from grader.authoring.known_wrong import WrongSolution, read_wrong_solution
from grader.grade.grading import GradingContext, grade_file
from grader.model import CaseResult, Task

WRONG = PROJECT / "solutions" / "wrong"
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
QUICK_TIME_S = 0.5  # the time limit of every case of a `quick` file
QUICK_CASES = 2  # the cases a `quick` file's check grades, unless it names them


def corpus() -> list:
    """Every known-wrong solution (.py, and .py.txt for one that must not compile), header read."""
    paths = sorted(path for pattern in ("*/*.py", "*/*.py.txt") for path in WRONG.glob(pattern))
    return [read_wrong_solution(path.parent.name, path) for path in paths]


def name(wrong: WrongSolution) -> str:
    return f"{wrong.task_id}/{wrong.path.name}"


def params() -> list:
    """One pytest param per file whose header says what its message says; `xfail` makes it a strict xfail."""
    found = []
    for wrong in corpus():
        if wrong.says:
            marks = pytest.mark.xfail(strict=True, reason=wrong.xfail) if wrong.xfail else ()
            found.append(pytest.param(wrong, marks=marks, id=name(wrong)))
    return found


def graded_task(task: Task, wrong: WrongSolution) -> Task:
    """The task as the message check grades it: the cases the header names, or for `quick` the first few, faster."""
    cases = task.cases
    if wrong.cases:
        unknown = [wanted for wanted in wrong.cases if wanted not in {c.name for c in cases}]
        assert not unknown, f"{name(wrong)}: {task.id} has no case named {unknown}"
        cases = tuple(c for c in cases if c.name in wrong.cases)
    elif wrong.quick:
        cases = cases[:QUICK_CASES]
    if wrong.quick:
        cases = tuple(replace(c, limits=replace(c.limits, time_s=QUICK_TIME_S)) for c in cases)
    return replace(task, cases=cases)


def first_failure(task: Task, path: Path, context: GradingContext) -> Optional[CaseResult]:
    """The first case of ``task`` that ``path`` does not pass (None when it passes them all)."""
    step = max(1, context.jobs)
    earlier = {}  # the cases graded so far, which a case's hints may wait for
    for start in range(0, len(task.cases), step):
        result = grade_file(replace(task, cases=task.cases[start : start + step]), path, context, known=earlier)
        for case in result.cases:
            if not case.accepted:
                return case
            earlier[case.case.name] = case
    return None


def test_every_header_is_well_formed():
    for wrong in corpus():
        assert wrong.task_id in TASKS, name(wrong)
        assert not wrong.header_problem, f"{name(wrong)} {wrong.header_problem}"


@pytest.mark.parametrize("task", TASKS)
def test_every_task_has_at_least_four_mistakes_whose_message_is_checked(task):
    assert len([wrong for wrong in corpus() if wrong.task_id == task and wrong.says]) >= 4


@pytest.mark.parametrize("wrong", corpus(), ids=name)
def test_each_file_says_which_mistake_it_makes_on_its_first_line(wrong):
    first = wrong.path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# Mistake: ") and wrong.mistake, name(wrong)


@pytest.mark.parametrize("wrong", params())
def test_submission(wrong, course, context, tmp_path):
    task = course[wrong.task_id]
    path = tmp_path / f"{task.id}.py"
    shutil.copyfile(wrong.path, path)
    for companion in task.uses_files:  # working_game imports the reference files of exercises 1, 2, 7, 8
        shutil.copyfile(PROJECT / "solutions" / f"{companion}.py", tmp_path / f"{companion}.py")

    failed = first_failure(graded_task(task, wrong), path, context)

    declared = " or ".join(verdict.value for verdict in wrong.verdicts)
    assert failed is not None, f"{name(wrong)} was accepted; expected {declared}"
    assert failed.verdict in wrong.verdicts, f"case {failed.case.name!r}, {failed.verdict.value}: {failed.message}"
    message = failed.message.lower()
    missing = [word for word in wrong.says if word.lower() not in message]
    assert not missing, f"case {failed.case.name!r}: {missing} not in: {failed.message}"
    misleading = [word for word in wrong.never_says if word.lower() in message]
    assert not misleading, f"case {failed.case.name!r}: {misleading} in: {failed.message}"
