"""The portal's JSON API (portal.md) through Django's test client, and its queue's bookkeeping.

Django is configured once for this test process, on a fresh data folder and the project's course.
"""

from __future__ import annotations

import io
import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from support import PROJECT, grade_portal_queue, mutate, solution  # noqa: E402

from grader.submission.files import MAX_SOURCE_BYTES  # noqa: E402


@pytest.fixture(scope="module")
def portal(tmp_path_factory):
    from django.test import Client

    from grader.web.site import roster

    roster_file = tmp_path_factory.mktemp("roster") / "roster.csv"
    roster_file.write_text("username,role,name\nann,student,Ann A\nben,student,Ben B\nteach,instructor,T\n")
    roster.import_roster(roster_file)
    from grader.web.models import FirstSignIn

    FirstSignIn.objects.all().delete()  # these have chosen their password (no token works before)
    tokens = dict(roster.new_tokens(["ann", "ben", "teach"]))
    return Client(), tokens


def call(portal, method, path, user=None, token=None, **data):
    client, tokens = portal
    headers = {}
    if user or token:
        headers["HTTP_AUTHORIZATION"] = f"Token {token or tokens[user]}"
    return getattr(client, method)(path, **data, **headers)


def hand_in(portal, user, task, text, name=None):
    upload = io.BytesIO(text.encode() if isinstance(text, str) else text)
    upload.name = name or f"{task}.py"
    return call(portal, "post", "/api/submissions", user, data={"task": task, "file": upload})


def test_health_needs_no_token(portal):
    answer = call(portal, "get", "/healthz")
    assert answer.status_code == 200 and answer.json() == {"ok": True}


@pytest.mark.parametrize(
    "path", ["/api/tasks", "/api/submissions", "/api/submissions/1", "/api/gradebook.csv", "/api/gradescope.zip"]
)
def test_every_call_needs_a_valid_token(portal, path):
    assert call(portal, "get", path).status_code == 401
    assert call(portal, "get", path, token="not-a-token").status_code == 401


def test_tasks_are_the_courses(portal):
    tasks = call(portal, "get", "/api/tasks", "ann").json()
    assert {t["id"] for t in tasks} >= {"nim_sum", "exclusive_or", "working_game"}
    assert all(t["max_score"] > 0 and t["title"] for t in tasks)


def test_handing_in_queues_the_file_as_sent(portal):
    from grader.web.models import Submission

    answer = hand_in(portal, "ann", "nim_sum", solution("nim_sum"))
    assert answer.status_code == 202
    body = answer.json()
    assert body["status"] == "queued" and body["url"] == f"/api/submissions/{body['id']}"
    row = Submission.objects.get(id=body["id"])
    assert bytes(row.data) == solution("nim_sum").encode() and row.pending and row.student.username == "ann"
    shown = call(portal, "get", body["url"], "ann").json()
    assert shown["status"] == "queued" and shown["verdict"] is None and shown["cases"] is None


def test_bad_uploads_are_refused_with_their_reason(portal):
    assert hand_in(portal, "ann", "no_such_task", "print(1)").status_code == 400
    too_large = hand_in(portal, "ann", "nim_sum", b"#" * (MAX_SOURCE_BYTES + 1))
    assert too_large.status_code == 413 and "limit" in too_large.json()["error"]
    missing = call(portal, "post", "/api/submissions", "ann", data={"task": "nim_sum"})
    assert missing.status_code == 400


def test_handing_in_too_often_is_429_with_when_to_try_again(portal):
    from grader.web.models import TaskPolicy

    TaskPolicy.objects.create(task="nim_sum", min_interval_s=60)
    assert hand_in(portal, "ann", "nim_sum", "print(0)").status_code == 202
    again = hand_in(portal, "ann", "nim_sum", "print(0)")
    assert again.status_code == 429 and 0 < int(again["Retry-After"]) <= 60
    assert hand_in(portal, "ben", "nim_sum", "print(0)").status_code == 202  # per student
    TaskPolicy.objects.filter(task="nim_sum").update(min_interval_s=0, max_count=1)
    assert hand_in(portal, "ann", "nim_sum", "print(0)").status_code == 429


