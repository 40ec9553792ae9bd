"""A task's rules hold while the program runs, through the whole grader: the review's three bypasses
of the syntax check (``getattr(builtins, "bi" + "n")``, ``int(*args)`` kept out of sight,
``int.__xor__``) earn nothing, in both runners, and the reference solutions still earn everything.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from support import solution

from grader.grade.grading import grade_file
from grader.model import Verdict
from grader.run.execute import SubprocessRunner

BYPASSES = {
    "bin_num: bin reached with getattr": (
        "bin_num",
        'import builtins, json, sys\nconvert = getattr(builtins, "bi" + "n")\n'
        "data = json.loads(sys.stdin.read())\n"
        "if data['type'] == 'num_bin':\n    print(json.dumps([int(c) for c in convert(data['value'])[2:]]))\n"
        "else:\n    print(json.dumps(sum(b << i for i, b in enumerate(reversed(data['value'])))))\n",
    ),
    "bin_num: int with a base through a name of its own": (
        "bin_num",
        "import json, sys\nparse = int\nbase = [2]\n"
        "data = json.loads(sys.stdin.read())\n"
        "if data['type'] == 'num_bin':\n"
        "    n, bits = data['value'], []\n    while n:\n        bits.insert(0, n % 2)\n        n //= 2\n"
        "    print(json.dumps(bits or [0]))\n"
        "else:\n    print(json.dumps(parse(''.join(map(str, data['value'])) or '0', *base)))\n",
    ),
    "bitwise_xor: int.__xor__": (
        "bitwise_xor",
        "import sys\nx = getattr(int, '__x' + 'or__')\na, b = map(int, sys.stdin.read().split())\nprint(x(a, b))\n",
    ),
}


@pytest.fixture(params=["fork server", "subprocess"])
def either(request, context):
    if request.param == "fork server":
        yield context
        return
    with SubprocessRunner() as runner:
        yield replace(context, runner=runner)


@pytest.mark.parametrize("task_id, source", BYPASSES.values(), ids=BYPASSES.keys())
def test_a_rule_reached_around_the_syntax_check_earns_nothing(tmp_path, course, either, task_id, source):
    path = tmp_path / f"{task_id}.py"
    path.write_text(source, encoding="utf-8")
    result = grade_file(course[task_id], path, either)
    assert result.score == 0
    assert result.verdict is Verdict.RULE_VIOLATION, [c.message for c in result.cases[:2]]
    assert "which this exercise does not allow" in result.cases[0].message


# The process that runs the program reports a broken rule and ends it; a program that rewrites
# what that process holds at module level (its report function, its exit status, its os) before
# breaking a rule, and catches what follows, must still end there with the rule reported.
QUIETED = """\
import os as _os
_child = sys.modules.get("child_program")
if _child is not None:
    class _Quiet:
        def __getattr__(self, name):
            return getattr(_os, name)

        def _exit(self, status):
            pass

        def write(self, fd, data):
            return len(data)

    _child.report = _child.report_crash = _child._write = lambda *args: None
    _child.RULE_BROKEN, _child.REPORT_FD, _child.os = 0, 99, _Quiet()
try:
    getattr(_os.sys.modules["builtins"], "bi" + "n")(1)
except BaseException:
    pass
"""


def test_a_program_cannot_quiet_the_report_of_a_broken_rule(tmp_path, course, either):
    source = solution("bin_num").replace("import json\nimport sys\n", "import json\nimport sys\n" + QUIETED, 1)
    assert QUIETED in source
    path = tmp_path / "bin_num.py"
    path.write_text(source, encoding="utf-8")
    result = grade_file(course["bin_num"], path, either)
    assert result.verdict is Verdict.RULE_VIOLATION, [c.message for c in result.cases[:2]]
    assert result.score == 0


@pytest.mark.parametrize("task_id", ["bin_num", "bitwise_xor", "exclusive_or"])
def test_the_reference_solutions_break_no_rule_while_running(tmp_path, course, either, task_id):
    path = tmp_path / f"{task_id}.py"
    path.write_text(solution(task_id), encoding="utf-8")
    assert grade_file(course[task_id], path, either).verdict is Verdict.ACCEPTED


def test_a_rule_broken_only_on_a_hidden_case_names_no_line(tmp_path, course, context):
    """Where a program breaks a rule is its own choice: from a hidden case, no line is named."""
    task = course["bin_num"]
    hidden = next(c for c in task.cases if c.hidden)
    guard = (
        f"_text = sys.stdin.read()\nif _text == {hidden.input!r}:\n    getattr(__builtins__, 'bi' + 'n')(1)\n"
        "sys.stdin = io.StringIO(_text)\n"
    )
    source = solution("bin_num").replace("import json\nimport sys\n", "import io\nimport json\nimport sys\n" + guard, 1)
    assert guard in source
    path = tmp_path / "bin_num.py"
    path.write_text(source, encoding="utf-8")
    result = grade_file(replace(task, cases=(hidden,)), path, context)
    assert result.verdict is Verdict.RULE_VIOLATION
    assert "Line" not in result.problem.message and "hidden case" in result.problem.message
