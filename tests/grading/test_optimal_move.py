"""Exercise 7, optimal_move: the checker as a pure function, then real submissions graded."""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace

import pytest
from support import legal_moves, mutate, solution

from grader.check.registry import OutputChecker
from grader.course.loader import load_task
from grader.grade.grading import grade_file
from grader.model import Verdict
from grader.nim.checkers import check_optimal_move
from grader.nim.lab import lab_checkers

# -- the checker --------------------------------------------------------------------------------


def check(actual: str, board):
    return check_optimal_move(actual, "", json.dumps(board) + "\n")


@pytest.mark.parametrize("move", ["[1, 5]", "[2, 3]", "[4, 13]", "[4,13]", "  [2, 3]\n", "[\n  2,\n  3\n]"])
def test_each_winning_move_is_accepted(move):
    outcome = check(move, [27, 8, 3, 29])
    assert outcome.verdict is Verdict.ACCEPTED


def test_the_only_winning_move_is_accepted():
    assert check("[3, 3]", [1, 3, 5]).verdict is Verdict.ACCEPTED
    assert check("[5, 8]", [4, 5, 6, 7, 8]).verdict is Verdict.ACCEPTED
    assert check("[1, 1000]", [1000]).verdict is Verdict.ACCEPTED


def test_a_row_that_does_not_exist():
    outcome = check("[0, 3]", [1, 3, 5])
    assert outcome.verdict is Verdict.WRONG_ANSWER
    assert outcome.message == "Your move [0, 3] is illegal: row 0 does not exist (rows count from 1 to 3)."
    outcome = check("[4, 1]", [1, 3, 5])
    assert "row 4 does not exist" in outcome.message


def test_too_many_elements():
    outcome = check("[4, 8]", [4, 5, 6, 7, 8])
    assert outcome.verdict is Verdict.WRONG_ANSWER
    assert outcome.message.startswith("Your move [4, 8] is illegal: row 4 holds only 7 objects, so 8 cannot be taken.")
    # [5, 8] wins here: a row counted from 0 may be the cause, for the file's other failures to confirm
    assert "Rows count from 1" not in outcome.message
    assert outcome.conjecture is not None
    assert "Rows count from 1: your move would be right as [5, 8]" in outcome.conjecture.text


def test_taking_nothing_or_from_an_empty_row():
    assert "at least 1 object, not 0" in check("[3, 0]", [0, 0, 9]).message
    assert "at least 1 object, not -3" in check("[3, -3]", [0, 0, 9]).message
    outcome = check("[1, 1]", [0, 3, 0, 5, 0, 6])
    assert outcome.verdict is Verdict.WRONG_ANSWER
    assert "row 1 holds only 0 objects" in outcome.message


def test_a_move_that_is_not_winning_shows_the_nim_sum_it_leaves_and_a_winning_move():
    # [1, 3, 5] has nim-sum 7; taking all 5 from row 3 leaves 1 ^ 3 = 2.
    outcome = check("[3, 5]", [1, 3, 5])
    assert outcome.verdict is Verdict.WRONG_ANSWER
    assert "nim-sum 7" in outcome.message and "N-position" in outcome.message
    assert "leaves nim-sum 2" in outcome.message
    assert "For example [3, 3] leaves 0" in outcome.message
    assert "1 such move)" in outcome.message


def test_a_move_that_is_not_winning_counts_several_winning_moves():
    outcome = check("[3, 1]", [27, 8, 3, 29])
    assert outcome.verdict is Verdict.WRONG_ANSWER
    assert "nim-sum 13" in outcome.message and "leaves nim-sum 12" in outcome.message
    assert "For example [1, 5]" in outcome.message and "3 such moves" in outcome.message


@pytest.mark.parametrize("board", [[1, 2, 3], [1, 1], [0, 3, 0, 5, 0, 6], [4, 4]])
def test_from_a_p_position_any_legal_move_is_accepted(board):
    for row, taken in legal_moves(board):
        assert check(f"[{row}, {taken}]", board).verdict is Verdict.ACCEPTED


def test_from_a_p_position_an_illegal_move_is_still_wrong():
    outcome = check("[1, 1]", [0, 3, 0, 5, 0, 6])
    assert outcome.verdict is Verdict.WRONG_ANSWER
    assert "illegal" in outcome.message