def test_a_student_sees_only_their_own_work(portal):
    mine = hand_in(portal, "ann", "nim_sum", "print(0)").json()["id"]
    theirs = hand_in(portal, "ben", "nim_sum", "print(1)").json()["id"]
    assert call(portal, "get", f"/api/submissions/{theirs}", "ann").status_code == 404
    assert call(portal, "get", "/api/submissions/999999", "ann").status_code == 404
    listed = call(portal, "get", "/api/submissions?task=nim_sum", "ann").json()
    assert [s["id"] for s in listed] == [mine]
    everyone = call(portal, "get", "/api/submissions?task=nim_sum", "teach").json()
    assert [s["id"] for s in everyone] == [theirs, mine]  # newest first
    only_ben = call(portal, "get", "/api/submissions?student=ben", "teach").json()
    assert [s["id"] for s in only_ben] == [theirs]


def test_regrade_and_gradebook_are_for_instructors(portal):
    assert call(portal, "post", "/api/tasks/nim_sum/regrade", "ann").status_code == 403
    assert call(portal, "get", "/api/gradebook.csv", "ann").status_code == 403
    assert call(portal, "get", "/api/gradescope.zip", "ann").status_code == 403
    assert call(portal, "post", "/api/tasks/no_such/regrade", "teach").status_code == 404


def _grade_all(context):
    assert grade_portal_queue(context.runner)


@pytest.fixture
def portal_context(portal, context):
    return context


def test_a_submission_is_graded_and_hidden_cases_stay_hidden(portal, portal_context):
    from grader.web.worker.course_state import course_tasks

    good = hand_in(portal, "ann", "nim_sum", solution("nim_sum")).json()["id"]
    bad = hand_in(portal, "ben", "nim_sum", mutate("nim_sum", "total = total ^ row", "total = total + row")).json()
    _grade_all(portal_context)
    done = call(portal, "get", f"/api/submissions/{good}", "ann").json()
    assert done["status"] == "done" and done["verdict"] == "accepted" and done["score"] == done["max_score"]
    wrong = call(portal, "get", f"/api/submissions/{bad['id']}", "ben").json()
    assert wrong["verdict"] == "wrong_answer" and wrong["score"] < wrong["max_score"]
    task = course_tasks()["nim_sum"]
    hidden = [c for c in task.cases if c.hidden]
    assert hidden, "the course has hidden nim_sum cases"
    for case in hidden:
        shown = next(c for c in wrong["cases"] if c["name"] == case.name)
        assert case.input.strip() not in shown["message"]
    report = call(portal, "get", "/api/submissions", "ben").json()[0]
    assert report["report_url"].endswith("/report")


# A program that carries its input out through what the grader used to read: a fake traceback on
# stderr, and an exception class named after the input; it sleeps in proportion to its input too.
LEAKING = (
    "import sys, time\ndata = sys.stdin.read()\ntime.sleep(min(len(data), 200) / 2000)\n"
    "sys.stderr.write('Traceback (most recent call last):\\n' + data.encode().hex() + '\\n')\n"
    "raise type('E' + data.encode().hex(), (Exception,), {})(data)\n"
)


def test_no_hidden_input_reaches_the_api_or_the_report(portal, portal_context):
    from grader.web.worker.course_state import course_tasks

    number = hand_in(portal, "ben", "nim_sum", LEAKING).json()["id"]
    _grade_all(portal_context)
    document = call(portal, "get", f"/api/submissions/{number}", "ben").json()
    answer = call(portal, "get", f"/submissions/{number}/report", "ben")
    report = answer.content.decode()
    assert answer.status_code == 200 and "nim_sum" in report
    task = course_tasks()["nim_sum"]
    for case in (c for c in task.cases if c.hidden):
        shown = next(c for c in document["cases"] if c["name"] == case.name)
        assert shown["time_s"] is None and shown["message"].startswith("This hidden case was not accepted")
        for secret in (case.input.strip(), case.input.encode().hex()):
            assert secret not in str(document) and secret not in report


