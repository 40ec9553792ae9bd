"""The course material itself: what the main blocks read, the limits the cases set, the cases there are."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from support import PROJECT

from grader.authoring.verify import grade_beside_reference, limit_problems
from grader.model import Verdict

JSON_TASKS = ["make_move", "bin_num", "nim_sum", "optimal_move", "ui"]
WHOLE_TASKS = ["present_board", "make_move", "exclusive_or", "bin_num", "bitwise_xor", "nim_sum", "optimal_move", "ui"]


def grade_reference(task, context, source=None):
    """The reference solution (or ``source``, a file) graded on ``task``, next to the reference
    files it may import, as ``python -m grader verify`` grades it."""
    return grade_beside_reference(task, source or PROJECT / "solutions" / f"{task.id}.py", PROJECT, context)


def several_lines(text: str) -> bool:
    return len([line for line in text.splitlines() if line.strip()]) > 1


# -- item: a test case is the whole of standard input ------------------------------------------


@pytest.mark.parametrize("task_id", JSON_TASKS)
def test_every_json_task_has_a_case_written_over_several_lines_and_the_reference_passes_it(task_id, course, context):
    task = course[task_id]
    spread = tuple(case for case in task.cases if several_lines(case.input))
    assert spread, f"testcases/{task_id}.yaml has no case whose JSON input is written over several lines"
    for case in spread:
        json.loads(case.input)  # pretty-printed, but one JSON value: one test case
    result = grade_reference(replace(task, cases=spread), context)
    assert [c.verdict for c in result.cases] == [Verdict.ACCEPTED] * len(spread), [c.message for c in result.cases]


@pytest.mark.parametrize(
    "task_id, spread, expected",
    [
        ("present_board", "5 4\n5 2\n3\n", "Nim:\n1: X X X X X\n2: X X X X\n3: X X X X X\n4: X X\n5: X X X\n"),
        ("exclusive_or", "1\n0\n", "1\n"),
        ("bitwise_xor", "5\n3\n\n", "6\n"),
    ],
)
def test_number_tasks_read_the_numbers_from_all_of_standard_input(task_id, spread, expected, course, context):
    task = course[task_id]
    case = replace(task.cases[0], name="numbers on several lines", input=spread, expected=(expected,), hidden=False)
    result = grade_reference(replace(task, cases=(case,)), context)
    assert result.verdict is Verdict.ACCEPTED, result.cases[0].message


@pytest.mark.parametrize("task_id", WHOLE_TASKS)
def test_every_file_of_a_non_interactive_task_reads_all_of_standard_input(task_id):
    # The exercise, the reference and every known-wrong solution (.py.txt too): one left reading a
    # single line would fail a pretty-printed case for the wrong reason.
    files = [PROJECT / "exercises" / f"{task_id}.py", PROJECT / "solutions" / f"{task_id}.py"]
    files += sorted((PROJECT / "solutions" / "wrong" / task_id).glob("*.py*"))
    for path in files:
        text = path.read_text(encoding="utf-8")
        main = text.partition('if __name__ == "__main__":')[2]
        if not main:
            continue  # a known mistake: the main block was deleted
        assert "readline()" not in main and "input()" not in main, f"{path} reads one line only"
        assert "sys.stdin.read()" in main, f"{path} does not read all of standard input"


def test_exercise_texts_say_a_test_case_is_all_of_standard_input():
    for task_id in WHOLE_TASKS:
        text = (PROJECT / "exercises" / f"{task_id}.py").read_text(encoding="utf-8")
        assert "reads the whole of\n  standard input as one test case" in text, task_id
        assert "Ctrl-D" in text and "one line of JSON" not in text, task_id


# -- item: a limit must fit the largest valid answer ----------------------------------------------


def test_the_largest_present_board_is_a_case_and_its_answer_fits_the_output_limit(course, context):
    task = course["present_board"]
    largest = [case for case in task.cases if case.input.split() == ["1000"] * 10_000]
    assert largest, "present_board has no case with the largest valid board (10,000 rows of 1000)"
    assert all(case.hidden for case in largest)  # 20 MB: not for the report
    shown = tuple(replace(case, hidden=False) for case in largest)  # a hidden case's output is not kept
    result = grade_reference(replace(task, cases=shown), context)
    assert result.verdict is Verdict.ACCEPTED, result.cases[0].message
    size = len(result.cases[0].actual.encode("utf-8"))
    assert size == 20_058_899
    assert 2 * size <= largest[0].limits.output_bytes
    assert limit_problems(result.task, [result], check_time=False) == []


def test_every_reference_answer_uses_at_most_half_of_its_output_limit(course, context):
    for task in course.values():
        result = grade_reference(task, context)
        assert result.verdict is Verdict.ACCEPTED, task.id
        assert limit_problems(result.task, [result], check_time=False) == [], task.id


# -- item: binary_numeral([]) -------------------------------------------------------------------


def test_the_empty_list_of_bits_is_a_case_worth_0(course, context):
    task = course["bin_num"]
    empty = tuple(c for c in task.cases if json.loads(c.input) == {"type": "bin_num", "value": []})
    assert empty and not empty[0].hidden and [e.strip() for e in empty[0].expected] == ["0"]
    assert grade_reference(replace(task, cases=empty), context).verdict is Verdict.ACCEPTED
    wrong = PROJECT / "solutions" / "wrong" / "bin_num" / "starts_from_the_first_bit.py"
    result = grade_reference(task, context, source=wrong)
    failed = [c for c in result.cases if not c.accepted]
    assert [c.case.name for c in failed] == [empty[0].name]
    assert failed[0].verdict is Verdict.RUNTIME_ERROR and "IndexError" in failed[0].message
