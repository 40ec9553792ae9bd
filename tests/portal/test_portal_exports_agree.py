"""Every export agrees with what each student's own page shows (through Django's test client, on a
roster of its own): for a class with a student on time, one late (a penalty), one adjusted, one
both and one who handed nothing in, the gradebook CSV (page and API), the Gradescope zip (its total
the sum of its tests, no test hidden from the student) and the class page count the points the
student's own task page says their work counts for."""

from __future__ import annotations

import csv
import html
import io
import json
import re
import sys
import zipfile
from datetime import datetime, timezone

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_hand_in, set_up_portal, signed_in  # noqa: E402
from support import mutate  # noqa: E402

WRONG = mutate("nim_sum", "total = total ^ row", "total = total + row")
CLASS = ("agr_on", "agr_late", "agr_adj", "agr_both", "agr_none")
ROSTER = "username,role\n" + "".join(f"{name},student\n" for name in CLASS) + "agr_teach,instructor\n"
PAST = "2020-06-01 12:00"


@pytest.fixture(scope="module", autouse=True)
def portal(tmp_path_factory):
    set_up_portal(tmp_path_factory.mktemp("portal"), ROSTER)


def post(client, path, data):
    return client.post(path, dict(data, csrfmiddlewaretoken=client.cookies["csrftoken"].value))


def words(page) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page.content.decode())))


@pytest.fixture
def term(grade_queue):
    """The class above, graded: nim_sum due in the past with a 20 % penalty; agr_on's hand-in moved
    before the deadline; +3 for agr_adj and agr_both. Returns the instructor's client."""
    from grader.web.marks.late_work import refresh_late
    from grader.web.models import Submission

    teach = signed_in("agr_teach")
    teach.get("/teach/")  # the CSRF cookie
    limits = {"min_interval_s": "0", "max_count": "", "deadline": PAST, "late_rule": "penalty", "late_penalty": "20"}
    assert post(teach, "/teach/tasks/nim_sum/limits", limits).status_code == 302
    numbers = {name: api_hand_in(name, "nim_sum", WRONG) for name in CLASS if name != "agr_none"}
    grade_queue()
    for name in ("agr_on", "agr_adj"):
        Submission.objects.filter(id=numbers[name]).update(submitted_at=datetime(2020, 1, 1, tzinfo=timezone.utc))
    refresh_late(["nim_sum"])
    for name in ("agr_adj", "agr_both"):
        made = post(teach, f"/teach/class/{name}/adjustment", {"task": "nim_sum", "points": "+3", "comment": "by hand"})
        assert made.status_code == 302
    return teach


def own_points(student: str) -> float:
    """The points the student's own nim_sum page says their work counts for."""
    page = signed_in(student).get("/tasks/nim_sum/").content.decode()
    counts = page.split('id="counts"')[1].split("</p>")[0]
    shown = re.findall(r"([\d.]+) / [\d.]+", html.unescape(re.sub(r"<[^>]+>", "", counts)))
    return float(shown[-1]) if shown else 0.0  # nothing handed in: nothing counts


def test_every_export_counts_what_each_students_own_page_shows_and_nothing_is_hidden(term):
    from django.test import Client

    from grader.web.site import roster as accounts
    from grader.web.worker.course_state import course_tasks

    tasks = course_tasks()
    text = term.get("/teach/gradebook.csv").content.decode()
    ((_, token),) = accounts.new_tokens(["agr_teach"])
    assert Client().get("/api/gradebook.csv", HTTP_AUTHORIZATION=f"Token {token}").content.decode() == text
    lms = list(csv.reader(io.StringIO(term.get("/teach/gradebook.csv?lms=1").content.decode())))
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[1:] == lms[2:]  # grader-cli.md's gradebook: one row per student; the LMS one adds its row
    header, possible = lms[0], dict(zip(lms[0], lms[1]))
    assert possible["student"] == "Points Possible"  # first after the header, as an LMS import reads it
    assert all(float(possible[task.id]) == task.max_score for task in tasks.values())
    assert float(possible["total"]) == pytest.approx(sum(task.max_score for task in tasks.values()))
    book = {row[0]: dict(zip(header, row)) for row in rows[1:]}
    archive = zipfile.ZipFile(io.BytesIO(term.get("/teach/gradescope.zip").content))
    overview = term.get("/teach/class/").content.decode()
    worth = tasks["nim_sum"].max_score
    seen = {}
    for student in CLASS:
        points = own_points(student)
        seen[student] = points
        assert float(book[student]["nim_sum"]) == pytest.approx(points), student
        document = json.loads(archive.read(f"{student}/results.json"))
        assert document["score"] == float(book[student]["total"]), student
        scores = [test["score"] for test in document["tests"]]
        assert sum(scores) == pytest.approx(document["score"], abs=1e-9), (student, document["tests"])
        nim_sum = [t for t in document["tests"] if t["name"].startswith("nim_sum: ")]
        assert sum(t["score"] for t in nim_sum) == pytest.approx(points, abs=1e-9), student
        assert sum(t["max_score"] for t in document["tests"]) == pytest.approx(float(possible["total"]))
        assert {t.get("visibility", "visible") for t in document["tests"]} == {"visible"}
        row = overview.split(f'title="{student}"')[1].split("</tr>")[0]
        assert f"{points:g}/{worth:g}" in row, student
    assert seen["agr_late"] < seen["agr_on"] < seen["agr_adj"] and seen["agr_none"] == 0  # each path taken
    assert "nim_sum" in book["agr_none"]["not_handed_in"]
    # the late penalty and the adjustment are tests of their own; hidden cases show what the page does
    both = json.loads(archive.read("agr_both/results.json"))
    changes = {t["name"]: t for t in both["tests"] if t["max_score"] == 0}
    assert set(changes) == {"nim_sum: late -20 %", "nim_sum: adjusted"}
    assert changes["nim_sum: late -20 %"]["score"] < 0 and changes["nim_sum: adjusted"]["score"] == pytest.approx(3)
    assert "by hand" in changes["nim_sum: adjusted"]["output"]
    hidden = [t for t in both["tests"] if t["name"].endswith(" (hidden)")]
    failed = [t for t in hidden if t["status"] == "failed"]
    assert failed and all(t["output"].startswith("This hidden case was not accepted: your program ") for t in failed)
    assert all(t["output"] == "Accepted." for t in hidden if t["status"] == "passed")
    page = words(signed_in("agr_both").get("/tasks/nim_sum/"))
    assert "late -20 %" in page and "adjusted +3: by hand" in page
