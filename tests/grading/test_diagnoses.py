"""The diagnoses a student needs: a function that returns nothing, a stub that earns nothing, a crash
explained by what happened (never advice that does not fit the task or the input).

Each test grades a realistic wrong file written here and asserts the sentence it must get and the
misleading one it must not.
"""

from __future__ import annotations

import csv
import json
from dataclasses import replace

import pytest
from support import COURSE, PROJECT, mutate, solution

from grader.cli.main import main
from grader.grade.grading import grade_file
from grader.model import Verdict


def _first_failed(result):
    return next(c for c in result.cases if not c.accepted)


# -- a function that returns nothing ------------------------------------------------------------


def _emptied(text: str, name: str) -> str:
    """``text`` with the body of its function ``name`` replaced by ``pass`` (the rest untouched)."""
    start = text.index(f"def {name}(")
    body = text.index(":\n", start) + 2
    end = text.index("\n\n\n", body)
    return text[:body] + "    pass" + text[end:]


UI_ONE_WRITTEN = _emptied(solution("ui"), "is_board_empty")


def test_pass_bodies_say_the_function_returns_nothing_not_printed_null(grade):
    result = grade("ui", UI_ONE_WRITTEN)
    failed = [c for c in result.cases if not c.accepted and not c.case.hidden]
    assert failed and all(c.case.input.count("is_board_empty") for c in failed)
    for case in failed:
        assert "Your function is_board_empty returns nothing (None)" in case.message
        assert "no return statement yet" in case.message
        assert "printed" not in case.message  # not "your program printed null"


def test_a_path_without_return_names_that_path(grade):
    # the total is returned only when the board has rows: the empty board falls off the end
    wrong = mutate(
        "nim_sum",
        "    total = 0\n    for row in board:\n        total = total ^ row\n    return total\n",
        "    if board:\n        total = 0\n        for row in board:\n"
        "            total = total ^ row\n        return total\n",
    )
    case = next(c for c in grade("nim_sum", wrong).cases if c.case.name == "the empty board has nim-sum 0")
    assert case.verdict is Verdict.WRONG_ANSWER
    assert "Your function nim_sum returns nothing (None)" in case.message
    assert "one path through it ends without return" in case.message
    assert "printed" not in case.message


def test_a_return_none_written_out_is_the_students_answer_and_the_course_hint_says_what_is_due(grade):
    # make_move returns None for an illegal move instead of (a copy of the board, False): the student
    # chose None, so "returns nothing" and "print only shows it" would send them the wrong way
    wrong = mutate(
        "make_move",
        "    if row < 1 or row > len(board):\n        return new_board, False\n",
        "    if row < 1 or row > len(board):\n        return None\n",
    )
    case = next(
        c for c in grade("make_move", wrong).cases if c.case.name == "row 4 of a board of 3 rows does not exist"
    )
    assert "returns nothing" not in case.message, case.message
    assert "not None" in case.hint, case.hint


def test_parse_move_whose_none_means_not_a_move_is_told_about_commas_not_about_return(grade):
    # parse_move returns None for what is not a move (its contract): one that splits at white space
    # only gives None for "3,2", and the course's hint about the comma is what explains it
    wrong = mutate("ui", '    if "," in text:\n', "    if False:\n")
    result = grade("ui", wrong)
    case = next(c for c in result.cases if not c.accepted)
    assert "returns nothing" not in case.message, case.message
    assert "comma" in (case.hint + case.message).lower(), case.message


def test_none_from_a_helper_is_not_blamed_on_the_function_that_returns_it(grade):
    # is_human returns what its helper gives; the helper forgot its return: no claim about is_human
    wrong = mutate(
        "ui",
        "def is_human(name):\n",
        "def lower_name(name):\n    name.lower()\n\n\n"
        "def is_human(name):\n    return 'computer' not in lower_name(name)\n",
    )
    result = grade("ui", wrong)
    assert not any("is_human returns nothing" in c.message for c in result.cases)


# -- a stub earns nothing ------------------------------------------------------------------------


