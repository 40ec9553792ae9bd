"""The portal's pages at their edges, through Django's test client: where a report's and the class
overview's links lead, the pages of a 404 and a 500, the time zone of every time shown, a student's
own numbering of their submissions, a badge that never reads as success beside a failure, the
regrade's confirmation, and one deadline (or limits) set on every task at once."""

from __future__ import annotations

import re
import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_hand_in, set_up_portal, signed_in  # noqa: E402
from support import PROJECT, mutate, solution  # noqa: E402

WRONG = mutate("nim_sum", "total = total ^ row", "total = total + row")


@pytest.fixture(scope="module", autouse=True)
def roster(tmp_path_factory):
    set_up_portal(
        tmp_path_factory.mktemp("portal"),
        "username,role\nann,student\nben,student\nteach,instructor\n",
    )


def hrefs(page: str) -> list:
    return re.findall(r'href="([^"]*)"', page)


def test_the_portals_report_links_back_to_its_submission_and_the_exercises(grade_queue):
    number = api_hand_in("ann", "nim_sum", WRONG)
    grade_queue()
    ann = signed_in("ann")
    report = ann.get(f"/submissions/{number}/report").content.decode()
    assert "index.html" not in hrefs(report)
    top = report[report.index("<body>") : report.index("<h1>")]
    assert 'href="./"' in top and 'href="/"' in top  # /submissions/N/ and the exercises
    assert ann.get(f"/submissions/{number}/").status_code == 200
    # a report kept before: its "All tasks" (index.html beside it) leads to the exercises, not a 404
    old = ann.get(f"/submissions/{number}/index.html")
    assert old.status_code == 302 and old["Location"] == "/"


def test_checks_own_report_still_links_its_index(tmp_path):
    import subprocess

    path = tmp_path / "nim_sum.py"
    path.write_text(WRONG)
    command = [sys.executable, "-m", "grader", "check", str(path), "--report", str(tmp_path / "report")]
    subprocess.run(command, cwd=PROJECT, capture_output=True)
    page = (tmp_path / "report" / "nim_sum.html").read_text()
    assert '<p><a href="index.html">← All tasks</a></p>' in page


def test_the_class_overview_on_the_portal_leads_back_to_the_class_and_grades_does_not(grade_queue):
    from grader.report.pages import class_html

    api_hand_in("ann", "nim_sum", solution("nim_sum"))
    grade_queue()
    page = signed_in("teach").get("/teach/class/").content.decode()
    assert 'href="/teach/"' in page
    assert "/teach/" not in class_html([], [], [])  # grade's own file: no address of the portal


def test_a_404_is_styled_as_the_portals_pages_with_a_way_back():
    for who in ("ann", "teach"):
        answer = signed_in(who).get("/no/such/page/")
        page = answer.content.decode()
        assert answer.status_code == 404
        assert "<style>" in page and 'class="note problem"' in page and 'nav class="top"' in page
        assert 'href="/"' in page and "Not found" in page and "Sign out" in page
    assert signed_in("ann").get("/submissions/999999/").status_code == 404


def test_a_500_is_styled_with_a_way_back_and_no_traceback():
    from django.test import RequestFactory

    from grader.web.site.failures import server_error

    answer = server_error(RequestFactory().get("/tasks/nim_sum/"))
    page = answer.content.decode()
    assert answer.status_code == 500
    assert "<style>" in page and 'class="note problem"' in page and 'href="/"' in page
    assert "Traceback" not in page


TIME = re.compile(r"\b\d{2}:\d{2}(?::\d{2})?\b(?!:)( UTC)?")


def shown_text(page: str) -> str:
    """What a page says, without its tags and their attributes (a form's value is no time shown)."""
    body = page[page.index("<body") :]
    return re.sub(r"<[^>]*>", " ", body)


def test_every_time_shown_says_its_zone(grade_queue):
    from grader.web.worker import queue

    api_hand_in("ann", "nim_sum", solution("nim_sum"))
    grade_queue()
    number = api_hand_in("ann", "nim_sum", WRONG)
    queue.say_alive("a-grader", 2, "this machine")
    teach = signed_in("teach")
    teach.post("/teach/tasks/nim_sum/limits", {"min_interval_s": "0", "max_count": "", "deadline": "2099-01-01 10:00"})
    pages = {
        "/": signed_in("ann").get("/").content.decode(),
        "/tasks/nim_sum/": signed_in("ann").get("/tasks/nim_sum/").content.decode(),
        f"/submissions/{number - 1}/": signed_in("ann").get(f"/submissions/{number - 1}/").content.decode(),
        "/teach/queue/": teach.get("/teach/queue/").content.decode(),
        "/teach/class/ann/index.html": teach.get("/teach/class/ann/index.html").content.decode(),
    }
    seen = 0
    for path, page in pages.items():
        for found in TIME.finditer(shown_text(page)):
            seen += 1
            assert found.group(1), f"{path}: {found.group(0)!r} without its zone"
    assert seen >= 6
    assert "graded " in shown_text(pages[f"/submissions/{number - 1}/"])  # when it was graded, too


