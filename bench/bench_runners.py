"""Per-case cost of running submissions three ways, measured in one run on this machine.

    python bench/bench_runners.py [--rounds R]

1. plain:      ``python file.py < input``, one new interpreter per case (what most graders do)
2. subprocess: the grader's ``SubprocessRunner`` (a new isolated interpreter per case, with limits)
3. forkserver: the grader's ``ForkServerRunner`` (each case forked from a prepared interpreter,
               in the sandbox this machine allows)

Every non-interactive case of the project's tasks is run against its reference solution, one case
at a time and then two at once (this machine's cores), ``--rounds`` times each; the best round
counts (least disturbed by the machine). The fork server is started before timing: its start-up is
paid once per grading, not per case. It prints the cost per case of each way and the ratios, and
checks that the deterministic tasks gave the same output all three ways.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from grader.course.loader import load_course  # noqa: E402
from grader.run.execute import Program, SubprocessRunner  # noqa: E402
from grader.run.forkserver import ForkServerRunner  # noqa: E402


def workload():
    """(program, input, limits) for every non-interactive case, against the reference solutions,
    and for each whether its output is deterministic (optimal_move answers at random)."""
    runs, deterministic = [], []
    for task in load_course(PROJECT).values():
        if task.uses_files:  # the interactive game: no plain equivalent to compare with
            continue
        program = Program(sys.executable, PROJECT / "solutions" / f"{task.id}.py", f"{task.id}.py")
        for case in task.cases:
            runs.append((program, case.input.encode(), case.limits))
            deterministic.append(case.checker != "optimal_move")
    return runs, deterministic


def plain(run):
    program, stdin, _ = run
    done = subprocess.run([program.python, str(program.script)], input=stdin, capture_output=True, timeout=30)
    return done.stdout


def timed(label, function, runs, jobs, rounds):
    best, outputs = None, None
    for _ in range(rounds):
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(function, runs))
        elapsed = time.perf_counter() - start
        if best is None or elapsed < best:
            best, outputs = elapsed, results
    per_case_ms = best / len(runs) * 1000
    print(f"  {label:<11} {per_case_ms:7.2f} ms per case   ({best:.2f} s for {len(runs)} cases)")
    return per_case_ms, outputs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    runs, deterministic = workload()
    cores = os.cpu_count() or 1
    print(f"{len(runs)} cases, best of {args.rounds} rounds, Python {sys.version.split()[0]}, {cores} cores")
    simple = SubprocessRunner()
    failures = 0
    with ForkServerRunner() as fast:
        print(f"fork server {fast.protections(sys.executable).describe()}")
        fast.run(*runs[0])  # start the server: its start-up is not a per-case cost
        for jobs in sorted({1, cores}):
            print(f"{jobs} case{'s' if jobs > 1 else ''} at once:")
            plain_ms, expected = timed("plain", plain, runs, jobs, args.rounds)
            simple_ms, simple_out = timed("subprocess", lambda r: simple.run(*r).stdout, runs, jobs, args.rounds)
            fast_ms, fast_out = timed("forkserver", lambda r: fast.run(*r).stdout, runs, jobs, args.rounds)
            checked = [(a, b, c) for a, b, c, d in zip(expected, simple_out, fast_out, deterministic) if d]
            same = sum(a == b == c for a, b, c in checked)
            failures += len(checked) - same
            print(f"  same output all three ways: {same} of {len(checked)} deterministic cases")
            print(
                f"  ratios: plain / forkserver = {plain_ms / fast_ms:.1f}x, "
                f"subprocess / forkserver = {simple_ms / fast_ms:.1f}x"
            )
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
