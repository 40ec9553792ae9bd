"""Times are local: the course's time zone is set once on /teach/, deadlines are written in it and
every page shows its times in it with the zone named; a deadline's minute is on time to its last
second, at the hand-in and when a deadline changes; the API keeps UTC and adds the local moment.
Through Django's test client."""

from __future__ import annotations

import io
import re
import sys
from datetime import datetime, timedelta, timezone

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from zoneinfo import ZoneInfo  # noqa: E402

AMSTERDAM = "Europe/Amsterdam"
FOOTER = "Times are in the course's time zone, "


@pytest.fixture(scope="module", autouse=True)
def tokens(tmp_path_factory):
    from grader.web.models import FirstSignIn
    from grader.web.site import roster as accounts

    path = tmp_path_factory.mktemp("roster") / "roster.csv"
    path.write_text("username,role\ntz_ann,student\ntz_ben,student\ntz_teach,instructor\n")
    accounts.import_roster(path)
    FirstSignIn.objects.all().delete()  # these have chosen their password already
    return dict(accounts.new_tokens(["tz_ann", "tz_ben", "tz_teach"]))


def signed_in(name):
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(get_user_model().objects.get(username=name))
    client.get("/teach/" if name == "tz_teach" else "/")  # the CSRF cookie, as a browser gets it
    return client


def post(client, path, data):
    """A form sent as a browser sends it: with the page's CSRF token."""
    return client.post(path, dict(data, csrfmiddlewaretoken=client.cookies["csrftoken"].value))


def text(answer) -> str:
    return answer.content.decode()


def set_zone(teach, name):
    return post(teach, "/teach/time-zone", {"time_zone": name})


def set_deadline(teach, deadline, task="nim_sum"):
    return post(teach, f"/teach/tasks/{task}/limits", {"min_interval_s": "0", "max_count": "", "deadline": deadline})


def stored_deadline(task="nim_sum"):
    from grader.web.models import TaskPolicy

    return TaskPolicy.objects.filter(task=task).values_list("deadline", flat=True).first()


def api_hand_in(tokens, user, at, monkeypatch, task="nim_sum"):
    """A hand-in through the API whose arrival is ``at`` (the server's clock, stopped there)."""
    from django.test import Client
    from django.utils import timezone as django_zone

    upload = io.BytesIO(b"print(0)\n")
    upload.name = f"{task}.py"
    with monkeypatch.context() as stopped:
        stopped.setattr(django_zone, "now", lambda: at)
        answer = Client().post(
            "/api/submissions", {"task": task, "file": upload}, HTTP_AUTHORIZATION=f"Token {tokens[user]}"
        )
    assert answer.status_code == 202, answer.content
    return answer.json()["id"]


def api_get(tokens, user, number):
    from django.test import Client

    return Client().get(f"/api/submissions/{number}", HTTP_AUTHORIZATION=f"Token {tokens[user]}").json()


def test_a_deadline_entered_in_the_course_zone_is_shown_in_it_with_the_zone_on_every_page():
    teach = signed_in("tz_teach")
    assert set_zone(teach, AMSTERDAM).status_code == 302
    assert "The course&#x27;s time zone is Europe/Amsterdam" in text(teach.get("/teach/"))
    assert set_deadline(teach, "2026-12-01 23:59").status_code == 302
    # 23:59 in Amsterdam in winter (CET, UTC+1) is 22:59 UTC, on time to its last second
    assert stored_deadline() == datetime(2026, 12, 1, 22, 59, 59, 999_999, tzinfo=timezone.utc)
    page = text(teach.get("/teach/"))
    assert 'id="id_deadline_nim_sum" placeholder="2026-12-01 23:59" value="2026-12-01 23:59"' in page
    assert "Deadline, Europe/Amsterdam time" in page and 'value="Europe/Amsterdam"' in page
    ann = signed_in("tz_ann")
    task_page = text(ann.get("/tasks/nim_sum/"))
    assert "Deadline: 2026-12-01 23:59 CET: a hand-in up to 23:59:59 CET is on time, later ones are graded" in task_page
    home = text(ann.get("/"))
    assert "2026-12-01 23:59 CET" in home and "(on time to 23:59:59 CET)" in home
    record = text(teach.get("/teach/class/tz_ann/index.html"))
    assert "2026-12-01 23:59 CET (a hand-in at 23:59:59 CET is on time)" in record
    pages = ((ann, "/"), (ann, "/tasks/nim_sum/"), (ann, "/account/"), (teach, "/teach/queue/"), (teach, "/teach/"))
    for client, path in pages:
        assert FOOTER + AMSTERDAM + " (C" in text(client.get(path)), path  # (CET now) or (CEST now)


