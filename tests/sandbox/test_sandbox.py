"""Hostile submissions against the fork server runner: each gets its verdict, the grader carries on.

Every test grades a hostile program and then a good one on the same runner: the second must be
accepted, which proves the first did not break the grader. Tests of a protection this machine
cannot give (network namespace, hidden course files) are skipped with the reason.
"""

from __future__ import annotations

import errno
import os
import signal
import socket
import sys
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from support import PROJECT, solution

from grader.course.course_checkers import course_checkers
from grader.grade.grading import GradingContext, grade_file
from grader.model import Limits, Verdict
from grader.run.forkserver import ForkServerRunner, best_runner

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the fork server needs fork (POSIX)")

QUICK = Limits(time_s=1.0)


@pytest.fixture(scope="module")
def runner():
    with ForkServerRunner() as runner:
        yield runner


@pytest.fixture(scope="module")
def protections(runner):
    return runner.protections(sys.executable)


@pytest.fixture
def grade_hostile(tmp_path, course, runner):
    """Grade ``source`` as exclusive_or on its first case (quick limits), then the reference solution.

    Returns the hostile program's case result; asserts the good one after it is accepted.
    """
    context = GradingContext(checkers=course_checkers(PROJECT), python=sys.executable, runner=runner, course=PROJECT)
    task = course["exclusive_or"]

    def grade(source, limits: Limits = QUICK):
        quick = replace(task, cases=(replace(task.cases[0], limits=limits, hint=""),))
        bad = tmp_path / "bad" / "exclusive_or.py"
        bad.parent.mkdir(exist_ok=True)
        if isinstance(source, bytes):
            bad.write_bytes(source)
        else:
            bad.write_text(source, encoding="utf-8")
        result = grade_file(quick, bad, context)
        good = tmp_path / "good" / "exclusive_or.py"
        good.parent.mkdir(exist_ok=True)
        good.write_text(solution("exclusive_or"), encoding="utf-8")
        assert grade_file(task, good, context).verdict is Verdict.ACCEPTED, "the grader carried on"
        return result.cases[0], result

    return grade


def test_endless_loop(grade_hostile):
    case, _ = grade_hostile("while True:\n    pass\n")
    assert case.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert "line 2" in case.message or "line 1" in case.message


def test_long_sleep(grade_hostile):
    case, _ = grade_hostile("import time\ntime.sleep(3600)\n")
    assert case.verdict is Verdict.TIME_LIMIT_EXCEEDED


def test_allocating_several_gib(grade_hostile):
    case, _ = grade_hostile("blocks = [bytearray(2**30) for _ in range(8)]\n")
    assert case.verdict is Verdict.MEMORY_LIMIT_EXCEEDED
    assert "512 MiB" in case.message


def test_stdout_forever(grade_hostile):
    case, _ = grade_hostile("while True:\n    print('x' * 100)\n")
    assert case.verdict is Verdict.OUTPUT_LIMIT_EXCEEDED
    assert "1,000,000 bytes" in case.message


def test_stderr_forever(grade_hostile):
    case, _ = grade_hostile("import sys\nwhile True:\n    print('x' * 100, file=sys.stderr)\n")
    assert case.verdict is Verdict.OUTPUT_LIMIT_EXCEEDED
    assert "error output" in case.message and "100,000 bytes" in case.message


# A stray that becomes a new interpreter with a marker on its command line, so the test can look
# for it from outside (inside a process namespace of its own a program's pids are not the host's).
_STRAY = (
    "    import sys\n    os.execv(sys.executable, [sys.executable, '-c', 'import time; time.sleep(60)', {marker!r}])\n"
)


def test_children_that_outlive_the_program_are_killed(runner, tmp_path):
    marker = f"stray-{uuid.uuid4()}"
    script = tmp_path / "prog.py"
    script.write_text("import os\nif os.fork() == 0:\n" + _STRAY.format(marker=marker) + "print('started')\n")
    from grader.run.execute import Program

    result = runner.run(Program(sys.executable, script, "prog.py"), b"", QUICK)
    assert result.stdout == b"started\n"
    assert _gone_everywhere(marker)


