"""Grading a synthetic class with ``python -m grader grade``, as a course team would run it.

    python bench/bench_class.py [--part all|correct|loop|mix|rerun|repeat|jobs|memory] [--students 300]
                                [--compare 30] [--seed 1] [--loop-tasks exclusive_or,...]

The mixed class: every student hands in all nine tasks, each file drawn at random (seeded) from a
realistic mix: the reference solution (60 %), one of the task's known-wrong solutions in
solutions/wrong/ (30 %: wrong answers, crashes, infinite loops, floods...), the untouched exercise
stub (5 %), or nothing (5 %). Every file gets a comment naming its student, so no two students'
files are the same bytes and none can reuse another's results: the figures are for real work.

The parts, each with a fresh cache unless it says otherwise (CPU figures: see bench_grade.py for
what the wait4 count covers and how the grader's own CPU is told apart from the programs'):
- correct: every student hands in the nine reference solutions: wall time (target at most 90 s for
  300 students) and core-seconds per student (target at most 0.6), from the wait4 rusage;
- loop: one student whose files loop forever: its cost against the time limits' budget (bench_loop.py);
- mix: the mixed class at --jobs = cores: time, students/s, cases/s, peak memory, the wall seconds
  of programs stopped at their limit (junit.xml), and the CPU split into programs' own and the
  grader's overhead (grader, fork servers, sandbox; target at most a quarter of the total);
- rerun: the mix again with the cache it filled (nothing changed);
- repeat: the first --compare students graded twice, fresh caches: is gradebook.csv byte-identical?
- jobs: --jobs 1 against --jobs 2 on the first --compare students: the speed-up;
- memory: peak memory on a third of the class against the whole class (it should not grow with it).
Ratios compare runs made here, one after the other, on this machine.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_grade import PROJECT, cases_in, grade, gradebook_differences, time_outs  # noqa: E402
from bench_loop import loop_part  # noqa: E402

TASKS = sorted(p.stem for p in (PROJECT / "testcases").glob("*.yaml"))
MIX = (("reference", 0.60), ("known-wrong", 0.30), ("stub", 0.05), ("missing", 0.05))
ALL_CORRECT = (("reference", 1.0),)
PARTS = ("correct", "loop", "mix", "rerun", "repeat", "jobs", "memory")


def make_class(folder: Path, students: int, seed: int, mix: tuple = MIX) -> dict:
    """Write ``students`` student folders into ``folder``; returns how many files of each kind."""
    rng = random.Random(seed)
    counts = {kind: 0 for kind, _ in mix}
    wrong = {task: sorted((PROJECT / "solutions" / "wrong" / task).glob("*.py")) for task in TASKS}
    for number in range(1, students + 1):
        student = folder / f"student{number:03}"
        student.mkdir(parents=True)
        for task in TASKS:
            kind = rng.choices([k for k, _ in mix], [w for _, w in mix])[0]
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


def first_students(whole: Path, target: Path, size: int) -> Path:
    """Copy the first ``size`` students of ``whole`` into ``target``, file for file; returns ``target``."""
    target.mkdir()
    for student in sorted(whole.iterdir())[:size]:
        shutil.copytree(student, target / student.name)
    return target


def correct_part(work: Path, students: int, seed: int, jobs: int) -> None:
    """Every student hands in the nine reference solutions: wall time and core-seconds per student."""
    make_class(work / "correct", students, seed, ALL_CORRECT)
    run = grade(work / "correct", work / "correct-out", jobs)
    per_student = run["cpu"] / students
    print(f"\ncorrect: {students} students, all nine reference solutions, --jobs {jobs}: {run['seconds']:.1f} s")
    print(f"   for 300 students that is about {run['seconds'] * 300 / students:.0f} s (target <= 90 s)")
    print(f"   CPU (wait4, grader + sandbox + programs): {run['cpu']:.1f} core-s, ", end="")
    print(f"{per_student:.2f} core-s per student (target <= 0.6)")
    print(f"   {run['summary']}")


def mix_part(work: Path, students: int, jobs: int) -> dict:
    """The mixed class (already written to work/class) at --jobs ``jobs``; returns the run's figures."""
    run = grade(work / "class", work / "out", jobs, measured=True)
    cases = cases_in(run["summary"])
    stopped = time_outs(work / "out" / "junit.xml")
    total = run["total"] or 1.0
    print(f"\nmix: whole class, --jobs {jobs}: {run['seconds']:.1f} s")
    print(f"   {students / run['seconds']:.2f} students/s, {cases / run['seconds']:.0f} cases/s")
    print(f"   peak memory {run['peak_mib']:.0f} MiB; {run['summary']}")
    print(f"   CPU used: {run['cpu']:.1f} core-seconds ({jobs} cores x {run['seconds']:.0f} s available)")
    print(f"   programs stopped at their time limit ran {stopped:.0f} s of wall time (junit.xml times: wall, not CPU)")
    share = 100 * run["programs"] / total
    print(f"   programs' own CPU {run['programs']:.1f} core-s ({share:.0f} %); grader's ", end="")
    print(f"overhead {run['overhead']:.1f} core-s ({100 * run['overhead'] / total:.0f} %, target <= 25 %):")
    print(f"     the grader process {run['grader']:.1f}, the reference solution for generated cases ", end="")
    print(f"{run['reference']:.1f}, fork servers and sandbox {run['overhead'] - run['grader'] - run['reference']:.1f}")
    if not run["reached"]:
        print("   warning: the fork servers' CPU did not all reach the grader's count: the wait4 figures are low")
    return run


