"""``verify``: check the course's test suite, print what held and what falls short (``verify_text``).

In: the parsed ``verify`` arguments (``tasks``: verify only those; none, every task). Out: the exit
status (0 everything held, 1 not), the summary on standard output, progress on standard error, and
with ``--html`` the kill matrix as a page.
"""

from __future__ import annotations

import sys
from pathlib import Path

from grader.authoring.mistake_signatures import store_signatures
from grader.authoring.verify import VerifyReport, verify_course
from grader.cli.grading_setup import course_folder, grading_context, interpreter_version
from grader.errors import UsageError
from grader.report import pages as report
from grader.safe_text import for_terminal, plural


def verify_command(args) -> int:
    """Verify the course of ``args.course`` (see the module docstring)."""
    course = course_folder(args.course)
    if not course.solutions.is_dir():
        raise UsageError(f"{course.root}: there is no solutions/ folder to verify against.")
    interpreter_version(args.python)
    only = tuple(dict.fromkeys(getattr(args, "tasks", None) or ()))
    with grading_context(course, args.python, args.jobs) as context:
        result = verify_course(
            course.root, context, progress=lambda text: print(f"  {text}", file=sys.stderr), only=only
        )
    # the known mistakes' signatures, from the runs verify made anyway: check then recognises them
    store_signatures(course.root, result.signatures)
    print(for_terminal(verify_text(result), keep_newlines=True))  # it quotes what solutions printed
    if args.html:
        path = Path(args.html)
        try:
            report.write_verify_html(result, path)
        except OSError as error:
            raise UsageError(f"cannot write {path}: {error.strerror or error}.") from None
        print(f"Kill matrix: {path}")
    return 0 if result.ok else 1


def verify_text(result: VerifyReport) -> str:
    """The summary ``verify`` prints: what held, the kill matrix in brief, what falls short."""
    lines = ["Held:"] + [f"  ok  {line}" for line in result.checked]
    lines.append("Kill matrix (cases x known-wrong solutions):")
    for matrix in result.matrices:
        if not matrix.wrong:
            lines.append(f"  {matrix.task_id}: no known-wrong solutions in solutions/wrong/{matrix.task_id}/")
            continue
        caught = len(matrix.wrong) - len(matrix.uncaught())
        weak = matrix.weak_cases()
        lines.append(
            f"  {matrix.task_id}: {caught} of {plural(len(matrix.wrong), 'known-wrong solution')} caught; "
            f"{len(matrix.cases) - len(weak)} of {plural(len(matrix.cases), 'case')} catch at least one"
        )
    if result.weak:
        lines.append(f"Not failures, but worth a look ({len(result.weak)}):")
        lines += [f"  - {f.task_id}: {f.what}" for f in result.weak]
    if result.findings:
        lines.append(f"Falls short ({len(result.findings)}):")
        lines += [f"  - {f.task_id}: {f.what}" for f in result.findings]
    else:
        lines.append("Everything held.")
    return "\n".join(lines)
