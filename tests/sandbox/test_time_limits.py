"""Time limits are processor time of the run as a whole; the clock is only a backstop.

A correct but slowish program must get the same verdict on a busy machine as on a quiet one, so
the time a run is charged is what its processes computed (its cgroup's processor time), never how
long it waited for a processor. A program that sleeps or waits computes nothing: it runs until the
wall-clock backstop (``run_clock.wall_backstop``) and is told it was waiting. Each test holds on
any machine, loaded or not: none compares a time with a limit of its own.
"""

from __future__ import annotations

import os
import sys

import pytest

from grader.model import Limits
from grader.run.execute import Program, SubprocessRunner
from grader.run.forkserver import ForkServerRunner
from grader.run.run_clock import wall_backstop

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="processor time is read from Linux")


@pytest.fixture(scope="module", params=["fork server", "new interpreter"])
def runner(request):
    made = ForkServerRunner() if request.param == "fork server" else SubprocessRunner()
    with made:
        yield made


def run(runner, tmp_path, source: str, **limits):
    script = tmp_path / "prog.py"
    script.write_text(source, encoding="utf-8")
    return runner.run(Program(python=sys.executable, script=script, run_name="prog.py"), b"", Limits(**limits))


def test_waiting_is_not_spent_time(runner, tmp_path):
    """A program that sleeps longer than its limit, computing nothing, is within its limit: the
    time a starved program waits for a processor is not spent either."""
    result = run(runner, tmp_path, "import time\ntime.sleep(0.8)\nprint('done')", time_s=0.4)
    assert (result.timed_out, result.exit_code, result.stdout) == (False, 0, b"done\n")
    assert result.time_s < 0.4  # what the report shows: the processor time it used


def test_a_program_that_waits_for_ever_is_stopped_at_the_backstop_and_says_so(runner, tmp_path):
    result = run(runner, tmp_path, "import time\ntime.sleep(60)", time_s=0.2)
    assert result.timed_out and result.waited
    assert result.time_s < 0.2
    assert wall_backstop(0.2) < 60


def test_computing_is_stopped_at_the_limit(runner, tmp_path):
    result = run(runner, tmp_path, "while True:\n    pass", time_s=0.3)
    assert result.timed_out and not result.waited
    assert result.time_s >= 0.3


def test_the_processes_a_program_starts_count_together(runner, tmp_path):
    """Two processes computing together spend the limit; the one that waits for them is charged
    their time too (where the run has a cgroup: without one, each process is bounded alone)."""
    if runner.protections(sys.executable).run_bounded is False:
        pytest.skip("no cgroup for a run here: each process's own time is bounded, not the run's")
    source = (
        "import os, time\n"
        "kids = [os.fork() for _ in range(2)]\n"
        "if 0 in kids:\n    while True:\n        pass\n"
        "time.sleep(60)\n"
    )
    result = run(runner, tmp_path, source, time_s=0.4, processes=8)
    assert result.timed_out and not result.waited, "the children's processor time was not counted"


def test_a_verdict_says_which_limit(context, tmp_path):
    """The message of a run stopped by the backstop says it was waiting, not computing."""
    from grader.grade.grading import grade_file
    from grader.model import Case, Task

    (tmp_path / "sleepy.py").write_text("import time\ntime.sleep(60)\n", encoding="utf-8")
    case = Case(
        name="sleepy", input="", expected=("x\n",), checker="text", checker_options={}, limits=Limits(time_s=0.2)
    )
    result = grade_file(Task(id="sleepy", title="sleepy", cases=(case,)), tmp_path / "sleepy.py", context)
    message = result.cases[0].message
    assert result.cases[0].verdict.value == "time_limit_exceeded"
    assert "sleeping or waiting" in message and "processor time" in message, message


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_the_time_shown_is_processor_time_on_both_runners(runner, tmp_path):
    result = run(runner, tmp_path, "import time\ntime.sleep(0.3)\nsum(range(10**6))", time_s=2)
    assert not result.timed_out and result.time_s < 0.3