def test_every_untouched_stub_scores_0_on_every_task_in_check(tmp_path, capsys):
    work = tmp_path / "work"
    work.mkdir()
    for task_id in COURSE.task_ids():
        (work / f"{task_id}.py").write_bytes(COURSE.exercise(task_id).read_bytes())
    code = main(["check", str(work), "--course", str(PROJECT), "--json", "--report", str(tmp_path / "report")])
    assert code == 1
    document = json.loads(capsys.readouterr().out)
    assert len(document["tasks"]) == len(COURSE.task_ids())
    for task in document["tasks"]:
        assert task["score"] == 0, task["task"]
        assert all(c["verdict"] != "accepted" for c in task["cases"]), task["task"]
        message = task["cases"][0]["message"]
        assert "still the exercise file as handed out" in message
        assert "scores 0 on every case, even those its empty functions pass by accident" in message
    ui = next(t for t in document["tasks"] if t["task"] == "ui")
    assert "is_human, is_board_empty and parse_move are not written yet" in ui["cases"][0]["message"]


def test_a_stub_with_comments_and_a_new_docstring_is_still_a_stub(grade):
    stub = COURSE.exercise("exclusive_or").read_text(encoding="utf-8")
    text = stub.replace("    # Write your code here.\n", "    # TODO later\n")
    assert text != stub
    result = grade("exclusive_or", text)
    assert result.score == 0 and "not written yet" in result.cases[0].message


@pytest.mark.parametrize("nothing", ["return None", "return", "...", "None", "pass\n    return None"])
def test_a_stub_whose_pass_became_another_way_of_doing_nothing_is_still_a_stub(grade, nothing):
    stub = COURSE.exercise("ui").read_text(encoding="utf-8")
    text = stub.replace("    pass\n", f"    {nothing}\n")
    assert text != stub
    result = grade("ui", text)
    assert (
        result.score == 0 and "is_human, is_board_empty and parse_move are not written yet" in result.cases[0].message
    )


def test_a_stub_function_left_empty_beside_a_helper_the_main_block_calls_is_graded_as_work(grade):
    stub = COURSE.exercise("exclusive_or").read_text(encoding="utf-8")
    helper = "def my_xor(a, b):\n    return 0 if a == b else 1\n\n\n"
    text = stub.replace("def self_test", helper + "def self_test").replace(
        "print(exclusive_or(a, b))", "print(my_xor(a, b))"
    )
    assert "print(my_xor(a, b))" in text
    result = grade("exclusive_or", text)
    assert not any("not written yet" in c.message for c in result.cases)
    assert result.score == result.max_score


def test_one_function_written_of_three_is_not_a_stub(grade):
    stub = COURSE.exercise("ui").read_text(encoding="utf-8")
    start = stub.index("def is_human")
    end = stub.index("def is_board_empty")
    text = stub[:start] + 'def is_human(name):\n    return "computer" not in name.lower()\n\n\n' + stub[end:]
    result = grade("ui", text)
    assert result.problem is None
    assert result.score > 0
    human = [c for c in result.cases if c.case.input.count('"is_human"') and not c.case.hidden]
    assert human and all(c.accepted for c in human)
    assert not any("not written yet" in c.message for c in result.cases)


# -- a crash explained by what happened ---------------------------------------------------------

NIM_SUM_FIRST_ROW = mutate(
    "nim_sum",
    "def nim_sum(board):\n",
    "def nim_sum(board):\n    total = board[0]\n    for rows in board[1:]:\n        total ^= rows\n    return total\n",
)


def test_index_error_on_the_empty_board_says_the_empty_board_not_rows(grade):
    result = grade("nim_sum", NIM_SUM_FIRST_ROW)
    case = next(c for c in result.cases if c.case.name == "the empty board has nim-sum 0")
    assert case.verdict is Verdict.RUNTIME_ERROR
    assert "IndexError" in case.message and "total = board[0]" in case.message
    assert "on the empty board []" in case.message
    assert "board[r - 1]" not in case.message and "Rows count from 1" not in case.message


def test_a_hidden_case_never_tells_the_empty_board(grade):
    result = grade("nim_sum", NIM_SUM_FIRST_ROW)
    hidden = [c for c in result.cases if c.case.hidden and not c.accepted]
    assert hidden and not any("on the empty board []" in c.message or "IndexError" in c.message for c in hidden)