@pytest.mark.parametrize("name, abbreviation", [(None, "UTC"), (AMSTERDAM, "CET")])
def test_a_hand_in_at_the_deadline_minutes_last_second_is_on_time_and_one_at_the_next_minute_late(
    tokens, monkeypatch, name, abbreviation
):
    """In a course that set no zone (UTC) and in one that did."""
    teach = signed_in("tz_teach")
    if name is not None:
        assert set_zone(teach, name).status_code == 302
    assert set_deadline(teach, "2026-12-01 11:42").status_code == 302
    zone = ZoneInfo(name or "UTC")
    last = datetime(2026, 12, 1, 11, 42, 59, 999_999, tzinfo=zone)
    moments = {"first": last.replace(second=0, microsecond=0), "last": last, "next": last + timedelta(microseconds=1)}
    numbers = {which: api_hand_in(tokens, "tz_ann", at, monkeypatch) for which, at in moments.items()}
    marked = {which: api_get(tokens, "tz_ann", number)["late"] for which, number in numbers.items()}
    assert marked == {"first": False, "last": False, "next": True}
    said = text(signed_in("tz_ann").get("/tasks/nim_sum/"))
    assert f"Deadline: 2026-12-01 11:42 {abbreviation}: a hand-in up to 11:42:59 {abbreviation} is on time" in said
    # the same when the deadline is saved again after the hand-ins (``refresh_late``): nothing moves
    assert set_deadline(teach, "2026-12-01 11:42").status_code == 302
    assert {which: api_get(tokens, "tz_ann", n)["late"] for which, n in numbers.items()} == marked
    # and the next minute as the deadline: every one of them on time
    assert set_deadline(teach, "2026-12-01 11:43").status_code == 302
    assert "1 submission is no longer late" in text(teach.get("/teach/"))
    history = text(signed_in("tz_ann").get("/tasks/nim_sum/"))
    assert f"2026-12-01 11:43:00 {abbreviation}" in history and f"2026-12-01 11:42:59 {abbreviation}" in history


def test_an_extension_is_written_in_the_course_zone_and_said_with_its_last_second():
    teach = signed_in("tz_teach")
    assert set_zone(teach, "America/New_York").status_code == 302
    answer = post(teach, "/teach/class/tz_ben/extension", {"task": "nim_sum", "deadline": "2026-07-04 09:00"})
    assert answer.status_code == 302
    said = text(teach.get(answer["Location"]))
    assert "tz_ben: nim_sum is due 2026-07-04 09:00 EDT (a hand-in at 09:00:59 EDT is on time) for them." in said
    from grader.web.models import Extension

    kept = Extension.objects.get(student__username="tz_ben", task="nim_sum").deadline
    assert kept == datetime(2026, 7, 4, 13, 0, 59, 999_999, tzinfo=timezone.utc)


def test_the_api_keeps_utc_and_adds_the_moment_on_the_course_clock_with_its_offset(tokens, monkeypatch):
    teach = signed_in("tz_teach")
    assert set_zone(teach, AMSTERDAM).status_code == 302
    summer = datetime(2026, 7, 1, 10, 0, 5, tzinfo=timezone.utc)
    shown = api_get(tokens, "tz_ann", api_hand_in(tokens, "tz_ann", summer, monkeypatch))
    assert shown["submitted_at"] == "2026-07-01T10:00:05+00:00"  # as the spec has it: unchanged
    assert shown["submitted_at_local"] == "2026-07-01T12:00:05+02:00" and shown["time_zone"] == AMSTERDAM
    assert datetime.fromisoformat(shown["submitted_at_local"]) == summer  # the same moment
    winter = datetime(2026, 12, 1, 10, 0, 5, tzinfo=timezone.utc)
    again = api_get(tokens, "tz_ann", api_hand_in(tokens, "tz_ann", winter, monkeypatch))
    assert again["submitted_at_local"] == "2026-12-01T11:00:05+01:00"


@pytest.mark.parametrize(
    "name, sentence",
    [
        ("Europe/Amsterdm", "&#x27;Europe/Amsterdm&#x27; is not a time zone name (did you mean Europe/Amsterdam?)"),
        ("Mars/Olympus_Mons", "is not a time zone name"),
        ("CET+1", "is not a time zone name"),
        ("../../../etc/passwd", "is not a time zone name"),
        ("/usr/share/zoneinfo/UTC", "is not a time zone name"),
        ("<script>alert(1)</script>", "is not a time zone name"),
        ("", "The time zone must be an IANA name such as Europe/Amsterdam"),
        ("Europe/" + "x" * 300, "The time zone must be an IANA name such as Europe/Amsterdam"),
        ("Europe/Amsterdam\x00", "is not a time zone name"),
    ],
)
def test_a_name_that_is_no_time_zone_is_refused_with_a_sentence_and_nothing_changes(name, sentence):
    teach = signed_in("tz_teach")
    assert set_zone(teach, "Asia/Kathmandu").status_code == 302
    refused = set_zone(teach, name)
    page = text(refused)
    assert refused.status_code == 400 and sentence in page and "nothing was changed" in page, page[:2000]
    assert "<script>alert" not in page
    assert 'value="Asia/Kathmandu"' in page and FOOTER + "Asia/Kathmandu" in page


