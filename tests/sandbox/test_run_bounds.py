"""A run bounded as a whole, seeing nothing but itself, and the same marks every time.

Hostile programs of a security review: four processes of 400 MiB under a 512 MiB limit, hundreds of
MiB of files in the run's folder, a user namespace of the program's own with an uncapped tmpfs,
other processes' command lines read in /proc (a dispatcher's database password), and randomness
read past Python (os.getrandom, /dev/urandom, the kernel's uuid). Each test runs on the session's
runner and skips, saying why, where this machine cannot give the protection (the report's header
says so too).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from support import PROJECT, solution

from grader.grade.grading import grade_file
from grader.model import Limits, Verdict
from grader.run.execute import Program, SubprocessRunner
from grader.run.forkserver import ForkServerRunner

QUICK = Limits(time_s=10)


def _program(folder: Path, text: str, name: str = "p.py", seed: str = "s") -> Program:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return Program(python=sys.executable, script=path, run_name=name, seed=seed)


def _needs(protections, name: str) -> None:
    if not getattr(protections, name):
        pytest.skip(f"not available on this machine: {protections._NAMES[name]} ({protections.describe()})")


FOUR_PROCESSES = """
import os, time
children = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        block = bytearray(400 * 1024 * 1024)
        for at in range(0, len(block), 4096):
            block[at] = 1
        time.sleep(5)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
print(0)
"""


def test_processes_cannot_hold_more_memory_together_than_a_run_may(tmp_path, course, context, protections):
    _needs(protections, "run_bounded")
    task = course["nim_sum"]
    roomy = replace(task, cases=(replace(task.cases[0], limits=Limits(time_s=20)),))  # time to fill 1.6 GB
    path = tmp_path / "nim_sum.py"
    path.write_text(FOUR_PROCESSES, encoding="utf-8")
    first = grade_file(roomy, path, context).cases[0]
    assert first.verdict is Verdict.MEMORY_LIMIT_EXCEEDED, first.message
    assert "together" in first.message


def test_a_runs_files_are_capped(grade, protections):
    _needs(protections, "files_capped")
    writer = "for n in range(40):\n    open(f'f{n}', 'wb').write(b'x' * (10 * 1024 * 1024))\nprint(0)\n"
    first = grade("nim_sum", writer).cases[0]
    assert first.verdict is Verdict.RUNTIME_ERROR
    assert "a run may keep" in first.message


NAMESPACE = """
import ctypes, os, subprocess
libc = ctypes.CDLL(None, use_errno=True)
print("unshare", libc.unshare(0x10000000), ctypes.get_errno())
print("clone", libc.syscall(56 if os.uname().machine == "x86_64" else 220, 0x10000000 | 17, 0, 0, 0, 0))
try:
    print("binary", subprocess.run(["unshare", "-U", "-r", "true"], capture_output=True).returncode)
except OSError as error:
    print("binary", "missing", error)
print("mount", libc.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, None), ctypes.get_errno())
"""


@pytest.mark.parametrize("make", [ForkServerRunner, SubprocessRunner], ids=["fork server", "subprocess"])
def test_a_program_makes_no_namespace_and_mounts_nothing(tmp_path, make):
    with make() as runner:
        _needs(runner.protections(sys.executable), "syscall_filter")
        done = runner.run(_program(tmp_path, NAMESPACE), b"", QUICK)
    lines = done.stdout.decode().splitlines()
    assert lines[0] == "unshare -1 1", done.stdout + done.stderr  # EPERM
    assert lines[1] == "clone -1"
    assert lines[2] != "binary 0"
    assert lines[3].startswith("mount -1")


def test_a_run_sees_no_other_process(tmp_path, protections, context):
    """A process with a secret on its command line (as a dispatcher started with a database URL
    would be) runs beside the program: its /proc shows the program's own processes only."""
    _needs(protections, "processes_hidden")
    marker = f"postgresql://nim:PASSWORD-{os.urandom(8).hex()}@db/nim"
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", marker])
    try:
        looker = (
            "import os\nseen = []\n"
            "for pid in os.listdir('/proc'):\n"
            "    if pid.isdigit():\n"
            "        try:\n            seen.append(open(f'/proc/{pid}/cmdline', 'rb').read())\n"
            "        except OSError:\n            pass\n"
            "print(len(seen), any(b'PASSWORD' in s for s in seen), os.getpid() > 0)\n"
        )
        done = context.runner.run(_program(tmp_path, looker), b"", QUICK)
    finally:
        bystander.kill()
        bystander.wait()
    count, found, _ = done.stdout.decode().split()
    assert found == "False" and int(count) <= 2, done.stdout


