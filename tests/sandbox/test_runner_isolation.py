"""Hostile programs against the runner's isolation: what one run may never learn of another.

Each test is an attack a security review tried: reading the fork server's memory for other files'
code, two graders sharing user ids, state left in IPC or /tmp for a later run, a fallback that ran
programs as root, a run lost to the grader's own machinery, run folders left behind on SIGTERM.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from grader.errors import GraderError
from grader.model import Limits
from grader.run import forkserver
from grader.run.execute import Program, RunnerFailure, SubprocessRunner
from grader.run.forkserver import ForkServerRunner
from tests.support import pooled_users_while

QUICK = Limits(time_s=5)
ROOT = os.name == "posix" and os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="separate user ids for runs need the grader to run as root")
needs_linux = pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs Linux's /proc")


def program(folder: Path, name: str, text: str, trusted: bool = False) -> Program:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return Program(python=sys.executable, script=path, run_name=name, trusted=trusted)


def secret(owner: str) -> str:
    """A marker no program builds in memory: a prefix and a random tail known by its hash only."""
    return f"{owner}_SECRET_{os.urandom(16).hex()}"


# Looks for each (prefix, sha256 of the 32 characters after it) in all of its own readable memory
# (read through pointers: /proc/self/mem is closed to a run's user); prints the prefixes whose whole
# marker it found. It never holds a whole marker unless it read one.
MEMORY_SEARCH = """
import ctypes, hashlib
wanted = {wanted!r}
found = set()
with open("/proc/self/maps") as maps:
    regions = [line.split() for line in maps]
for parts in regions:
    low, high = (int(x, 16) for x in parts[0].split("-"))
    if not parts[1].startswith("r") or (len(parts) > 5 and parts[5].startswith("[v")):
        continue
    if len(parts) > 5 and parts[5].startswith("/") and ".so" not in parts[5] and "python" not in parts[5]:
        continue  # a mapped data file (reading past its end would crash): nothing of a run lives there
    for start in range(low, high, 1 << 20):
        data = ctypes.string_at(start, min(1 << 20, high - start))
        for prefix, digest in wanted:
            at = data.find(prefix.encode())
            while at >= 0:
                tail = data[at + len(prefix): at + len(prefix) + 32]
                if hashlib.sha256(tail).hexdigest() == digest:
                    found.add(prefix)
                at = data.find(prefix.encode(), at + 1)
