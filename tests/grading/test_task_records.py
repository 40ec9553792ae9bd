"""One record of a graded task: what check --json prints, the portal keeps and every export reads
gives back the same marks, the same Gradescope document and nothing more of a hidden case."""

from __future__ import annotations

import json

from support import mutate, solution

from grader.marks import marks_of
from grader.model import Verdict
from grader.report.exports import gradescope
from grader.report.records import result_from_record, task_record


def round_trip(result):
    """``result`` written as a record, through JSON (as the database keeps it), and read back."""
    return result_from_record(json.loads(json.dumps(task_record(result))), result.task)


def test_a_record_read_back_gives_the_same_marks_and_gradescope_document(grade, course):
    for text in (solution("nim_sum"), mutate("nim_sum", "total = total ^ row", "total = total + row")):
        graded = grade("nim_sum", text)
        back = round_trip(graded)
        assert (back.verdict, back.score, back.max_score) == (graded.verdict, graded.score, graded.max_score)
        assert marks_of("ann", [back]) == marks_of("ann", [graded])
        assert gradescope([back]) == gradescope([graded])


def test_a_hidden_case_in_a_record_holds_its_name_verdict_sentence_and_hint_only(grade):
    graded = grade("nim_sum", mutate("nim_sum", "total = total ^ row", "total = total + row"))
    hidden = [case for case in task_record(graded)["cases"] if case["hidden"]]
    assert hidden and all(
        set(case) == {"name", "verdict", "time_s", "message", "hidden", "points", "hint"} for case in hidden
    )
    assert all(
        case["time_s"] is None and case["message"].startswith("This hidden case")
        for case in hidden
        if case["verdict"] != "accepted"
    )
    back = round_trip(graded)
    assert [c.message for c in back.cases if c.case.hidden] == [c.message for c in graded.cases if c.case.hidden]


def test_the_points_a_record_was_graded_with_stay_its_marks(grade):
    graded = grade("nim_sum", solution("nim_sum"))
    record = task_record(graded)
    record["cases"][0]["points"] = 5  # as if the course had given the first case 5 points then
    back = result_from_record(record, graded.task)
    assert back.max_score == graded.max_score + 4 and back.score == graded.score + 4


def test_a_file_that_did_not_compile_reads_back_with_its_problem(grade):
    graded = grade("nim_sum", "def nim_sum(:\n")
    back = round_trip(graded)
    assert back.problem is not None and back.problem.verdict is Verdict.SYNTAX_ERROR
    assert [c.message for c in back.cases] == [c.message for c in graded.cases]


def test_a_record_of_an_older_form_or_hand_edited_reads_without_a_stop(course):
    task = course["nim_sum"]
    old = {"task": "nim_sum", "verdict": "accepted", "cases": [{"name": "gone", "verdict": "made up"}, "junk"]}
    back = result_from_record(old, task)
    assert [c.case.name for c in back.cases] == ["gone"] and back.cases[0].verdict is Verdict.RUNTIME_ERROR
    assert back.score == 0
