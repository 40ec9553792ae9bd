"""The cost of a program that loops on every case, against what its time limits allow.

    python bench/bench_loop.py [--tasks exclusive_or,present_board]

One student hands in, for each chosen task (default: all), a file that reads a line of input and
then loops forever. It is graded with ``grade --jobs <cores> --fresh``. The budget is the sum of
the time limits of those tasks' cases (from testcases/*.yaml, via ``grader.course.loader.load_course``)
divided by the cores: what the cases would cost if the grader used every core and stopped each
program right at its limit. The figure is the wall time against that budget (target at most 1.3x).
Tasks not handed in are graded as missing and run nothing. A whole-course run takes minutes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_grade import PROJECT, grade, time_outs  # noqa: E402

LOOPS = "import sys\n\nsys.stdin.readline()\nwhile True:\n    pass\n"


def loop_part(work: Path, tasks: list) -> None:
    """Grade one looping student in ``work`` on ``tasks`` and print the cost against the budget."""
    sys.path.insert(0, str(PROJECT))
    from grader.course.loader import load_course

    course = load_course(PROJECT)
    unknown = [task for task in tasks if task not in course]
    if unknown:
        raise SystemExit(f"No such task: {', '.join(unknown)}. The tasks are: {', '.join(course)}.")
    student = work / "loop-class" / "student001"
    student.mkdir(parents=True)
    for task in tasks:
        (student / f"{task}.py").write_text(LOOPS, encoding="utf-8")
    cores = os.cpu_count() or 1
    cases = sum(len(course[task].cases) for task in tasks)
    limits = sum(case.limits.time_s for task in tasks for case in course[task].cases)
    budget = limits / cores
    run = grade(student.parent, work / "loop-out", cores, measured=True)
    stopped = time_outs(work / "loop-out" / "junit.xml")
    print(f"\nloop: one student whose {len(tasks)} file(s) loop forever, --jobs {cores}, fresh cache")
    print(f"   {cases} cases, time limits adding up to {limits:.0f} s: budget {limits:.0f} / {cores} cores")
    ratio = run["seconds"] / budget
    print(f"   = {budget:.1f} s; took {run['seconds']:.1f} s: {ratio:.2f}x the budget (target <= 1.3x)")
    print(f"   programs stopped at their limit ran {stopped:.0f} s (wall, from junit.xml)")
    print(f"   CPU (wait4): {run['cpu']:.1f} core-s; of it programs {run['programs']:.1f}, grader and sandbox ", end="")
    reached = "yes" if run["reached"] else "NO"
    print(f"{run['overhead']:.1f}; the fork servers' CPU reached the grader's count: {reached}")
    share = run["programs"] / stopped if stopped else 0.0
    print(f"   the programs' counted CPU is {100 * share:.0f} % of their wall time: below 100 % the machine was busy,")
    print("   or (far below, with the machine idle) their CPU escaped the count")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", help="comma-separated task ids (default: every task; takes minutes)")
    args = parser.parse_args()
    tasks = args.tasks.split(",") if args.tasks else sorted(p.stem for p in (PROJECT / "testcases").glob("*.yaml"))
    work = Path(tempfile.mkdtemp(prefix="nim-grader-bench-"))
    try:
        loop_part(work, tasks)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
