"""Feedback that never misleads (issue 36): each real-style mistake of ``tests/real_mistakes`` gets
the first message that names it (or, where the grader cannot tell the cause, the plain facts), and
no message that misleads, graded as ``check`` grades it (known mistakes included)."""

from __future__ import annotations

import pytest
from real_mistakes import ALL, every_message, first_message
from support import solution

from grader.grade.known_mistakes import with_known_mistake

TOGETHER = ("present_board", "make_move", "optimal_move", "ui")  # what working_game imports


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