print(sorted(found))
"""


def search_for(markers) -> str:
    wanted = []
    for marker in markers:
        prefix, tail = marker[:-32], marker[-32:]
        wanted.append((prefix, hashlib.sha256(tail.encode()).hexdigest()))
    return MEMORY_SEARCH.format(wanted=wanted)


@needs_linux
def test_a_program_finds_no_other_file_in_its_memory(tmp_path):
    """Children are forks of the server: it must hold no submission and no reference solution."""
    alice, reference, own = secret("ALICE"), secret("REFERENCE"), secret("OWN")
    with ForkServerRunner() as runner:
        first = program(tmp_path, "alice.py", f"SECRET = {alice!r}\nprint(len(SECRET))\n")
        solution = program(tmp_path, "solution.py", f"ANSWER = {reference!r}\nprint(len(ANSWER))\n", trusted=True)
        for done in (runner.run(first, b"", QUICK), runner.run(solution, b"", QUICK)):
            assert done.exit_code == 0, done.stderr
        searcher = program(tmp_path, "bob.py", f"MINE = {own!r}\n" + search_for([alice, reference, own]))
        result = runner.run(searcher, b"", Limits(time_s=20))
    assert result.exit_code == 0, result.stderr.decode()
    # the search works (it finds the program's own marker) and finds nothing of the others
    assert result.stdout.decode().strip() == "['OWN_SECRET_']", result.stdout


@needs_root
def test_two_graders_never_give_two_runs_the_same_user(tmp_path):
    """Two runners at once (two courses, two CI jobs, a worker's threads): ids unique machine-wide.
    Each program sees one fixed id; which it really runs as is seen from outside."""
    sleeper = "import os, time\nprint(os.getuid(), flush=True)\ntime.sleep(1)\n"
    with ForkServerRunner() as first, ForkServerRunner() as second:
        a = program(tmp_path, "a.py", sleeper)
        runs = [(first, a)] * 3 + [(second, a)] * 3
        with ThreadPoolExecutor(max_workers=len(runs)) as pool:
            results, looks = pooled_users_while(
                lambda: list(pool.map(lambda pair: pair[0].run(pair[1], b"", QUICK), runs))
            )
    assert {int(r.stdout) for r in results} == {1000}, [r.stdout + r.stderr for r in results]
    assert max(len(look) for look in looks) >= 3, looks  # several ran at once...
    assert all(len(found) == 1 for look in looks for found in look.values()), looks  # ...each as a user of its own


@needs_root
def test_a_user_id_is_taken_by_one_pool_at_a_time():
    from grader.run.uid_pool import UidPool

    first, second = UidPool(size=2), UidPool(size=2)
    taken = {first.take(), second.take()}
    assert len(taken) == 2
    waiting = ThreadPoolExecutor(max_workers=1).submit(first.take)
    time.sleep(0.2)
    assert not waiting.done()  # both ids are in use: it waits
    second.close()
    assert waiting.result(timeout=5) in taken
    first.close()


SHM = """
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
key = 0x4E494D47
if sys.argv[0].endswith("writer.py"):
    ident = libc.shmget(key, 4096, 0o1666)
    address = libc.shmat(ident, None, 0)
    ctypes.memmove(address, b"HIDDEN INPUT 6 5", 16)
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        try:
            open(folder + "/nim-grader-leak", "w").write("HIDDEN INPUT 6 5")
        except OSError:
            pass
    print("written", ident)
else:
    ident = libc.shmget(key, 0, 0)
    seen = []
    if ident >= 0:
        address = libc.shmat(ident, None, 0)
        seen.append(ctypes.string_at(address, 16).decode())
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        try:
            seen.append(open(folder + "/nim-grader-leak").read())
        except OSError:
            pass
    print(seen)
"""


@needs_linux
def test_nothing_passes_from_one_run_to_the_next(tmp_path):
    """Shared memory, /tmp, /var/tmp and /dev/shm: a hidden case's input never reaches a later run."""
    with ForkServerRunner() as runner:
        if not runner.protections(sys.executable).private_tmp:
            pytest.skip("this machine gives runs no namespaces of their own (the report header says so)")
        writer = runner.run(program(tmp_path, "writer.py", SHM), b"", QUICK)
        reader = runner.run(program(tmp_path, "reader.py", SHM), b"", QUICK)
    assert writer.stdout.startswith(b"written"), writer.stderr
    assert reader.stdout.decode().strip() == "[]", reader.stdout
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        assert not Path(folder, "nim-grader-leak").exists()  # nothing outlives grading either


def test_a_fork_server_that_cannot_start_is_reported_and_never_runs_programs_as_root(tmp_path, monkeypatch):
    monkeypatch.setattr(forkserver, "_ZYGOTE", "import sys\nsys.exit(3)\n")
    who = program(tmp_path, "who.py", "import os\nprint(os.getuid())\n")
    with ForkServerRunner() as runner:
        try:
            protections = runner.protections(sys.executable)
        except GraderError as error:  # root, no usable bwrap, an interpreter only root may read
            assert "cannot run" in str(error)
            return
        assert not protections.fork_server
        assert "the fork server could not start" in protections.describe()
        result = runner.run(who, b"", QUICK)
    assert result.exit_code == 0, result.stderr
    if ROOT:
        assert int(result.stdout) != 0


def test_the_subprocess_runner_never_runs_a_program_as_root(tmp_path):
    who = program(tmp_path, "who.py", "import os, fractions, decimal, dataclasses, heapq\nprint(os.getuid())\n")
    with SubprocessRunner() as runner:
        try:
            result = runner.run(who, b"", QUICK)
        except GraderError as error:
            assert ROOT and "cannot run" in str(error)
            return
    assert result.exit_code == 0, result.stderr
    assert int(result.stdout) != 0 or not ROOT


LIBRARY = """
from __future__ import annotations
import collections, dataclasses, datetime, decimal, fractions, heapq, statistics, typing
print(collections.Counter("abracadabra").most_common(1), fractions.Fraction(1, 3), decimal.Decimal("0.1"))
"""


@pytest.mark.parametrize("make", [lambda: ForkServerRunner(), lambda: ForkServerRunner(False), SubprocessRunner])
def test_the_standard_library_is_there_in_every_configuration(tmp_path, make):
    """Root with and without bwrap, the subprocess runner: imports the server never made still work,
    or the grader refuses to start with a sentence for the instructor (never blames the student)."""
    with make() as runner:
        try:
            result = runner.run(program(tmp_path, "library.py", LIBRARY), b"", QUICK)
        except GraderError as error:
            assert ROOT and "only root may read" in str(error)
            return
    assert result.exit_code == 0, result.stderr.decode()
    assert b"('a', 5)" in result.stdout


@pytest.mark.skipif(not ROOT or not shutil.which("runuser"), reason="needs root and runuser to act as a normal user")
def test_the_standard_library_is_there_for_a_normal_user(tmp_path):
    """The grader run by a normal user (Debian's own python3, readable by everyone)."""
    python = "/usr/bin/python3"
    if not os.access(python, os.X_OK):
        pytest.skip("no /usr/bin/python3 to run as a normal user")
    project = Path(__file__).resolve().parents[2]
    if any(not (os.stat(p).st_mode & 0o005) for p in [project, *project.parents] if p != Path("/")):
        pytest.skip("the project's folder is not readable to other users")
    shared = Path(tempfile.mkdtemp(prefix="nim-grader-test-"))  # pytest's own folders are root's alone
    try:
        shared.chmod(0o755)
        script = program(shared, "library.py", LIBRARY).script
        script.chmod(0o644)
        driver = (
            f"import sys; sys.path.insert(0, {str(project)!r})\n"
            "from pathlib import Path\nfrom grader.run.forkserver import ForkServerRunner\n"
            "from grader.run.execute import Program\nfrom grader.model import Limits\n"
            f"program = Program(python={python!r}, script=Path({str(script)!r}), run_name='library.py')\n"
            "with ForkServerRunner() as r:\n"
            "    done = r.run(program, b'', Limits(time_s=5))\n"
            "    print(done.exit_code, done.stdout.decode(), done.stderr.decode()[-300:])\n"
        )
        done = subprocess.run(
            [shutil.which("runuser"), "-u", "nobody", "--", python, "-c", driver],
            capture_output=True,
            text=True,
            timeout=60,
            cwd="/",
            env={"PATH": "/usr/bin:/bin"},
        )
    finally:
        shutil.rmtree(shared, ignore_errors=True)
    assert done.stdout.startswith("0 [('a', 5)]"), done.stdout + done.stderr


def _kill_servers_when_running(runner, times: int) -> threading.Thread:
    """Kill the students' fork server (and its sandbox) from outside, ``times`` times, each while a
    program it started is running: what an operator's mistake or the OOM killer would do."""

    def kill() -> None:
        for _ in range(times):
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                servers = [s for s in list(runner._servers.values()) if s.alive and s.children]
                if servers and all(c._pid for c in servers[0].children.values()):
                    os.killpg(servers[0].process.pid, signal.SIGKILL)
                    break
                time.sleep(0.01)
            time.sleep(0.3)

    thread = threading.Thread(target=kill, daemon=True)
    thread.start()
    return thread


def test_a_run_lost_with_its_fork_server_is_run_again(tmp_path):
    slow = program(tmp_path, "slow.py", "import time\ntime.sleep(0.5)\nprint('done')\n")
    with ForkServerRunner() as runner:
        runner.protections(sys.executable)
        killer = _kill_servers_when_running(runner, 1)
        result = runner.run(slow, b"", QUICK)
        killer.join()
    assert (result.exit_code, result.signal, result.stdout) == (0, None, b"done\n")


def test_a_run_lost_twice_is_the_graders_failure_not_the_students(tmp_path):
    slow = program(tmp_path, "slow.py", "import time\ntime.sleep(0.5)\nprint('done')\n")
    with ForkServerRunner() as runner:
        runner.protections(sys.executable)
        killer = _kill_servers_when_running(runner, 2)
        with pytest.raises(RunnerFailure, match="lost the run"):
            runner.run(slow, b"", QUICK)
        killer.join()


@pytest.mark.skipif(os.name != "posix", reason="SIGTERM is POSIX")
def test_sigterm_removes_the_run_folders(tmp_path):
    """A grader stopped by SIGTERM (a service manager, kill) leaves no student code in /tmp."""
    project = Path(__file__).resolve().parents[2]
    looping = tmp_path / "work" / "nim_sum.py"
    looping.parent.mkdir()
    looping.write_text("while True:\n    pass\n", encoding="utf-8")
    temp = tmp_path / "temp"
    temp.mkdir()
    temp.chmod(0o755)
    env = dict(os.environ, TMPDIR=str(temp))
    grader = subprocess.Popen(
        [sys.executable, "-m", "grader", "check", str(looping), "--report", str(tmp_path / "report")],
        cwd=project,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(temp.glob("nim-grader-runs-*/run-*")):
        time.sleep(0.05)
    assert any(temp.glob("nim-grader-runs-*/run-*")), "the grader never started a run"
    grader.send_signal(signal.SIGTERM)
    _, stderr = grader.communicate(timeout=30)
    assert grader.returncode == 2
    assert "Traceback" not in stderr.decode()
    assert list(temp.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="the memory limit's base is read from /proc")
@pytest.mark.parametrize("make", [ForkServerRunner, SubprocessRunner])
def test_a_memory_limit_means_the_same_in_both_runners(tmp_path, make):
    """10 MiB (a CMS task's figure) is memory beyond the interpreter's own, whichever runner runs it."""
    small = program(tmp_path, "small.py", "data = bytearray(4 * 1024 * 1024)\nprint(len(data))\n")
    large = program(tmp_path, "large.py", "data = bytearray(64 * 1024 * 1024)\nprint(len(data))\n")
    limits = Limits(time_s=5, memory_mib=10)
    with make() as runner:
        try:
            fits, too_much = runner.run(small, b"", limits), runner.run(large, b"", limits)
        except GraderError as error:  # root without a usable sandbox: see the test above
            assert ROOT and "only root may read" in str(error)
            return
    assert (fits.exit_code, fits.stdout) == (0, b"4194304\n"), fits.stderr
    assert fits.exit_code == 0 and too_much.exit_code != 0 and b"MemoryError" in too_much.stderr


_DESCRIPTORS = """import os
held = {}
for name in os.listdir("/proc/self/fd"):
    try:
        held[int(name)] = os.readlink("/proc/self/fd/" + name)
    except OSError:
        pass  # (the listing's own descriptor, closed by now)
print(sorted(held))
"""


@needs_linux
def test_a_program_holds_no_descriptor_but_its_streams_and_channel(tmp_path):
    """Every run, the first on a quiet server and several at once (forked as they come), holds its
    three streams and its report channel only: no socket to the fork server, no lock of a user id
    (which it could let go of while it runs), no other run's pipe."""
    from grader.run.child.child_program import REPORT_FD

    with ForkServerRunner() as runner:
        lister = program(tmp_path, "fds.py", _DESCRIPTORS)
        runs = [runner.run(lister, b"", QUICK)]
        with ThreadPoolExecutor(max_workers=4) as pool:
            runs += list(pool.map(lambda _: runner.run(lister, b"", QUICK), range(8)))
    seen = {run.stdout.decode().strip() for run in runs}
    assert seen == {str(sorted({0, 1, 2, REPORT_FD}))}, [run.stdout + run.stderr for run in runs]