def test_regrade_keeps_old_results_until_new_ones_land(portal, portal_context):
    from grader.web.models import Submission

    number = hand_in(portal, "ann", "nim_sum", solution("nim_sum")).json()["id"]
    _grade_all(portal_context)
    answer = call(portal, "post", "/api/tasks/nim_sum/regrade", "teach")
    assert answer.status_code == 202 and answer.json() == {"queued": 1}
    held = call(portal, "get", f"/api/submissions/{number}", "ann").json()
    assert held["status"] == "done" and held["verdict"] == "accepted"  # the old result, still shown
    assert Submission.objects.get(id=number).pending
    _grade_all(portal_context)
    row = Submission.objects.get(id=number)
    assert not row.pending and row.attempt == 2 and row.verdict == "accepted"
    gradebook = call(portal, "get", "/api/gradebook.csv", "teach").content.decode()
    assert gradebook.splitlines()[0].startswith("student,") and gradebook.splitlines()[1].startswith("ann,")


def test_a_result_is_written_only_by_the_attempt_that_holds_the_claim(portal):
    from django.utils import timezone

    from grader.web.models import Submission, Worker
    from grader.web.worker import queue

    number = hand_in(portal, "ann", "nim_sum", "print(0)").json()["id"]
    queue.say_alive("one", 1, "here")
    first = queue.claim("one")
    assert first == (number, 1) and queue.claim("two") is None  # held: nobody else takes it
    assert queue.release_stale() == 0  # "one" is alive
    Worker.objects.filter(name="one").update(seen_at=timezone.now() - queue.SILENT_AFTER * 2)
    assert queue.release_stale() == 1  # "one" stopped saying it is alive
    second = queue.claim("two")
    assert second == (number, 2)
    assert not queue.finish(number, 1, {"status": "done", "verdict": "accepted"})  # the lost attempt
    assert queue.finish(number, 2, {"status": "error", "error": "x"})
    row = Submission.objects.get(id=number)
    assert row.status == "error" and not row.pending and row.verdict is None


def test_a_roster_creates_accounts_once_and_tokens_replace_each_other(portal, tmp_path):
    from django.contrib.auth import get_user_model

    from grader.errors import UsageError
    from grader.web.models import FirstSignIn
    from grader.web.site import roster

    path = tmp_path / "r.csv"
    path.write_text("username,role\ncid,student\nann,instructor\n")
    outcome = roster.import_roster(path)
    assert [name for name, _ in outcome.created] == ["cid"] and outcome.updated == ("ann",)
    assert get_user_model().objects.filter(username="ann").count() == 1
    assert get_user_model().objects.get(username="ann").is_staff
    path.write_text("username,role\nann,student\n")
    roster.import_roster(path)
    ((_, old),) = roster.new_tokens(["cid"])
    ((_, new),) = roster.new_tokens(["cid"])
    assert call(portal, "get", "/api/tasks", token=old).status_code == 401
    assert call(portal, "get", "/api/tasks", token=new).status_code == 403  # cid's password is the one-time one
    FirstSignIn.objects.filter(user__username="cid").delete()
    assert call(portal, "get", "/api/tasks", token=new).status_code == 200
    path.write_text("user,kind\nx,y\n")
    with pytest.raises(UsageError, match="header row must name username and role"):
        roster.import_roster(path)
    path.write_text("username,role\nx,teacher\n")
    with pytest.raises(UsageError, match="line 2: the role must be student, ta or instructor"):
        roster.import_roster(path)
    with pytest.raises(UsageError, match="no such user: nobody"):
        roster.new_tokens(["nobody"])
    for bad in ("..", "a/b", "<b>x</b>", "x" * 151):
        path.write_text(f"username,role\nok,student\n{bad},student\n")
        with pytest.raises(UsageError, match="line 3: the username .* may hold only letters"):
            roster.import_roster(path)
        assert not get_user_model().objects.filter(username__in=["ok", bad]).exists()  # nothing of it was made


