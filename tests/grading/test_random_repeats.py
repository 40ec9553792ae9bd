"""Random answers (``repeat``, ``min_distinct``): a repeated case stops once randomness is shown.

Runs are counted with runner wrappers: a counting one around the session's real runner, and a
scripted one that answers from a list, for run orders that chance would rarely give.
"""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from runner_wrappers import CountingRunner, ScriptedRunner
from support import PROJECT, mutate, solution

from grader.authoring.known_wrong import read_wrong_solution
from grader.authoring.verify import grade_until_decided
from grader.check.random_answers import log2_chance_too_few, repeat_needed
from grader.course.loader import load_task
from grader.course.reference import program_for
from grader.errors import CaseFileError
from grader.grade.grading import grade_case, grade_file
from grader.grade.repeats import MIN_RUNS
from grader.model import Verdict

THREE_MOVES = "[27, 8, 3, 29]"  # winning moves [1, 5], [2, 3] and [4, 13]
GOOD_ROWS = "        index = random.choice(good_rows)\n"


def one_case(course, board: str):
    """The optimal_move task with only the case on ``board``."""
    task = course["optimal_move"]
    (case,) = [case for case in task.cases if case.input.strip() == board]
    return replace(task, cases=(case,))


def graded(tmp_path, task, source: str, context):
    path = tmp_path / "optimal_move.py"
    path.write_text(source, encoding="utf-8")
    (result,) = grade_file(task, path, context).cases
    return result


# -- item 2: a correct random solution stops early -----------------------------------------------


def test_a_correct_random_solution_is_accepted_after_far_fewer_runs(tmp_path, course, context):
    counting = CountingRunner(context.runner)
    task = one_case(course, THREE_MOVES)
    assert (task.cases[0].repeat, task.cases[0].min_distinct) == (21, 2)
    result = graded(tmp_path, task, solution("optimal_move"), replace(context, runner=counting))
    assert result.verdict is Verdict.ACCEPTED, result.message
    # Two different moves of three end the case; 21 runs in a row would take (1/3)**19 luck.
    assert 2 <= counting.runs < 21


def test_a_board_with_hundreds_of_winning_moves_needs_about_two_runs(tmp_path, course, context):
    counting = CountingRunner(context.runner)
    task = course["optimal_move"]
    (case,) = [case for case in task.cases if case.name.startswith("1,000 rows: one of many")]
    result = graded(tmp_path, replace(task, cases=(case,)), solution("optimal_move"), replace(context, runner=counting))
    assert result.verdict is Verdict.ACCEPTED, result.message
    assert counting.runs == MIN_RUNS  # 463 winning moves: two different ones long before the sixth run


def test_the_case_stops_at_the_second_different_right_answer_once_it_has_made_six_runs(tmp_path, course, context):
    scripted = ScriptedRunner(["[1, 5]", "[1, 5]", "[2, 3]", "[4, 13]"])
    result = graded(tmp_path, one_case(course, THREE_MOVES), "", replace(context, runner=scripted))
    assert result.verdict is Verdict.ACCEPTED
    assert scripted.runs == MIN_RUNS == 6
    late = ScriptedRunner(["[1, 5]"] * 7 + ["[2, 3]", "[4, 13]"])
    assert (
        graded(tmp_path, one_case(course, THREE_MOVES), "", replace(context, runner=late)).verdict is Verdict.ACCEPTED
    )
    assert late.runs == 8  # the second different answer came on run 8


def test_a_mistake_on_run_5_fails_the_case_though_two_different_right_answers_came_first(tmp_path, course, context):
    # a random row that is sometimes wrong: two right answers at once must not end the case before it shows
    scripted = ScriptedRunner(["[1, 5]", "[2, 3]", "[4, 13]", "[1, 5]", "[3, 3]", "[2, 3]"])
    result = graded(tmp_path, one_case(course, THREE_MOVES), "", replace(context, runner=scripted))
    assert result.verdict is Verdict.WRONG_ANSWER
    assert result.message.startswith("Run 5 of 21: ")


def test_runs_in_parallel_stop_once_decided(course, context):
    task = one_case(course, THREE_MOVES)
    program, _ = program_for(task, PROJECT / "solutions" / "optimal_move.py", context.python)
    scripted = ScriptedRunner(["[1, 5]", "[2, 3]", "[4, 13]"])
    result = grade_case(task.cases[0], program, replace(context, runner=scripted), "optimal_move.py", parallel_runs=3)
    assert result.verdict is Verdict.ACCEPTED
    assert MIN_RUNS <= scripted.runs <= MIN_RUNS + 2  # three at a time: two more may be under way at the news


# -- a deterministic or wrong solution is still caught --------------------------------------------


def test_a_deterministic_solution_runs_every_run_and_gets_wrong_answer(tmp_path, course, context):
    counting = CountingRunner(context.runner)
    source = mutate("optimal_move", GOOD_ROWS, "        index = good_rows[0]\n")
    result = graded(tmp_path, one_case(course, THREE_MOVES), source, replace(context, runner=counting))
    assert result.verdict is Verdict.WRONG_ANSWER
    assert "All 21 runs gave a right answer, but only 1 different one ([1, 5])" in result.message
    assert counting.runs == 21


