"""The portal grades with the course as last published (docs/security.md, "Cached results"): what
it keeps per load of the course (the tasks, the generated cases' answers, the checkers) is made again
when a publish changed any file it is made of: a data file a case reads, a reference solution that
answers the generated cases, the course's checkers.py. (Here each publish's verify is taken as held:
tests/portal/test_portal_publish.py tests that it runs.)"""

from __future__ import annotations

import time

import pytest

from grader.course.layout import Course
from grader.grade.unit_of_work import StudentWork
from grader.model import Verdict

CASES = """task: demo
title: Demo
checker: verdict
cases:
  - name: from a file
    input_file: demo/input.txt
    expected: 'A'
generate:
  - generator: random_board
    seed: 1
    count: 1
    options: {rows: [1, 2], heap: [0, 3]}
    format: '{board_json}'
    name: 'generated {index}'
"""
CHECKERS = """from grader.model import CheckOutcome, Verdict

ACCEPT = {accept}


def register(registry):
    registry.register("verdict", lambda actual, expected, case_input: CheckOutcome(
        Verdict.ACCEPTED if ACCEPT else Verdict.WRONG_ANSWER))
"""


def _write(path, text: str) -> None:
    """Write ``text`` so that the portal sees a change even within one tick of the file's clock."""
    path.parent.mkdir(parents=True, exist_ok=True)
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="utf-8")
    while path.stat().st_mtime_ns == before:  # (a coarse clock): the size differs anyway
        time.sleep(0.01)
        path.write_text(text, encoding="utf-8")


@pytest.fixture
def demo_course(tmp_path, django_site):
    """A course of one task the portal grades against for the test (``GRADER_COURSE``), its
    checkers.py, reference solution and data file ready to change."""
    from django.apps import apps
    from django.test.utils import override_settings

    course = tmp_path / "course"
    _write(course / "testcases" / "demo.yaml", CASES)
    _write(course / "testcases" / "demo" / "input.txt", "1 2\n")
    _write(course / "solutions" / "demo.py", "print('A')\n")
    _write(course / "checkers.py", CHECKERS.format(accept=True))
    config = apps.get_app_config("portal")
    held = getattr(config, "held_course", None)
    with override_settings(GRADER_COURSE=str(course)):
        config.held_course = None
        try:
            yield course
        finally:
            config.held_course = held


def _published(monkeypatch) -> None:
    """Publish the course folder as if verify held on every changed task."""
    from grader.web.worker import publishing

    monkeypatch.setattr(publishing, "verify_findings", lambda staged, tasks: ())
    assert publishing.publish("test").version is not None


def _grading(context, course):
    from grader.web.worker.grading_backends import LocalGrading, grading_context

    return LocalGrading(grading_context(context.runner, Course(course)))


def test_a_changed_data_file_is_read_again(demo_course, monkeypatch):
    from grader.web.worker.course_state import course_tasks

    assert course_tasks()["demo"].cases[0].input == "1 2\n"
    _write(demo_course / "testcases" / "demo" / "input.txt", "1 2 3\n")
    assert course_tasks()["demo"].cases[0].input == "1 2\n"  # not yet published
    _published(monkeypatch)
    assert course_tasks()["demo"].cases[0].input == "1 2 3\n"


def test_a_changed_reference_solution_answers_the_generated_cases_again(demo_course, context, monkeypatch):
    from grader.web.worker.course_state import cases_fingerprint, course_tasks

    grading = _grading(context, demo_course)
    answered, fingerprint = grading.answered.get(course_tasks(), "demo")
    assert answered.cases[1].expected == ("A\n",) and fingerprint == cases_fingerprint(answered)
    _write(demo_course / "solutions" / "demo.py", "print('BB')\n")
    _published(monkeypatch)
    again, other = grading.answered.get(course_tasks(), "demo")
    assert again.cases[1].expected == ("BB\n",)
    assert other != fingerprint  # the row records what it was graded against


def test_a_changed_checkers_py_grades_the_next_submission(demo_course, context, monkeypatch):
    from grader.web.worker.course_state import course_tasks

    grading = _grading(context, demo_course)

    def verdicts():
        task, _ = grading.answered.get(course_tasks(), "demo")
        work = StudentWork(student="ann", tasks=(task,), files={"demo.py": b"print('A')\n"}, known={})
        (result,) = grading.grade(work)
        return {case.verdict for case in result.cases}

    assert verdicts() == {Verdict.ACCEPTED}
    _write(demo_course / "checkers.py", CHECKERS.format(accept=False))
    assert verdicts() == {Verdict.ACCEPTED}  # not yet published
    _published(monkeypatch)
    assert verdicts() == {Verdict.WRONG_ANSWER}