def test_a_zone_name_in_other_letters_is_the_zone_and_utc_is_always_there():
    teach = signed_in("tz_teach")
    assert set_zone(teach, "europe/AMSTERDAM").status_code == 302
    assert 'value="Europe/Amsterdam"' in text(teach.get("/teach/"))
    assert set_zone(teach, "utc").status_code == 302
    assert FOOTER + "UTC." in text(teach.get("/teach/"))


def test_a_deadline_in_the_hour_the_clocks_skip_gets_a_sentence_and_a_doubled_hour_takes_the_first():
    teach = signed_in("tz_teach")
    assert set_zone(teach, AMSTERDAM).status_code == 302
    assert set_deadline(teach, "2027-01-01 12:00").status_code == 302
    before = stored_deadline()
    refused = set_deadline(teach, "2027-03-28 02:30")  # spring forward: 02:00 CET is 03:00 CEST
    said = "there is no 02:30 on 2027-03-28 in Europe/Amsterdam: the clocks go from 02:00 straight to 03:00 that night"
    assert refused.status_code == 400 and said in text(refused) and "nothing was changed" in text(refused)
    assert stored_deadline() == before
    extension = post(teach, "/teach/class/tz_ben/extension", {"task": "nim_sum", "deadline": "2027-03-28T02:00"})
    assert extension.status_code == 400 and "there is no 02:00 on 2027-03-28" in text(extension)
    # fall back: 02:30 happens twice (CEST, then CET); the first is meant, and the page says which
    assert set_deadline(teach, "2026-10-25 02:30").status_code == 302
    assert stored_deadline() == datetime(2026, 10, 25, 0, 30, 59, 999_999, tzinfo=timezone.utc)
    assert "Deadline: 2026-10-25 02:30 CEST" in text(signed_in("tz_ann").get("/tasks/nim_sum/"))
    # the second 02:30, written with its offset, is shown back with it: saving the form again moves nothing
    assert set_deadline(teach, "2026-10-25 02:30+01:00").status_code == 302
    value = re.search(r'id="id_deadline_nim_sum"[^>]*value="([^"]*)"', text(teach.get("/teach/"))).group(1)
    assert value == "2026-10-25 02:30+01:00"
    assert set_deadline(teach, value).status_code == 302
    assert stored_deadline() == datetime(2026, 10, 25, 1, 30, 59, 999_999, tzinfo=timezone.utc)


def test_changing_the_zone_keeps_each_deadlines_moment_and_says_so():
    teach = signed_in("tz_teach")
    assert set_zone(teach, "UTC").status_code == 302
    assert set_deadline(teach, "2026-12-01 23:59").status_code == 302
    kept = stored_deadline()
    answer = set_zone(teach, AMSTERDAM)
    said = text(teach.get(answer["Location"]))
    assert "1 deadline already set keeps its moment, now shown in Europe/Amsterdam time." in said
    assert stored_deadline() == kept and 'value="2026-12-02 00:59"' in said


ZONES = ["UTC", AMSTERDAM, "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "America/St_Johns"]


@pytest.mark.parametrize("name", ZONES)
def test_every_minute_of_a_year_with_its_clock_changes_is_on_time_to_its_last_second_and_shown_back_unchanged(name):
    """The invariant over whole classes of minutes: every wall minute of 2026 at quarter hours, in
    zones with a DST hour, a half-hour DST (Lord Howe) and offsets of 5:45 and -3:30, is refused
    with a sentence (the clocks skip it) or stored so that its last second is on time, the next
    minute's first is late, and the form shows back a value that is stored the same again."""
    from grader.web.local_time import deadline_instant, form_value, zone_named

    zone = zone_named(name)
    wall = datetime(2026, 1, 1)
    while wall.year == 2026:
        written = wall.strftime("%Y-%m-%d %H:%M")
        stored = deadline_instant(written, zone)
        if isinstance(stored, str):
            assert stored.startswith(f"there is no {wall:%H:%M} on {wall:%Y-%m-%d} in {name}: the clocks go"), stored
        else:
            assert stored is not None and stored.tzinfo is not None
            first = wall.replace(tzinfo=zone, fold=0).astimezone(timezone.utc)
            assert first <= stored < first + timedelta(minutes=1)  # the minute the clock showed first
            assert stored + timedelta(microseconds=1) == first + timedelta(minutes=1)  # late from the next
            assert deadline_instant(form_value(stored, zone), zone) == stored, written
        wall += timedelta(minutes=15)