def test_the_report_page_is_the_students_own_and_locked_down(portal, portal_context):
    number = hand_in(portal, "ann", "exclusive_or", solution("exclusive_or")).json()["id"]
    _grade_all(portal_context)
    url = call(portal, "get", f"/api/submissions/{number}", "ann").json()["report_url"]
    page = call(portal, "get", url, "ann")
    assert page.status_code == 200 and "exclusive_or" in page.content.decode()
    assert "default-src 'none'" in page["Content-Security-Policy"]
    assert call(portal, "get", url, "ben").status_code == 404
    assert call(portal, "get", url, "teach").status_code == 200
    assert call(portal, "get", url).status_code == 401


def test_the_gradescope_export_has_every_students_results(portal, portal_context):
    import json
    import zipfile

    from grader.web.worker.course_state import course_tasks

    hand_in(portal, "ann", "nim_sum", solution("nim_sum"))
    hand_in(portal, "ben", "nim_sum", mutate("nim_sum", "total = total ^ row", "total = total + row"))
    _grade_all(portal_context)
    answer = call(portal, "get", "/api/gradescope.zip", "teach")
    assert answer.status_code == 200 and answer["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(answer.content))
    names = archive.namelist()
    assert {"ann/results.json", "ben/results.json"} <= set(names) and not any(n.startswith("teach/") for n in names)
    ann, ben = (json.loads(archive.read(f"{who}/results.json")) for who in ("ann", "ben"))
    tasks = course_tasks()
    assert ann["score"] == tasks["nim_sum"].max_score > ben["score"]
    assert sum(t["max_score"] for t in ann["tests"]) == pytest.approx(sum(t.max_score for t in tasks.values()))
    assert {"name": "exclusive_or: not handed in", "status": "failed"}.items() <= next(
        t for t in ann["tests"] if t["name"].startswith("exclusive_or")
    ).items()
    # hidden cases are shown as the portal shows them: "hidden" would hide the total from the student
    hidden = [t for t in ben["tests"] if t["name"].endswith(" (hidden)")]
    assert hidden and all(t["name"].startswith("nim_sum: ") and t["visibility"] == "visible" for t in hidden)
    assert call(portal, "get", "/api/gradescope.zip", "teach").content == answer.content  # same marks, same bytes


def test_a_game_is_graded_with_the_students_own_earlier_files(portal, portal_context):
    from grader.web.models import Submission
    from grader.web.worker import queue

    alone = hand_in(portal, "ann", "working_game", solution("working_game")).json()["id"]
    for used in ("present_board", "make_move", "optimal_move", "ui"):
        hand_in(portal, "ann", used, solution(used))
    with_files = hand_in(portal, "ann", "working_game", solution("working_game")).json()["id"]
    hand_in(portal, "ann", "ui", "raise SystemExit(3)\n")  # handed in later: not part of the game above
    _grade_all(portal_context)
    missing = call(portal, "get", f"/api/submissions/{alone}", "ann").json()
    assert missing["verdict"] != "accepted"
    assert missing["notes"][0] == (
        "working_game.py imports your other exercise files and is graded with your latest make_move.py, "
        "optimal_move.py, present_board.py and ui.py handed in before it: hand in those, then working_game.py again."
    )
    assert "You had not handed in ui.py before this file. It was not used" in " ".join(missing["notes"])
    assert call(portal, "get", f"/api/submissions/{with_files}", "ann").json()["verdict"] == "accepted"
    queue.ask_again([with_files])  # graded again: the same files, the same result
    _grade_all(portal_context)
    assert Submission.objects.get(id=with_files).verdict == "accepted"


def test_a_forgotten_password_is_replaced_and_the_work_stays(portal):
    from django.contrib.auth import authenticate

    from grader.errors import UsageError
    from grader.web.models import FirstSignIn, Submission
    from grader.web.site import roster

    number = hand_in(portal, "ben", "nim_sum", "print(0)").json()["id"]
    ((name, password),) = roster.new_passwords(["ben"])
    assert name == "ben" and authenticate(username="ben", password=password) is not None
    assert FirstSignIn.objects.filter(user__username="ben").exists()  # the next sign-in asks for their own
    assert Submission.objects.filter(id=number, student__username="ben").exists()
    with pytest.raises(UsageError, match="no such user: nobody"):
        roster.new_passwords(["nobody"])
    FirstSignIn.objects.filter(user__username="ben").delete()


def test_results_kept_by_an_older_grader_are_concealed_and_graded_again(portal):
    import importlib

    from django.apps import apps
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from grader.web.models import Submission

    leaked = [
        {"name": "hidden case 1", "verdict": "runtime_error", "hidden": True, "time_s": 0.417, "points": 1,
         "message": "This hidden case was not accepted: your program stopped with an error (E5b312c2033) ..."},
        {"name": "one row", "verdict": "accepted", "hidden": False, "time_s": 0.004, "points": 1, "message": ""},
    ]  # fmt: skip
    ben = get_user_model().objects.get(username="ben")
    row = Submission.objects.create(
        student=ben,
        task="nim_sum",
        data=b"x",
        submitted_at=timezone.now(),
        status="done",
        pending=False,
        graded=1,  # its one grading done
        results=leaked,
        report="<p>E5b312c2033</p>",
    )
    migration = importlib.import_module("grader.web.migrations.0006_conceal_hidden_results")
    migration.conceal(apps, None)
    row.refresh_from_db()
    hidden, shown = row.results
    assert hidden["message"] == "This hidden case was not accepted: your program crashed." and hidden["time_s"] is None
    assert shown["time_s"] == 0.004
    assert "E5b312c2033" not in row.report and row.pending


def test_the_graders_own_failure_under_the_api_is_a_json_500_and_its_traceback_is_logged(portal, monkeypatch, caplog):
    import logging

    from django.test import Client

    from grader.web.site import api

    def failing():
        raise RuntimeError("a fault of the grader's own")

    monkeypatch.setattr(api, "course_tasks", failing)
    _, tokens = portal
    with caplog.at_level(logging.ERROR, logger="django.request"):
        answer = Client(raise_request_exception=False).get("/api/tasks", HTTP_AUTHORIZATION=f"Token {tokens['ann']}")
    assert (answer.status_code, answer["Content-Type"]) == (500, "application/json")
    assert "error log" in answer.json()["error"] and "fault" not in answer.json()["error"]
    assert any(r.exc_info and "a fault of the grader's own" in str(r.exc_info[1]) for r in caplog.records)


def test_a_course_that_never_loaded_is_a_503_with_its_file_line_and_problem(portal, tmp_path, monkeypatch):
    import shutil

    from django.apps import apps
    from django.contrib.auth import get_user_model
    from django.test import Client, override_settings

    broken = tmp_path / "course"
    shutil.copytree(PROJECT / "testcases", broken / "testcases")
    case_file = broken / "testcases" / "nim_sum.yaml"
    case_file.write_text(case_file.read_text().replace("task: nim_sum", "task: nim_sum\ncolour: red", 1))
    monkeypatch.delattr(apps.get_app_config("portal"), "held_course", raising=False)  # never loaded here
    _, tokens = portal
    with override_settings(GRADER_COURSE=str(broken)):
        listed = call(portal, "get", "/api/tasks", "ann")
        handed = hand_in(portal, "ann", "nim_sum", solution("nim_sum"))
        from grader.web.models import FirstSignIn

        FirstSignIn.objects.filter(user__username="teach").delete()  # past the first password
        teacher = Client()
        teacher.force_login(get_user_model().objects.get(username="teach"))
        page = teacher.get("/teach/")
    monkeypatch.delattr(apps.get_app_config("portal"), "held_course", raising=False)  # the project's course again
    for answer in (listed, handed):
        assert (answer.status_code, answer["Content-Type"]) == (503, "application/json")
        assert "testcases/nim_sum.yaml, line" in answer.json()["error"] and "colour" in answer.json()["error"]
    text = page.content.decode()
    assert page.status_code == 503 and "testcases/nim_sum.yaml, line" in text and "colour" in text
    assert "Traceback" not in text
