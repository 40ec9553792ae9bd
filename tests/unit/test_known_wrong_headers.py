"""The headers of the known-wrong solutions in solutions/wrong/ (the keys are in
grader/authoring/known_wrong.py and docs/testcases.md): each well formed, each saying on its first
line which mistake it makes, and at least four per task whose message is checked.

Grading them is the course tier's (``grader/pytest_plugin.py``: for each file an item checks its
verdict and the cases that must catch it, and one more, through ``grader/authoring/wrong_says.py``,
what the first case it fails says), the one place that owns "a known-wrong file gets its declared
verdict and words". A file that must not compile (a Python 2 print) is named <mistake>.py.txt so that
linters and tools that parse every .py file leave it alone.
"""

from __future__ import annotations

import pytest
from support import HANDOUT, PROJECT

from grader.authoring.known_wrong import WrongSolution, read_wrong_solution

WRONG = PROJECT / "solutions" / "wrong"
TASKS = tuple(HANDOUT)  # (support.py: the handout's order)


def corpus() -> list:
    """Every known-wrong solution (.py, and .py.txt for one that must not compile), header read."""
    paths = sorted(path for pattern in ("*/*.py", "*/*.py.txt") for path in WRONG.glob(pattern))
    return [read_wrong_solution(path.parent.name, path) for path in paths]


def name(wrong: WrongSolution) -> str:
    return f"{wrong.task_id}/{wrong.path.name}"


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
