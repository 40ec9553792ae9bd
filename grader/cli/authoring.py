"""The instructor's authoring commands: ``add-case`` (a case whose answer the reference solution
computes) and ``import`` (a CMS task folder or a Kattis package as a test case file).

In: the parsed arguments of either command. Out: the exit status (0 done), and on standard output
what was written where.
"""

from __future__ import annotations

import sys
from pathlib import Path

from grader.cli.grading_setup import course_folder, default_course, grading_context, interpreter_version
from grader.course.layout import Course
from grader.errors import UsageError
from grader.safe_text import for_terminal, plural


def add_case_command(args) -> int:
    """Append a case to ``testcases/<task>.yaml``; show its input and the expected answer, and warn
    (on standard error, exit status still 0) when a hidden case's given name states either."""
    from grader.authoring.add_case import add_case  # the YAML writer (ruamel.yaml) only where a file is written

    course = course_folder(args.course)
    interpreter_version(args.python)
    case_input = args.input.replace("\\n", "\n")
    with grading_context(course, args.python, args.jobs) as context:
        added = add_case(
            course.root, args.task, case_input, name=args.name, hidden=args.hidden, hint=args.hint, context=context
        )
    print(f"Added the case '{added.name}' to {added.path}.")
    print("Input:")
    print(_indented(added.input))
    if added.expected is None:
        print("Expected: (none stored: the task's checker decides by the rules)")
    else:
        print("Expected (what the reference solution printed):")
        print(_indented(added.expected))
    if added.warning:
        print(f"Warning: {added.warning}.", file=sys.stderr)
    return 0


def import_command(args) -> int:
    """Convert ``args.folder`` and write it as a test case file; list what was not carried over."""
    from grader.authoring.import_cms import import_cms  # the YAML writer only where a file is written
    from grader.authoring.import_kattis import import_kattis

    convert = {"cms": import_cms, "kattis": import_kattis}[args.kind]
    result = convert(Path(args.folder), args.task)
    course = Course(Path(args.course)) if args.course else default_course()  # a new course folder is fine here
    target = Path(args.out) if args.out else course.case_file(result.task_id)
    if target.exists() and not args.force:
        raise UsageError(f"{target} already exists; choose another --task or --out, or pass --force to replace it.")
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        target.write_text(result.yaml_text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {target}: {error.strerror or error}.") from None
    print(f"Wrote {plural(result.cases, 'case')} for the task '{result.task_id}' to {target}.")
    if result.notes:
        print(f"Not carried over ({len(result.notes)}):")
        print("\n".join(f"  - {note}" for note in result.notes))
    return 0


def _indented(text: str) -> str:
    """``text`` with every line indented by four spaces, for showing a case's input and answer (what the
    reference solution printed: a control character in it is shown, never obeyed)."""
    return "\n".join("    " + for_terminal(line) for line in text.rstrip("\n").split("\n"))
