"""The reports a student reads, compared with golden files: any change to a page shows as a diff.

The results are made by hand (no program runs), so the pages depend on the report code and its
templates alone. After a change to the report that is meant, write the new golden files with

    NIM_GRADER_UPDATE_GOLDEN=1 python -m pytest tests/unit/test_report_golden.py

and read their diff before committing them: it is what every student will see change.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from grader.model import Case, CaseResult, Difference, Limits, SourceProblem, Task, TaskResult, Verdict
from grader.report import pages as report

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
UPDATE = os.environ.get("NIM_GRADER_UPDATE_GOLDEN") == "1"


def _case(name: str, case_input: str, expected: str, hidden: bool = False, points: float = 1.0) -> Case:
    return Case(name, case_input, (expected,), "text", {}, Limits(), hidden=hidden, points=points)


def _results() -> list:
    """Three tasks: one with every kind of case result, one that does not compile, one all right."""
    sum_cases = (
        _case("three rows", "3 4 5\n", "2\n"),
        _case("one row", "7\n", "7\n"),
        _case("empty row <b>", "0 0\n", "0\n"),
        _case("a hidden one", "1 2 3\n", "0\n", hidden=True, points=2),
        _case("a big board", "9 9 9 9\n", "0\n"),
    )
    nim_sum = TaskResult(
        Task("nim_sum", "The nim-sum", sum_cases, source="testcases/nim_sum.yaml"),
        "nim_sum.py",
        (
            CaseResult(sum_cases[0], Verdict.ACCEPTED, "", 0.012, actual="2\n", expected="2\n"),
            CaseResult(
                sum_cases[1],
                Verdict.WRONG_ANSWER,
                'Line 1 differs from column 1: expected "7", your program printed "0".',
                0.011,
                actual="0\n",
                expected="7\n",
                difference=Difference(1, 1),
            ),
            CaseResult(
                sum_cases[2],
                Verdict.RUNTIME_ERROR,
                "Your program crashed with IndexError (list index out of range) on line 12: <script>x</script>",
                0.02,
                stderr=(
                    'Traceback (most recent call last):\n  File "nim_sum.py", line 12\n'
                    "IndexError: list index out of range\n"
                ),
                expected="0\n",
            ),
            CaseResult(sum_cases[3], Verdict.WRONG_ANSWER, "A hidden case failed.", 0.01),
            CaseResult(sum_cases[4], Verdict.NOT_RUN, "Not run: fix the endless loop first.", 0.0),
        ),
    )
    xor_case = _case("one and zero", "1 0\n", "1\n")
    broken = TaskResult(
        Task("exclusive_or", "The XOR gate", (xor_case,), source="testcases/exclusive_or.yaml"),
        "exclusive_or.py",
        (CaseResult(xor_case, Verdict.SYNTAX_ERROR, "Line 3: a colon is missing after the def line."),),
        problem=SourceProblem(Verdict.SYNTAX_ERROR, "Line 3: a colon is missing after the def line.", line=3),
    )
    bin_case = _case("thirteen", "13\n", "[1, 1, 0, 1]\n")
    right = TaskResult(
        Task("bin_num", "Numbers in binary", (bin_case,), source="testcases/bin_num.yaml"),
        "bin_num.py",
        (CaseResult(bin_case, Verdict.ACCEPTED, "", 0.01, actual="[1, 1, 0, 1]\n", expected="[1, 1, 0, 1]\n"),),
    )
    return [nim_sum, broken, right]


def _outputs(tmp_path: Path) -> dict:
    results = _results()
    report.write_html(results, tmp_path, "graded with Python 3.11 (golden test)")
    outputs = {path.name: path.read_text(encoding="utf-8") for path in sorted(tmp_path.glob("*.html"))}
    outputs["results.json"] = report.json_text(results)
    outputs["table.txt"] = report.terminal_table(results)
    return outputs


def test_reports_match_the_golden_files(tmp_path):
    outputs = _outputs(tmp_path)
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        for old in GOLDEN.iterdir():
            old.unlink()
        for name, text in outputs.items():
            (GOLDEN / name).write_text(text, encoding="utf-8")
    golden = {path.name: path.read_text(encoding="utf-8") for path in sorted(GOLDEN.iterdir())}
    assert sorted(outputs) == sorted(golden), "pages made and golden files differ: update them (module docstring)"
    for name, text in outputs.items():
        if text != golden[name]:
            diff = "".join(
                difflib.unified_diff(
                    golden[name].splitlines(keepends=True),
                    text.splitlines(keepends=True),
                    f"golden/{name}",
                    f"made/{name}",
                    n=2,
                )
            )
            pytest.fail(f"{name} differs from its golden file (update them as the module docstring says):\n{diff}")
