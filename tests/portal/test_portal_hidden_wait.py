"""Issue 35, invariant 3: before a student's deadline nothing a program does on a hidden case can
reach them, because no hidden case runs (``grader/web/worker/hidden_results.py``, the course's default).

The attack is the whole class: a program that answers the public cases as the reference does and,
on any other input, crashes, loops, floods or answers wrongly (chosen by the input, so each hidden
case gets its own) must show its student exactly what an honest program shows, on every page and
in the API, until the deadline; then both are graded in full, and the instructor's lever runs
hidden cases at every hand-in.
"""

from __future__ import annotations

import re
import sys
from datetime import timedelta

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_hand_in, set_up_portal, signed_in  # noqa: E402
from support import COURSE, solution  # noqa: E402

pytestmark = pytest.mark.hidden_wait
TASK = "exclusive_or"

_PREAMBLE = """import io
import sys

_DATA = sys.stdin.read()
if _DATA.strip() not in {public!r}:
    _KIND = {hostile} and sum(_DATA.encode()) % 4
    if _KIND == 1:
        raise SystemExit(3)
    if _KIND == 2:
        while True:
            pass
    if _KIND == 3:
        print("1" * 5_000_000)
    if {hostile}:
        print("7")
        raise SystemExit(0)
sys.stdin = io.StringIO(_DATA)
"""


def _program(hostile: bool) -> str:
    """The reference solution behind a preamble that, when ``hostile``, does something of its own
    on every input that is not a public case's."""
    from grader.web.worker.course_state import course_tasks

    public = sorted(case.input.strip() for case in course_tasks()[TASK].cases if not case.hidden)
    return _PREAMBLE.format(public=public, hostile=hostile) + solution(TASK)


@pytest.fixture(scope="module", autouse=True)
def _class(tmp_path_factory, django_site):
    set_up_portal(tmp_path_factory.mktemp("hidden"), "username,role\nann,student\nben,student\nteach,instructor\n")


@pytest.fixture
def watched_queue(context):
    """grade() → the hidden cases every grading of the queue was given (they must be none before
    the deadline), grading it all on the session's runner as the portal does."""
    from dataclasses import replace

    from grader.web.worker.dispatcher import drain
    from grader.web.worker.grading_backends import LocalGrading, grading_context

    given: list = []

    class Watched(LocalGrading):
        def grade(self, work):
            given.extend(case.name for task in work.tasks for case in task.cases if case.hidden)
            return super().grade(work)

    def grade() -> list:
        given.clear()
        drain(Watched(replace(grading_context(context.runner, COURSE), case_jobs=2)))
        return list(given)

    return grade


def _seen(user: str, number: int) -> dict:
    """Everything ``user`` can read of submission ``number``: the API's document (without its id and
    times), the cases of its page, its report's text and its line on the task page, each with what
    differs between any two gradings (ids, times, the file's own lines) taken out."""
    client = signed_in(user)
    from grader.web.models import Submission
    from grader.web.site.api import document

    shown = document(Submission.objects.get(id=number))
    for key in ("id", "student", "submitted_at", "submitted_at_local", "report_url"):
        shown.pop(key)
    for case in shown["cases"] or []:
        case.pop("time_s", None)
    page = client.get(f"/submissions/{number}/").content.decode()
    report = client.get(f"/submissions/{number}/report").content.decode()
    task_page = client.get(f"/tasks/{TASK}/").content.decode()
    listed = re.search(rf'<tr[^>]*>\s*<td[^>]*><a href="/submissions/{number}/".*?</tr>', task_page, re.S)
    times = r"\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?( \w+)?|\d+(\.\d+)? ?(ms|s)\b|#\d+|/submissions/\d+/"
    return {
        "api": shown,
        # the page's cause, notes and cases: all but the nav (the user's name) and the file's own lines
        "cases": re.sub(times, "", page.split("<main>")[1].split("<h2>Your file")[0]),
        "report": re.sub(times, "", re.sub(r"<pre.*?</pre>", "", report, flags=re.S)).replace(f"{user}/", ""),
        "line": re.sub(times, "", listed.group(0) if listed else ""),
    }


def _set_deadline(moment) -> None:
    text = "" if moment is None else moment.strftime("%Y-%m-%d %H:%M")
    answer = signed_in("teach").post(f"/teach/tasks/{TASK}/limits", {"deadline": text})
    assert answer.status_code == 302, answer.content.decode()[:400]


