"""Staged course edits (docs/instructors.md, "Changing a case during the term"): the portal grades the
published course only. An edit in the course folder changes no one's marks until an instructor
publishes it; a publish runs verify on the changed tasks and refuses, with verify's or the loader's
sentence, anything that falls short; /teach/ says which version is live and what is waiting; a
regrade after a publish is offered, never run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_hand_in, set_up_portal, signed_in  # noqa: E402
from support import PROJECT, course_of, solution  # noqa: E402

RIGHT = "expected: '0'\n    hint: &xor"  # the first case of nim_sum: the nim-sum of 1, 3, 5, 7 is 0
TYPO = "expected: '1'\n    hint: &xor"  # the instructor's typo: a correct program now fails it
ADDED = """  - name: 'the nim-sum of 2, 2 is 0'
    input: '{"type": "nim_sum", "input": [2, 2]}'
    expected: '0'
"""


@pytest.fixture(scope="module", autouse=True)
def people(tmp_path_factory):
    set_up_portal(tmp_path_factory.mktemp("roster"), "username,role\nann,student\nteach,instructor\n")


@pytest.fixture
def course(tmp_path, django_site):
    """A course of nim_sum the portal grades for the test (its first version published as it is)."""
    from django.apps import apps
    from django.test.utils import override_settings

    folder = course_of(tmp_path / "course", ["nim_sum"])
    config = apps.get_app_config("portal")
    held = getattr(config, "held_course", None)
    with override_settings(GRADER_COURSE=str(folder)):
        config.held_course = None
        try:
            yield folder
        finally:
            config.held_course = held


def _edit(course: Path, old: str, new: str) -> None:
    case_file = course / "testcases" / "nim_sum.yaml"
    text = case_file.read_text(encoding="utf-8")
    assert old in text
    case_file.write_text(text.replace(old, new, 1), encoding="utf-8")


def _graded(grade_queue) -> tuple:
    """ann hands in a correct nim_sum; (its score, its number of cases)."""
    from grader.web.models import Submission

    number = api_hand_in("ann", "nim_sum", solution("nim_sum"))
    grade_queue()
    row = Submission.objects.get(id=number)
    assert row.status == "done", row.error
    return row.score, len(row.results)


def _teach_page() -> str:
    return signed_in("teach").get("/teach/").content.decode()


def _live():
    """The number of the version /teach/ says is live (None: it says none)."""
    found = re.search(r"Version (\d+) is live, published ", _teach_page())
    return int(found.group(1)) if found else None


def _publish():
    """teach presses Publish; the page it lands on."""
    answer = signed_in("teach").post("/teach/publish", follow=True)
    assert answer.status_code == 200
    return answer.content.decode()


def test_an_edited_expected_answer_changes_no_marks_until_published(course, grade_queue):
    before = _graded(grade_queue)
    assert before[0] == 1.0 or before[0] > 0
    _edit(course, RIGHT, TYPO)
    assert _graded(grade_queue) == before  # the typo is not graded: it is not published
    page = _teach_page()
    assert "Waiting in the course folder, not graded until published: nim_sum changed." in page
    assert "Version " in page and " is live, published " in page


def test_publish_refuses_a_failing_change_with_verifys_sentence_and_the_live_version_stays(course, grade_queue):
    before = _graded(grade_queue)
    live = _live()
    assert live is not None  # /teach/ says which version is live
    _edit(course, RIGHT, TYPO)
    page = _publish()
    assert '<p class="note problem" role="alert">Not published: the live version stays.</p>' in page  # red, not green
    assert "verify found what falls short:" in page
    assert "nim_sum: " in page and "the nim-sum of 1, 3, 5, 7 is 0" in page  # verify's sentence, naming the case
    assert ".staging-" not in page  # the instructor's own paths, never the copy's
    assert _live() == live and _graded(grade_queue) == before
    assert "nim_sum changed" in _teach_page()  # still waiting


def test_publish_refuses_a_course_that_does_not_load_with_the_loaders_sentence(course):
    live = _live()
    assert live is not None  # /teach/ says which version is live
    _edit(course, "checker: json", "checker: [json")
    page = _publish()
    assert "The course does not load:" in page and str(course / "testcases" / "nim_sum.yaml") in page
    assert "line " in page and ".staging-" not in page
    assert _live() == live


def test_a_published_change_grades_new_hand_ins_and_offers_a_regrade_it_does_not_run(course, grade_queue):
    from grader.web.models import Submission

    old_score, old_cases = _graded(grade_queue)
    first = _live()
    assert first is not None  # /teach/ says which version is live
    _edit(course, "cases:\n", "cases:\n" + ADDED)
    page = _publish()
    assert f"Version {first + 1} is live: nim_sum changed." in page
    assert "Regrade nim_sum on /teach/" in page and 'href="/teach/tasks/nim_sum/regrade"' in page
    assert "No changes waiting" in page
    assert f"Version {first + 1} is live, published " in page and " by teach (nim_sum changed)." in page
    assert not Submission.objects.filter(pending=True).exists()  # offered, never run
    assert _graded(grade_queue) == (old_score + 1, old_cases + 1)  # the new case grades the next hand-in
    again = _publish()
    assert "Nothing to publish" in again and _live() == first + 1


def test_a_student_cannot_publish(course):
    live = _live()
    assert live is not None  # /teach/ says which version is live
    _edit(course, "cases:\n", "cases:\n" + ADDED)
    assert signed_in("ann").post("/teach/publish").status_code == 403
    assert signed_in("teach").get("/teach/publish").status_code == 405  # a POST only, with its CSRF token
    assert _live() == live


def test_the_command_publishes_then_says_nothing_to_publish(tmp_path):
    course = course_of(tmp_path / "course", ["nim_sum"])
    line = [sys.executable, "-m", "grader", "publish", "--data", str(tmp_path / "data"), "--course", str(course)]
    environment = {**os.environ, "NIM_GRADER_DB": ""}  # its own SQLite in its own data folder
    first = subprocess.run(line, capture_output=True, text=True, cwd=PROJECT, env=environment, timeout=600)
    assert first.returncode == 0, first.stderr
    assert "Version 1 is live: nim_sum added." in first.stdout
    versions = tmp_path / "data" / "course-versions"
    assert (versions / "1" / "testcases" / "nim_sum.yaml").is_file()
    assert oct((versions / "1").stat().st_mode & 0o777) == "0o700"
    second = subprocess.run(line, capture_output=True, text=True, cwd=PROJECT, env=environment, timeout=600)
    assert second.returncode == 0, second.stderr
    assert "Nothing to publish" in second.stdout
    assert "version 1 is live" in (tmp_path / "data" / "logs" / "error.log").read_text()
