"""Shared fixtures: the project folder, its course, and a way to grade a mutated solution."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from grader.course.course_checkers import course_checkers
from grader.course.loader import load_course
from grader.grade.grading import GradingContext, grade_file

PROJECT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def course():
    """The project's tasks by id."""
    return load_course(PROJECT)


@pytest.fixture(scope="session")
def context(request):
    """A grading context on the project's checkers and this interpreter."""
    task_ids = tuple(sorted(p.stem for p in (PROJECT / "testcases").glob("*.yaml")))
    from grader.pytest_plugin import session_runner

    return GradingContext(
        checkers=course_checkers(PROJECT),
        python=sys.executable,
        course=PROJECT,
        task_ids=task_ids,
        runner=session_runner(request.config),
    )


@pytest.fixture(scope="session")
def protections(context):
    """What the session's runner gives programs of this interpreter (``sandbox.Protections``)."""
    return context.runner.protections(sys.executable)


@pytest.fixture
def grade(tmp_path, course, context):
    """grade(task_id, source_text) → TaskResult for a submission written to a temporary file."""

    def run(task_id: str, source, name: str = "") -> object:
        path = tmp_path / (name or f"{task_id}.py")
        if isinstance(source, bytes):
            path.write_bytes(source)
        else:
            path.write_text(source, encoding="utf-8")
        return grade_file(course[task_id], path, context)

    return run


def solution(task_id: str) -> str:
    """The reference solution's text."""
    return (PROJECT / "solutions" / f"{task_id}.py").read_text(encoding="utf-8")


def mutate(task_id: str, old: str, new: str) -> str:
    """The reference solution with ``old`` replaced by ``new`` (which must be there)."""
    text = solution(task_id)
    assert old in text, f"{old!r} is not in solutions/{task_id}.py"
    return text.replace(old, new)
