"""Instructors set each task's limits and deadline, and whether marks come from the latest or the
best submission, on /teach/; students meet them when handing in (pages and API) and in the
gradebooks. Through Django's test client."""

from __future__ import annotations

import csv
import datetime
import io
import re
import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from support import mutate, solution  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def tokens(tmp_path_factory):
    from grader.web.site import roster as accounts

    path = tmp_path_factory.mktemp("roster") / "roster.csv"
    path.write_text("username,role\nann,student\nben,student\nteach,instructor\n")
    accounts.import_roster(path)
    from grader.web.models import FirstSignIn

    FirstSignIn.objects.all().delete()  # these have chosen their password already
    return dict(accounts.new_tokens(["ann", "ben", "teach"]))


def signed_in(name):
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(get_user_model().objects.get(username=name))
    client.get("/teach/" if name == "teach" else "/")  # the CSRF cookie, as a browser gets it
    return client


def post(client, path, data):
    """A form sent as a browser sends it: with the page's CSRF token."""
    return client.post(path, dict(data, csrfmiddlewaretoken=client.cookies["csrftoken"].value))


def set_limits(client, task="nim_sum", interval="0", count="", deadline=""):
    return post(
        client, f"/teach/tasks/{task}/limits", {"min_interval_s": interval, "max_count": count, "deadline": deadline}
    )


def page_hand_in(client, task, text):
    return post(client, f"/tasks/{task}/", {"text": text})


def api_hand_in(tokens, user, task, text):
    from django.test import Client

    upload = io.BytesIO(text.encode())
    upload.name = f"{task}.py"
    return Client().post("/api/submissions", {"task": task, "file": upload}, HTTP_AUTHORIZATION=f"Token {tokens[user]}")


def policy(task="nim_sum"):
    from grader.web.models import TaskPolicy

    found = TaskPolicy.objects.filter(task=task).first()
    return None if found is None else (found.min_interval_s, found.max_count, found.deadline)


def test_a_minimum_interval_set_on_the_page_refuses_the_second_hand_in_with_retry_after(tokens):
    teach = signed_in("teach")
    answer = set_limits(teach, interval="120")
    assert answer.status_code == 302 and answer["Location"] == "/teach/"
    shown = teach.get("/teach/").content.decode()
    assert (
        "limits and deadline saved" in shown and 'name="min_interval_s" id="id_interval_nim_sum" value="120"' in shown
    )
    ann = signed_in("ann")
    assert "Wait at least 120 s between two submissions." in ann.get("/tasks/nim_sum/").content.decode()
    assert page_hand_in(ann, "nim_sum", "print(0)").status_code == 302
    again = page_hand_in(ann, "nim_sum", "print(0)")
    assert again.status_code == 429 and 0 < int(again["Retry-After"]) <= 120
    assert "Hand in nim_sum again in" in again.content.decode()
    by_api = api_hand_in(tokens, "ann", "nim_sum", "print(0)")
    assert by_api.status_code == 429 and 0 < int(by_api["Retry-After"]) <= 120
    assert api_hand_in(tokens, "ben", "nim_sum", "print(0)").status_code == 202  # another student's own clock
    assert api_hand_in(tokens, "ann", "exclusive_or", "print(0)").status_code == 202  # another task's


def test_a_maximum_count_set_on_the_page_refuses_the_one_too_many_with_its_sentence(tokens):
    from grader.web.models import Submission

    teach = signed_in("teach")
    assert set_limits(teach, count="2").status_code == 302
    assert 'id="id_count_nim_sum" value="2"' in teach.get("/teach/").content.decode()
    ann = signed_in("ann")
    assert page_hand_in(ann, "nim_sum", "print(0)").status_code == 302
    assert "you have used 1" in ann.get("/tasks/nim_sum/").content.decode()
    assert api_hand_in(tokens, "ann", "nim_sum", "print(0)").status_code == 202
    refused = page_hand_in(ann, "nim_sum", "print(0)")
    assert refused.status_code == 429 and "You have handed in nim_sum the 2 times allowed" in refused.content.decode()
    by_api = api_hand_in(tokens, "ann", "nim_sum", "print(0)")
    assert by_api.status_code == 429 and "the 2 times allowed" in by_api.json()["error"]
    assert Submission.objects.filter(student__username="ann", task="nim_sum").count() == 2
    assert set_limits(teach, count="").status_code == 302  # empty: no limit again
    assert policy()[1] is None and api_hand_in(tokens, "ann", "nim_sum", "print(0)").status_code == 202


