"""Shared fixtures: the project folder, its course, and a way to grade a mutated solution."""

from __future__ import annotations

import sys

import pytest
from support import COURSE, PROJECT

from grader.course.course_checkers import course_checkers
from grader.course.loader import load_course
from grader.grade.grading import GradingContext, grade_file


@pytest.fixture(scope="session")
def course():
    """The project's tasks by id."""
    return load_course(PROJECT)


@pytest.fixture(scope="session")
def context(request):
    """A grading context on the project's checkers and this interpreter."""
    task_ids = COURSE.task_ids()
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


@pytest.fixture(scope="session")
def portal_database(request):
    """The portal tests' database (``portal_database``): SQLite, or PostgreSQL when asked for."""
    from portal_database import WANTED, PortalDatabase

    return PortalDatabase(request.getfixturevalue("postgres") if WANTED == "postgresql" else None)


@pytest.fixture(scope="session")
def postgres():
    """A PostgreSQL server of the session's own, for the tests that compare both databases."""
    from portal_database import PostgresServer

    server = PostgresServer()
    try:
        if not server.start():
            pytest.skip(server.problem)
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def _signature_home(tmp_path_factory):
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture(autouse=True)
def _signatures_kept_apart(_signature_home, monkeypatch):
    """``verify`` and ``grade`` keep known mistakes' signatures under $XDG_CACHE_HOME: in a test, the
    session's folder, never the user's ~/.cache (whose contents would change what ``check`` says)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(_signature_home))
