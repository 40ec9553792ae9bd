"""What recognising known mistakes adds to a student's ``check``, against grading the file itself.

    python bench/bench_known_mistakes.py [--task nim_sum] [--rounds R]

``check`` reads the task's kept signatures (the fingerprint of the task's cases and solution files,
then one small JSON file) and matches its result to them; it never grades a known-wrong file. The
baseline is grading one wrong file of the task as ``check`` does, timed in the same process, so the
ratio (the added work over the grading) says what a student waits more whatever this machine's
speed. The signatures are made first, into a temporary folder, and not timed. The best of
``--rounds`` rounds counts.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from grader.authoring.mistake_signatures import course_signatures, stored_signatures  # noqa: E402
from grader.cli.grading_setup import course_folder, grading_context  # noqa: E402
from grader.course.loader import load_course  # noqa: E402
from grader.grade.grading import grade_file  # noqa: E402
from grader.grade.mistakes.known_mistakes import with_known_mistake  # noqa: E402

# A wrong file per task the bench knows: the reference solution with one line changed.
WRONG = {
    "nim_sum": ("total = total ^ row", "total = total + row"),
    "bin_num": ("bits.append(n % 2)", "bits.insert(0, n % 2)"),
    "present_board": ("enumerate(board, start=1)", "enumerate(board)"),
}


def best(rounds: int, work) -> float:
    """The shortest of ``rounds`` timings of ``work()``, in seconds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="nim_sum", choices=sorted(WRONG))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    course = course_folder(str(PROJECT))
    task = load_course(PROJECT)[args.task]
    old, new = WRONG[args.task]
    with (
        tempfile.TemporaryDirectory() as folder,
        grading_context(course, sys.executable, 2, quick_feedback=True) as context,
    ):
        kept = Path(folder) / "signatures"
        course_signatures(PROJECT, [task], context, kept)  # made once, as verify or grade would
        student = Path(folder) / "student" / f"{task.id}.py"
        student.parent.mkdir()
        student.write_text(course.solution(task.id).read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
        result = grade_file(task, student, context)
        grading = best(args.rounds, lambda: grade_file(task, student, context))

        def recognise():
            signatures = stored_signatures(PROJECT, [task], kept)
            return with_known_mistake(result, signatures.get(task.id, ()))

        added = best(args.rounds, recognise)
        mistake = recognise().mistake
    print(f"{task.id}: grading one wrong file {grading * 1000:.1f} ms; recognising its mistake {added * 1000:.1f} ms")
    print(f"ratio (added / grading): {added / grading:.3f}; diagnosed: {mistake.label if mistake else 'nothing'}")


if __name__ == "__main__":
    main()
