"""Known mistakes on the portal: a graded submission keeps the known mistake its answers match; the
student's report and the API say it, and the class page lists the class's common mistakes with the
students, as ``grade``'s class overview does."""

from __future__ import annotations

import html
import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_get, api_hand_in, set_up_portal, signed_in  # noqa: E402
from support import mutate, solution  # noqa: E402

ADDS = mutate("nim_sum", "total = total ^ row", "total = total + row")
# in the instructor's words (the header's "# Mistake:"), and in the student's ("# student-says:")
INSTRUCTOR_WORDS = "adds the rows with + instead of XOR-ing them"
STUDENT_WORDS = "the rows are added up with + instead of XOR-ed"


@pytest.fixture(scope="module", autouse=True)
def roster(tmp_path_factory):
    set_up_portal(
        tmp_path_factory.mktemp("portal"),
        "username,role\nann,student\nben,student\ncy,student\nteach,instructor\n",
    )


def common_mistakes_section(page: str) -> str:
    start = page.index("Common mistakes in this class")
    return page[start : page.index("</section>", start)]


def test_the_class_page_lists_a_mistake_several_students_make_with_their_names(grade_queue):
    api_hand_in("ann", "nim_sum", solution("nim_sum"))
    api_hand_in("ben", "nim_sum", ADDS)
    api_hand_in("cy", "nim_sum", ADDS)
    grade_queue()
    page = signed_in("teach").get("/teach/class/").content.decode()
    section = common_mistakes_section(page)
    assert "2 students" in section and "nim_sum" in section and html.escape(INSTRUCTOR_WORDS) in section
    assert 'href="ben/index.html"' in section and 'href="cy/index.html"' in section
    assert ">ann<" not in section  # right answers are nobody's mistake


def test_the_student_is_told_on_the_report_and_in_the_api_and_a_right_answer_is_not(grade_queue):
    wrong = api_hand_in("ben", "nim_sum", ADDS)
    right = api_hand_in("ann", "nim_sum", solution("nim_sum"))
    grade_queue()
    report = signed_in("ben").get(f"/submissions/{wrong}/report").content.decode()
    assert "Your answers match a known mistake:</strong> " + html.escape(STUDENT_WORDS) in report
    known = api_get("ben", f"/api/submissions/{wrong}")["known_mistake"]
    assert known["mistake"] == STUDENT_WORDS and known["matched"] == known["failing"] >= 3
    assert api_get("ann", f"/api/submissions/{right}")["known_mistake"] is None
    assert "known mistake" not in signed_in("ann").get(f"/submissions/{right}/report").content.decode()


def test_a_mistake_fixed_in_a_later_submission_leaves_the_class_page(grade_queue):
    api_hand_in("ben", "nim_sum", ADDS)
    grade_queue()
    assert "Common mistakes in this class" in signed_in("teach").get("/teach/class/").content.decode()
    api_hand_in("ben", "nim_sum", solution("nim_sum"))
    grade_queue()
    assert "Common mistakes in this class" not in signed_in("teach").get("/teach/class/").content.decode()


def test_known_mistakes_that_cannot_be_recognised_cost_the_diagnosis_never_the_grading(
    monkeypatch, caplog, grade_queue
):
    from grader.web.models import Submission
    from grader.web.worker import grading_backends

    def broken(*args, **kwargs):
        raise OSError("the known-wrong folder cannot be read")

    monkeypatch.setattr(grading_backends, "course_signatures", broken)
    number = api_hand_in("ben", "nim_sum", ADDS)
    grade_queue()
    row = Submission.objects.get(id=number)
    assert row.status == "done" and row.verdict == "wrong_answer" and row.mistake == {}
    assert "its known mistakes could not be recognised" in caplog.text


def test_the_database_schema_matches_the_models():
    from django.core.management import call_command

    call_command("makemigrations", "portal", "--check", "--dry-run", verbosity=0)  # exits 1 on a missing one