RANDOM = """
import os, random, secrets, uuid
parts = [os.getrandom(8).hex(), os.urandom(8).hex(), secrets.token_hex(8), uuid.uuid4().hex, str(random.random())]
with open("/dev/urandom", "rb") as device:
    parts.append(device.read(16).hex())
with open("/dev/random", "rb") as device:
    parts.append(device.read(16).hex())
try:
    parts.append(open("/proc/sys/kernel/random/uuid").read().strip())
except OSError:
    parts.append("no uuid")
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.getauxval.restype = ctypes.c_ulong
parts.append(ctypes.string_at(libc.getauxval(25), 16).hex())  # AT_RANDOM
buffer = ctypes.create_string_buffer(8)
parts.append(str(libc.getrandom(buffer, 8, 0)))
print(" ".join(parts))
"""


def test_every_source_of_randomness_a_program_reads_follows_its_seed(tmp_path, protections, context):
    _needs(protections, "files_capped")  # the run's own view, where /dev/urandom is seeded
    first = context.runner.run(_program(tmp_path, RANDOM, seed="one"), b"", QUICK)
    again = context.runner.run(_program(tmp_path, RANDOM, seed="one"), b"", QUICK)
    other = context.runner.run(_program(tmp_path, RANDOM, seed="two"), b"", QUICK)
    assert first.exit_code == 0, first.stderr
    assert first.stdout == again.stdout
    assert first.stdout.split()[:7] != other.stdout.split()[:7]
    assert first.stdout.split()[-2] != other.stdout.split()[-2]  # AT_RANDOM
    assert first.stdout.split()[-1] == b"-1"  # getrandom(2) itself: not there, as on an old kernel


def test_marks_that_depend_on_raw_randomness_are_the_same_every_grading(grade, protections):
    """The issue's example: a file whose answers depend on os.getrandom and /dev/urandom scored 20,
    18 and 15 in three gradings."""
    _needs(protections, "files_capped")
    source = solution("nim_sum").replace(
        "import json",
        "import json, os\nif (os.getrandom(1)[0] ^ open('/dev/urandom', 'rb').read(1)[0]) % 2:\n    print('noise')",
        1,
    )
    scores = {grade("nim_sum", source).score for _ in range(3)}
    assert len(scores) == 1


def test_a_dispatcher_or_serve_never_needs_a_password_on_its_command_line():
    """docs/portal.md starts the portal with PGPASSWORD or a 0600 file, and no page of the
    documentation puts a password in --db."""
    pages = [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]
    for page in pages:
        assert "postgresql://nim:" not in page.read_text(encoding="utf-8"), page.name
    portal = (PROJECT / "docs" / "portal.md").read_text(encoding="utf-8")
    assert "PGPASSFILE" in portal or "PGPASSWORD" in portal


def test_serve_warns_of_a_password_on_its_command_line(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "users",
            "token",
            "x",
            "--data",
            str(tmp_path / "d"),
            "--db",
            "postgresql://nim:secret@127.0.0.1:9/nim",
        ],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "password" in done.stderr and "command line" in done.stderr
    assert "secret" not in done.stderr


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs Linux")
def test_the_cgroups_of_runs_are_gone_when_the_runner_closes(tmp_path):
    with ForkServerRunner() as runner:
        cgroups = runner._cgroups
        if cgroups is None:
            pytest.skip(f"no cgroups here: {runner._no_cgroups}")
        runner.run(_program(tmp_path, "print(1)\n"), b"", QUICK)
        bases = cgroups.bases
        assert all(os.path.isdir(b) for b in bases)
    time.sleep(0.1)
    assert not any(os.path.exists(b) for b in bases)


def test_a_program_has_no_network_socket_whose_state_outlives_it(tmp_path, context, protections):
    """A TCP connection's TIME_WAIT outlived its run in the fork server's shared network namespace: a
    hidden case's input, written as ports, was read back by a later, visible run."""
    _needs(protections, "syscall_filter")
    probe = (
        "import socket\nfor family in (socket.AF_INET, socket.AF_INET6):\n    try:\n"
        "        socket.socket(family, socket.SOCK_STREAM)\n        print('made')\n    except OSError as error:\n"
        "        print('refused', error.errno)\nleft, right = socket.socketpair()\n"
        "print('pair', left.family == socket.AF_UNIX)\n"
    )
    done = context.runner.run(_program(tmp_path, probe), b"", QUICK)
    assert done.stdout.decode().split("\n")[:3] == ["refused 1", "refused 1", "pair True"], done.stdout + done.stderr


HOG = """
import os, time
for _ in range(8):
    if os.fork() == 0:
        start = time.time()
        while time.time() - start < 1.5:
            pass
        os._exit(0)
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
import resource
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(used.ru_utime + used.ru_stime)
"""


def test_a_runs_processes_together_get_one_processor_at_most(tmp_path, context, protections):
    """63 busy processes starved a correct program beside them into a time-out."""
    _needs(protections, "run_bounded")
    start = time.monotonic()
    done = context.runner.run(_program(tmp_path, HOG), b"", QUICK)
    wall = time.monotonic() - start
    assert done.exit_code == 0, done.stderr
    assert float(done.stdout) <= wall * 1.15 + 0.1  # never much more than one processor's time
