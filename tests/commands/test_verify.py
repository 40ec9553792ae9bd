"""``python -m grader verify`` on a small course: it holds, and it fails precisely when it should."""

from __future__ import annotations

import shutil

import pytest
from support import PROJECT, course_of, mutate

from grader.authoring.known_wrong import read_wrong_solution
from grader.authoring.verify import limit_problems
from grader.cli.main import main
from grader.course.loader import load_course
from grader.model import CaseResult, TaskResult, Verdict

INCLUSIVE = mutate("exclusive_or", "    if a == b:\n        return 0\n    return 1", "    return 1 if a or b else 0")
ALWAYS_ZERO = mutate("exclusive_or", "    if a == b:\n        return 0\n    return 1", "    return 0")
FIRST_CASE = "0 xor 0 is 0"
ONE_ONE = "hidden case 2"


@pytest.fixture
def course(tmp_path):
    """A course with exclusive_or only: its cases, solution, stub and two known-wrong solutions."""
    root = course_of(tmp_path / "course", ["exclusive_or"])
    (root / "solutions" / "wrong" / "exclusive_or").mkdir(parents=True)
    wrong = root / "solutions" / "wrong" / "exclusive_or"
    (wrong / "inclusive.py").write_text(
        f"# Mistake: inclusive or\n# verdict: wrong_answer\n# caught-by: {ONE_ONE}\n" + INCLUSIVE
    )
    (wrong / "zero.py").write_text("# Mistake: always 0\n# verdict: wrong_answer\n" + ALWAYS_ZERO)
    return root


def verify(course, capsys, *extra):
    code = main(["verify", "--course", str(course), *extra])
    return code, capsys.readouterr().out


def test_a_sound_course_holds(course, capsys):
    code, out = verify(course, capsys)
    assert code == 0, out
    assert "the reference solution passes all 4 cases, twice" in out
    assert "the stub, an empty file and a silent file are rejected" in out
    assert "exclusive_or: 2 of 2 known-wrong solutions caught" in out
    assert "Everything held." in out


def test_a_broken_reference_solution_fails_with_the_case(course, capsys):
    (course / "solutions" / "exclusive_or.py").write_text(INCLUSIVE)
    code, out = verify(course, capsys)
    assert code == 1
    assert "the reference solution" in out and f"gets wrong_answer on '{ONE_ONE}'" in out


def test_a_wrong_expected_answer_fails_naming_the_case_and_line(course, capsys):
    path = course / "testcases" / "exclusive_or.yaml"
    lines = path.read_text().splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if "expected:" in line)
    lines[index] = lines[index].replace("'0'", "'1'")
    path.write_text("".join(lines))
    code, out = verify(course, capsys)
    assert code == 1
    assert f"'{FIRST_CASE}'" in out and "(line " in out


def test_a_known_wrong_solution_that_slips_through(course, capsys):
    fine = (PROJECT / "solutions" / "exclusive_or.py").read_text()
    (course / "solutions" / "wrong" / "exclusive_or" / "fine.py").write_text(
        "# Mistake: none really\n# verdict: wrong_answer\n" + fine
    )
    code, out = verify(course, capsys)
    assert code == 1
    assert "fine.py (none really) is accepted: no case catches it" in out
    assert "2 of 3 known-wrong solutions caught" in out


def test_a_declared_verdict_that_does_not_happen(course, capsys):
    path = course / "solutions" / "wrong" / "exclusive_or" / "zero.py"
    path.write_text(path.read_text().replace("# verdict: wrong_answer", "# verdict: runtime_error"))
    code, out = verify(course, capsys)
    assert code == 1
    assert "zero.py should get runtime_error but gets wrong_answer" in out


def test_caught_by_a_case_that_accepts_it(course, capsys):
    path = course / "solutions" / "wrong" / "exclusive_or" / "zero.py"
    text = path.read_text().replace(
        "# verdict: wrong_answer\n", f"# verdict: wrong_answer\n# caught-by: {FIRST_CASE}\n"
    )
    path.write_text(text)
    code, out = verify(course, capsys)
    assert code == 1
    assert f"zero.py should be caught by '{FIRST_CASE}', but that case accepts it" in out


def test_a_case_that_catches_nothing_is_reported_but_does_not_fail(course, capsys):
    code, out = verify(course, capsys)
    assert code == 0
    assert "worth a look" in out
    assert f"the case '{FIRST_CASE}' catches none of the 2 known-wrong solutions" in out


def rename_hidden_case_1(course, name):
    """Give exclusive_or's hidden case 1 (input '0 1', answer '1') another name; its line."""
    path = course / "testcases" / "exclusive_or.yaml"
    lines = path.read_text().splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if "name: 'hidden case 1'" in line)
    # the hints that wait for the case name it too (a hint's `accepted`)
    path.write_text("".join(lines).replace("'hidden case 1'", repr(name)))
    return index + 1


