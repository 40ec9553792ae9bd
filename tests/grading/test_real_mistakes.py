"""Feedback that never misleads (issue 36): each real-style mistake of ``tests/real_mistakes`` gets
the first message that names it (or, where the grader cannot tell the cause, the plain facts), and
no message that misleads, graded as ``check`` grades it (known mistakes included)."""

from __future__ import annotations

import dataclasses

import pytest
from real_mistakes import ALL, every_message, first_message
from support import solution

from grader.grade.grading import grade_file
from grader.grade.mistakes.known_mistakes import with_known_mistake

TOGETHER = ("present_board", "make_move", "optimal_move", "ui")  # what working_game imports


@pytest.fixture
def grade(tmp_path, course, context):
    """grade(task_id, text) → TaskResult, graded as ``check`` grades it: after two time-outs in a
    task its other cases are not_run (``quick_feedback``), so the first message is the one a student
    reads first there."""
    as_check = dataclasses.replace(context, quick_feedback=True)

    def run(task_id: str, text: str):
        path = tmp_path / f"{task_id}.py"
        path.write_text(text, encoding="utf-8")
        return grade_file(course[task_id], path, as_check)

    return run


@pytest.mark.parametrize("entry", ALL, ids=lambda e: f"{e.task}: {e.name}")
def test_a_real_style_mistake_gets_a_first_message_that_names_it_and_none_that_misleads(
    entry, grade, tmp_path, mistake_signatures
):
    for used in TOGETHER if entry.task == "working_game" else ():
        (tmp_path / f"{used}.py").write_text(entry.companions.get(used) or solution(used))
    result = with_known_mistake(grade(entry.task, entry.text()), mistake_signatures(entry.task)[entry.task])
    assert not result.cases[0].accepted or any(not c.accepted for c in result.cases), "the file is not wrong"
    first = first_message(result)
    assert entry.says in first, first
    for said in every_message(result):
        for misleading in entry.never:
            assert misleading not in said, said
