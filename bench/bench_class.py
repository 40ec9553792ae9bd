"""Grading a synthetic class with ``python -m grader grade``, as a course team would run it.

    python bench/bench_class.py [--students 300] [--compare 30] [--seed 1]

The class: every student hands in all nine tasks, each file drawn at random (seeded) from a
realistic mix: the reference solution (60 %), one of the task's known-wrong solutions in
solutions/wrong/ (30 %: wrong answers, crashes, infinite loops, floods...), the untouched exercise
stub (5 %), or nothing (5 %). Every file gets a comment naming its student, so no two students'
files are the same bytes and none can reuse another's results: the figures are for real work.

It prints, each run with a fresh cache unless it says otherwise:
1. the whole class at the default ``--jobs`` (the machine's cores): time, students/s, cases/s,
   the peak memory of the grading process, the CPU it used, and how much of the cases' time went
   to programs stopped at their time limit;
2. the same again with the results cache the first run filled (nothing changed: a re-run);
3. ``--jobs 1`` against ``--jobs 2`` on the first ``--compare`` students: the speed-up;
4. peak memory on a third of the class against the whole class (it should not grow with it).
Ratios compare runs made here, one after the other, on this machine.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
TASKS = sorted(p.stem for p in (PROJECT / "testcases").glob("*.yaml"))
MIX = (("reference", 0.60), ("known-wrong", 0.30), ("stub", 0.05), ("missing", 0.05))


def make_class(folder: Path, students: int, seed: int) -> dict:
    """Write ``students`` student folders into ``folder``; returns how many files of each kind."""
    rng = random.Random(seed)
    counts = {kind: 0 for kind, _ in MIX}
    wrong = {task: sorted((PROJECT / "solutions" / "wrong" / task).glob("*.py")) for task in TASKS}
    for number in range(1, students + 1):
        student = folder / f"student{number:03}"
        student.mkdir(parents=True)
        for task in TASKS:
            kind = rng.choices([k for k, _ in MIX], [w for _, w in MIX])[0]
            if kind == "known-wrong" and not wrong[task]:
                kind = "reference"
            counts[kind] += 1
            if kind == "missing":
                continue
            source = {
                "reference": PROJECT / "solutions" / f"{task}.py",
                "stub": PROJECT / "exercises" / f"{task}.py",
            }.get(kind) or rng.choice(wrong[task])
            text = source.read_text(encoding="utf-8")
            (student / f"{task}.py").write_text(f"{text}\n# handed in by {student.name}\n", encoding="utf-8")
    return counts


def grade(class_dir: Path, out: Path, jobs: int, cache: bool) -> dict:
    """Run ``python -m grader grade`` and return its wall time, peak memory and summary line."""
    command = [
        sys.executable,
        "-m",
        "grader",
        "grade",
        str(class_dir),
        "--out",
        str(out),
        "--jobs",
        str(jobs),
        "--allow-unprotected",
    ]
    if not cache:
        command.append("--fresh")
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=PROJECT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # Reading stderr as it comes keeps the pipe from filling; the summary is its last long line.
    lines = process.stderr.readlines()
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    summary = next((line.strip() for line in reversed(lines) if " students, " in line), "")
    if code not in (0, 1):
        raise SystemExit(f"grade failed (exit {code}):\n{''.join(lines[-20:])}")
    # ru_maxrss is in KiB on Linux: the largest resident set of the grader or a process it waited for.
    # The CPU times count the grader and every process it (or its fork server) waited for.
    cpu = usage.ru_utime + usage.ru_stime
    return {"seconds": elapsed, "peak_mib": usage.ru_maxrss / 1024, "cpu": cpu, "summary": summary}


def time_outs(junit: Path) -> float:
    """The seconds that the cases stopped at their time limit ran, in a junit.xml."""
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--compare", type=int, default=30, help="students in the --jobs 1 / --jobs 2 runs")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="nim-grader-bench-"))
    try:
        whole, part, third = work / "class", work / "part", work / "third"
        counts = make_class(whole, args.students, args.seed)
        # The smaller classes are the first students of the whole one, file for file.
        for target, size in ((part, args.compare), (third, max(1, args.students // 3))):
            target.mkdir()
            for student in sorted(whole.iterdir())[:size]:
                shutil.copytree(student, target / student.name)
        total = sum(counts.values())
        mix = ", ".join(f"{kind} {100 * n / total:.0f} %" for kind, n in counts.items())
        print(f"{args.students} students x {len(TASKS)} tasks on {os.cpu_count()} cores; files: {mix}")

        jobs = os.cpu_count() or 1
        first = grade(whole, work / "out", jobs, cache=False)
        cases = cases_in(first["summary"])
        print(f"\n1. whole class, --jobs {jobs}: {first['seconds']:.1f} s")
        print(f"   {args.students / first['seconds']:.2f} students/s, {cases / first['seconds']:.0f} cases/s")
        print(f"   peak memory {first['peak_mib']:.0f} MiB; {first['summary']}")
        stopped = time_outs(work / "out" / "junit.xml")
        print(f"   CPU used: {first['cpu']:.0f} core-seconds ({jobs} cores x {first['seconds']:.0f} s available)")
        print(f"   of which up to {stopped:.0f} s went to programs stopped at their time limit")
        print("   (a program that loops runs until the limit stops it, whatever the grader does)")
        again = grade(whole, work / "out", jobs, cache=True)
        print(f"\n2. re-run, nothing changed (from the cache): {again['seconds']:.1f} s")
        print(f"   {first['seconds'] / again['seconds']:.0f}x faster than the first run")

        one = grade(part, work / "out1", 1, cache=False)
        two = grade(part, work / "out2", 2, cache=False)
        print(f"\n3. {args.compare} students: --jobs 1 {one['seconds']:.1f} s, --jobs 2 {two['seconds']:.1f} s")
        print(f"   speed-up {one['seconds'] / two['seconds']:.2f}x")

        small = grade(third, work / "out3", jobs, cache=False)
        size = len(list(third.iterdir()))
        print(f"\n4. peak memory: {size} students {small['peak_mib']:.0f} MiB, {args.students} students ", end="")
        print(f"{first['peak_mib']:.0f} MiB: ratio {first['peak_mib'] / small['peak_mib']:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