def test_a_student_counts_their_submissions_of_a_task_from_1():
    from grader.web.models import Submission
    from grader.web.site.api import document

    first = api_hand_in("ann", "nim_sum", "print(0)")
    api_hand_in("ben", "nim_sum", "print(0)")
    api_hand_in("ann", "make_move", "print(0)")
    second = api_hand_in("ann", "nim_sum", "print(1)")
    api_hand_in("ann", "make_move", "print(1)")
    third = api_hand_in("ann", "nim_sum", "print(2)")
    assert (first, second, third) != (1, 2, 3) and third - first == 5  # ids run across tasks and students
    ann = signed_in("ann")
    history = ann.get("/tasks/nim_sum/").content.decode()
    links = re.findall(r'<a href="/submissions/(\d+)/">#(\d+)</a>', history)
    assert links == [(str(third), "3"), (str(second), "2"), (str(first), "1")]  # the id stays in the address
    assert "submission #2</h1>" in ann.get(f"/submissions/{second}/").content.decode()
    assert f'<a href="/submissions/{third}/">#3</a>' in ann.get("/").content.decode()
    teach = signed_in("teach").get("/teach/class/ann/index.html").content.decode()
    assert f'<a href="/submissions/{third}/">#3</a> <span class="muted">(id {third})</span>' in teach
    assert document(Submission.objects.get(id=second))["id"] == second  # the API's id keeps its meaning


def test_a_graded_failure_never_wears_a_green_badge(grade_queue):
    number = api_hand_in("ann", "nim_sum", WRONG)
    grade_queue()
    ann = signed_in("ann")
    for page in ("/", "/tasks/nim_sum/", f"/submissions/{number}/"):
        text = ann.get(page).content.decode()
        # the status, then the verdict: "graded" (neutral) beside "wrong answer" (red), never "done" in green
        assert '<span class="badge done">graded</span> <span class="badge failed">wrong answer</span>' in text, page
        assert '<span class="badge done">done</span>' not in text, page
    style = ann.get("/").content.decode()
    assert not re.search(r"\.badge\.done[^{]*\{[^}]*var\(--ok\)", style)  # "graded" is neutral


def test_a_regrade_asks_first_saying_how_many_then_queues_them(grade_queue):
    from grader.web.models import Submission

    api_hand_in("ann", "nim_sum", solution("nim_sum"))
    api_hand_in("ann", "nim_sum", WRONG)
    api_hand_in("ben", "nim_sum", WRONG)
    grade_queue()
    teach = signed_in("teach")
    asked = teach.get("/teach/tasks/nim_sum/regrade")
    page = asked.content.decode()
    assert asked.status_code == 200 and "2 latest submissions" in page
    assert 'name="confirm" value="yes"' in page and 'method="post"' in page
    assert not Submission.objects.filter(pending=True).exists()  # asking changed nothing
    unconfirmed = teach.post("/teach/tasks/nim_sum/regrade")
    assert unconfirmed.status_code == 200 and "2 latest submissions" in unconfirmed.content.decode()
    assert not Submission.objects.filter(pending=True).exists()
    done = teach.post("/teach/tasks/nim_sum/regrade", {"confirm": "yes"}, follow=True)
    assert "nim_sum: 2 latest submissions queued for grading again" in done.content.decode()
    assert Submission.objects.filter(pending=True).count() == 2
    assert "nothing to regrade" in teach.get("/teach/tasks/make_move/regrade").content.decode()
    assert teach.get("/teach/tasks/no_such/regrade").status_code == 404
    assert signed_in("ann").get("/teach/tasks/nim_sum/regrade").status_code == 403
    assert signed_in("ann").post("/teach/tasks/nim_sum/regrade", {"confirm": "yes"}).status_code == 403
    teach_page = teach.get("/teach/").content.decode()
    assert re.search(r'<form method="get" action="/teach/tasks/nim_sum/regrade">', teach_page)


def policies():
    from grader.web.models import TaskPolicy

    return {p.task: (p.min_interval_s, p.max_count, p.deadline) for p in TaskPolicy.objects.all()}


def test_one_deadline_and_limits_for_every_task_at_once_all_or_nothing():
    import datetime

    from grader.web.worker.course_state import course_tasks

    tasks = set(course_tasks())
    teach = signed_in("teach")
    teach.post("/teach/tasks/nim_sum/limits", {"min_interval_s": "30", "max_count": "5", "deadline": ""})
    answer = teach.post("/teach/limits", {"deadline": "2026-12-01 23:59"}, follow=True)
    assert answer.status_code == 200 and "limits and deadline saved" in answer.content.decode()
    deadline = datetime.datetime(2026, 12, 1, 23, 59, 59, 999_999, tzinfo=datetime.timezone.utc)
    found = policies()
    assert set(found) == tasks and all(value[2] == deadline for value in found.values())
    assert found["nim_sum"] == (30, 5, deadline)  # what was left empty stays each task's own
    from grader.web.models import MAX_COUNT_PER_TASK

    assert found["make_move"] == (0, MAX_COUNT_PER_TASK, deadline)  # a task no one set: the default budget
    teach.post("/teach/limits", {"min_interval_s": "60", "max_count": "3", "no_deadline": "yes"})
    assert set(policies().values()) == {(60, 3, None)}
    before = policies()
    for form, says in (
        ({"deadline": "tomorrow"}, "the deadline &#x27;tomorrow&#x27; is not a date and time"),
        ({"min_interval_s": "-5", "deadline": "2026-12-01 23:59"}, "cannot be negative"),
        ({"max_count": "0"}, "the maximum count must be between 1 and"),
        ({"deadline": "2026-12-01 23:59", "no_deadline": "yes"}, "not both"),
        ({}, "fill in a field"),
    ):
        refused = teach.post("/teach/limits", form)
        text = refused.content.decode()
        assert refused.status_code == 400 and says in text and "nothing was changed" in text, form
        assert policies() == before, form
    assert signed_in("ann").post("/teach/limits", {"deadline": "2026-12-01 23:59"}).status_code == 403
    assert 'id="every-task"' in teach.get("/teach/").content.decode()
