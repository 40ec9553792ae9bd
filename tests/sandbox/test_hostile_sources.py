"""Hostile submission files: nesting Python cannot compile, odd bytes and lines; never a grader crash.

Deeply nested expressions make Python itself give up (SyntaxError, RecursionError or MemoryError,
depending on the version; on 3.9 and 3.10 a deep enough chain kills the parser), and the student
reads what Python says as a ``syntax_error``. In a class run the other tasks are graded as usual.
"""

from __future__ import annotations

import json
import shutil

import pytest
from support import PROJECT, gradebook_students

from grader.cli.main import main
from grader.model import Verdict
from grader.submission import source
from grader.submission.source import inspect_source, main_block_advice

# Shapes that no Python from 3.9 on can compile (the words differ from one version to the next).
TOO_DEEP = [
    pytest.param(b"x = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n", id="5000-parentheses"),
    pytest.param(b"x = " + b"[" * 5000 + b"]" * 5000 + b"\n", id="5000-nested-lists"),
    pytest.param(b"x = a" + b".b" * 50000 + b"\n", id="50000-attributes"),
    pytest.param(b"x = f" + b"()" * 50000 + b"\n", id="50000-calls"),
    pytest.param(b"x = " + b"lambda: " * 5000 + b"1\n", id="5000-lambdas"),
    pytest.param(b"x = 2" + b" ** 2" * 5000 + b"\n", id="5000-powers"),
    # 3.9 and 3.10 die in the parser (SIGSEGV) on this one: only a second interpreter may try it
    pytest.param(b"x = a" + b".b" * 300000 + b"\n", id="300000-attributes"),
]


@pytest.mark.parametrize("data", TOO_DEEP)
def test_a_file_nested_too_deeply_is_a_syntax_error(data):
    problem = inspect_source(data, [])
    assert problem is not None
    assert problem.verdict is Verdict.SYNTAX_ERROR
    assert "nested" in problem.message and "several steps" in problem.message
    # Python's own words (3.9 and 3.10 crash outright on the deepest one)
    assert problem.message.startswith(
        ("Python cannot compile your file: ", "Line 1 has a syntax error: ", "Python itself crashed (SIGSEGV)")
    )


def test_a_compile_that_kills_python_is_a_syntax_error_naming_the_crash(monkeypatch):
    # what Python 3.9 does on a 300,000-deep chain, on any version
    monkeypatch.setattr(source, "_TRIAL", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    problem = inspect_source(b"x = 1\n" * (source.TRIAL_COMPILE_BYTES // 6 + 1), [])
    assert problem.verdict is Verdict.SYNTAX_ERROR
    assert problem.message.startswith("Python itself crashed (SIGSEGV) while compiling your file.")


def test_a_small_file_is_not_compiled_twice(monkeypatch):
    monkeypatch.setattr(source, "_TRIAL", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    assert inspect_source(b"x = 1\n", []) is None


@pytest.mark.parametrize(
    "data, words",
    [
        pytest.param(b"return 1\n", "'return' outside function", id="return-outside-function"),
        pytest.param(
            b"".join(b" " * i + b"for i in x:\n" for i in range(25)) + b" " * 25 + b"pass\n",
            "too many statically nested blocks",
            id="25-nested-loops",
        ),
    ],
)
def test_what_only_the_compiler_finds_is_a_syntax_error_too(data, words):
    problem = inspect_source(data, [])
    assert problem.verdict is Verdict.SYNTAX_ERROR
    assert words in problem.message


def test_an_unknown_encoding_names_no_line_zero():
    problem = inspect_source(b"# -*- coding: bogus -*-\nx = 1\n", [])
    assert problem.verdict is Verdict.SYNTAX_ERROR
    assert problem.message == "Python cannot read your file: unknown encoding: bogus."


def test_a_syntax_error_on_a_huge_line_shows_only_the_part_around_it():
    problem = inspect_source(b"x = '" + b"a" * 500000 + b"' +\n", [])
    assert problem.verdict is Verdict.SYNTAX_ERROR
    assert len(problem.source_line) <= 122
    assert problem.source_line.endswith("' +")
    assert len(problem.source_line) - 5 <= problem.caret <= len(problem.source_line)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"\xef\xbb\xbfx = 1\n", id="byte-order-mark"),
        pytest.param(b"x = '" + b"a" * (1024 * 1024 - 10) + b"'\n", id="1-MiB-line"),
        pytest.param(b"x = 1\ry = 2\r", id="old-mac-line-ends"),
    ],
)
def test_odd_but_valid_files_may_run(data):
    assert inspect_source(data, []) is None


def test_a_main_block_too_deep_to_compare_gets_advice_and_no_crash():
    deep = b'if __name__ == "__main__":\n    x = ' + b"-" * 5000 + b"1\n"
    stub = b'if __name__ == "__main__":\n    print(1)\n'
    assert isinstance(main_block_advice(deep, stub), str)


def _deep_file() -> str:
    return "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"


def test_check_reports_a_deep_file_as_a_syntax_error(tmp_path, capsys):
    path = tmp_path / "nim_sum.py"
    path.write_text("x = a" + ".b" * 50000 + "\n")
    assert main(["check", str(path), "--json", "--report", str(tmp_path / "report")]) == 1
    document = json.loads(capsys.readouterr().out)
    cases = document["tasks"][0]["cases"]
    assert {case["verdict"] for case in cases} == {"syntax_error"}
    assert "Python cannot compile your file" in cases[0]["message"]


def test_a_deep_file_in_a_class_costs_that_task_only(tmp_path, capsys, course_without_known_wrong):
    student = tmp_path / "class" / "ann"
    student.mkdir(parents=True)
    for path in (PROJECT / "solutions").glob("*.py"):
        shutil.copy(path, student)
    (student / "nim_sum.py").write_text(_deep_file())
    (student / "bin_num.py").write_text("x = a" + ".b" * 50000 + "\n")
    out = tmp_path / "out"
    course = ["--course", str(course_without_known_wrong)]
    assert (
        main(["grade", str(tmp_path / "class"), "--out", str(out), *course, "--no-cache", "--allow-unprotected"]) == 1
    )
    capsys.readouterr()
    (row,) = gradebook_students((out / "gradebook.csv").read_text(encoding="utf-8"))
    assert row["nim_sum"] == row["bin_num"] == "0"
    graded = [name for name in row if name not in ("student", "nim_sum", "bin_num", "total", "not_handed_in")]
    assert len(graded) == 7
    for task in graded:
        assert float(row[task]) > 0, task
    report = (out / "ann" / "nim_sum.html").read_text(encoding="utf-8")
    assert "too many nested parentheses" in report
