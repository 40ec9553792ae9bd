"""``kit``: write what students receive (stubs, public cases, a README) into a new folder.

In: the parsed ``kit`` arguments (OUT, ``--course``, ``--server``, ``--python``, ``--no-wheel``). Out:
the exit status (0 written), and on standard output what the kit holds and what it left out; the work
itself is ``authoring.student_kit``'s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional
from urllib.parse import urlsplit

from grader.authoring.student_kit import make_kit
from grader.cli.grading_setup import course_folder, grading_context, interpreter_version
from grader.errors import UsageError
from grader.safe_text import for_terminal


def kit_command(args) -> int:
    """Write the student kit of the course into ``args.out``; say what it holds."""
    server = _server(args.server)
    course = course_folder(args.course)
    interpreter_version(args.python)
    with grading_context(course, args.python, args.jobs) as context:
        made = make_kit(course, Path(args.out), context, server, wheel=not args.no_wheel)
    public = sum(task.public for task in made.tasks)
    hidden = sum(task.hidden for task in made.tasks)
    stubs = sum(task.stub for task in made.tasks)
    print(
        f"Wrote the student kit to {for_terminal(str(made.out))}: {_count(len(made.tasks), 'task')}, "
        f"{_count(stubs, 'stub')}, {_count(public, 'public case')} (the hidden ones, {hidden}, and the solutions "
        f"left out), README.md{_wheel(made.wheel)}."
    )
    for note in made.notes:
        print(f"  - {for_terminal(note)}")
    return 0


def _wheel(name: Optional[str]) -> str:
    return f" and the grader as {for_terminal(name)}, for students to install" if name else ""


def _count(number: int, word: str) -> str:
    return f"{number} {word}{'' if number == 1 else 's'}"


def _server(text: Optional[str]) -> Optional[str]:
    """The portal's address for the README: an http(s) address on one line, or None."""
    if text is None:
        return None
    parts = urlsplit(text)
    one_line = all(char.isprintable() and not char.isspace() for char in text)
    if parts.scheme not in ("http", "https") or not parts.netloc or not one_line:
        raise UsageError(
            f"--server {for_terminal(text)}: give the portal's address, such as https://grader.example.edu."
        )
    return text
