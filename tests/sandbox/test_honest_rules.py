"""An honest file is never rejected for a rule (invariant 5, docs/security.md "The rules and the limits").

``tests/data/honest_rules/`` holds correct answers to the tasks with rules, each written to look
like breaking them and not breaking them: their own variables, parameters and functions named bin
and format, methods and attributes of those names, the words in strings and comments, other
format codes, a class's own ``__xor__`` and ``__ne__`` called by name. Each is graded as a
student's file is (the syntax check, then the program's process with its rules) and earns every
mark. Each file's docstring says what it does and why that is honest.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support import PROJECT

from grader.grade.grading import grade_file
from grader.model import Verdict

HONEST = sorted((PROJECT / "tests" / "data" / "honest_rules").glob("*.py"))


def task_of(path: Path, course) -> str:
    """The task a corpus file answers: the task id its name starts with."""
    (task_id,) = [task_id for task_id in course if path.stem.startswith(task_id + "_")]
    return task_id


@pytest.mark.parametrize("path", HONEST, ids=lambda path: path.stem)
def test_an_honest_file_earns_every_mark(tmp_path, course, context, path):
    task = course[task_of(path, course)]
    assert task.rules, "the corpus is for tasks with rules"
    handed_in = tmp_path / f"{task.id}.py"
    handed_in.write_bytes(path.read_bytes())
    result = grade_file(task, handed_in, context)
    wrong = [
        (case.case.name, case.verdict.value, case.message)
        for case in result.cases
        if case.verdict is not Verdict.ACCEPTED
    ]
    assert result.verdict is Verdict.ACCEPTED, (result.problem, wrong[:3])