def test_a_daemon_in_a_new_session_is_killed(runner, tmp_path):
    marker = f"daemon-{uuid.uuid4()}"
    script = tmp_path / "prog.py"
    script.write_text(
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    if os.fork() == 0:\n" + _STRAY.replace("    ", "        ", 2).format(marker=marker) + "    os._exit(0)\n"
        "time.sleep(0.3)\n"
        "print('started')\n"
    )
    from grader.run.execute import Program

    result = runner.run(Program(sys.executable, script, "prog.py"), b"", QUICK)
    assert result.stdout == b"started\n"
    assert _gone_everywhere(marker)


def _gone_everywhere(marker: str, within_s: float = 2.0) -> bool:
    """True once no process on the machine has ``marker`` on its command line (zombies aside)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not any(_running_with(entry, marker) for entry in Path("/proc").iterdir() if entry.name.isdigit()):
            return True
        time.sleep(0.02)
    return False


def _running_with(entry: Path, marker: str) -> bool:
    try:
        if marker.encode() not in (entry / "cmdline").read_bytes():
            return False
        return (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def test_killing_its_parent(grade_hostile):
    case, _ = grade_hostile("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint(1)\n")
    assert case.verdict is not Verdict.ACCEPTED


def test_killing_its_process_group(grade_hostile):
    case, _ = grade_hostile("import os, signal\nos.killpg(0, signal.SIGKILL)\n")
    assert case.verdict is Verdict.RUNTIME_ERROR
    assert "signal 9" in case.message


def test_exit_before_printing(grade_hostile):
    case, _ = grade_hostile("import os\nos._exit(0)\nprint(0)\n")
    assert case.verdict is Verdict.NO_OUTPUT


def test_closing_its_pipes(grade_hostile):
    case, _ = grade_hostile("import os\nos.close(0)\nos.close(1)\nos.close(2)\nwhile True:\n    pass\n")
    assert case.verdict is Verdict.TIME_LIMIT_EXCEEDED


def test_bytes_that_are_not_utf8(grade_hostile):
    case, _ = grade_hostile("import sys\nsys.stdout.buffer.write(b'\\xff\\xfe\\n')\n")
    assert case.verdict is Verdict.WRONG_ANSWER and "not UTF-8" in case.actual_note


def test_html_in_the_output_is_kept_as_text(grade_hostile):
    case, _ = grade_hostile("print('<script>alert(1)</script>')\n")
    assert case.verdict is Verdict.WRONG_ANSWER and "<script>" in case.actual


def test_syntax_error(grade_hostile):
    case, result = grade_hostile("def f(:\n    pass\n")
    assert case.verdict is Verdict.SYNTAX_ERROR and result.problem.line == 1


def test_null_bytes_in_the_source(grade_hostile):
    case, _ = grade_hostile(b"print(1)\x00\n")
    assert case.verdict is Verdict.SYNTAX_ERROR and "null bytes" in case.message


def test_unbounded_recursion(grade_hostile):
    case, _ = grade_hostile("def f(n):\n    return f(n + 1)\nf(0)\n")
    assert case.verdict is Verdict.RUNTIME_ERROR and "RecursionError" in case.message


def test_non_zero_exit_after_correct_output(grade_hostile):
    case, _ = grade_hostile("import sys\nprint(0)\nsys.exit(3)\n")
    assert case.verdict is Verdict.RUNTIME_ERROR and "exit status 3" in case.message


def test_raising_keyboard_interrupt(grade_hostile):
    case, _ = grade_hostile("raise KeyboardInterrupt\n")
    assert case.verdict is Verdict.RUNTIME_ERROR and "KeyboardInterrupt" in case.message


def test_too_many_processes(grade_hostile, protections):
    if not protections.separate_user:
        pytest.skip("the process limit binds only an unprivileged user (the grader is not root here)")
    case, _ = grade_hostile(
        "import os, time\nfor _ in range(1000):\n    if os.fork() == 0:\n        time.sleep(5)\n        os._exit(0)\n"
    )
    assert case.verdict is Verdict.RUNTIME_ERROR
    assert "more than 64 processes" in case.message


def test_writing_outside_its_folder(grade_hostile, tmp_path, protections):
    if not (protections.separate_user or protections.files_hidden):
        pytest.skip("only a user of its own (root) or bubblewrap keeps a program from writing outside its folder")
    target = tmp_path / "escaped.txt"
    case, _ = grade_hostile(f"open({str(target)!r}, 'w').write('x')\n")
    assert case.verdict is Verdict.RUNTIME_ERROR
    assert not target.exists()


def test_no_network(grade_hostile, protections):
    if not protections.no_network:
        pytest.skip("no network namespace here (bubblewrap missing or not allowed)")
    # A server listening on this machine's loopback: a program on the host's network would reach it.
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        case, _ = grade_hostile(
            "import socket\n"
            "try:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=0.5)\n"
            "    print('connected')\n"
            "except OSError as error:\n"
            "    print('blocked', error.errno)\n"
        )
    # refused: no socket but a local one may be made (EPERM), or its own namespace's loopback has
    # nothing listening on that port (ECONNREFUSED); never connected
    assert case.actual.strip() in (f"blocked {errno.EPERM}", f"blocked {errno.ECONNREFUSED}")


def test_course_files_are_out_of_view(grade_hostile, protections):
    if not protections.files_hidden:
        pytest.skip("course files can be hidden only inside bubblewrap, which is not available here")
    secret = PROJECT / "testcases" / "exclusive_or.yaml"
    answer = PROJECT / "solutions" / "exclusive_or.py"
    case, _ = grade_hostile(
        "import os\n"
        f"for path in ({str(secret)!r}, {str(answer)!r}, {str(PROJECT / 'testcases')!r}):\n"
        "    print(os.path.exists(path))\n"
    )
    # (the project folder itself may show up, empty, when the interpreter lives in it: a tox venv)
    assert case.actual.split() == ["False", "False", "False"]


def test_report_header_says_which_protections_were_active(protections):
    described = protections.describe()
    assert described.startswith("protections: ")
    active, _, missing = described.partition(" (not available here: ")
    assert ("no network" in active) == protections.no_network
    assert ("no network" in missing) == (not protections.no_network)


def test_nothing_is_left_running_after_close(tmp_path):
    from grader.run.execute import Program

    script = tmp_path / "prog.py"
    script.write_text("import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(60)\nprint(os.getpid())\n")
    runner = best_runner()
    result = runner.run(Program(sys.executable, script, "prog.py"), b"", QUICK)
    root = getattr(runner, "root", None)
    runner.close()
    assert result.stdout.strip()
    if root:
        assert not Path(root).exists(), "the work folder is removed"
        assert _no_process_under(root)


def _no_process_under(root: str) -> bool:
    """No process has its working folder under ``root`` any more."""
    time.sleep(0.2)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if os.readlink(entry / "cwd").startswith(root):
                    return False
            except OSError:
                continue
    return True


def test_signals_to_the_grader_are_refused(grade_hostile, protections):
    if protections.grader_in_reach:
        pytest.skip("programs run as the grader's own user, in its process namespace, here")
    case, _ = grade_hostile(f"import os, signal\nos.kill({os.getpid()}, signal.SIGKILL)\n")
    # refused (another user's process) or not there at all (the run's own process namespace)
    assert case.verdict is Verdict.RUNTIME_ERROR
    assert "PermissionError" in case.message or "ProcessLookupError" in case.message
    assert os.getpid() > 0  # the grader that was the target is still here, running this test


def test_a_program_sees_no_process_but_its_own(grade_hostile, protections):
    if protections.separate_user:
        pytest.skip("as root each run's own user id keeps other processes out of reach (no namespace needed)")
    if not protections.own_processes:
        pytest.skip("no process namespace for each run here (the report header says so)")
    program = (
        "import os, signal\n"
        "others = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())\n"
        "for pid in (os.getppid(), -1):\n"
        "    try:\n"
        "        os.kill(pid, signal.SIGKILL)\n"
        "    except OSError:\n"
        "        pass\n"
        "print(os.getpid(), others)\n"
    )
    case, _ = grade_hostile(program)
    # it is the second process of its namespace (the first waits for it), and nothing else is there
    assert case.actual.strip() == "2 [1, 2]"


def test_without_the_sandbox_grading_still_works_and_says_so(tmp_path):
    """Or, as root with an interpreter only root may read, refuses with a sentence for the instructor."""
    from grader.errors import GraderError
    from grader.run.execute import Program

    script = tmp_path / "prog.py"
    script.write_text("print(input()[::-1])\n")
    with ForkServerRunner(use_sandbox=False) as plain:
        try:
            described = plain.protections(sys.executable).describe()
        except GraderError as error:
            assert os.geteuid() == 0 and "only root may read" in str(error) and "bubblewrap" in str(error)
            return
        result = plain.run(Program(sys.executable, script, "prog.py"), b"abc\n", QUICK)
    assert result.stdout == b"cba\n"
    # without bubblewrap the fork server makes its own view, with no network, where namespaces are
    # allowed; the header says which of the two it is, never more than holds
    if "the fork server could not make its view" in described:
        assert "no network" in described.split("not available here:")[1]
    else:
        assert "no network" in described.split("(")[0] and "course files and other work out of view" in described


def test_runs_at_the_same_time_have_users_of_their_own(runner, protections, tmp_path):
    if not protections.separate_user:
        pytest.skip("programs run as the grader's own user here")
    from concurrent.futures import ThreadPoolExecutor

    from grader.run.execute import Program

    script = tmp_path / "prog.py"
    script.write_text("import os, time\ntime.sleep(0.3)\nprint(os.getuid())\n")
    program = Program(sys.executable, script, "prog.py")
    from tests.support import pooled_users_while

    with ThreadPoolExecutor(2) as pool:
        results, looks = pooled_users_while(lambda: list(pool.map(lambda _: runner.run(program, b"", QUICK), range(2))))
    assert {int(r.stdout.split()[0]) for r in results} == {1000}  # the id each sees: the same on every run
    assert max(len(look) for look in looks) >= 2, looks  # what they really run as: ids of their own
    assert all(len(runs) == 1 for look in looks for runs in look.values()), looks  # one run per id


def test_a_fork_server_that_dies_is_replaced(tmp_path):
    from grader.run.execute import Program

    script = tmp_path / "prog.py"
    script.write_text("print(input())\n")
    program = Program(sys.executable, script, "prog.py")
    with ForkServerRunner() as runner:
        assert runner.run(program, b"one\n", QUICK).stdout == b"one\n"
        server = runner._servers[(sys.executable, False)]
        os.killpg(server.process.pid, signal.SIGKILL)  # the server and its sandbox, gone
        server.process.wait(timeout=10)
        deadline = time.monotonic() + 10
        while server.alive and time.monotonic() < deadline:  # its reader sees the socket close
            time.sleep(0.01)
        assert runner.run(program, b"two\n", QUICK).stdout == b"two\n"
        assert runner._servers[(sys.executable, False)] is not server


def test_a_program_starts_as_under_python_file_py(runner, tmp_path):
    """The server starts without ``site``'s hooks (cheaper forks); programs must not notice."""
    from grader.run.execute import Program, SubprocessRunner

    script = tmp_path / "prog.py"
    script.write_text(
        "import builtins, sys\n"
        "print(type(exit).__name__, type(help).__name__, hasattr(builtins, 'copyright'))\n"
        "print([p for p in sys.path if p.endswith('site-packages')])  # the installed packages\n"
        "quit(4)\n"
    )
    program = Program(sys.executable, script, "prog.py")
    fork, plain = runner.run(program, b"", QUICK), SubprocessRunner().run(program, b"", QUICK)
    assert fork.stdout.startswith(b"Quitter _Helper True\n[")
    assert fork.stdout == plain.stdout
    assert fork.exit_code == plain.exit_code == 4