@pytest.mark.parametrize(
    "name, told",
    [
        ("0 xor 1 is 1, the order does not matter", "its input ('0 1') and its expected answer ('1')"),
        ("the order does not matter: the answer is 1", "its expected answer ('1')"),
    ],
)
def test_a_hidden_name_that_states_its_input_or_answer_is_a_warning_not_a_failure(course, capsys, tmp_path, name, told):
    line = rename_hidden_case_1(course, name)
    page = tmp_path / "matrix.html"
    code, out = verify(course, capsys, "--html", str(page))
    assert code == 0, out
    assert "Not failures, but worth a look" in out and "Everything held." in out
    warning = f"testcases/exclusive_or.yaml, line {line}, key 'name': the hidden case '{name}' names {told}"
    assert warning in out
    assert "no hidden case's name states" not in out
    html = page.read_text(encoding="utf-8")
    assert "Worth a look" in html and "key &#39;name&#39;" in html


def test_neutral_hidden_names_give_no_warning(course, capsys):
    code, out = verify(course, capsys)
    assert code == 0
    assert "no hidden case's name states its input or expected answer" in out
    assert "key 'name'" not in out


def test_a_stub_that_passes_is_reported(course, capsys):
    shutil.copy(course / "solutions" / "exclusive_or.py", course / "exercises" / "exclusive_or.py")
    code, out = verify(course, capsys)
    assert code == 1
    assert "the stub" in out and "is accepted: the cases do not check the answer" in out


def test_the_kill_matrix_page(course, capsys, tmp_path):
    page = tmp_path / "matrix.html"
    code, out = verify(course, capsys, "--html", str(page))
    html = page.read_text(encoding="utf-8")
    assert code == 0 and f"Kill matrix: {page}" in out
    assert '<th scope="col" title="inclusive or">inclusive</th>' in html
    # inclusive or fails 1 xor 1; always 0 fails 1 xor 0 and 0 xor 1: three ✗ in the matrix
    assert html.count(">✗<") == 3 and "catches none" in html and "<script" not in html


def test_a_reference_answer_over_half_the_output_limit_fails_naming_task_case_size_and_limit(course, capsys):
    # The reference prints "0\n", 2 bytes: a limit of 3 bytes lets it pass, with no room to spare.
    path = course / "testcases" / "exclusive_or.yaml"
    path.write_text(path.read_text().replace("checker: text\n", "checker: text\noutput_limit: 3\n", 1))
    code, out = verify(course, capsys)
    assert code == 1, out
    assert "passes all 4 cases, twice" in out  # it is accepted: only the room is missing
    assert f"exclusive_or: the reference solution prints 2 bytes on '{FIRST_CASE}' (line " in out
    assert "testcases/exclusive_or.yaml), more than half of the case's output limit of 3 bytes" in out
    assert "set output_limit to at least 4" in out
    assert "uses at most half of every case's output and time limits" not in out


def test_a_reference_run_over_half_the_time_limit_is_a_problem(course):
    # Pure: a graded run that took 1.5 s on a case with a 2 s limit, made up rather than timed.
    task = load_course(course)["exclusive_or"]
    case = task.cases[0]
    slow = TaskResult(task, "exclusive_or.py", (CaseResult(case, Verdict.ACCEPTED, "", time_s=1.5, actual="0\n"),))
    problems = limit_problems(task, [slow])
    assert len(problems) == 1
    assert f"takes 1.50 s on '{FIRST_CASE}'" in problems[0] and "time limit of 2 s" in problems[0]
    assert "set time_limit to at least 3.0" in problems[0]
    assert limit_problems(task, [slow], check_time=False) == []
    quick = TaskResult(task, "exclusive_or.py", (CaseResult(case, Verdict.ACCEPTED, "", time_s=0.9, actual="0\n"),))
    assert limit_problems(task, [quick]) == []


def test_a_course_with_room_in_its_limits_says_so(course, capsys):
    code, out = verify(course, capsys)
    assert code == 0
    assert "exclusive_or: the reference solution uses at most half of every case's output and time limits" in out


def test_a_broken_case_file_exits_2(course, capsys):
    (course / "testcases" / "exclusive_or.yaml").write_text("task: exclusive_or\ncases: [\n")
    assert main(["verify", "--course", str(course)]) == 2
    assert "exclusive_or.yaml, line" in capsys.readouterr().err