def test_before_the_deadline_a_program_cannot_tell_its_student_anything_of_a_hidden_case(watched_queue):
    from django.utils import timezone

    from grader.web.models import Submission

    for deadline in (None, timezone.now() + timedelta(days=2)):  # none set yet, and one to come
        _set_deadline(deadline)
        honest = api_hand_in("ann", TASK, _program(hostile=False))
        hostile = api_hand_in("ben", TASK, _program(hostile=True))
        assert watched_queue() == [], "a hidden case ran before the deadline"
        seen = {number: _seen(user, number) for user, number in (("ann", honest), ("ben", hostile))}
        assert seen[honest] == seen[hostile]
        rows = Submission.objects.filter(id__in=[honest, hostile])
        assert all(row.public_only for row in rows)
        api = seen[honest]["api"]
        assert api["public_only"] is True and api["verdict"] == "not_run"
        hidden = [case for case in api["cases"] if "hidden case" in case["name"]]
        assert hidden and all(case["verdict"] == "not_run" for case in hidden)
        assert all(case["message"].startswith("Hidden case: it runs after your deadline") for case in hidden)
        assert all(case["verdict"] == "accepted" for case in api["cases"] if case not in hidden)
        assert "public cases accepted" in seen[honest]["line"]
        assert "This hidden case was not accepted" not in str(seen[hostile])


def test_when_the_deadline_passes_every_waiting_hand_in_is_graded_in_full(watched_queue):
    from django.utils import timezone

    from grader.web.models import Submission

    _set_deadline(timezone.now() + timedelta(days=2))
    honest = api_hand_in("ann", TASK, _program(hostile=False))
    hostile = api_hand_in("ben", TASK, _program(hostile=True))
    assert watched_queue() == []
    _set_deadline(timezone.now() - timedelta(minutes=1))  # the form asks for the waiting rows again
    assert Submission.objects.filter(id__in=[honest, hostile], pending=True).count() == 2
    assert sorted(watched_queue()) == ["hidden case 1", "hidden case 1", "hidden case 2", "hidden case 2"]
    full = {number: Submission.objects.get(id=number) for number in (honest, hostile)}
    assert not any(row.public_only for row in full.values())
    assert full[honest].verdict == "accepted" and full[honest].score == full[honest].max_score
    assert full[hostile].verdict != "accepted" and full[hostile].score < full[hostile].max_score
    later = api_hand_in("ann", TASK, _program(hostile=True))  # late: its hidden cases run at once
    assert sorted(watched_queue()) == ["hidden case 1", "hidden case 2"]
    assert not Submission.objects.get(id=later).public_only


def test_an_extension_keeps_its_students_hidden_cases_waiting(watched_queue):
    from django.utils import timezone

    from grader.web.models import Submission
    from grader.web.worker.hidden_results import release_due

    _set_deadline(timezone.now() + timedelta(days=2))
    theirs = api_hand_in("ann", TASK, _program(hostile=True))
    others = api_hand_in("ben", TASK, _program(hostile=True))
    watched_queue()
    later = (timezone.now() + timedelta(days=9)).strftime("%Y-%m-%d %H:%M")
    granted = signed_in("teach").post("/teach/class/ann/extension", {"task": TASK, "deadline": later})
    assert granted.status_code == 302
    _set_deadline(timezone.now() - timedelta(minutes=1))
    assert release_due() == 0  # asked once already; a second look asks nothing more
    assert watched_queue() == ["hidden case 1", "hidden case 2"]  # ben's only
    assert Submission.objects.get(id=theirs).public_only and not Submission.objects.get(id=others).public_only
    assert "hidden cases run after your deadline" in signed_in("ann").get(f"/tasks/{TASK}/").content.decode()


def test_the_instructor_runs_hidden_cases_at_every_hand_in_and_only_the_instructor(watched_queue):
    from grader.web.models import Submission
    from grader.web.worker.hidden_results import hidden_results

    _set_deadline(None)
    waiting = api_hand_in("ann", TASK, _program(hostile=False))
    assert watched_queue() == []
    teach = signed_in("teach")
    for wrong in ("", "sometimes", "AT_ONCE", "x" * 5000):
        refused = teach.post("/teach/hidden", {"hidden_results": wrong})
        assert refused.status_code == 400 and "nothing was changed" in refused.content.decode()
    assert hidden_results() == "after_deadline"
    assert signed_in("ann").post("/teach/hidden", {"hidden_results": "at_once"}).status_code == 403
    answer = teach.post("/teach/hidden", {"hidden_results": "at_once"}, follow=True)
    assert "1 submission graded on the public cases only will be graded again in full" in answer.content.decode()
    assert sorted(watched_queue()) == ["hidden case 1", "hidden case 2"]
    assert Submission.objects.get(id=waiting).score == Submission.objects.get(id=waiting).max_score
    api_hand_in("ben", TASK, _program(hostile=False))
    assert sorted(watched_queue()) == ["hidden case 1", "hidden case 2"]


def test_a_portal_that_already_holds_hand_ins_keeps_running_hidden_cases_at_once():
    import importlib

    from django.apps import apps

    from grader.web.models import AT_ONCE, CourseSetting

    migration = importlib.import_module("grader.web.migrations.0015_hidden_after_deadline")
    CourseSetting.objects.all().delete()
    migration.keep_what_a_running_course_had(apps, None)
    assert not CourseSetting.objects.exists()  # a new course: the default, after the deadline
    api_hand_in("ann", TASK, "print(0)\n")
    migration.keep_what_a_running_course_had(apps, None)
    assert CourseSetting.objects.get(pk=1).hidden_results == AT_ONCE