def test_a_deadline_in_the_past_marks_submissions_after_it_late_and_the_history_says_so(tokens):
    from datetime import datetime, timezone

    teach = signed_in("teach")
    ann = signed_in("ann")
    earlier = page_hand_in(ann, "nim_sum", "print(0)")
    assert "(late)" not in ann.get(earlier["Location"]).content.decode()
    saved = set_limits(teach, deadline="2020-01-31 23:59")
    assert saved.status_code == 302
    # handed in after the deadline set since: late now too, and the instructor is told so
    assert re.search(r"\d+ submissions? (is|are) now late\.", teach.get("/teach/").content.decode())
    assert policy()[2] == datetime(2020, 1, 31, 23, 59, 59, 999_999, tzinfo=timezone.utc)  # on time to 23:59:59
    assert 'value="2020-01-31 23:59"' in teach.get("/teach/").content.decode()
    page = ann.get("/tasks/nim_sum/").content.decode()
    said = (
        "Deadline: 2020-01-31 23:59 UTC: a hand-in up to 23:59:59 UTC is on time, later ones are graded and "
        "marked late (late work counts in full)."
    )
    assert said in page
    late_page = page_hand_in(ann, "nim_sum", "print(1)")
    late_api = api_hand_in(tokens, "ann", "nim_sum", "print(2)")
    assert late_api.status_code == 202
    shown = tokens and ann.get(f"/api/submissions/{late_api.json()['id']}", HTTP_AUTHORIZATION=f"Token {tokens['ann']}")
    assert shown.json()["late"] is True
    history = ann.get("/tasks/nim_sum/").content.decode().split("Your submissions")[1]
    rows = history.split("<tr>")[2:]
    assert len(rows) == 3 and ["late" in row for row in rows] == [True, True, True]  # newest first
    assert "(late)" in ann.get(late_page["Location"]).content.decode()
    assert set_limits(teach, deadline="2099-06-01T12:00").status_code == 302  # a browser's datetime-local
    assert policy()[2] == datetime(2099, 6, 1, 12, 0, 59, 999_999, tzinfo=timezone.utc)
    assert re.search(r"\d+ submissions are no longer late\.", teach.get("/teach/").content.decode())
    assert "(late)" not in ann.get(late_page["Location"]).content.decode()
    on_time_again = page_hand_in(ann, "nim_sum", "print(3)")
    assert "(late)" not in ann.get(on_time_again["Location"]).content.decode()


@pytest.mark.parametrize(
    "fields, sentence",
    [
        ({"interval": "-5"}, "the minimum interval cannot be negative (-5)"),
        ({"interval": "ten"}, "the minimum interval must be a whole number, not &#x27;ten&#x27;"),
        ({"interval": "1.5"}, "the minimum interval must be a whole number"),
        ({"interval": "9" * 200}, "the minimum interval must be a whole number"),
        ({"interval": "999999999"}, "the minimum interval must be between 0 and 31,622,400, not 999,999,999"),
        ({"count": "-1"}, "the maximum count cannot be negative (-1) (leave it empty for no limit)"),
        ({"count": "0"}, "the maximum count must be between 1 and 10,000, not 0 (leave it empty for no limit)"),
        ({"count": "٣"}, "the maximum count must be a whole number"),
        ({"deadline": "tomorrow"}, "the deadline &#x27;tomorrow&#x27; is not a date and time: write it as 2026-12-01"),
        ({"deadline": "2026-02-30 10:00"}, "is not a date and time"),
        ({"deadline": "<script>" * 50}, "is not a date and time"),
    ],
)
def test_bad_values_are_refused_with_their_sentence_and_nothing_changes(fields, sentence):
    teach = signed_in("teach")
    assert set_limits(teach, interval="30", count="3", deadline="2030-01-01 00:00").status_code == 302
    before = policy()
    refused = set_limits(teach, **{"interval": "30", "count": "3", "deadline": "2030-01-01 00:00", **fields})
    text = refused.content.decode()
    assert refused.status_code == 400 and sentence in text and "nothing was changed" in text
    assert "<script><script>" not in text
    assert policy() == before
    assert 'value="30"' in text and 'value="3"' in text and 'value="2030-01-01 00:00"' in text  # as they are now


