"""The course record's one rule (``grader/counting.py``): which graded submission counts, and for how
many points after a late rule and an adjustment; and ``marks_of`` applying it."""

from __future__ import annotations

import pytest

from grader.counting import (
    BEST,
    CHOSEN,
    LATEST,
    NOT_COUNTED,
    PENALTY,
    Adjusted,
    Graded,
    LateRule,
    Standing,
    pick,
    standing,
)

ON_TIME_LOW, ON_TIME_HIGH, LATE_TOP = Graded(1, 10.0), Graded(2, 30.0), Graded(3, 36.0, late=True)
ALL = [ON_TIME_LOW, ON_TIME_HIGH, LATE_TOP]


@pytest.mark.parametrize(
    "choice, rule, expected",
    [
        (LATEST, LateRule(), LATE_TOP),
        (LATEST, LateRule(NOT_COUNTED), ON_TIME_HIGH),  # late work is graded, an on-time one counts
        (BEST, LateRule(), LATE_TOP),
        (BEST, LateRule(PENALTY, 20), ON_TIME_HIGH),  # 28.8 after the penalty: less than 30
        (BEST, LateRule(PENALTY, 10), LATE_TOP),  # 32.4: still the best
        (CHOSEN, LateRule(), LATE_TOP),  # nothing chosen: the latest
    ],
)
def test_the_submission_that_counts(choice, rule, expected):
    assert pick(ALL, choice, rule) == expected


def test_a_chosen_submission_counts_unless_late_work_does_not():
    chosen_early = [Graded(1, 10.0, chosen=True), Graded(2, 30.0)]
    assert pick(chosen_early, CHOSEN, LateRule()).number == 1
    chosen_late = [Graded(1, 10.0), Graded(2, 30.0, late=True, chosen=True)]
    assert pick(chosen_late, CHOSEN, LateRule()).number == 2
    assert pick(chosen_late, CHOSEN, LateRule(NOT_COUNTED)).number == 1  # the latest that may count


def test_equal_best_scores_count_the_later():
    assert pick([Graded(1, 5.0), Graded(2, 5.0)], BEST, LateRule()).number == 2


def test_only_late_work_under_not_counted_counts_nothing_and_says_so():
    only_late = [Graded(1, 36.0, late=True)]
    counts = pick(only_late, LATEST, LateRule(NOT_COUNTED))
    assert counts is None
    found = standing(only_late, counts, LateRule(NOT_COUNTED), None)
    assert found.late_only and found.counted(36.0, 36.0) == 0.0


@pytest.mark.parametrize(
    "found, score, expected",
    [
        (Standing(), 30.0, 30.0),
        (Standing(late=True), 30.0, 30.0),
        (Standing(late=True, rule=LateRule(PENALTY, 20)), 30.0, 24.0),
        (Standing(late=True, rule=LateRule(PENALTY, 20), adjusted=Adjusted(3, "x")), 30.0, 27.0),
        (Standing(adjusted=Adjusted(10, "extra")), 30.0, 36.0),  # never above the task's points
        (Standing(adjusted=Adjusted(-50, "copied")), 30.0, 0.0),  # never below 0
        (Standing(late_only=True, adjusted=Adjusted(5, "handed in by mail")), 30.0, 5.0),
    ],
)
def test_the_points_that_count(found, score, expected):
    assert found.counted(score, 36.0) == pytest.approx(expected)


def test_marks_of_applies_the_standing_and_says_what_changed():
    from support import PROJECT

    from grader.course.loader import load_course
    from grader.marks import marks_of
    from grader.model import CaseResult, TaskResult, Verdict

    task = load_course(PROJECT)["nim_sum"]
    result = TaskResult(task, "nim_sum.py", tuple(CaseResult(c, Verdict.ACCEPTED, "") for c in task.cases))
    plain = marks_of("ann", [result]).tasks[0]
    assert plain.score == result.max_score and plain.graded is None and plain.changed == ""
    late = Standing(late=True, rule=LateRule(PENALTY, 50), adjusted=Adjusted(-1, "late by a week"))
    changed = marks_of("ann", [result], {"nim_sum": late}).tasks[0]
    assert changed.score == pytest.approx(result.max_score / 2 - 1) and changed.graded == result.max_score
    assert changed.changed == "late -50 %; adjusted -1: late by a week"