@pytest.mark.parametrize("output", ["3 3", "(3, 3)", "row 3, take 3", "[3, 3"])
def test_output_that_is_not_json(output):
    outcome = check(output, [1, 3, 5])
    assert outcome.verdict is Verdict.WRONG_ANSWER
    assert "is not a move" in outcome.message and "as JSON" in outcome.message and "[2, 3]" in outcome.message
    assert output in outcome.message


@pytest.mark.parametrize("output", ["[3]", "[3, 3, 1]", "3", '"3 3"', '{"row": 3}', "[3.0, 3]", "null", "[]"])
def test_json_that_is_not_two_integers(output):
    outcome = check(output, [1, 3, 5])
    assert outcome.verdict is Verdict.WRONG_ANSWER
    assert "is not a move: a move is [row, elements], two whole numbers" in outcome.message


def test_true_is_not_an_integer():
    outcome = check("[3, true]", [1, 3, 5])
    assert outcome.verdict is Verdict.WRONG_ANSWER
    assert "[3, true]" in outcome.message and "two whole numbers" in outcome.message
    assert check("[true, 1]", [1]).verdict is Verdict.WRONG_ANSWER


def test_several_lines_point_at_debug_prints():
    outcome = check("good rows: [2]\n[3, 3]\n", [1, 3, 5])
    assert outcome.verdict is Verdict.WRONG_ANSWER
    assert "several lines" in outcome.message and "debug" in outcome.message
    assert "several lines" in check("[3, 3]\n[3, 3]\n", [1, 3, 5]).message


def test_the_checker_is_registered_without_expected():
    checker = lab_checkers().get("optimal_move")
    assert isinstance(checker, OutputChecker) and not checker.needs_expected
    assert checker("[3, 3]", "", "[1, 3, 5]\n", {}).verdict is Verdict.ACCEPTED


# -- repeat and min_distinct --------------------------------------------------------------------


def test_repeat_and_min_distinct_from_yaml_reach_the_case(tmp_path):
    path = tmp_path / "testcases" / "optimal_move.yaml"
    path.parent.mkdir()
    path.write_text(
        textwrap.dedent(
            """\
            task: optimal_move
            checker: optimal_move
            cases:
              - name: several winning moves
                input: '[27, 8, 3, 29]'
                repeat: 21
                min_distinct: 2
              - name: one winning move
                input: '[1, 3, 5]'
                repeat: 5
              - name: once
                input: '[7]'
            """
        ),
        encoding="utf-8",
    )
    several, one, once = load_task(path, lab_checkers()).cases
    assert (several.repeat, several.min_distinct) == (21, 2)
    assert (one.repeat, one.min_distinct) == (5, 0)
    assert (once.repeat, once.min_distinct) == (1, 0)
    assert several.expected == () and several.checker == "optimal_move"


def test_the_course_cases_repeat(course):
    cases = {case.input.strip(): case for case in course["optimal_move"].cases}
    assert (cases["[27, 8, 3, 29]"].repeat, cases["[27, 8, 3, 29]"].min_distinct) == (21, 2)
    assert (cases["[1, 3, 5]"].repeat, cases["[1, 3, 5]"].min_distinct) == (5, 0)
    assert (cases["[1, 2, 3]"].repeat, cases["[1, 2, 3]"].min_distinct) == (21, 2)
    for case in course["optimal_move"].cases:
        assert case.repeat > 1, case.name
        assert case.min_distinct <= case.repeat


# -- real submissions ---------------------------------------------------------------------------


@pytest.fixture
def grade_some(tmp_path, course, context):
    """grade_some(source, *boards, time_s=None) → TaskResult on the cases with those inputs only.

    The result's cases come in the order of ``boards``.
    """

    def run(source: str, *boards: str, time_s=None):
        task = course["optimal_move"]
        cases = [case for case in task.cases if case.input.strip() in boards]
        assert len(cases) == len(boards), f"not every board of {boards} is a case"
        if time_s is not None:
            cases = [replace(case, limits=replace(case.limits, time_s=time_s)) for case in cases]
        path = tmp_path / "optimal_move.py"
        path.write_text(source, encoding="utf-8")
        result = grade_file(replace(task, cases=tuple(cases)), path, context)
        order = {case.case.input.strip(): case for case in result.cases}
        return replace(result, cases=tuple(order[board] for board in boards))

    return run


def only(result):
    """The one case of a result."""
    (case,) = result.cases
    return case


GOOD_ROWS = "        index = random.choice(good_rows)\n"
P_POSITION = "    non_empty_rows = []\n"


