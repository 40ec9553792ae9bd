"""Quick feedback in ``check``: after two time-outs in a task, its other cases are ``not_run``.

A small course of five cases with a one-second time limit, graded through the command line with
the runner wrapped to count the programs it runs.
"""

from __future__ import annotations

import contextlib
import html
import json
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from runner_wrappers import CountingRunner

from grader.cli import grading_setup
from grader.cli import main as cli
from grader.course.course_checkers import course_checkers
from grader.course.loader import load_course
from grader.grade.grading import grade_file
from grader.model import Verdict

CASES = 5
LOOPS_FOREVER = "while True:\n    pass\n"


def spin_program(looping_inputs) -> str:
    """Echoes its input, but loops forever on the inputs in ``looping_inputs``."""
    return textwrap.dedent(
        f"""\
        import sys
        text = sys.stdin.read().strip()
        while text in {sorted(looping_inputs)!r}:
            pass
        print(text)
        """
    )


@pytest.fixture
def spin_course(tmp_path) -> Path:
    course = tmp_path / "course"
    (course / "testcases").mkdir(parents=True)
    cases = "".join(f"  - name: case {n}\n    input: '{n}'\n    expected: '{n}'\n" for n in range(1, CASES + 1))
    cases += "    hidden: true\n"  # the last case
    (course / "testcases" / "spin.yaml").write_text(f"task: spin\ntime_limit: 1\ncases:\n{cases}", encoding="utf-8")
    return course


@pytest.fixture
def counting(monkeypatch, context) -> CountingRunner:
    """The runner every command of ``cli.main`` gets in this test, counting runs."""
    runner = CountingRunner(context.runner)
    monkeypatch.setattr(grading_setup, "best_runner", lambda **_: contextlib.nullcontext(runner))
    return runner


def check_json(tmp_path, course: Path, source: str, capsys, *extra: str):
    """``check --json`` on ``source`` as spin.py: (exit status, the task's JSON, the terminal table)."""
    path = tmp_path / "work" / "spin.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(source, encoding="utf-8")
    report = tmp_path / "report"
    status = cli.main(["check", str(path), "--course", str(course), "--report", str(report), "--json", *extra])
    captured = capsys.readouterr()
    (task,) = json.loads(captured.out)["tasks"]
    return status, task, captured.err


def test_check_runs_two_cases_of_a_looping_program_and_the_rest_are_not_run(tmp_path, spin_course, counting, capsys):
    status, task, table = check_json(tmp_path, spin_course, LOOPS_FOREVER, capsys, "--jobs", "2")
    assert counting.runs == 2
    assert status == 1
    verdicts = [case["verdict"] for case in task["cases"]]
    assert verdicts == ["time_limit_exceeded"] * 2 + ["not_run"] * (CASES - 2)
    assert task["verdict"] == "time_limit_exceeded" and task["score"] == 0
    message = task["cases"][2]["message"]
    assert "ran out of time on 'case 1' and on 'case 2'" in message
    assert "Make it finish in time first" in message and "check --all" in message
    assert "3 cases were not run" in table and "Make it finish in time first" in table
    page = html.unescape((tmp_path / "report" / "spin.html").read_text(encoding="utf-8"))
    assert "2 cases, then 3 not run" in page  # the page opens with the time-outs and the cases they held up
    # the command to run every case names the student's own file
    assert (
        "make it finish in time first, then check again; 'python -m grader check spin.py --all' runs every case."
        in page
    )
    assert "'python -m grader check spin.py --all'" in table
    assert page.count(">not run</span>") == CASES - 2
    assert page.lower().count("make it finish in time first") == 1, (
        "why the cases were not run is said once, not once a case"
    )
    assert "hidden case" not in page  # a hidden case that was not run has not failed


def test_check_all_runs_every_case(tmp_path, spin_course, counting, capsys):
    status, task, table = check_json(tmp_path, spin_course, LOOPS_FOREVER, capsys, "--all", "--jobs", "2")
    assert counting.runs == CASES
    assert status == 1
    assert [case["verdict"] for case in task["cases"]] == ["time_limit_exceeded"] * CASES
    assert "not run" not in table


def test_grade_stops_after_two_time_outs_as_check_does_and_all_runs_every_case(tmp_path, spin_course, counting):
    student = tmp_path / "class" / "ann"
    student.mkdir(parents=True)
    (student / "spin.py").write_text(LOOPS_FOREVER, encoding="utf-8")
    out = tmp_path / "out"
    argv = ["grade", str(student.parent), "--out", str(out), "--course", str(spin_course), "--no-cache"]
    assert cli.main([*argv, "--allow-unprotected", "--jobs", "2"]) == 1
    assert counting.runs == 2  # the rest not run, on every path
    tests = json.loads((out / "ann" / "results.json").read_text(encoding="utf-8"))["tests"]
    assert len(tests) == CASES
    assert "not run" in (out / "ann" / "spin.html").read_text(encoding="utf-8").lower()
    everything = tmp_path / "all"
    argv = ["grade", str(student.parent), "--out", str(everything), "--course", str(spin_course), "--no-cache"]
    assert cli.main([*argv, "--allow-unprotected", "--jobs", "2", "--all"]) == 1
    assert counting.runs == 2 + CASES
    assert "not run" not in (everything / "ann" / "spin.html").read_text(encoding="utf-8").lower()


def grade_spin(tmp_path, course: Path, source: str, context, **options):
    task = load_course(course)["spin"]
    path = tmp_path / "spin.py"
    path.write_text(source, encoding="utf-8")
    context = replace(context, checkers=course_checkers(course), **options)
    return grade_file(task, path, context)


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_in_parallel_the_cases_after_the_second_time_out_in_case_order_are_not_run(
    tmp_path, spin_course, context, jobs
):
    # Cases 2 and 4 loop: whatever finishes first, cases 5 and on are not_run and 1 and 3 are graded.
    counting = CountingRunner(context.runner)
    result = grade_spin(
        tmp_path, spin_course, spin_program({"2", "4"}), context, runner=counting, jobs=jobs, quick_feedback=True
    )
    assert [c.verdict for c in result.cases] == [
        Verdict.ACCEPTED,
        Verdict.TIME_LIMIT_EXCEEDED,
        Verdict.ACCEPTED,
        Verdict.TIME_LIMIT_EXCEEDED,
        Verdict.NOT_RUN,
    ]
    assert counting.runs <= 4 + max(0, jobs - 2)  # case 5 starts only when no time-out was known yet
    assert "'case 2' and on 'case 4'" in result.cases[4].message


def test_one_time_out_is_not_enough(tmp_path, spin_course, context):
    result = grade_spin(tmp_path, spin_course, spin_program({"3"}), context, jobs=2, quick_feedback=True)
    assert [c.verdict for c in result.cases].count(Verdict.ACCEPTED) == CASES - 1
    assert Verdict.NOT_RUN not in [c.verdict for c in result.cases]


def test_every_case_runs_unless_asked(tmp_path, spin_course, context):
    # verify, the pytest plugin and the known-wrong checks grade with the default context
    counting = CountingRunner(context.runner)
    result = grade_spin(tmp_path, spin_course, LOOPS_FOREVER, context, runner=counting, jobs=2)
    assert counting.runs == CASES
    assert all(c.verdict is Verdict.TIME_LIMIT_EXCEEDED for c in result.cases)
