"""optimal_move must pick at random among ALL the winning moves: cases whose ``min_distinct`` is the
board's number of winning moves, and the loader's refusal of a ``min_distinct`` no program can meet."""

from __future__ import annotations

import itertools
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from runner_wrappers import ScriptedRunner
from support import PROJECT, legal_moves

from grader.check.random_answers import repeat_needed
from grader.course.course_checkers import course_checkers
from grader.course.loader import load_task
from grader.course.reference import program_for
from grader.course.right_answers import right_answer_count
from grader.errors import CaseFileError
from grader.grade.grading import grade_case
from grader.grade.repeats import MIN_RUNS
from grader.model import Verdict
from grader.nim.checkers import check_optimal_move
from grader.nim.rules import nim_sum

THREE = "[7, 4, 11, 15]"  # winning moves [1, 7], [2, 1] and [4, 7]


def write_case(tmp_path: Path, board: str, repeat: int, min_distinct: int, checker: str = "optimal_move") -> Path:
    path = tmp_path / "testcases" / "optimal_move.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(
        textwrap.dedent(
            f"""\
            task: optimal_move
            checker: {checker}
            cases:
              - name: every move
                input: '{board}'
                repeat: {repeat}
                min_distinct: {min_distinct}
                expected: '[1, 7]'
            """
        ),
        encoding="utf-8",
    )
    return path


def refusal(path: Path, checkers) -> str:
    with pytest.raises(CaseFileError) as caught:
        load_task(path, checkers, "testcases/optimal_move.yaml")
    return str(caught.value)


# -- the loader ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("board", "repeat", "min_distinct", "says"),
    [
        (THREE, 54, 4, "is 4, but the board [7, 4, 11, 15] has only 3 winning moves, so no program can show 4"),
        (THREE, 70, 5, "set it to at most 3 (3 asks for every winning move, with 'repeat' at least 37)"),
        ("[1, 3, 5]", 21, 2, "has only 1 winning move, so no program can show 2 different right answers: leave"),
        ("[1, 1]", 37, 3, "the board [1, 1] has only 2 legal moves (it is a P-position)"),
        (str([0] * 30 + [7]), 37, 3, "its board of 31 rows has only 1 winning move"),
    ],
)
def test_a_min_distinct_above_the_right_answers_is_refused_at_its_line(tmp_path, board, repeat, min_distinct, says):
    message = refusal(write_case(tmp_path, board, repeat, min_distinct), course_checkers(PROJECT))
    assert message.startswith("testcases/optimal_move.yaml, line 7: 'min_distinct' in case 'every move' is ")
    assert says in message


@pytest.mark.parametrize(("board", "repeat", "min_distinct"), [(THREE, 37, 3), (THREE, 21, 2), ("[1, 1]", 21, 2)])
def test_a_min_distinct_up_to_the_right_answers_loads(tmp_path, board, repeat, min_distinct):
    (case,) = load_task(write_case(tmp_path, board, repeat, min_distinct), course_checkers(PROJECT)).cases
    assert case.min_distinct == min_distinct


def test_only_the_optimal_move_checker_is_counted_whatever_its_name(tmp_path):
    checkers = course_checkers(PROJECT)
    # another checker knows nothing of boards: its min_distinct is the instructor's word
    path = write_case(tmp_path, THREE, 54, 4, checker="tokens")
    assert load_task(path, checkers).cases[0].min_distinct == 4
    checkers.register("computer_move", check_optimal_move, needs_expected=False)
    path = write_case(tmp_path, THREE, 54, 4, checker="computer_move")
    assert "has only 3 winning moves" in refusal(path, checkers)
    # an input that is not a board is the checker's to report when grading, not the loader's
    assert right_answer_count(checkers.get("optimal_move"), "[1, -2]") is None
    assert right_answer_count(checkers.get("optimal_move"), "not json") is None


def test_the_count_is_every_move_that_leaves_nim_sum_0_or_every_legal_move_and_winning_moves_come_in_odd_numbers():
    checker = course_checkers(PROJECT).get("optimal_move")
    for rows in (1, 2, 3, 4):
        for board in itertools.product(range(6), repeat=rows):
            if not any(board):
                continue
            moves = legal_moves(board)
            winning = [m for m in moves if nim_sum([s - m[1] * (r == m[0]) for r, s in enumerate(board, 1)]) == 0]
            count = right_answer_count(checker, str(list(board)))
            assert count == (len(winning) if winning else len(moves)), board
            assert not winning or len(winning) % 2 == 1, board


# -- the project's cases -------------------------------------------------------------------------


def test_the_course_asks_for_every_winning_move_on_boards_of_three_and_five_public_and_hidden(course):
    checker = course_checkers(PROJECT).get("optimal_move")
    every = {}
    for case in course["optimal_move"].cases:
        count = right_answer_count(checker, case.input)
        assert case.min_distinct <= count, case.name
        if case.min_distinct >= 3:
            assert case.min_distinct == count, f"'{case.name}' asks for some of its winning moves only"
            assert case.repeat == repeat_needed(count), case.name
            every[case.name] = (count, case.hidden)
    assert {count for count, _ in every.values()} == {3, 5}
    assert {hidden for _, hidden in every.values()} == {True, False}


def test_first_or_last_winning_move_only_fails_and_all_three_pass_after_three_runs(course, context):
    task = course["optimal_move"]
    (case,) = [c for c in task.cases if c.input.strip() == THREE]
    program, _ = program_for(task, PROJECT / "solutions" / "optimal_move.py", context.python)
    two = ScriptedRunner(["[1, 7]", "[4, 7]"] * 40)
    result = grade_case(case, program, replace(context, runner=two), "optimal_move.py")
    assert result.verdict is Verdict.WRONG_ANSWER and two.runs == 37
    assert "All 37 runs gave a right answer, but only 2 different ones ([1, 7], [4, 7])" in result.message
    assert "at least 3 different ones" in result.message
    three = ScriptedRunner(["[4, 7]", "[4, 7]", "[1, 7]", "[2, 1]"])
    result = grade_case(case, program, replace(context, runner=three), "optimal_move.py")
    assert result.verdict is Verdict.ACCEPTED and three.runs == MIN_RUNS  # all three by run 4; at least 6 runs
