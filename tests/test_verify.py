"""``python -m grader verify`` on a small course: it holds, and it fails precisely when it should."""

from __future__ import annotations

import shutil

import pytest

from conftest import PROJECT, mutate
from grader.cli import main
from grader.verify import read_wrong_solution

ADDS = mutate("nim_sum", "total = total ^ row", "total = total + row")
SWAPPED = mutate("nim_sum", "return nim_sum(board) != 0", "return nim_sum(board) == 0")


@pytest.fixture
def course(tmp_path):
    """A course with nim_sum only: its cases, reference solution, stub and two known-wrong solutions."""
    root = tmp_path / "course"
    for folder in ("testcases", "solutions", "exercises", "solutions/wrong/nim_sum"):
        (root / folder).mkdir(parents=True)
    shutil.copy(PROJECT / "testcases" / "nim_sum.yaml", root / "testcases")
    shutil.copytree(PROJECT / "testcases" / "nim_sum", root / "testcases" / "nim_sum")
    shutil.copy(PROJECT / "solutions" / "nim_sum.py", root / "solutions")
    shutil.copy(PROJECT / "exercises" / "nim_sum.py", root / "exercises")
    wrong = root / "solutions" / "wrong" / "nim_sum"
    (wrong / "adds.py").write_text(
        "# Mistake: adds the heaps instead of XOR-ing them\n# verdict: wrong_answer\n"
        "# caught-by: the nim-sum of 1, 3, 5, 7 is 0\n" + ADDS
    )
    (wrong / "swapped.py").write_text("# Mistake: P and N swapped\n# verdict: wrong_answer\n" + SWAPPED)
    return root


def verify(course, capsys, *extra):
    code = main(["verify", "--course", str(course), *extra])
    return code, capsys.readouterr().out


def test_a_sound_course_holds(course, capsys):
    code, out = verify(course, capsys)
    assert code == 0, out
    assert "the reference solution passes all 26 cases, twice" in out
    assert "the stub, an empty file and a silent file are rejected" in out
    assert "nim_sum: 2 of 2 known-wrong solutions caught" in out
    assert "Everything held." in out


def test_a_broken_reference_solution_fails_with_the_case(course, capsys):
    (course / "solutions" / "nim_sum.py").write_text(ADDS)
    code, out = verify(course, capsys)
    assert code == 1
    assert "the reference solution" in out and "gets wrong_answer on 'the nim-sum of 1, 3, 5, 7 is 0'" in out


def test_a_wrong_expected_answer_fails_naming_the_case_and_line(course, capsys):
    path = course / "testcases" / "nim_sum.yaml"
    text = path.read_text()
    path.write_text(text.replace("expected: '13'", "expected: '12'", 1))
    code, out = verify(course, capsys)
    assert code == 1
    assert "'the nim-sum of 27, 8, 3, 29 is 13'" in out and "(line " in out


def test_a_known_wrong_solution_that_slips_through(course, capsys):
    fine = (PROJECT / "solutions" / "nim_sum.py").read_text()
    (course / "solutions" / "wrong" / "nim_sum" / "fine.py").write_text(
        "# Mistake: none really\n# verdict: wrong_answer\n" + fine
    )
    code, out = verify(course, capsys)
    assert code == 1
    assert "fine.py (none really) is accepted: no case catches it" in out
    assert "2 of 3 known-wrong solutions caught" in out


def test_a_declared_verdict_that_does_not_happen(course, capsys):
    path = course / "solutions" / "wrong" / "nim_sum" / "swapped.py"
    path.write_text(path.read_text().replace("# verdict: wrong_answer", "# verdict: runtime_error"))
    code, out = verify(course, capsys)
    assert code == 1
    assert "swapped.py should get runtime_error but gets wrong_answer" in out


def test_caught_by_a_case_that_accepts_it(course, capsys):
    path = course / "solutions" / "wrong" / "nim_sum" / "swapped.py"
    text = path.read_text().replace(
        "# verdict: wrong_answer\n", "# verdict: wrong_answer\n# caught-by: the nim-sum of 1, 3, 5, 7 is 0\n"
    )
    path.write_text(text)
    code, out = verify(course, capsys)
    assert code == 1
    assert "swapped.py should be caught by 'the nim-sum of 1, 3, 5, 7 is 0', but that case accepts it" in out


def test_a_case_that_catches_nothing_is_reported_but_does_not_fail(course, capsys):
    # the swapped solution is the only one left: nim_sum cases cannot catch it
    (course / "solutions" / "wrong" / "nim_sum" / "adds.py").unlink()
    code, out = verify(course, capsys)
    assert code == 0
    assert "worth a look" in out
    assert "the case 'the nim-sum of 1, 3, 5, 7 is 0' catches none of the 1 known-wrong solutions" in out


def test_a_stub_that_passes_is_reported(course, capsys):
    shutil.copy(course / "solutions" / "nim_sum.py", course / "exercises" / "nim_sum.py")
    code, out = verify(course, capsys)
    assert code == 1
    assert "the stub" in out and "is accepted: the cases do not check the answer" in out


def test_the_kill_matrix_page(course, capsys, tmp_path):
    page = tmp_path / "matrix.html"
    code, out = verify(course, capsys, "--html", str(page))
    html = page.read_text(encoding="utf-8")
    assert code == 0 and f"Kill matrix: {page}" in out
    assert '<th scope="col" title="adds the heaps instead of XOR-ing them">adds</th>' in html
    assert html.count("<tr") >= 27 and "✗" in html and "<script" not in html


def test_a_broken_case_file_exits_2(course, capsys):
    (course / "testcases" / "nim_sum.yaml").write_text("task: nim_sum\ncases: [\n")
    assert main(["verify", "--course", str(course)]) == 2
    assert "nim_sum.yaml, line" in capsys.readouterr().err


@pytest.mark.parametrize(
    "header, problem",
    [
        ("# Mistake: x\n", "has no '# verdict: ...' line"),
        ("# verdict: wrong\n", "declares the verdict 'wrong', which does not exist"),
        ("# verdict: accepted\n", "a known-wrong solution must be rejected"),
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
