"""Where one run's cost goes: the fork server with each protection added in turn, against a plain
``python file.py < input``, in one run on this machine.

    python bench/bench_run_parts.py [--runs N]

A tiny program (read a number, print the next) is run ``--runs`` times, one at a time, in each
configuration. CPU time is counted for the whole tree of processes (the grader's own, and the
fork server's with every process it started, collected when the runner closes), less the cost
of a runner that starts and stops without runs; wall time is the best of three rounds. The
configurations differ only in what the fork server gives each run:

  bare          no sandbox, no user id of its own, no namespaces (the fork floor)
  + user        an unprivileged user id per run (root only)
  + namespaces  its own process, mount and IPC namespaces, private /tmp (as root or in a user
                namespace), below an init of its own
  + bubblewrap  the server inside bubblewrap (no network, course files out of view): all of it

Printed: CPU per run (grader / server and programs), wall per run, and plain / configuration.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

import grader.run.forkserver as forkserver  # noqa: E402
from grader.model import Limits  # noqa: E402
from grader.run.execute import Program  # noqa: E402

SOURCE = "print(int(input()) + 1)\n"
# As root without bubblewrap the runs' users must be able to read the interpreter: the system's
# one is, an interpreter under /root (pyenv) is not (the grader would refuse it).
PYTHON = "/usr/bin/python3" if os.geteuid() == 0 and os.access("/usr/bin/python3", os.X_OK) else sys.executable


def _cpu():
    """(this process, its collected children) CPU seconds so far."""
    times = os.times()
    return times.user + times.system, times.children_user + times.children_system


class _Configuration:
    """A fork server runner made to give only some of its protections."""

    def __init__(self, sandbox: bool, user: bool, namespaces: bool) -> None:
        self.sandbox, self.user, self.namespaces = sandbox, user, namespaces

    def runner(self) -> forkserver.ForkServerRunner:
        runner = forkserver.ForkServerRunner(use_sandbox=self.sandbox)
        if not self.user:
            plan = runner.plan(PYTHON)
            if plan.uids is not None:
                plan.uids.close()
            runner._plans[PYTHON] = replace(plan, uids=None, protections=replace(plan.protections, separate_user=False))
        return runner

    def patch(self):
        """Make servers started now say they cannot isolate runs (when namespaces are off)."""
        original = forkserver._Server.wait_ready
        if self.namespaces:
            return original

        def without_namespaces(server):
            hello = original(server)
            server.hello = {**(server.hello or {}), "isolation": None}
            return hello

        forkserver._Server.wait_ready = without_namespaces
        return original


def _measure(configuration: _Configuration, program: Program, runs: int):
    """(grader CPU, tree CPU, best wall) per run for ``runs`` runs in a fresh runner, and its
    protections in words."""

    def once(count: int):
        original = configuration.patch()
        try:
            before, wall = _cpu(), []
            with configuration.runner() as runner:
                runner.run(program, b"1\n", Limits())  # the server is up before anything counts
                said = runner.protections(PYTHON).describe()
                for _ in range(3):
                    start = time.perf_counter()
                    for _ in range(count):
                        result = runner.run(program, b"1\n", Limits())
                        assert result.stdout == b"2\n", result
                    wall.append(time.perf_counter() - start)
            after = _cpu()
        finally:
            forkserver._Server.wait_ready = original
        return after[0] - before[0], after[1] - before[1], min(wall), said

    idle = once(0)
    busy = once(runs)
    spent = 3 * runs  # the three rounds
    return (busy[0] - idle[0]) / spent, (busy[1] - idle[1]) / spent, busy[2] / runs, busy[3]


def _plain(script: Path, runs: int):
    """CPU and best wall per run of ``python file.py < input``."""
    before, wall = _cpu(), []
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(runs):
            done = subprocess.run([PYTHON, str(script)], input=b"1\n", capture_output=True)
            assert done.stdout == b"2\n"
        wall.append(time.perf_counter() - start)
    after = _cpu()
    return (after[0] - before[0]) / (3 * runs), (after[1] - before[1]) / (3 * runs), min(wall) / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="runs per round (three rounds each)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="nim-grader-bench-"))
    script = folder / "prog.py"
    script.write_text(SOURCE)
    program = Program(PYTHON, script, "prog.py")
    root = os.geteuid() == 0
    configurations = [("bare", _Configuration(False, False, False))]
    if root:
        configurations.append(("+ user", _Configuration(False, True, False)))
    configurations.append(("+ namespaces", _Configuration(False, root, True)))
    configurations.append(("+ bubblewrap", _Configuration(True, root, True)))
    plain = _plain(script, args.runs // 4 or 1)
    print(f"{args.runs} runs of a tiny program, one at a time; CPU per run = grader + server and programs")
    print(f"{'plain python file.py':<22} CPU {1000 * sum(plain[:2]):6.2f} ms   wall {1000 * plain[2]:6.2f} ms")
    for name, configuration in configurations:
        grader_cpu, tree_cpu, wall, said = _measure(configuration, program, args.runs)
        print(
            f"{name:<22} CPU {1000 * (grader_cpu + tree_cpu):6.2f} ms ({1000 * grader_cpu:.2f} + {1000 * tree_cpu:.2f})"
            f"   wall {1000 * wall:6.2f} ms   plain / this: CPU {sum(plain[:2]) / (grader_cpu + tree_cpu):5.1f}x, "
            f"wall {plain[2] / wall:5.1f}x"
        )
        print(f"{'':<22} {said}")


if __name__ == "__main__":
    main()
