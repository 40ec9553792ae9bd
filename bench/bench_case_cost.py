"""What one more case costs a submission's grading, against a bare fork, exit and reap of the
interpreter, both measured in the same run on this machine.

    python bench/bench_case_cost.py [--task nim_sum] [--copies 4] [--forks 2000] [--rounds 3]

The case cost: the task's reference solution is graded as ``check`` grades it (the best runner
this machine allows, one case at a time, no shrinking), once with the task's own cases and once
with ``--copies`` more copies of each (renamed, otherwise the same; the generated cases' answers
filled in first, untimed, as ``grade`` and the portal fill them once per course). CPU is counted for the whole
tree: the grading process's own and, once its runner is closed, the fork server's with every
program it started (``RUSAGE_CHILDREN``). Each grading starts its own runner and warms it with one
run, so start-up and warm-up cancel out: (CPU with copies - CPU without) / added cases is what one
more case costs.

The baseline: a new interpreter (``python -I -S``, as small as the fork server before it imports
anything) forks ``--forks`` times; each child exits at once and is reaped. CPU per fork is its CPU
and its children's, over the forks. Printed beside it: the same after importing what the fork
server imports (the process a case is forked from is that large).

Printed: both per-case figures in ms of CPU, and the ratio (the target is at most 2x). The best
(lowest) of ``--rounds`` rounds counts for each.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from grader.course.course_checkers import course_checkers  # noqa: E402
from grader.course.loader import load_course  # noqa: E402
from grader.course.reference import with_answers  # noqa: E402
from grader.grade.grading import GradingContext, grade_file  # noqa: E402
from grader.run.forkserver import best_runner  # noqa: E402

_FORKS = """
import os, resource, sys
if sys.argv[2] == "prepared":  # what the fork server imports before it forks a program
    import collections, copy, functools, gc, io, itertools, json, math, operator, random, re, string, time
    gc.freeze()
n = int(sys.argv[1])
for _ in range(n):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime)
"""


def fork_ms(forks: int, kind: str = "bare") -> float:
    """CPU ms per bare fork, exit and reap, in a fresh small interpreter (``kind`` "bare"), or in
    one that first imports what the fork server imports ("prepared")."""
    command = [sys.executable, "-I", "-S", "-c", _FORKS, str(forks), kind]
    done = subprocess.run(command, capture_output=True, text=True)
    return float(done.stdout) / forks * 1000


def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _context(runner) -> GradingContext:
    checkers = course_checkers(PROJECT)
    return GradingContext(checkers=checkers, python=sys.executable, runner=runner, jobs=1, shrink=False, course=PROJECT)


def grading_cpu(task, copies: int) -> float:
    """CPU seconds of grading the reference solution against ``task``'s cases and ``copies`` more
    copies of each, with a runner of its own (started, warmed and closed inside)."""
    cases = tuple(task.cases)
    for copy in range(copies):
        cases += tuple(replace(case, name=f"{case.name} (copy {copy + 1})") for case in task.cases)
    solution = PROJECT / "solutions" / f"{task.id}.py"
    with best_runner() as runner:  # the generated cases' answers, as the portal keeps them: not timed
        copied = with_answers(replace(task, cases=cases), _context(runner))
    before = _cpu()
    runner = best_runner()
    try:
        context = _context(runner)
        grade_file(replace(copied, cases=copied.cases[:1]), solution, context)  # start and warm the server
        result = grade_file(copied, solution, context)
        assert result.score == result.max_score, "the reference solution must pass every copy"
    finally:
        runner.close()
    return _cpu() - before


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="nim_sum")
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--forks", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    task = load_course(PROJECT)[args.task]
    added = len(task.cases) * args.copies
    case_ms = min((grading_cpu(task, args.copies) - grading_cpu(task, 0)) / added * 1000 for _ in range(args.rounds))
    fork = min(fork_ms(args.forks) for _ in range(args.rounds))
    prepared = min(fork_ms(args.forks, "prepared") for _ in range(args.rounds))
    version = sys.version.split()[0]
    print(f"{args.task}: {len(task.cases)} cases, +{added} copies; best of {args.rounds} rounds, Python {version}")
    print(f"  one more case       {case_ms:7.2f} ms CPU")
    print(f"  bare fork+exit+reap {fork:7.2f} ms CPU   (python -I -S)")
    print(f"  the same, prepared  {prepared:7.2f} ms CPU   (after the fork server's imports)")
    print(f"  ratio               {case_ms / fork:7.1f}x   ({case_ms / prepared:.1f}x the prepared fork)")
    print("  (target: at most 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
