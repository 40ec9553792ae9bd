"""How often the first message names the real mistake, over the real-style corpus of
``tests/real_mistakes`` (issue 36): graded as ``check`` grades (known mistakes included).

    python bench/feedback_corpus.py

Printed: per entry, "names it", "misleads" (a message holds a word of its ``never``) or "symptom
only" (its first message lacks ``says``), then the counts. Run on two commits for before and after.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import replace
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(PROJECT), str(PROJECT / "tests")]


def main() -> None:
    from real_mistakes import ALL, every_message, first_message
    from support import solution

    from grader.authoring.mistake_signatures import course_signatures
    from grader.course.layout import Course
    from grader.course.loader import load_course
    from grader.grade.grading import grade_file
    from grader.grade.mistakes.known_mistakes import with_known_mistake
    from grader.run.forkserver import best_runner
    from grader.web.worker.grading_backends import grading_context

    tasks = load_course(PROJECT)
    counts = {"names it": 0, "misleads": 0, "symptom only": 0}
    with best_runner() as runner, tempfile.TemporaryDirectory() as folder:
        context = replace(grading_context(runner, Course(PROJECT)), jobs=2)
        wanted = sorted({entry.task for entry in ALL})
        signatures = course_signatures(PROJECT, [tasks[t] for t in wanted], context) if wanted else {}
        for number, entry in enumerate(ALL):
            place = Path(folder) / str(number)
            place.mkdir()
            for used in tasks[entry.task].uses_files:
                if used != entry.task:
                    (place / f"{used}.py").write_text(entry.companions.get(used) or solution(used))
            path = place / f"{entry.task}.py"
            path.write_text(entry.text(), encoding="utf-8")
            result = grade_file(tasks[entry.task], path, context)
            result = with_known_mistake(result, signatures.get(entry.task, ()))
            said = every_message(result)
            if any(word in text for text in said for word in entry.never):
                kind = "misleads"
            elif entry.says in first_message(result):
                kind = "names it"
            else:
                kind = "symptom only"
            counts[kind] += 1
            print(f"{kind:13} {entry.task}: {entry.name}")
    print(", ".join(f"{count} {kind}" for kind, count in counts.items()), f"of {len(ALL)}")


if __name__ == "__main__":
    main()
