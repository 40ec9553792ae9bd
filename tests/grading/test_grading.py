"""Realistic student submissions get the right verdict and a message that says what to fix."""

from __future__ import annotations

from dataclasses import replace

import pytest
from support import PROJECT, mutate, solution

from grader.course.reference import program_for
from grader.grade.grading import grade_case
from grader.model import Limits, Verdict


def failing(result):
    """The first case that was not accepted."""
    return next(c for c in result.cases if not c.accepted)


def test_reference_solution_is_accepted(grade):
    result = grade("nim_sum", solution("nim_sum"))
    assert result.verdict is Verdict.ACCEPTED
    assert result.score == result.max_score == len(result.cases)


def test_wrong_answer_names_the_difference(grade):
    # Adding the heaps instead of XOR-ing them: a classic first attempt.
    result = grade("nim_sum", mutate("nim_sum", "total = total ^ row", "total = total + row"))
    assert result.verdict is Verdict.WRONG_ANSWER
    case = failing(result)
    assert "expected" in case.message and "your program printed" in case.message
    assert case.difference is not None
    assert 0 < result.score < result.max_score


def test_debug_print_is_named_as_such(grade):
    source = mutate(
        "make_move", "    new_board = list(board)\n", "    new_board = list(board)\n    print('debug:', board)\n"
    )
    result = grade("make_move", source)
    case = failing(result)
    assert case.verdict is Verdict.WRONG_ANSWER
    assert case.message.startswith("The answer is right, but your program printed 1 line before the answer")
    assert '"debug: [' in case.message and "leftover debug prints? Print only the answer." in case.message


def test_debug_print_with_text_checker(grade):
    source = mutate("present_board", '    lines = ["Nim:"]\n', '    print("board is", board)\n    lines = ["Nim:"]\n')
    case = failing(grade("present_board", source))
    assert case.verdict is Verdict.WRONG_ANSWER
    assert "1 line before the answer" in case.message and "debug" in case.message


def test_zero_based_rows_are_caught_with_the_rows_hint(grade):
    source = mutate("make_move", "elements > board[row - 1]", "elements > board[row]")
    source = source.replace("new_board[row - 1] -= elements", "new_board[row] -= elements")
    result = grade("make_move", source)
    assert result.verdict is Verdict.WRONG_ANSWER  # the first failing case decides
    verdicts = {c.verdict for c in result.cases if not c.accepted}
    assert verdicts == {Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR}  # the last row is out of range
    messages = " ".join(c.message for c in result.cases if not c.accepted)
    assert "Rows count from 1" in messages


def test_xor_operator_in_bitwise_xor_is_a_rule_violation(grade):
    source = mutate(
        "bitwise_xor", "    bits_a = numeral_binary(a)\n", "    return a ^ b\n    bits_a = numeral_binary(a)\n"
    )
    result = grade("bitwise_xor", source)
    assert result.verdict is Verdict.RULE_VIOLATION
    assert result.problem.line == source.splitlines().index("    return a ^ b") + 1
    assert "^ operator" in result.problem.message and "exclusive_or" in result.problem.message
    assert all(c.verdict is Verdict.RULE_VIOLATION for c in result.cases)
    assert result.score == 0


def test_python2_print_is_a_syntax_error_with_a_hint(grade):
    source = mutate("exclusive_or", "    if a == b:\n", '    print "comparing", a, b\n    if a == b:\n')
    result = grade("exclusive_or", source)
    assert result.verdict is Verdict.SYNTAX_ERROR
    assert "print(x)" in result.problem.message
    assert result.problem.source_line.strip().startswith('print "comparing"')


def test_missing_colon_is_a_syntax_error_with_a_hint(grade):
    source = mutate("exclusive_or", "    if a == b:\n", "    if a == b\n")
    result = grade("exclusive_or", source)
    assert result.verdict is Verdict.SYNTAX_ERROR
    assert "colon" in result.problem.message


def test_endless_loop_is_a_time_limit_with_causes(tmp_path, course, context):
    path = tmp_path / "exclusive_or.py"
    path.write_text(mutate("exclusive_or", "    if a == b:\n", "    while True:\n        pass\n    if a == b:\n"))
    case = replace(course["exclusive_or"].cases[0], limits=Limits(time_s=0.5))
    program, _ = program_for(course["exclusive_or"], path, context.python)
    result = grade_case(case, program, context, str(path))
    assert result.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert "0.5 seconds" in result.message and "loop that never ends" in result.message


def test_changed_board_is_a_runtime_error_that_says_so(grade):
    source = mutate("make_move", "    new_board = list(board)\n", "    new_board = board\n")
    result = grade("make_move", source)
    case = next(c for c in result.cases if c.verdict is Verdict.RUNTIME_ERROR)
    assert "changed the board" in case.message
    assert "new list" in case.message