def test_reference_solution_is_accepted(grade_some):
    # one winning move, several (min_distinct), and a hidden P-position with empty rows
    boards = ("[1, 3, 5]", "[27, 8, 3, 29]", "[0, 3, 0, 5, 0, 6]")
    result = grade_some(solution("optimal_move"), *boards)
    assert result.verdict is Verdict.ACCEPTED, [c.message for c in result.cases]
    assert result.score == result.max_score == len(boards)
    assert any(case.case.hidden for case in result.cases)


def test_always_the_first_winning_move_is_too_predictable(grade_some):
    source = mutate("optimal_move", GOOD_ROWS, "        index = good_rows[0]\n")
    case = only(grade_some(source, "[27, 8, 3, 29]"))
    assert case.verdict is Verdict.WRONG_ANSWER
    assert "All 21 runs gave a right answer, but only 1 different one ([1, 5])" in case.message
    assert "random" in case.message
    assert "Hint:" in case.message


def test_the_first_winning_move_is_fine_when_it_is_the_only_one(grade_some):
    source = mutate("optimal_move", GOOD_ROWS, "        index = good_rows[0]\n")
    assert only(grade_some(source, "[1, 3, 5]")).verdict is Verdict.ACCEPTED


def test_greedy_move_is_a_wrong_answer_about_the_nim_sum(grade_some):
    # Take everything from the largest row: legal, but it does not leave nim-sum 0.
    source = mutate("optimal_move", GOOD_ROWS, "        index = board.index(max(board))\n")
    source = source.replace(
        "        return index + 1, board[index] - (board[index] ^ x)\n", "        return index + 1, board[index]\n"
    )
    case = only(grade_some(source, "[1, 3, 5]"))
    assert case.verdict is Verdict.WRONG_ANSWER
    assert case.message.startswith("Run 1 of 5: ")
    assert "nim-sum" in case.message and "leaves nim-sum 2" in case.message
    assert "[3, 3]" in case.message


def test_zero_based_rows_are_not_accepted_and_the_message_is_about_the_row(grade_some):
    source = mutate(
        "optimal_move",
        "return index + 1, board[index] - (board[index] ^ x)",
        "return index, board[index] - (board[index] ^ x)",
    )
    result = grade_some(source, "[7]", "[4, 5, 6, 7, 8]")
    single, last_row = result.cases
    assert single.verdict is Verdict.WRONG_ANSWER
    assert "Your move [0, 7] is illegal: row 0 does not exist" in single.message
    assert last_row.verdict is Verdict.WRONG_ANSWER
    assert "Your move [4, 8] is illegal: row 4 holds only 7 objects" in last_row.message
    assert "Rows count from 1" in last_row.message  # the case's hint
    assert result.score == 0


def test_a_crash_on_p_positions_is_a_runtime_error(grade_some):
    source = mutate("optimal_move", P_POSITION, '    raise ValueError("no winning move")\n' + P_POSITION)
    result = grade_some(source, "[1, 3, 5]", "[1, 2, 3]")
    n_position, p_position = result.cases
    assert n_position.verdict is Verdict.ACCEPTED
    assert p_position.verdict is Verdict.RUNTIME_ERROR
    assert p_position.message.startswith("Run 1 of 21: Your program crashed with ValueError (no winning move)")
    assert "ValueError" in p_position.stderr


def test_an_endless_loop_on_p_positions_is_a_time_limit(grade_some):
    source = mutate("optimal_move", P_POSITION, "    while True:\n        pass\n" + P_POSITION)
    case = only(grade_some(source, "[1, 1]", time_s=0.5))
    assert case.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert "Run 1 of 21" in case.message and "0.5 seconds" in case.message
    assert "loop that never ends" in case.message


def test_a_hidden_case_that_wants_different_answers_reveals_none(grade_some):
    board = "[1099511627781, 1099511627779, 1099511627776, 7]"
    source = mutate("optimal_move", GOOD_ROWS, "        index = good_rows[0]\n")
    case = only(grade_some(source, board))
    assert case.case.hidden
    assert case.verdict is Verdict.WRONG_ANSWER
    assert case.message.startswith("This hidden case was not accepted: your program gave a wrong answer.")
    assert case.actual == "" and case.stderr == ""  # what the program printed is not kept for a hidden case
    assert "runs" not in case.message and "1099511627781" not in case.message