def test_make_move_row_out_of_range_gets_the_courses_hint_and_not_the_row_advice_besides(grade):
    # one voice (grade/mistakes): the course's hint for this case speaks, not what an IndexError
    # indexed by a row usually means as well
    text = mutate("make_move", "row > len(board)", "row > len(board) + 5")
    result = grade("make_move", text)
    case = next(c for c in result.cases if c.verdict is Verdict.RUNTIME_ERROR and not c.case.hidden)
    assert "IndexError" in case.message
    assert "Hint: Check that the row is at most len(board)" in case.message
    assert "row r is board[r - 1]" not in case.message and "empty board" not in case.message


def test_a_row_index_out_of_range_with_no_course_hint_gets_the_row_advice(course, context, tmp_path):
    text = mutate("make_move", "row > len(board)", "row > len(board) + 5")
    task = course["make_move"]
    task = replace(task, cases=tuple(replace(c, hints=(), hint="", mistakes=()) for c in task.cases))
    path = tmp_path / "make_move.py"
    path.write_text(text, encoding="utf-8")
    result = grade_file(task, path, context)
    case = next(c for c in result.cases if c.verdict is Verdict.RUNTIME_ERROR and not c.case.hidden)
    assert "row r is board[r - 1]" in case.message


def test_an_index_error_not_by_row_gets_no_row_advice(grade):
    # present_board reads one past the last row with an index i: no advice about rows counting from 1
    text = mutate("present_board", "def present_board(board):\n", "def present_board(board):\n    board[len(board)]\n")
    case = _first_failed(grade("present_board", text))
    assert case.verdict is Verdict.RUNTIME_ERROR and "IndexError" in case.message
    assert "board[r - 1]" not in case.message and "Rows count from 1" not in case.message


# -- "not handed in" is its own result ----------------------------------------------------------


def test_a_missing_file_is_not_handed_in_in_the_page_json_and_gradebook(
    tmp_path, capsys, course, course_without_known_wrong
):
    room = tmp_path / "class"
    (room / "ann").mkdir(parents=True)
    (room / "ann" / "exclusive_or.py").write_text(solution("exclusive_or"), encoding="utf-8")
    out = tmp_path / "out"
    main(["grade", str(room), "--out", str(out), "--course", str(course_without_known_wrong), "--allow-unprotected"])
    capsys.readouterr()
    missing_path = str(room / "ann" / "nim_sum.py")

    index = (out / "ann" / "index.html").read_text(encoding="utf-8")
    page = (out / "ann" / "nim_sum.html").read_text(encoding="utf-8")
    for html in (index, page):
        assert "not handed in" in html.lower()
        assert "printed nothing" not in html
        assert missing_path not in html and "ann/nim_sum.py" not in html

    results = json.loads((out / "ann" / "results.json").read_text(encoding="utf-8"))
    nim_sum = [t for t in results["tests"] if t["name"].startswith("nim_sum:")]
    assert nim_sum == [
        {
            "name": "nim_sum: not handed in",
            "score": 0,
            "max_score": course["nim_sum"].max_score,
            "status": "failed",
            "output": "No nim_sum.py was handed in, so no case could be run.",
            "visibility": "visible",
        }
    ]
    assert any(t["name"].startswith("exclusive_or:") and t["status"] == "passed" for t in results["tests"])

    with (out / "gradebook.csv").open(encoding="utf-8") as handle:
        (row,) = list(csv.DictReader(handle))
    assert row["exclusive_or"] == "4" and row["nim_sum"] == "0"
    assert "nim_sum" in row["not_handed_in"].split() and "exclusive_or" not in row["not_handed_in"].split()


def test_a_return_of_a_list_methods_none_is_named_with_the_fix(grade):
    # reverse() turns the list round in place and gives back None: returning it returns None
    wrong = mutate(
        "bin_num",
        "    bits.reverse()          # we found the bits last one first\n    return bits",
        "    return bits.reverse()",
    )
    case = _first_failed(grade("bin_num", wrong))
    assert "Your function numeral_binary returns nothing (None)" in case.message
    assert "it returns bits.reverse(...), which is None" in case.message and "then return bits" in case.message
    assert "ends without return" not in case.message  # every path returns: only the None it returns is wrong
