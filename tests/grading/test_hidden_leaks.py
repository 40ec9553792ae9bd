"""Hostile programs that try to carry a hidden case's input out through what the grader shows.

Each program turns its input into a marker (``LEAK<hex of the input>``) and puts it where the grader
used to read from: its error output as a fake traceback, the name of an exception class, the text
of an exception, the time it takes. On a task of hidden cases only, nothing of it may appear in the
JSON document, the report page or the Gradescope export: a hidden case shows its name, its verdict,
one fixed sentence and the course's hint.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from grader.grade.grading import grade_file
from grader.model import Verdict
from grader.report import pages
from grader.report.exports import gradescope

READ = "import sys\ndata = sys.stdin.read()\nmark = 'LEAK<' + data.encode().hex() + '>'\n"

HOSTILE = {
    "a fake traceback on stderr": READ
    + "sys.stderr.write('Traceback (most recent call last):\\n  File \"x.py\", line 1, in <module>\\n')\n"
    + "sys.stderr.write(mark + '\\n')\nsys.exit(1)\n",
    "an exception class named after the input": READ
    + "raise type('E' + data.encode().hex(), (Exception,), {})(mark)\n",
    "an exception that says the input": READ + "raise ValueError(mark)\n",
    "a crash after printing the input": READ + "print(mark)\nraise SystemExit(mark)\n",
    "a wrong answer that is the input": READ + "print(mark)\n",
}


@pytest.fixture
def hidden_only(course):
    """nim_sum with its cases made hidden (their names kept), quick."""
    task = course["nim_sum"]
    return replace(task, cases=tuple(replace(c, hidden=True) for c in task.cases[:4]))


def _everything_shown(result) -> str:
    """All a student (or a tool of theirs) can read of a result: JSON, the page, Gradescope's file."""
    return "\n".join(
        [pages.json_text([result]), pages.task_page(result), json.dumps(gradescope([result]), ensure_ascii=False)]
    )


@pytest.mark.parametrize("source", HOSTILE.values(), ids=HOSTILE.keys())
def test_nothing_a_program_controls_reaches_a_student_from_a_hidden_case(tmp_path, context, hidden_only, source):
    path = tmp_path / "nim_sum.py"
    path.write_text(source, encoding="utf-8")
    result = grade_file(hidden_only, path, context)
    assert all(not c.accepted for c in result.cases)
    shown = _everything_shown(result)
    assert "LEAK" not in shown and "4c45414b" not in shown.lower()  # the marker, or its hex
    for case in result.cases:
        assert case.message.startswith("This hidden case was not accepted: your program ")
        assert case.case.input.strip() not in shown and case.case.input.encode().hex() not in shown


def test_a_hidden_case_shows_no_time(tmp_path, context, hidden_only):
    """A program that sleeps in proportion to its input: no figure of it reaches the student."""
    source = "import sys, time\ndata = sys.stdin.read()\ntime.sleep(len(data) / 1000)\nprint(0)\n"
    path = tmp_path / "nim_sum.py"
    path.write_text(source, encoding="utf-8")
    result = grade_file(hidden_only, path, context)
    document = pages.json_document([result])
    assert all(case["time_s"] is None for case in document["tasks"][0]["cases"])
    assert all(case.time_s == 0.0 for case in result.cases)
    assert gradescope([result])["execution_time"] == 0
    assert " s</span>" not in pages.task_page(result)


def test_a_visible_case_still_names_the_crash_and_its_line(grade):
    result = grade("nim_sum", "def f():\n    return [][1]\nf()\n")
    visible = [c for c in result.cases if not c.case.hidden]
    assert visible and all(c.verdict is Verdict.RUNTIME_ERROR for c in visible)
    assert "IndexError" in visible[0].message and "line 2" in visible[0].message
    assert "return [][1]" in visible[0].message  # the line's text, read from the student's own file
