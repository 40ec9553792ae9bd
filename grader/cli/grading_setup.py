"""What every command starts from: the course folder, the interpreter, and the grading context.

In: the ``--course``, ``--python`` and ``--jobs`` options. Out: a ``Course`` (checked to be one), the
interpreter's version (checked to be a runnable Python 3), a ``GradingContext`` on the best runner,
and the note that says what a grading ran with. A ``UsageError`` says which option is wrong.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Iterator, Optional, Sequence

from grader.authoring.student_kit import find_kit
from grader.course.course_checkers import course_checkers
from grader.course.layout import Course
from grader.errors import UsageError
from grader.grade.grading import GradingContext
from grader.run.execute import python_version
from grader.run.forkserver import best_runner

PROJECT = Path(__file__).resolve().parents[2]


def default_course() -> Course:
    """The student kit the current folder is in (a student checking their work there means its public
    cases, whichever grader runs), else the project's own folder when it holds testcases/, else the
    current folder if it does."""
    kit = find_kit(Path.cwd())
    if kit is not None:
        return Course(kit)
    for candidate in (PROJECT, Path.cwd()):
        if Course(candidate).is_course():
            return Course(candidate)
    raise UsageError("No testcases/ folder found next to the grader or here; pass --course DIR.")


def course_folder(option: Optional[str]) -> Course:
    """The course from ``--course`` (checked) or the default."""
    if option is None:
        return default_course()
    course = Course(Path(option))
    if not course.is_course():
        raise UsageError(f"--course {option}: there is no testcases/ folder in it.")
    return course


def interpreter_version(python: str) -> str:
    """The version of the ``--python`` interpreter (``3.11.7``); a ``UsageError`` when it cannot be
    run or is not Python 3."""
    version = python_version(python)
    if version is None or not version.startswith("3."):
        raise UsageError(f"--python {python}: this interpreter cannot be run, or is not Python 3.")
    return version


@contextlib.contextmanager
def grading_context(
    course: Course, python: str, jobs: int, private: Sequence[Path] = (), **options
) -> Iterator[GradingContext]:
    """The context a command grades with: the course's checkers and tasks, ``python`` run ``jobs``
    at a time on the best runner there is (closed on the way out), whose programs never see the
    course nor the ``private`` folders (a class folder, the reports); ``options`` are the context's
    other fields (``quick_feedback``)."""
    with best_runner(private=(course.root, *private)) as runner:
        yield GradingContext(
            checkers=course_checkers(course.root),
            python=python,
            jobs=jobs,
            course=course.root,
            task_ids=course.task_ids(),
            runner=runner,
            **options,
        )


def graded_with(version: str, protections) -> str:
    """The note on every report: the Python version and the sandbox's protections."""
    return f"graded with Python {version} · {protections.describe()}"
