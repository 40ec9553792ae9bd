"""Running ``python -m grader grade`` for the benchmarks, and reading what it leaves behind.

What the CPU figures count. ``grade`` reports the ``os.wait4`` rusage of the grading process: its own
CPU (every thread) plus that of every process it waited for, and, recursively, of everything those
waited for. That covers the whole tree: a fork server is reaped by bwrap (bwrap by the grader) or by
the grader itself; the server reaps every program it forked, and a program below a namespace init is
reaped by that init, which the server reaps (the kernel reaps what is left in a dying namespace on its
init's behalf). Not counted: a process nobody waited for before the grader ended (the spare children a
server kills as it ends are reparented, not reaped: a few milliseconds) and anything the grader did
not start. ``grade_measured`` checks the server → grader link on every run (``reached``).

``grade_measured`` splits that CPU. It runs ``grade`` in a child Python (``grader.cli.main.main``
in-process) that, at the end, prints ``getrusage(RUSAGE_SELF)`` (the grader's own CPU) and
``RUSAGE_CHILDREN`` (fork servers, bwrap, programs), and, just before each fork server is stopped,
reads the server's /proc stat: its own CPU and that of the processes it waited for (the programs, from
the fork to their end, including their start in the sandbox). So: programs = what the students'
servers waited for; reference = what the course's own (trusted) server waited for (the reference
solution answering generated cases); overhead = everything else (grader, servers, bwrap).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent

# Run in a child Python: argv[1] is where the figures go, the rest is grade's command line.
_MEASURED = r"""
import json, os, resource, sys
from grader.run import forkserver
from grader.cli.main import main

def stat(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as handle:
        name = os.path.basename(handle.read().split(b"\0")[0].decode())
    with open(f"/proc/{pid}/stat") as handle:
        return name, handle.read().rsplit(")", 1)[1].split()

def server_usage(pid):
    for _ in range(4):  # under a bwrap prefix the server is bwrap's descendant
        name, fields = stat(pid)
        if name != "bwrap":
            tick = os.sysconf("SC_CLK_TCK")
            return {"own": (int(fields[11]) + int(fields[12])) / tick,
                    "waited": (int(fields[13]) + int(fields[14])) / tick}
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            pid = int((handle.read().split() or [0])[0])
    return None

servers = []
close = forkserver.ForkServerRunner.close

def measured_close(self):
    for (_, trusted), server in list(self._servers.items()):
        try:
            usage = server_usage(server.process.pid)
        except (OSError, ValueError):
            usage = None
        if usage:
            servers.append(dict(usage, trusted=trusted))
    close(self)

forkserver.ForkServerRunner.close = measured_close
code = main(sys.argv[2:])
cpu = lambda who: sum(getattr(resource.getrusage(who), f) for f in ("ru_utime", "ru_stime"))
figures = {"self": cpu(resource.RUSAGE_SELF), "children": cpu(resource.RUSAGE_CHILDREN), "servers": servers}
with open(sys.argv[1], "w") as handle:
    json.dump(figures, handle)
sys.exit(code)
"""


def grade(class_dir: Path, out: Path, jobs: int, cache: bool = False, measured: bool = False) -> dict:
    """Run ``grade`` on ``class_dir`` into ``out``; returns its figures.

    Always: ``seconds`` (wall), ``peak_mib`` (largest resident set in the tree), ``cpu`` (wait4
    core-seconds, see the module docstring) and ``summary`` (grade's last line). With ``measured``
    also ``grader``, ``programs``, ``reference``, ``overhead`` (core-seconds) and ``reached``.
    """
    arguments = ["grade", str(class_dir), "--out", str(out), "--jobs", str(jobs), "--allow-unprotected"]
    if not cache:
        arguments.append("--fresh")
    figures = Path(tempfile.mkstemp(prefix="nim-grader-bench-", suffix=".json")[1])
    command = [sys.executable, "-c", _MEASURED, str(figures)] if measured else [sys.executable, "-m", "grader"]
    start = time.perf_counter()
    process = subprocess.Popen(
        command + arguments, cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    # Reading stderr as it comes keeps the pipe from filling; the summary is its last long line.
    lines = process.stderr.readlines()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"grade failed (exit {code}):\n{''.join(lines[-20:])}")
    # ru_maxrss is in KiB on Linux: the largest resident set of the grader or a process it waited for.
    result = {
        "seconds": elapsed,
        "peak_mib": usage.ru_maxrss / 1024,
        "cpu": usage.ru_utime + usage.ru_stime,
        "summary": next((line.strip() for line in reversed(lines) if " students, " in line), ""),
    }
    if measured:
        split = json.loads(figures.read_text(encoding="utf-8"))
        programs = sum(s["waited"] for s in split["servers"] if not s["trusted"])
        reference = sum(s["waited"] for s in split["servers"] if s["trusted"])
        in_servers = sum(s["own"] + s["waited"] for s in split["servers"])
        total = split["self"] + split["children"]
        result.update(grader=split["self"], programs=programs, reference=reference, total=total)
        result.update(overhead=total - programs, reached=split["children"] + 0.05 >= in_servers)
    figures.unlink()
    return result


def time_outs(junit: Path) -> float:
    """The wall seconds that the cases stopped at their time limit ran, in a junit.xml."""
    stopped = 0.0
    for case in ElementTree.parse(junit).getroot().iter("testcase"):
        failure = case.find("failure")
        if failure is not None and failure.get("message", "").startswith("time_limit_exceeded"):
            stopped += float(case.get("time", 0))
    return stopped


def cases_in(summary: str) -> int:
    """The number of cases in a summary line such as '300 students, 69,000 cases (...'."""
    words = summary.split()
    return int(words[words.index("cases") - 1].replace(",", "")) if "cases" in words else 0


def gradebook_differences(first: Path, second: Path) -> list:
    """The rows (lines) of two gradebook.csv files that differ, as (first's, second's) pairs."""
    one = first.read_text(encoding="utf-8").splitlines()
    two = second.read_text(encoding="utf-8").splitlines()
    rows = [(a, b) for a, b in zip(one, two) if a != b]
    return rows + [(row, "") for row in one[len(two) :]] + [("", row) for row in two[len(one) :]]
