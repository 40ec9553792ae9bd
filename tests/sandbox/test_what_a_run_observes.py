"""No run can observe an earlier run, and what a run sees is the same on every run (docs/security.md,
"What a run can observe"): counter probes, run before and after programs that try to leave marks.

The probe (tests/data/observers/probe.py) prints everything it can observe of the machine and of
earlier runs: its ids, folder, file name, arguments, environment, host name, mount table, cgroup,
every readable file of /proc and /sys, sysinfo, its file systems' counts, a new file's inode numbers
(named and O_TMPFILE), the next process id, and what it can tell of the page cache of the largest
files in its view (mincore, reads with RWF_NOWAIT, major faults). The disturber does what could
leave a mark: hundreds of processes, files and nameless files, sessions, pipes, sockets, reads and
fadvise/madvise/readahead on every large file in view, 200 MiB of memory. The second probe runs in
another runner as root (another work root, another server, another pooled user id): its output
must be the same. What may differ is said once, below, with why (the same list as the document).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import sys
from pathlib import Path
from typing import Dict

import pytest

from grader.model import Limits
from grader.run.execute import Program
from grader.run.forkserver import ForkServerRunner

OBSERVERS = Path(__file__).resolve().parents[1] / "data" / "observers"
SLOW = Limits(time_s=60)
ROOT = os.name == "posix" and os.geteuid() == 0
pytestmark = pytest.mark.skipif(not Path("/proc/self/mountinfo").exists(), reason="Linux's namespaces")

# Files of /proc/PID that change by themselves between two runs of the same program: the clocks
# (start time, CPU times, scheduling statistics) and the probe's own counts of its memory and work.
CLOCKS_AND_OWN_WORK = {"stat", "status", "sched", "schedstat", "statm", "smaps", "smaps_rollup", "numa_maps"}
CLOCKS_AND_OWN_WORK |= {"arch_status", "io", "wchan", "syscall", "stack", "timerslack_ns", "pagemap"}
# Where the interpreter's memory is: chosen at random when the fork server starts (ASLR), the same
# for every run of one server, and nothing a program can change for another.
ADDRESSES = {"maps", "map_files"}
# Numbers the kernel gives its own objects from counters of the whole machine, which a program can
# read but (with the system call filter) not move: the inode numbers of the run's pipes and of the
# kernel's sockets (fd/, fdinfo/, net/netlink), the run's scheduling group (autogroup), namespace ids
# (ns/, readable where the init is the program's own user), mount ids and device numbers (the first
# three fields of mountinfo).
KERNEL_NUMBERS = {"fd", "fdinfo", "autogroup", "netlink", "ns"}
# The machine's own counts of network packets each processor handled (net/softnet_stat is not the
# run's network namespace's): the machine's traffic moves them, a run cannot (no socket but a local
# one, in a network namespace of its own). Stated in docs/security.md as still crossing.
KERNEL_NUMBERS |= {"softnet_stat"}
# The machine's counts of TCP sockets (allocated, orphaned, closing) and of TCP and UDP memory pages,
# in net/sockstat beside the namespace's own counts (sockets used, in use): every connection of the
# machine moves them, a run cannot (no socket but a local one).
MACHINE_TCP = re.compile(r"\b(alloc|mem|orphan|tw) \d+")
# And net/protocols' "memory" column (the fourth): each protocol's memory pages on the whole
# machine, beside the namespace's own count of its sockets.
PROTOCOL_MEMORY = re.compile(r"^(\S+ +\d+ +\d+) +-?\d+", re.M)  # (its width moves too)


def _run(runner, name: str, stdin: bytes = b""):
    program = Program(python=sys.executable, script=OBSERVERS / name, run_name=name)
    return runner.run(program, stdin, SLOW)


def _isolated(runner) -> None:
    protections = runner.protections(sys.executable)
    needed = ("private_tmp", "processes_hidden", "syscall_filter", "files_hidden", "earlier_runs_unseen")
    missing = [k for k in needed if not getattr(protections, k)]
    if missing:
        pytest.skip(f"runs are not isolated here ({', '.join(missing)}): {protections.describe()}")


def _mount_table(text: str) -> str:
    """A mount table without the kernel's numbers (mount id, its parent's, the device)."""
    return "\n".join(" ".join(line.split(" ")[3:]) for line in text.splitlines())


def _seen(output: bytes) -> Dict[str, object]:
    """The probe's output, flat, with what may differ (above) left out."""
    flat: Dict[str, object] = {}

    def walk(value, key):
        if isinstance(value, dict):
            for name, inner in value.items():
                walk(inner, f"{key} :: {name}" if key else name)
            return
        parts = set(re.split(r"[/ ]", key))
        own = key.startswith("files of /proc") and key.rsplit("/", 1)[-1] in CLOCKS_AND_OWN_WORK
        if parts & (KERNEL_NUMBERS | ADDRESSES) or own:
            return
        if key.endswith("mountinfo") and isinstance(value, str):
            value = _mount_table(value)
        elif key.endswith("sockstat") and isinstance(value, str):
            value = MACHINE_TCP.sub(r"\1 -", value)
        elif key.endswith("net/protocols") and isinstance(value, str):
            value = PROTOCOL_MEMORY.sub(r"\1 -", value)
        flat[key] = value

    walk(json.loads(output), "")
    return flat


