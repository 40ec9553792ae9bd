"""The subprocess runner reports facts: output, exit status, time-outs, floods, memory, clean-up."""

from __future__ import annotations

import os
import sys
import time

import pytest

from grader.model import Limits
from grader.run.execute import Program, SubprocessRunner

posix_only = pytest.mark.skipif(os.name != "posix", reason="process groups and rlimits are POSIX")


def run(tmp_path, source: str, stdin: bytes = b"", **limits):
    script = tmp_path / "prog.py"
    script.write_text(source, encoding="utf-8")
    program = Program(python=sys.executable, script=script, run_name="prog.py")
    return SubprocessRunner().run(program, stdin, Limits(**limits))


def test_output_and_input_are_passed_through(tmp_path):
    result = run(tmp_path, "print(input()[::-1])", b"abc\n")
    assert (result.exit_code, result.stdout, result.timed_out) == (0, b"cba\n", False)


def test_large_input_is_fed_without_deadlock(tmp_path):
    data = b"1 " * 300_000 + b"\n"
    result = run(tmp_path, "import sys\nprint(len(sys.stdin.read().split()))", data)
    assert result.stdout == b"300000\n"


def test_exit_status_and_stderr_are_reported(tmp_path):
    result = run(tmp_path, "import sys\nprint('x', file=sys.stderr)\nsys.exit(3)")
    assert result.exit_code == 3
    assert b"x" in result.stderr


def test_endless_loop_is_stopped_at_the_time_limit(tmp_path):
    started = time.monotonic()
    result = run(tmp_path, "while True:\n    pass", time_s=0.5)
    assert result.timed_out
    assert time.monotonic() - started < 5


def test_waiting_for_input_that_never_comes_times_out(tmp_path):
    result = run(tmp_path, "import time\ntime.sleep(60)", time_s=0.5)
    assert result.timed_out


def test_output_flood_is_cut_at_the_limit(tmp_path):
    result = run(tmp_path, "while True:\n    print('spam' * 100)", output_bytes=10_000, time_s=5)
    assert result.output_limit_hit and not result.timed_out
    assert result.stdout_bytes > 10_000
    # the start is kept up to the limit, then (past it) at most the last 2 KiB before the stop
    assert result.stdout.startswith(b"spam") and len(result.stdout) <= 10_000 + 2048 + 100


def test_stderr_flood_is_stopped_at_its_own_limit(tmp_path):
    source = "import sys\nfor i in range(20000):\n    print(i, file=sys.stderr)\nprint('done')"
    result = run(tmp_path, source, stderr_bytes=2_000)
    assert result.stderr_limit_hit and not result.output_limit_hit
    assert result.stderr.startswith(b"0\n") and b"done" not in result.stdout


def test_traceback_after_some_stderr_output_is_kept(tmp_path):
    source = "import sys\nfor i in range(2000):\n    print(i, file=sys.stderr)\nraise ValueError('end')"
    result = run(tmp_path, source)
    assert not result.stderr_limit_hit
    assert result.stderr.startswith(b"0\n") and b"ValueError: end" in result.stderr


@posix_only
def test_memory_limit_gives_memory_error(tmp_path):
    result = run(tmp_path, "x = bytearray(2 * 1024 ** 3)", memory_mib=256)
    assert result.exit_code == 1
    assert b"MemoryError" in result.stderr


@posix_only
def test_children_left_behind_are_killed(tmp_path):
    marker = tmp_path / "alive.txt"
    source = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    time.sleep(1.5)\n"
        f"    open({str(marker)!r}, 'w').write('still here')\n"
        "    os._exit(0)\n"
        "print('parent done')\n"
    )
    result = run(tmp_path, source)
    assert result.stdout == b"parent done\n"
    time.sleep(2)
    assert not marker.exists()


def test_working_folder_is_removed(tmp_path):
    result = run(tmp_path, "import os\nopen('scratch.txt', 'w').write('x')\nprint(os.getcwd())")
    folder = result.stdout.decode().strip()
    assert folder == result.workdir
    assert not os.path.exists(folder)


def test_program_runs_isolated_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("SECRET_TOKEN", "hunter2")
    program = "import os, sys\nprint(os.environ.get('SECRET_TOKEN'), {!r} in sys.path, sys.flags.no_user_site)"
    result = run(tmp_path, program.format(str(tmp_path)))
    assert result.stdout == b"None False 1\n"  # the grader's environment, PYTHONPATH and user site left out


def test_program_sees_itself_as_main(tmp_path):
    result = run(tmp_path, "import sys\nprint(__name__, sys.argv[0].endswith('prog.py'))")
    assert result.stdout == b"__main__ True\n"
