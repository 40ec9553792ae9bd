"""The exports' arithmetic, attacked over every kind of mark: a Gradescope document's total is the
sum of its tests' scores (as Gradescope adds them) for every late rule, penalty and adjustment; no
test is hidden (Gradescope would hide the total); the gradebook's first row after the header says
what each task is worth."""

from __future__ import annotations

import csv
import io
import itertools

import pytest

from grader.counting import NOT_COUNTED, PENALTY, Adjusted, LateRule, Standing
from grader.marks import marks_of
from grader.model import Case, CaseResult, Limits, Task, TaskResult, Verdict
from grader.report.exports import POINTS_POSSIBLE, gradebook_csv, gradescope
from grader.submission.problems import missing_file


def case(name: str, hidden: bool = False, points: float = 1) -> Case:
    return Case(name, "1 2\n", ("3",), "exact", {}, limits=Limits(), hidden=hidden, points=points)


# 16 points shared out by three cases (16/3 each: no finite decimal), one of them hidden
TASK = Task("nim_sum", "The nim-sum", (case("two rows"), case("three rows"), case("big board", hidden=True)), total=16)
OTHER = Task("make_move", "Making a move", (case("take one"),))


def result(task: Task, accepted) -> TaskResult:
    verdicts = [Verdict.ACCEPTED if ok else Verdict.WRONG_ANSWER for ok in accepted]
    cases = tuple(CaseResult(c, v, "" if v is Verdict.ACCEPTED else "printed 4") for c, v in zip(task.cases, verdicts))
    return TaskResult(task, f"{task.id}.py", cases)


STANDINGS = [
    Standing(),
    Standing(late=True, rule=LateRule(PENALTY, 7)),
    Standing(late=True, rule=LateRule(PENALTY, 33)),
    Standing(late_only=True, rule=LateRule(NOT_COUNTED)),
    Standing(adjusted=Adjusted(3, "by hand")),
    Standing(adjusted=Adjusted(-2.5, "copied")),
    Standing(adjusted=Adjusted(500, "too much")),  # kept to the task's points
    Standing(late=True, rule=LateRule(PENALTY, 20), adjusted=Adjusted(-100, "nothing left")),
    Standing(late=True, rule=LateRule(PENALTY, 7), adjusted=Adjusted(1.25, "a quarter more")),
]
ANSWERS = [(True, True, True), (True, False, True), (False, False, False), (True, True, False)]


@pytest.mark.parametrize("standing", STANDINGS, ids=lambda s: repr(s)[:60])
def test_the_total_is_the_sum_of_the_tests_for_every_late_rule_and_adjustment(standing):
    for answers, other in itertools.product(ANSWERS, [True, False]):
        results = [result(TASK, answers), result(OTHER, [other]) if other else missing_file(OTHER, "make_move.py")]
        marks = marks_of("ann", results, {"nim_sum": standing})
        document = gradescope(results, marks)
        scores = [test["score"] for test in document["tests"]]
        assert sum(scores) == pytest.approx(document["score"], abs=1e-9), document["tests"]
        book = {row[0]: row for row in csv.reader(io.StringIO(gradebook_csv([marks], [TASK, OTHER])))}
        assert round(document["score"], 4) == float(book["ann"][3])  # the gradebook's total (4 decimals)
        if any(t["max_score"] == 0 for t in document["tests"]):  # (a change takes up the rounding)
            assert document["score"] == float(book["ann"][3])
        nim_sum = [t["score"] for t in document["tests"] if t["name"].startswith("nim_sum: ")]
        assert sum(nim_sum) == pytest.approx(float(book["ann"][1]), abs=1e-4)  # its column (4 decimals)
        assert sum(t["max_score"] for t in document["tests"]) == pytest.approx(TASK.max_score + OTHER.max_score)


def test_no_test_is_hidden_and_a_hidden_case_shows_what_the_page_shows():
    document = gradescope([result(TASK, (True, True, False))])
    assert {test["visibility"] for test in document["tests"]} == {"visible"}
    hidden = document["tests"][2]
    assert hidden["name"] == "nim_sum: big board (hidden)" and hidden["status"] == "failed"
    assert hidden["output"] == "This hidden case was not accepted: your program gave a wrong answer."
    assert document["score"] == sum(test["score"] for test in document["tests"])


def test_a_change_is_a_test_of_its_own_worth_nothing():
    standing = Standing(late=True, rule=LateRule(PENALTY, 20), adjusted=Adjusted(3, "by hand"))
    results = [result(TASK, (True, True, True))]
    document = gradescope(results, marks_of("ann", results, {"nim_sum": standing}))
    late, adjusted = document["tests"][3:]
    assert (late["name"], late["max_score"], late["score"]) == ("nim_sum: late -20 %", 0, pytest.approx(-3.2))
    assert (adjusted["name"], adjusted["max_score"], adjusted["score"]) == ("nim_sum: adjusted", 0, pytest.approx(3))
    assert "by hand" in adjusted["output"] and document["score"] == pytest.approx(15.8)


def test_the_lms_gradebook_says_what_each_task_is_worth_first_after_its_header():
    marks = marks_of("ann", [result(TASK, (True, False, True)), missing_file(OTHER, "make_move.py")])
    plain = list(csv.reader(io.StringIO(gradebook_csv([marks], [TASK, OTHER]))))
    assert [row[0] for row in plain] == ["student", "ann"]  # grader-cli.md: one row per student
    rows = list(csv.reader(io.StringIO(gradebook_csv([marks], [TASK, OTHER], points_possible=True))))
    assert rows[0] == ["student", "nim_sum", "make_move", "total", "not_handed_in"]
    assert rows[1] == [POINTS_POSSIBLE, "16", "1", "17", ""]
    assert rows[2][0] == "ann" and len(rows) == 3
    who = {"ann": ("Ann", "a@b.c")}
    people = list(csv.reader(io.StringIO(gradebook_csv([marks], [TASK, OTHER], who, points_possible=True))))
    assert people[1] == [POINTS_POSSIBLE, "16", "1", "17", "", "", "", "", ""]  # name, email, late, adjustments