def _different(first: Dict[str, object], second: Dict[str, object]) -> str:
    keys = sorted(k for k in set(first) | set(second) if first.get(k) != second.get(k))
    return "\n".join(f"{k}:\n  {str(first.get(k))[:300]!r}\n  {str(second.get(k))[:300]!r}" for k in keys[:20])


def test_a_run_sees_the_same_before_and_after_a_run_that_tries_to_leave_marks():
    with ForkServerRunner() as runner:
        _isolated(runner)
        before = _run(runner, "probe.py")
        disturbed = _run(runner, "disturber.py")
        if not ROOT:  # (the work root's name stays in a normal user's mount table: the same runner)
            after = _run(runner, "probe.py")
    if ROOT:
        with ForkServerRunner() as other:  # another work root, server and pooled user id
            after = _run(other, "probe.py")
    assert disturbed.stdout == b"disturbed\n", disturbed.stderr
    assert before.exit_code == 0 and after.exit_code == 0, before.stderr + after.stderr
    first, second = _seen(before.stdout), _seen(after.stdout)
    assert first == second, _different(first, second)
    # and what it sees names neither the machine's state nor the grader's folders
    assert first["cwd"] == "/run/program" and first["file"] == "/run/program/probe.py"
    assert first["ids"][:2] == [2, 1] and first["next pid"] == 3, first["ids"]
    assert first["sysinfo"][:2] == [-1, 38], first["sysinfo"]  # ENOSYS
    # (a normal user's mount table keeps the covered runs' folder: a user namespace may not unmount it)
    named = {k: v for k, v in first.items() if ROOT or not k.endswith(("mountinfo", "mounts", "mountstats"))}
    assert "nim-grader-runs" not in json.dumps(named)


def _machine_tcp_memory() -> str:
    """TCP's memory pages on this machine, as the grader's own process reads them."""
    lines = Path("/proc/net/protocols").read_text().splitlines()
    return next((line.split()[3] for line in lines if line.split()[:1] == ["TCP"]), "")


def test_the_machines_own_traffic_between_two_runs_changes_nothing_they_compare():
    """Connections of the machine (not of any run) holding memory between two probes: what the
    first test compares stays the same, so it can only fail on what a run left."""
    with ForkServerRunner() as runner:
        _isolated(runner)
        before = _run(runner, "probe.py")
        machine = _machine_tcp_memory()
        with contextlib.ExitStack() as held:
            server = held.enter_context(socket.create_server(("127.0.0.1", 0)))
            for _ in range(20):  # each holds unread data: the machine's TCP memory moves
                sender = held.enter_context(socket.create_connection(server.getsockname()))
                held.enter_context(server.accept()[0])
                sender.setblocking(False)
                try:
                    sender.send(b"x" * 1_000_000)
                except BlockingIOError:
                    pass
            assert _machine_tcp_memory() != machine, "the machine's TCP memory did not move: nothing is tried"
            after = _run(runner, "probe.py")
    assert before.exit_code == 0 and after.exit_code == 0, before.stderr + after.stderr
    first, second = _seen(before.stdout), _seen(after.stdout)
    assert first == second, _different(first, second)


def test_a_program_cannot_hide_a_secret_in_the_page_cache_for_a_later_run():
    """A hidden case evicts some of the view's largest files and reads the others, after a secret;
    a later run reads their residency every way it can: it learns nothing."""
    with ForkServerRunner() as runner:
        _isolated(runner)
        before = _run(runner, "residency.py", b"read")
        marked = _run(runner, "residency.py", b"mark 10110010011100011010110001011101")
        after = _run(runner, "residency.py", b"read")
    assert marked.stdout == b"marked\n", marked.stderr
    assert before.stdout.count(b"\n") >= 8, before.stdout + before.stderr
    assert before.stdout == after.stdout, before.stdout.decode() + "\n---\n" + after.stdout.decode()
    assert b"faults=0" in before.stdout and b"faults=1" not in before.stdout  # all of it kept in memory


def test_runs_asked_for_at_once_from_a_new_runner_are_all_isolated(tmp_path):
    """The first runs of a runner, asked for from several threads before its server said it was
    ready: each gets the isolation the server announces (one used to run with none: the other
    runs' folder in its /tmp, the grader's processes in its /proc)."""
    from concurrent.futures import ThreadPoolExecutor

    look = tmp_path / "look.py"
    look.write_text("import os\nprint(sorted(os.listdir('/tmp')), os.getpid())\n", encoding="utf-8")
    program = Program(python=sys.executable, script=look, run_name="look.py")
    with ForkServerRunner() as runner, ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: runner.run(program, b"", SLOW), range(4)))
        _isolated(runner)
    # the run's own /tmp is empty but for the interpreter's path when it lives there (a virtual
    # environment in /tmp: CI's clone)
    own = [part for part in (Path(sys.executable).parts[2:3] if sys.executable.startswith("/tmp/") else ())]
    assert [r.stdout for r in results] == [f"{own} 2\n".encode()] * 4, [r.stdout + r.stderr for r in results]
