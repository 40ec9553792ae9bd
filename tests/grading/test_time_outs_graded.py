"""A time-out is not an endless loop (issue 36): the grader looks at a program twice at its time
limit and tells a loop that never ends from slow work (``grade/mistakes/time_outs.py``); a course hint says
which it explains (``when: {time_out: ...}``); a hint about speed shows on a time-out, on a hidden
case too; ``verify`` warns about a hint that cannot reach the failures it is about.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from real_mistakes.timeouts import LOOP_WORDS, QUADRATIC_TEXT

from grader.authoring.hint_reach import hint_reach_warnings
from grader.course.loader import load_task
from grader.errors import CaseFileError
from grader.grade.grading import grade_file
from grader.model import Verdict
from grader.nim.lab import lab_checkers

DEMO = """
task: demo
time_limit: 1
cases:
  - name: a big number
    input: '27'
    expected: '196418'
    hints: &time_outs
      - when: {time_out: loop}
        text: Your loop never ends.
      - when: {time_out: [slow, unclear]}
        text: Keep it quick.
  - name: hidden case 1
    input: '28'
    expected: '317811'
    hidden: true
    hints: *time_outs
"""
ENDLESS = """\
n = int(input())
a, b = 0, 1
while n > 0:
    a, b = b, a + b
print(a)
"""
SLOW = """\
def fib(n):
    if n < 2:
        return n
    total = 0
    for k in (1, 2):
        total += fib(n - k)
    return total


print(fib(int(input()) + 6))
"""


def grade_demo(tmp_path: Path, text: str, program: str, context):
    path = tmp_path / "testcases" / "demo.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    task = load_task(path, lab_checkers())
    source = tmp_path / "demo.py"
    source.write_text(program, encoding="utf-8")
    return grade_file(task, source, context)


def test_a_loop_that_never_ends_is_told_so_with_its_hint(tmp_path, context):
    visible, hidden = grade_demo(tmp_path, DEMO, ENDLESS, context).cases
    assert visible.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert "in a loop that never ends: the loop at line 3" in visible.message, visible.message
    assert visible.message.endswith("Hint: Your loop never ends.") and "quick" not in visible.message
    assert hidden.message.endswith("Hint: Your loop never ends.")


def test_slow_work_is_told_it_is_too_slow_and_never_that_it_loops(tmp_path, context):
    visible, hidden = grade_demo(tmp_path, DEMO, SLOW, context).cases
    assert visible.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert "did not finish within 1 second of processor time on this input" in visible.message, visible.message
    assert "fib calling itself" in visible.message and "too slow for an input this size" in visible.message
    assert "never ends" not in visible.message and visible.message.endswith("Hint: Keep it quick.")
    # a hidden case: its fixed sentence and the course's hint, nothing the program controls
    assert (
        hidden.message
        == "This hidden case was not accepted: your program took longer than the time limit. Hint: Keep it quick."
    )


def test_a_slow_present_board_gets_the_hint_about_speed_on_the_hidden_large_board(grade):
    result = grade("present_board", QUADRATIC_TEXT)
    (large,) = [c for c in result.cases if c.case.name == "hidden case 2: a very large board"]
    assert large.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert "build the lines in a list and join them once" in large.message, large.message
    assert all(words not in c.message for c in result.cases for words in LOOP_WORDS)
    assert [c.case.name for c in result.cases if not c.accepted] == ["hidden case 2: a very large board"]


@pytest.mark.parametrize(
    "when, error",
    [
        ("{time_out: stuck}", "it takes one or a list of: loop, slow, unclear"),
        ("{verdict: wrong_answer, time_out: loop}", "needs the verdict time_limit_exceeded"),
    ],
)
def test_a_bad_time_out_condition_is_refused_with_its_line(tmp_path, when, error):
    text = DEMO.replace("{time_out: loop}", when)
    path = tmp_path / "testcases" / "demo.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    with pytest.raises(CaseFileError) as caught:
        load_task(path, lab_checkers())
    assert error in str(caught.value) and "line 8" in str(caught.value)


def test_verify_warns_about_hints_that_cannot_reach_what_they_are_about(tmp_path):
    text = """
    task: demo
    generate:
      - generator: random_numbers
        seed: 1
        count: 2
        format: '{numbers_spaced}'
        hint: Keep it quick on big numbers.
    cases:
      - name: one
        input: '1 1'
        expected: '2'
        hints:
          - when: {verdict: time_limit_exceeded}
            text: Your loop never ends.
          - when: {verdict: [wrong_answer, time_limit_exceeded]}
            text: Add them.
          - when: {verdict: wrong_answer, pattern: '3'}
            text: Not three.
    """
    path = tmp_path / "testcases" / "demo.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    warnings = hint_reach_warnings(load_task(path, lab_checkers()))
    assert len(warnings) == 3, warnings
    speed, endless, shadowed = sorted(warnings, key=lambda w: ("speed" not in w, "loop" not in w))
    assert "'Keep it quick on big numbers.'" in speed and "and 1 other case" in speed
    assert "shows only after wrong_answer" in speed
    assert "'Your loop never ends.'" in endless and "time_out: loop" in endless
    assert "'Not three.' on 'one'" in shadowed and "can never show" in shadowed