@pytest.mark.parametrize(
    "deadline",
    [
        # the last and the first minute that exist, with every kind of offset: kept in UTC, or a sentence
        "9999-12-31 23:59-14:00",
        "9999-12-31 23:59-00:01",
        "9999-12-31T23:59+14:00",
        "9999-12-31 23:59Z",
        "9999-12-31 23:59+23:59:59.999999",
        "0001-01-01 00:00+14:00",
        "0001-01-01T00:00+00:01",
        "0001-01-01 00:00-23:59",
        "0001-01-01 00:00Z",
        # offsets no clock has, and dates beyond the calendar
        "2026-06-01 12:00+24:00",
        "2026-06-01 12:00-99:59",
        "2026-06-01 12:00+1:00",
        "2026-06-01 12:00+14:00:00.5",
        "10000-01-01 00:00",
        "0000-12-31 23:59",
        "2026-06-01 12:00+14\x00",
    ],
)
def test_any_deadline_is_kept_in_utc_or_refused_with_a_sentence(deadline):
    teach = signed_in("teach")
    answer = set_limits(teach, deadline=deadline)
    if answer.status_code == 302:
        kept = policy()[2]
        assert kept.utcoffset() == datetime.timedelta(0) and 1 <= kept.year <= 9999
        assert teach.get("/teach/").status_code == 200 and signed_in("ann").get("/tasks/nim_sum/").status_code == 200
    else:
        text = answer.content.decode()
        assert answer.status_code == 400 and "nothing was changed" in text, text[:300]
        assert "is not a date and time" in text or "falls outside the years 1 to 9999 in UTC" in text
        assert policy() is None


@pytest.mark.parametrize("deadline", ["0001-01-01 00:00", "0999-06-01 08:05", "2026-12-01 23:59"])
def test_a_deadline_shown_back_on_the_page_is_taken_again_unchanged(deadline):
    teach = signed_in("teach")
    assert set_limits(teach, deadline=deadline).status_code == 302
    page = teach.get("/teach/").content.decode()
    shown = re.search(r'id="id_deadline_nim_sum"[^>]*value="([^"]*)"', page).group(1)
    assert shown == deadline  # the year written with its four digits, as the form takes it
    assert set_limits(teach, deadline=shown).status_code == 302


def test_an_unknown_task_is_404_and_a_get_is_405():
    teach = signed_in("teach")
    assert set_limits(teach, task="no_such_task", interval="5").status_code == 404
    assert teach.get("/teach/tasks/nim_sum/limits").status_code == 405
    assert policy("no_such_task") is None


def test_students_get_403_on_the_forms_and_change_nothing():
    from grader.web.models import CourseSetting

    ann = signed_in("ann")
    settings = list(CourseSetting.objects.values())
    assert set_limits(ann, interval="999").status_code == 403
    assert post(ann, "/teach/marks", {"marks_from": "best"}).status_code == 403
    assert post(ann, "/teach/hidden", {"hidden_results": "after_deadline"}).status_code == 403
    assert policy() is None and list(CourseSetting.objects.values()) == settings


def test_the_forms_need_the_csrf_token():
    teach = signed_in("teach")
    assert teach.post("/teach/tasks/nim_sum/limits", {"min_interval_s": "5"}).status_code == 403
    assert teach.post("/teach/marks", {"marks_from": "best"}).status_code == 403
    assert teach.post("/teach/hidden", {"hidden_results": "after_deadline"}).status_code == 403
    assert policy() is None


def nim_sum_scores(text):
    rows = list(csv.reader(io.StringIO(text)))
    column = next(i for i, name in enumerate(rows[0]) if "nim_sum" in name)
    return {row[0]: float(row[column]) for row in rows[1:]}


def test_latest_or_best_changes_the_gradebooks_and_the_class_page(tokens, grade_queue):
    from django.test import Client

    wrong = mutate("nim_sum", "total = total ^ row", "total = total + row")
    api_hand_in(tokens, "ann", "nim_sum", solution("nim_sum"))
    api_hand_in(tokens, "ann", "nim_sum", wrong)  # ann's latest is worse than her best
    api_hand_in(tokens, "ben", "nim_sum", wrong)
    grade_queue()
    teach = signed_in("teach")
    api = Client()

    def both():
        page = teach.get("/teach/gradebook.csv").content.decode()
        by_api = api.get("/api/gradebook.csv", HTTP_AUTHORIZATION=f"Token {tokens['teach']}").content.decode()
        return nim_sum_scores(page), nim_sum_scores(by_api)

    latest, latest_api = both()
    assert latest == latest_api and latest["ann"] == latest["ben"] < 100
    assert 'value="latest" selected' in teach.get("/teach/").content.decode()
    assert "latest graded submissions" in teach.get("/teach/class/").content.decode()
    answer = post(teach, "/teach/marks", {"marks_from": "best"})
    assert answer.status_code == 302
    assert "Marks now come from each student&#x27;s best" in teach.get("/teach/").content.decode()
    best, best_api = both()
    assert best == best_api and best["ann"] > latest["ann"] and best["ben"] == latest["ben"]
    assert 'value="best" selected' in teach.get("/teach/").content.decode()
    assert "best graded submissions" in teach.get("/teach/class/").content.decode()
    refused = post(teach, "/teach/marks", {"marks_from": "median"})
    assert refused.status_code == 400 and "not &#x27;median&#x27;; nothing was changed" in refused.content.decode()
    assert both()[0] == best
    assert post(teach, "/teach/marks", {"marks_from": "latest"}).status_code == 302 and both()[0] == latest