def test_a_deterministic_solution_in_parallel_runs_every_run(course, context):
    task = one_case(course, THREE_MOVES)
    program, _ = program_for(task, PROJECT / "solutions" / "optimal_move.py", context.python)
    scripted = ScriptedRunner(["[2, 3]"])
    result = grade_case(task.cases[0], program, replace(context, runner=scripted), "optimal_move.py", parallel_runs=4)
    assert result.verdict is Verdict.WRONG_ANSWER
    assert "All 21 runs gave a right answer, but only 1 different one ([2, 3])" in result.message
    assert scripted.runs == 21


def test_a_wrong_answer_on_run_3_fails_the_case(tmp_path, course, context):
    scripted = ScriptedRunner(["[1, 5]", "[1, 5]", "[2, 2]", "[2, 3]"])
    result = graded(tmp_path, one_case(course, THREE_MOVES), "", replace(context, runner=scripted))
    assert result.verdict is Verdict.WRONG_ANSWER
    assert result.message.startswith("Run 3 of 21: ")
    assert scripted.runs == 3


def test_verify_runs_every_run_so_a_mistake_that_shows_late_is_caught(tmp_path, course, context):
    # Two different right answers, then a wrong one: a student's check stops after two runs, but
    # verify must see a known-wrong solution's mistake whenever the case's runs can show it.
    wrong = tmp_path / "p_late.py"
    wrong.write_text("# Mistake: wrong on the third run\n# verdict: wrong_answer\n", encoding="utf-8")
    scripted = ScriptedRunner(["[1, 5]", "[2, 3]", "[9, 9]", "[4, 13]"])
    task = one_case(course, THREE_MOVES)
    header = read_wrong_solution("optimal_move", wrong)
    result = grade_until_decided(task, header, PROJECT, replace(context, runner=scripted))
    assert result.verdict is Verdict.WRONG_ANSWER
    assert result.cases[0].message.startswith("Run 3 of 21: ")


# -- the bound: how many runs min_distinct needs -------------------------------------------------


def test_runs_needed_keep_a_correct_random_solution_failing_at_most_once_in_2_to_the_20():
    assert [repeat_needed(m) for m in (0, 1, 2, 3, 4)] == [1, 1, 21, 37, 54]
    assert log2_chance_too_few(21, 2) == pytest.approx(-20)  # the same move 21 times: 2 * 2**-21
    assert log2_chance_too_few(20, 2) > -20
    for m in (2, 3, 4, 5):
        assert log2_chance_too_few(repeat_needed(m), m) <= -20 + 1e-9
        assert log2_chance_too_few(repeat_needed(m) - 1, m) > -20


def write_case(tmp_path: Path, repeat: int, min_distinct: int) -> Path:
    path = tmp_path / "testcases" / "optimal_move.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(
        textwrap.dedent(
            f"""\
            task: optimal_move
            checker: optimal_move
            cases:
              - name: three winning moves
                input: '[27, 8, 3, 29]'
                repeat: {repeat}
                min_distinct: {min_distinct}
            """
        ),
        encoding="utf-8",
    )
    return path


@pytest.mark.parametrize(("repeat", "min_distinct", "needed"), [(20, 2, 21), (5, 2, 21), (36, 3, 37)])
def test_the_loader_refuses_too_few_runs_for_min_distinct(tmp_path, context, repeat, min_distinct, needed):
    path = write_case(tmp_path, repeat, min_distinct)
    with pytest.raises(CaseFileError) as caught:
        load_task(path, context.checkers, "testcases/optimal_move.yaml")
    message = str(caught.value)
    assert message.startswith("testcases/optimal_move.yaml, line 6: 'repeat' ")  # the line of 'repeat'
    assert f"must be at least {needed} with 'min_distinct' {min_distinct}" in message
    assert "2**20" in message


@pytest.mark.parametrize(("repeat", "min_distinct"), [(21, 2), (30, 2), (37, 3), (3, 1)])
def test_the_loader_takes_enough_runs(tmp_path, context, repeat, min_distinct):
    (case,) = load_task(write_case(tmp_path, repeat, min_distinct), context.checkers).cases
    assert (case.repeat, case.min_distinct) == (repeat, min_distinct)


@pytest.mark.parametrize("mistake", ["p_position_picks_empty_rows", "p_position_may_take_zero"])
def test_the_courses_random_mistakes_are_caught_on_a_students_check_whatever_the_seed(
    tmp_path, course, context, mistake
):
    """A known-wrong solution whose mistake shows on some runs only (an empty row picked, 0 taken)
    is rejected as a student's check grades it: each comment added is another seed. The cases are
    graded in order, as many at once as run at once, up to the first that is not accepted: that
    one decides the file is rejected (a seed is a function of the file, the case and the repeat)."""
    text = (PROJECT / "solutions" / "wrong" / "optimal_move" / f"{mistake}.py").read_text(encoding="utf-8")
    task = course["optimal_move"]
    step = max(2, context.jobs)
    for number in range(8):
        path = tmp_path / str(number) / "optimal_move.py"
        path.parent.mkdir()
        path.write_text(f"{text}\n# comment {number}\n", encoding="utf-8")
        chunks = (replace(task, cases=task.cases[start : start + step]) for start in range(0, len(task.cases), step))
        graded = (grade_file(chunk, path, replace(context, quick_feedback=True)) for chunk in chunks)
        assert any(result.score < result.max_score for result in graded), f"accepted with comment {number}"