@pytest.mark.parametrize(
    "header, problem",
    [
        ("# Mistake: x\n", "has no '# verdict: ...' line"),
        ("# verdict: wrong\n", "declares the verdict 'wrong', which does not exist"),
        ("# verdict: accepted\n", "a known-wrong solution must be rejected"),
        ("# verdict: wrong_answer or slow\n", "declares the verdict 'slow', which does not exist"),
        ("# verdict: wrong_answer or accepted\n", "a known-wrong solution must be rejected"),
        ("# verdict: wrong_answer\n# sayz: Rows count from 1\n", "the header line '# sayz: Rows count from 1', which"),
        ("# verdict: wrong_answer\n# a comment without a key\n", "which is not '# key: value' with a key of: mistake,"),
        ("# verdict: wrong_answer\n# says: a\n# says: b\n", "has two '# says:' lines"),
        ("# verdict: wrong_answer\n# says: ;\n", "has an empty '# says:' line"),
        ("# verdict: wrong_answer\n# says: a\n# xfail:\n", "has an empty '# xfail:' line"),
        ("# verdict: wrong_answer\n# says: a\n# quick: maybe\n", "declares quick: 'maybe', which is neither true"),
        ("# verdict: wrong_answer\n# quick: true\n# cases: a\n", "has '# cases:' and '# quick:' but no '# says:' line"),
    ],
)
def test_header_problems(tmp_path, header, problem):
    path = tmp_path / "w.py"
    path.write_text(header + "print(1)\n")
    assert problem in read_wrong_solution("nim_sum", path).header_problem


def test_header_fields_are_read(tmp_path):
    path = tmp_path / "w.py"
    path.write_text("# Mistake: rows from 0\n# verdict: runtime_error\n# caught-by: a; b c\nprint(1)\n")
    wrong = read_wrong_solution("make_move", path)
    assert (wrong.mistake, wrong.verdict.value, wrong.caught_by) == ("rows from 0", "runtime_error", ("a", "b c"))


def test_header_keys_of_the_message_check_are_read(tmp_path):
    path = tmp_path / "w.py"
    path.write_text(
        "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n# Mistake: rows from 0\n# verdict: wrong_answer\n"
        '# SAYS: expected "4"; Rows count from 1\n#\n# never-says: IndexError\n# cases: a: b, c; d\n'
        "# quick: True\n# xfail: the hint is not given yet\nprint(1)\n# says: below the header, not read\n"
    )
    wrong = read_wrong_solution("make_move", path)
    assert wrong.header_problem == "" and wrong.verdict is Verdict.WRONG_ANSWER
    assert (wrong.says, wrong.never_says, wrong.cases) == (
        ('expected "4"', "Rows count from 1"),
        ("IndexError",),
        ("a: b, c", "d"),
    )
    assert (wrong.quick, wrong.xfail) == (True, "the hint is not given yet")
    plain = tmp_path / "plain.py"
    plain.write_text("# Mistake: x\n# verdict: wrong_answer\nprint(1)\n")
    wrong = read_wrong_solution("make_move", plain)
    assert (wrong.says, wrong.never_says, wrong.cases, wrong.quick, wrong.xfail) == ((), (), (), False, "")


def test_a_malformed_header_line_is_a_finding_of_verify_and_the_file_is_not_graded(course, capsys):
    path = course / "solutions" / "wrong" / "exclusive_or" / "zero.py"
    path.write_text(path.read_text().replace("# verdict: wrong_answer\n", "# verdict: wrong_answer\n# say: 0\n"))
    code, out = verify(course, capsys)
    assert code == 1
    assert "zero.py has the header line '# say: 0', which is not '# key: value' with a key of: mistake" in out


def test_a_header_may_allow_two_verdicts_and_either_holds(tmp_path):
    from grader.authoring.verify import check_wrong_solution
    from grader.model import Verdict

    path = tmp_path / "w.py"
    path.write_text("# verdict: time_limit_exceeded or output_limit_exceeded\nwhile True:\n    print(0)\n")
    wrong = read_wrong_solution("make_move", path)
    assert wrong.verdicts == (Verdict.TIME_LIMIT_EXCEEDED, Verdict.OUTPUT_LIMIT_EXCEEDED)

    class Graded:  # what check_wrong_solution reads of a graded file
        def __init__(self, verdict):
            self.verdict = verdict
            self.cases = [type("Case", (), {"accepted": False, "case": type("C", (), {"name": "a"}), "message": "m"})]

    class Task:
        cases = ()

    for verdict in (Verdict.TIME_LIMIT_EXCEEDED, Verdict.OUTPUT_LIMIT_EXCEEDED):
        assert check_wrong_solution(Task, wrong, Graded(verdict)) == []
    said = check_wrong_solution(Task, wrong, Graded(Verdict.WRONG_ANSWER))
    assert said and "should get time_limit_exceeded or output_limit_exceeded but gets wrong_answer" in said[0]


def test_one_task_can_be_verified_alone(tmp_path, capsys):
    # after editing one task's cases, verify that task only: the others' solutions are not graded,
    # and a task the course does not have is a clear error
    root = course_of(tmp_path / "two", ["exclusive_or", "bitwise_xor"])
    assert main(["verify", "exclusive_or", "--course", str(root)]) == 0
    captured = capsys.readouterr()
    assert "Everything held." in captured.out and "exclusive_or: reference solution" in captured.err
    assert "bitwise_xor: reference solution" not in captured.err and "bitwise_xor:" not in captured.out
    assert main(["verify", "nim_summ", "--course", str(root)]) == 2
    err = capsys.readouterr().err
    assert "no task 'nim_summ'" in err and "exclusive_or" in err and "bitwise_xor" in err
