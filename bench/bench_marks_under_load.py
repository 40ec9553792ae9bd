"""Marks under load: a correct, slowish program graded on a quiet machine and on a busy one.

    python bench/bench_marks_under_load.py [--runs 10] [--spinners 0] [--share 0.6] [--limit 1.0]

The program computes for ``--share`` of its time limit (processor time, measured by itself), then
prints its answer: it is within its limit on any machine. It runs ``--runs`` times one after the
other with the machine quiet, then ``--runs`` times with ``--spinners`` processes computing beside
it (default: four per core), through the fork server as ``check`` runs it. Printed for each: how
many runs were within the limit, the processor time each was charged (min, median, max) and its
wall time; then the ratio of the two acceptance counts (busy / quiet: the target is 1.0, the same
marks on a busy machine). A limit of wall-clock time fails this as soon as the spinners leave the
program less than ``--share`` of a processor.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from grader.model import Limits  # noqa: E402
from grader.run.execute import Program  # noqa: E402
from grader.run.forkserver import best_runner  # noqa: E402

SLOWISH = """
import time
while time.process_time() < {seconds}:
    pass
print("right")
"""


def _spin() -> None:
    while True:
        pass


def _runs(runner, program: Program, limits: Limits, count: int) -> list:
    results = []
    for _ in range(count):
        started = time.monotonic()
        run = runner.run(program, b"", limits)
        results.append((not run.timed_out and run.stdout == b"right\n", run.time_s, time.monotonic() - started))
    return results


def _say(label: str, results: list) -> int:
    accepted = sum(ok for ok, _, _ in results)
    charged = sorted(t for _, t, _ in results)
    walls = sorted(w for _, _, w in results)
    print(
        f"{label:6} {accepted}/{len(results)} within the limit; charged {charged[0]:.2f} / "
        f"{statistics.median(charged):.2f} / {charged[-1]:.2f} s of processor time; wall "
        f"{walls[0]:.2f} / {statistics.median(walls):.2f} / {walls[-1]:.2f} s"
    )
    return accepted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--spinners", type=int, default=4 * (os.cpu_count() or 1))
    parser.add_argument("--share", type=float, default=0.6)
    parser.add_argument("--limit", type=float, default=1.0)
    args = parser.parse_args()
    limits = Limits(time_s=args.limit)
    with tempfile.TemporaryDirectory() as folder, best_runner() as runner:
        script = Path(folder) / "slowish.py"
        script.write_text(SLOWISH.format(seconds=args.share * args.limit), encoding="utf-8")
        program = Program(python=sys.executable, script=script, run_name="slowish.py")
        runner.run(program, b"", limits)  # the server started and warm
        print(f"a program computing {args.share:g} x its {args.limit:g} s limit, {args.runs} runs each")
        quiet = _say("quiet", _runs(runner, program, limits, args.runs))
        spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.spinners)]
        for spinner in spinners:
            spinner.start()
        try:
            busy = _say("busy", _runs(runner, program, limits, args.runs))
        finally:
            for spinner in spinners:
                spinner.kill()
    ratio = busy / quiet if quiet else float("nan")
    print(f"busy / quiet acceptance: {ratio:.2f} (target 1.0), with {args.spinners} spinners")


if __name__ == "__main__":
    main()