def test_crash_message_points_at_the_students_line(grade):
    source = mutate("nim_sum", "total = total ^ row", "total = total ^ row[0]")
    result = grade("nim_sum", source)
    case = failing(result)
    assert case.verdict is Verdict.RUNTIME_ERROR
    assert "TypeError" in case.message
    line = source.splitlines().index("        total = total ^ row[0]") + 1
    assert f"line {line}" in case.message
    # the traceback shown is trimmed to the student's file
    assert "runpy" not in case.stderr and "nim_sum.py" in case.stderr


def test_function_from_earlier_exercise_missing(grade):
    source = mutate("bitwise_xor", "def exclusive_or(a, b):", "def exclusive_or_unused(a, b):")
    case = failing(grade("bitwise_xor", source))
    assert case.verdict is Verdict.RUNTIME_ERROR
    assert "NameError" in case.message and "copy that function into this file" in case.message


def test_reading_too_much_input_explains_eof(grade):
    source = mutate("exclusive_or", "    if a == b:\n", "    input()\n    if a == b:\n")
    case = failing(grade("exclusive_or", source))
    assert "EOFError" in case.message and "more input" in case.message


def test_empty_file_prints_nothing(grade):
    result = grade("nim_sum", "")
    assert result.verdict is Verdict.NO_OUTPUT
    assert "main block" in failing(result).message
    assert any("empty" in note for note in result.notes)


def test_binary_junk_is_rejected_without_running(grade):
    result = grade("nim_sum", bytes(range(256)) * 4)
    assert result.verdict is Verdict.SYNTAX_ERROR
    assert "null bytes" in result.problem.message


def test_not_utf8_source_is_rejected(grade):
    result = grade("nim_sum", b"x = '\xff\xfe'\n")
    assert result.verdict is Verdict.SYNTAX_ERROR
    assert "UTF-8" in result.problem.message


def test_output_that_is_not_utf8_is_shown_with_a_note(grade):
    source = 'import sys\nsys.stdout.buffer.write(b"\\xff\\xfe 7\\n")\n'
    case = grade("bitwise_xor", source).cases[0]
    assert case.verdict is Verdict.WRONG_ANSWER
    assert "\ufffd" in case.actual and "not UTF-8" in case.actual_note


def test_nonzero_exit_after_correct_output_is_a_runtime_error(grade):
    source = solution("exclusive_or") + "\nimport sys\nsys.exit(4)\n"
    case = grade("exclusive_or", source).cases[0]
    assert case.verdict is Verdict.RUNTIME_ERROR
    assert "exit status 4" in case.message


def test_memory_hog_is_a_memory_limit(grade):
    source = "x = [0] * (10 ** 10)\n"
    case = grade("exclusive_or", source).cases[0]
    assert case.verdict is Verdict.MEMORY_LIMIT_EXCEEDED
    assert "512 MiB" in case.message


def test_output_flood_is_an_output_limit(grade):
    source = "while True:\n    print('X' * 1000)\n"
    case = grade("exclusive_or", source).cases[0]
    assert case.verdict is Verdict.OUTPUT_LIMIT_EXCEEDED
    assert "1,000,000 bytes" in case.message
    assert len(case.actual.encode()) <= 1_000_000 + 2_100
    assert "printed at least" in case.actual_note and "start and the end" in case.actual_note


def test_hidden_cases_never_show_expected_output(grade, course):
    result = grade("make_move", mutate("make_move", "if row < 1 or row > len(board):", "if row > len(board):"))
    hidden = [c for c in result.cases if c.case.hidden and not c.accepted]
    assert hidden, "a hidden case should catch a missing row < 1 check"
    for case in hidden:
        assert case.message.startswith("This hidden case was not accepted")
        assert case.case.expected[0] not in case.message
        assert "Hint:" in case.message


def test_presentation_error_when_only_spacing_differs(grade):
    source = mutate("present_board", 'str(number) + ":" + " X" * size', 'str(number) + ":  " + " X" * size')
    result = grade("present_board", source)
    assert Verdict.PRESENTATION_ERROR in {c.verdict for c in result.cases}
    case = next(c for c in result.cases if c.verdict is Verdict.PRESENTATION_ERROR)
    assert "spacing" in case.message


@pytest.mark.parametrize("task_id", sorted(p.stem for p in (PROJECT / "exercises").glob("*.py")))
def test_every_stub_is_rejected(grade, task_id):
    stub = (PROJECT / "exercises" / f"{task_id}.py").read_text(encoding="utf-8")
    result = grade(task_id, stub)
    assert result.verdict is not Verdict.ACCEPTED
    assert result.score < result.max_score / 2