def repeat_part(work: Path, compare: int) -> None:
    """Grade the first ``compare`` students twice with fresh caches; print whether the gradebooks match."""
    part = work / "part"
    books = []
    for name in ("repeat1", "repeat2"):
        grade(part, work / name, os.cpu_count() or 1)
        books.append(work / name / "gradebook.csv")
    same = books[0].read_bytes() == books[1].read_bytes()
    print(f"\nrepeat: {compare} students graded twice, fresh caches: ", end="")
    print(f"gradebook.csv byte-identical: {'yes' if same else 'NO'}")
    for first, second in gradebook_differences(*books):
        print(f"   first:  {first}\n   second: {second}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("all", *PARTS), default="all", help="run one part only (default: all)")
    parser.add_argument("--students", type=int, default=300, help="students in the class (default 300)")
    parser.add_argument("--compare", type=int, default=30, help="students in the repeat and --jobs 1 / 2 runs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--loop-tasks", help="comma-separated tasks for the loop part (default: all; takes minutes)")
    args = parser.parse_args()
    if args.students < 1 or args.compare < 1:
        parser.error("--students and --compare must be at least 1.")
    parts = PARTS if args.part == "all" else (args.part,)
    jobs = os.cpu_count() or 1
    work = Path(tempfile.mkdtemp(prefix="nim-grader-bench-"))
    try:
        whole = work / "class"
        counts = make_class(whole, args.students, args.seed)
        # The smaller classes are the first students of the whole one, file for file.
        first_students(whole, work / "part", args.compare)
        third = first_students(whole, work / "third", max(1, args.students // 3))
        total = sum(counts.values())
        mix = ", ".join(f"{kind} {100 * n / total:.0f} %" for kind, n in counts.items())
        print(f"{args.students} students x {len(TASKS)} tasks on {jobs} cores; mixed class files: {mix}")
        if "correct" in parts:
            correct_part(work, args.students, args.seed, jobs)
        if "loop" in parts:
            loop_part(work, args.loop_tasks.split(",") if args.loop_tasks else TASKS)
        first = mix_part(work, args.students, jobs) if {"mix", "rerun", "memory"} & set(parts) else None
        if "rerun" in parts:
            again = grade(whole, work / "out", jobs, cache=True)
            print(f"\nrerun, nothing changed (from the cache): {again['seconds']:.1f} s")
            print(f"   {first['seconds'] / again['seconds']:.0f}x faster than the first run")
        if "repeat" in parts:
            repeat_part(work, args.compare)
        if "jobs" in parts:
            one = grade(work / "part", work / "out1", 1)
            two = grade(work / "part", work / "out2", 2)
            print(f"\njobs: {args.compare} students: --jobs 1 {one['seconds']:.1f} s, --jobs 2 {two['seconds']:.1f} s")
            print(f"   speed-up {one['seconds'] / two['seconds']:.2f}x")
        if "memory" in parts:
            small = grade(third, work / "out3", jobs)
            size = len(list(third.iterdir()))
            print(f"\nmemory: peak {size} students {small['peak_mib']:.0f} MiB, {args.students} students ", end="")
            print(f"{first['peak_mib']:.0f} MiB: ratio {first['peak_mib'] / small['peak_mib']:.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
