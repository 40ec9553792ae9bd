"""Generated cases: reproducible from their seed, answered by the reference, shrunk when they fail."""

from __future__ import annotations

import pytest
from support import PROJECT, mutate

from grader.course.generators import GENERATORS, generate
from grader.course.loader import load_task
from grader.errors import CaseFileError
from grader.model import Verdict
from grader.nim.lab import lab_checkers

NIM_SUM = PROJECT / "testcases" / "nim_sum.yaml"


def generated(task):
    return [c for c in task.cases if c.generated is not None]


def test_the_same_seed_gives_the_same_cases():
    first, second = (generated(load_task(NIM_SUM, lab_checkers())) for _ in range(2))
    assert [c.input for c in first] == [c.input for c in second]
    assert len(first) == 10
    assert first[0].name == "random board 1: its nim-sum"
    assert first[0].input.startswith('{"type": "nim_sum", "input": [')


def test_another_seed_gives_other_boards():
    assert generate("random_board", 1, 5, {}) != generate("random_board", 2, 5, {})


def test_generator_options_are_respected():
    for fields in generate("random_board", 3, 50, {"rows": [2, 3], "heap": [0, 4]}):
        assert 2 <= len(fields["board"]) <= 3 and all(0 <= h <= 4 for h in fields["board"])


def test_shrinking_gives_smaller_boards():
    fields = generate("random_board", 3, 1, {"rows": [4, 4], "heap": [5, 9]})[0]
    for smaller in GENERATORS["random_board"].shrink(fields):
        assert len(smaller["board"]) < 4 or sum(smaller["board"]) < sum(fields["board"])


ENTRY = "  - generator: {}\n    seed: 1\n    count: {}\n"


def write(tmp_path, generate_block):
    folder = tmp_path / "testcases"
    folder.mkdir()
    path = folder / "demo.yaml"
    path.write_text(
        "task: demo\ngenerate:\n" + generate_block + "cases:\n  - name: a\n    input: '1'\n    expected: '1'\n"
    )
    return path


@pytest.mark.parametrize(
    "block, words",
    [
        (
            "  - generator: random_bored\n    seed: 1\n    count: 2\n    format: '{board_json}'\n",
            ["random_bored", "did you mean 'random_board'"],
        ),
        ("  - generator: random_board\n    seed: 1\n    count: 2\n", ["needs 'format'"]),
        (
            "  - generator: random_board\n    seed: 1\n    count: 2\n    format: x\n    options: {size: 3}\n",
            ["no option 'size'"],
        ),
        ("  - generator: random_board\n    seed: 1\n    count: 0\n    format: x\n", ["'count' must be 1 or more"]),
    ],
)
def test_bad_generate_entries_name_the_line(tmp_path, block, words):
    with pytest.raises(CaseFileError) as error:
        load_task(write(tmp_path, block), lab_checkers())
    assert error.value.line is not None
    for word in words:
        assert word in str(error.value)


def test_a_failing_generated_case_shows_a_shrunk_input(grade):
    result = grade("nim_sum", mutate("nim_sum", "total = total ^ row", "total = total + row"))
    failing = [c for c in result.cases if c.case.generated is not None and not c.accepted]
    assert failing
    message = failing[0].message
    assert "A smaller input that fails too" in message
    shrunk = message.split("fails too: ")[1].split("'.")[0]
    assert len(shrunk) < len(failing[0].case.input)


def test_a_smaller_input_that_fails_for_another_cause_is_not_shown(grade):
    # Refuses rows above 3 (a wrong answer on a random move in row 4) and changes the board in place
    # for rows 1 to 3 (a crash): a row dropped before row 4 makes the move one in row 3, which
    # crashes. That is the other mistake, not a smaller input of the wrong answer.
    from real_mistakes.diagnoses import ROWS_ABOVE_THREE_REFUSED

    result = grade("make_move", ROWS_ABOVE_THREE_REFUSED.text())
    wrong = [c for c in result.cases if c.case.generated is not None and c.verdict is Verdict.WRONG_ANSWER]
    crashed = [c for c in result.cases if c.case.generated is not None and c.verdict is Verdict.RUNTIME_ERROR]
    assert wrong and crashed
    for case in wrong:
        assert "There: Your program crashed" not in case.message, case.message
    for case in crashed:  # the same crash, on a smaller board, is the same cause: still shown
        if "A smaller input that fails too" in case.message:
            there = case.message.split("There: ", 1)[1]
            assert there.startswith(case.message.split(".")[0]), case.message


def test_the_reference_solution_answers_generated_cases(grade):
    from support import solution

    result = grade("make_move", solution("make_move"))
    assert result.verdict is Verdict.ACCEPTED
    assert len([c for c in result.cases if c.case.generated is not None]) == 8
