"""``check``: grade a student's exercise files, write the HTML report, print the table (and JSON).

In: the parsed ``check`` arguments. Out: the exit status (0 every task accepted, 1 not); with
``--watch``, the status of the last grading once the watching stops.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List

from grader.authoring.kit_mistakes import kit_signatures
from grader.authoring.mistake_signatures import stored_signatures
from grader.authoring.student_kit import kit_info, portal_note
from grader.cli.grading_setup import course_folder, graded_with, grading_context, interpreter_version
from grader.cli.watch import stamps, watch
from grader.course.loader import load_course
from grader.errors import UsageError
from grader.grade.grading import GradingContext, grade_hand_in, submitted_file
from grader.grade.mistakes.known_mistakes import with_known_mistake
from grader.model import TaskResult, Verdict
from grader.report import pages as report
from grader.safe_text import for_terminal, plural
from grader.submission.paths import collect_submissions


def check_command(args) -> int:
    """Grade the files of ``args.paths`` against the course (see the module docstring)."""
    course = course_folder(args.course)
    tasks = load_course(course.root)
    if not tasks:
        raise UsageError(f"{course.testcases}: no test case files (*.yaml) in it.")
    pairs, notes = collect_submissions(args.paths, tasks, args.task)
    version = interpreter_version(args.python)
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1.")
    kit = kit_info(course.root)
    # in a student kit, the report and the terminal say once that the portal also runs hidden cases
    portal = portal_note(kit, [task.id for task, _ in pairs]) if kit else ""
    # read, never made: a student's check grades no known-wrong file (verify and grade make them); in
    # a kit, those it ships (``kit_mistakes``: of its public cases)
    graded = list({task.id: task for task, _ in pairs}.values())
    signatures = kit_signatures(course.root, graded) if kit else stored_signatures(course.root, graded)
    with grading_context(course, args.python, args.jobs, quick_feedback=not args.all) as context:
        note = graded_with(version, context.runner.protections(args.python))
        return _grade_and_report(
            args, pairs, notes, context, f"{note} · {portal}" if portal else note, portal, signatures
        )


def _grade_and_report(args, pairs, notes, context: GradingContext, note: str, portal: str = "", signatures=None) -> int:
    """Grade, write the report, print the table (and JSON, and the kit's ``portal`` sentence); with
    --watch, again on every save. ``signatures``: the known mistakes by task id, to match results to."""
    signatures = signatures or {}
    for line in notes:
        print(for_terminal(line), file=sys.stderr)

    def grade_all() -> int:
        # one hand-in: every visible run of every file before the first hidden case of any
        items = [submitted_file(task, path, for_terminal(str(path))) for task, path in pairs]
        results: List[TaskResult] = [
            with_known_mistake(result, signatures.get(result.task.id, ())) for result in grade_hand_in(items, context)
        ]
        index = _write_report(results, Path(args.report), note)
        table = report.terminal_table(results, index) + (f"\n{portal}" if portal else "")
        print(table, file=sys.stderr if args.json else sys.stdout, flush=True)
        if args.json:
            print(report.json_text(results), flush=True)
        return 0 if all(r.verdict is Verdict.ACCEPTED for r in results) else 1

    files = [path for _, path in pairs]
    before = stamps(files)  # taken before grading: a save during the first grading counts too
    status = grade_all()
    if not args.watch:
        return status
    print(f"Watching {plural(len(files), 'file')}: save to grade again, Ctrl-C to stop.", flush=True)
    return watch(files, grade_all, before)


def _write_report(results: List[TaskResult], folder: Path, note: str) -> Path:
    """The report written into ``folder``; its index page. A ``UsageError`` when it cannot be written."""
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--report {folder}: this is a file, not a folder; choose another --report DIR.")
    try:
        return report.write_html(results, folder, note)
    except OSError as error:
        raise UsageError(f"cannot write the report to {folder}: {error.strerror or error}.") from None
