"""Shared fixtures: the project folder, its course, and a way to grade a mutated solution."""

from __future__ import annotations

import sys

import pytest
from support import COURSE, PROJECT, course_of

from grader.course.course_checkers import course_checkers
from grader.course.loader import load_course
from grader.course.reference import with_answers
from grader.grade.grading import GradingContext, grade_file


@pytest.fixture(scope="session")
def course(context):
    """The project's tasks by id, loaded once and their generated cases answered once by the
    reference solutions (``grade_file`` answers only what is still unanswered, so a test that grades
    a task of this fixture runs no reference solution)."""
    return {task_id: with_answers(task, context) for task_id, task in load_course(PROJECT).items()}


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
def django_site(tmp_path_factory, portal_database):
    """The one Django configuration of this test process (Django is configured once per process):
    the portal on the project's course, a data folder of the session's, the session's database
    migrated once. Passwords are hashed with a fast hasher here (PBKDF2 costs a quarter of a second
    of CPU a hash, by design); tests/live/test_portal_accounts.py proves that ``serve`` uses the real one.
    Out: the data folder."""
    pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
    from django.test.utils import override_settings

    from grader.web.server import prepare

    data = tmp_path_factory.mktemp("portal-data")
    prepare(data, PROJECT, portal_database.url)
    fast = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    fast.enable()
    yield data
    fast.disable()


@pytest.fixture(scope="session")
def grade_queue(context):
    """grade_queue() → how many submissions of the portal's queue were graded: here, one at a time,
    on the session's runner (``support.grade_portal_queue``)."""
    from support import grade_portal_queue

    return lambda: grade_portal_queue(context.runner)


@pytest.fixture(scope="session")
def mistake_signatures(context, _signature_home):
    """signatures(*task_ids) → the known mistakes' signatures of those tasks (every task when none
    is named) by task id. Each task's are made once for the session, where ``verify``, ``grade`` and
    the portal look for them (``$XDG_CACHE_HOME``, the session's folder: see below), so that no test
    that only reads them pays for making them. tests/grading/test_known_mistakes.py still makes
    them, for a course of one known-wrong file."""
    from grader.authoring.mistake_signatures import course_signatures

    folder = _signature_home / "nim-grader" / "mistakes"
    tasks = load_course(PROJECT)

    def signatures(*task_ids: str):
        return course_signatures(PROJECT, [tasks[task_id] for task_id in task_ids or tasks], context, folder)

    return signatures


@pytest.fixture(scope="session")
def course_without_known_wrong(tmp_path_factory):
    """A copy of the project's course without ``solutions/wrong/``: every task, case, reference
    solution and stub, and no known mistake to recognise, so ``grade`` on it makes no signatures.
    For tests of running and grading a class, not of diagnoses. Out: the course folder."""
    return course_of(tmp_path_factory.mktemp("course") / "course")


@pytest.fixture(scope="session")
def every_task_signed(mistake_signatures):
    """Every task's known-mistake signatures, made once (the tiers whose commands or grading look
    for them ask for this before their first test, so no test's time or words depend on order)."""
    return mistake_signatures()


@pytest.fixture(scope="session")
def _signature_home(tmp_path_factory):
    return tmp_path_factory.mktemp("xdg-cache")


@pytest.fixture(autouse=True)
def _signatures_kept_apart(_signature_home, monkeypatch):
    """``verify`` and ``grade`` keep known mistakes' signatures under $XDG_CACHE_HOME: in a test, the
    session's folder, never the user's ~/.cache (whose contents would change what ``check`` says)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(_signature_home))
