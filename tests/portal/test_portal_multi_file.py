"""One hand-in carries several files, graded together: a task that imports the student's other
exercise files (``working_game`` imports ``present_board``, ``make_move``, ``optimal_move`` and
``ui``) takes them with its own file, through the API (repeated ``also`` files), the task's page
(several files at once) and ``submit``; a file sent with it wins over the student's earlier
hand-in of its task, a file that cannot go with it refuses the whole hand-in before anything is
stored or counted, and only the owner (or an instructor) reads the files."""

from __future__ import annotations

import io
import json
import re
import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import set_up_portal, signed_in  # noqa: E402
from support import solution  # noqa: E402

from grader.submission.files import MAX_SOURCE_BYTES  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06"
# Other modules' students share the process's database: these names are this module's own.
ANN, BEN, CY, TEACH = "mf_ann", "mf_ben", "mf_cy", "mf_teach"
TAKES = "working_game takes its own file and present_board.py, make_move.py, optimal_move.py, ui.py"


@pytest.fixture(scope="module", autouse=True)
def roster(tmp_path_factory):
    set_up_portal(
        tmp_path_factory.mktemp("portal"),
        f"username,role\n{ANN},student\n{BEN},student\n{CY},student\n{TEACH},instructor\n",
    )


def token(user: str) -> str:
    from grader.web.site import roster as accounts

    ((_, made),) = accounts.new_tokens([user])
    return made


def upload(name: str, data) -> io.BytesIO:
    found = io.BytesIO(data.encode() if isinstance(data, str) else data)
    found.name = name
    return found


def api(user: str, task: str, data, also=()):
    """``user`` hands ``data`` in as ``task`` through the API, with the files ``also`` ((name, data)...)."""
    from django.test import Client

    form = {"task": task, "file": upload(f"{task}.py", data)}
    if also:
        form["also"] = [upload(name, text) for name, text in also]
    return Client().post("/api/submissions", form, HTTP_AUTHORIZATION=f"Token {token(user)}")


def stored():
    """(submissions, files handed in with them) in the database."""
    from grader.web.models import Submission, SubmissionFile

    return Submission.objects.count(), SubmissionFile.objects.count()


def notes_of(number: int) -> list:
    from grader.web.models import Submission

    return Submission.objects.get(id=number).notes


def test_a_file_sent_with_the_game_is_stored_and_wins_over_the_earlier_hand_in(grade_queue):
    from django.test import Client

    for used in ("present_board", "make_move", "optimal_move"):
        assert api(ANN, used, solution(used)).status_code == 202
    assert api(ANN, "ui", "raise SystemExit(3)\n").status_code == 202  # an earlier ui.py that cannot work
    answer = api(ANN, "working_game", solution("working_game"), also=[("ui.py", solution("ui"))])
    assert answer.status_code == 202, answer.content
    game = answer.json()
    assert game["files"] == ["working_game.py", "ui.py"]
    assert stored() == (5, 1)  # one hand-in of working_game; ui.py is not a hand-in of ui
    grade_queue()
    shown = Client().get(f"/api/submissions/{game['id']}", HTTP_AUTHORIZATION=f"Token {token(ANN)}").json()
    assert shown["files"] == ["working_game.py", "ui.py"]
    assert shown["verdict"] == "accepted", shown["notes"]
    assert not any("handed in before it" in note or "ui.py" in note for note in shown["notes"])
    listed = Client().get("/api/submissions?task=ui", HTTP_AUTHORIZATION=f"Token {token(ANN)}").json()
    assert [row["files"] for row in listed] == [["ui.py"]]


def test_the_note_names_only_the_files_neither_sent_with_it_nor_handed_in_before(grade_queue):
    number = api(CY, "working_game", solution("working_game"), also=[("ui.py", solution("ui"))]).json()["id"]
    grade_queue()
    assert notes_of(number)[0] == (
        "working_game.py imports your other exercise files and is graded with your latest make_move.py, "
        "optimal_move.py and present_board.py handed in before it: hand in those, then working_game.py again."
    )
    assert "You had not handed in ui.py" not in " ".join(notes_of(number))


def test_the_game_with_every_file_it_imports_in_one_hand_in_is_accepted(grade_queue):
    also = [(f"{used}.py", solution(used)) for used in ("present_board", "make_move", "optimal_move", "ui")]
    answer = api(BEN, "working_game", solution("working_game"), also=also)
    assert answer.json()["files"] == ["working_game.py", *(name for name, _ in also)]
    grade_queue()
    from grader.web.models import Submission

    graded = Submission.objects.get(id=answer.json()["id"])
    assert graded.verdict == "accepted" and graded.score == graded.max_score, graded.notes


def test_a_name_the_task_does_not_take_refuses_the_hand_in_and_costs_nothing():
    from grader.web.models import TaskPolicy

    TaskPolicy.objects.create(task="working_game", max_count=1)
    game = solution("working_game")
    for name in ("foo.py", "nim_sum.py", "working_game.py", "ui.txt", "sub/ui.py"):
        answer = api(ANN, "working_game", game, also=[("ui.py", solution("ui")), (name, solution("ui"))])
        assert answer.status_code == 400, name
        # (a browser's folder is dropped from a file's name: sub/ui.py is ui.py sent twice)
        assert answer.json()["error"] in (f"{TAKES}; not {name}", "ui.py was sent twice: send each file once")
    assert stored() == (0, 0)
    plain = api(ANN, "nim_sum", solution("nim_sum"), also=[("ui.py", solution("ui"))])
    assert plain.status_code == 400 and plain.json()["error"] == (
        "nim_sum takes its own file only (nim_sum.py), no other file with it: hand in each other file as its own task"
    )
    assert stored() == (0, 0)
    assert api(ANN, "working_game", game, also=[("ui.py", solution("ui"))]).status_code == 202  # none was spent
    again = api(ANN, "working_game", game)
    assert again.status_code == 429 and "the 1 time allowed" in again.json()["error"]
    assert api(ANN, "ui", solution("ui")).status_code == 202  # ui's own hand-ins are its own


@pytest.mark.parametrize(
    "data, status, words",
    [
        pytest.param(
            PNG, 400, "ui.py must be a Python file (text); this file is not text (it starts like a PNG", id="png"
        ),
        pytest.param(solution("present_board"), 400, "and this file as present_board.", id="another-tasks-file"),
        pytest.param(b"#" * (MAX_SOURCE_BYTES + 1), 413, "ui.py is over the limit of", id="too-large"),
    ],
)
def test_a_file_sent_with_it_is_checked_as_its_own_file_would_be(data, status, words):
    answer = api(
        ANN,
        "working_game",
        solution("working_game"),
        also=[("present_board.py", solution("present_board")), ("ui.py", data)],
    )
    assert answer.status_code == status and words in answer.json()["error"], answer.content
    assert stored() == (0, 0)


def test_more_files_than_the_task_imports_or_one_twice_are_refused():
    five = [(f"{used}.py", solution(used)) for used in ("present_board", "make_move", "optimal_move", "ui", "ui")]
    answer = api(ANN, "working_game", solution("working_game"), also=five)
    assert answer.status_code == 400
    assert answer.json()["error"] == f"{TAKES}, at most 4 other files; 5 were sent"
    twice = api(ANN, "working_game", solution("working_game"), also=five[3:])
    assert twice.status_code == 400 and twice.json()["error"] == "ui.py was sent twice: send each file once"
    assert stored() == (0, 0)


def browser(user: str):
    """A client that sends the page's CSRF token, as a browser does."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(get_user_model().objects.get(username=user))
    return client


def test_the_task_page_hands_in_several_files_and_the_submission_page_shows_each():
    from grader.web.models import Submission

    ann = browser(ANN)
    page = ann.get("/tasks/working_game/").content.decode()
    assert '<input type="file" name="also" id="id_also" multiple accept=".py"' in page
    assert "imports your present_board.py, make_move.py, optimal_move.py and ui.py" in page
    assert "A file not chosen is taken from your latest hand-in of its own task before this one." in page
    assert 'name="also"' not in ann.get("/tasks/nim_sum/").content.decode()  # it imports nothing
    form = {
        "file": upload("working_game.py", solution("working_game")),
        "also": [upload("ui.py", solution("ui")), upload("present_board.py", solution("present_board"))],
        "csrfmiddlewaretoken": ann.cookies["csrftoken"].value,
    }
    answer = ann.post("/tasks/working_game/", form)
    assert answer.status_code == 302, answer.content.decode()
    row = Submission.objects.get(student__username=ANN)
    assert answer["Location"] == f"/submissions/{row.id}/"
    assert sorted(row.companions.values_list("name", flat=True)) == ["present_board.py", "ui.py"]
    shown = ann.get(f"/submissions/{row.id}/").content.decode()
    assert "Handed in together: <strong>working_game.py</strong> · " in shown
    assert 'href="?name=ui.py">ui.py</a>' in shown and 'href="?name=present_board.py">present_board.py</a>' in shown
    ui = ann.get(f"/submissions/{row.id}/?name=ui.py").content.decode()
    first = solution("ui").splitlines()[0]
    assert "Your file: ui.py</h2>" in ui and re.search(r'<td class="n">1</td><td>[^<]*</td>', ui)
    assert f"<td>{first}</td>" in ui.replace("&quot;", '"')
    download = ann.get(f"/submissions/{row.id}/file?name=ui.py")
    assert download.status_code == 200 and download.content == solution("ui").encode()
    assert download["Content-Disposition"] == 'attachment; filename="ui.py"'
    refused = ann.post(
        "/tasks/working_game/",
        {
            "file": upload("working_game.py", solution("working_game")),
            "also": [upload("notes.py", "x = 1\n")],
            "csrfmiddlewaretoken": ann.cookies["csrftoken"].value,
        },
    )
    # (the page's sentence starts with a capital: "Working_game takes...")
    assert refused.status_code == 400 and f"{TAKES[1:]}; not notes.py." in refused.content.decode()
    assert stored() == (1, 2)


def test_only_the_owner_and_instructors_read_a_file_sent_with_a_hand_in():
    number = api(ANN, "working_game", solution("working_game"), also=[("ui.py", solution("ui"))]).json()["id"]
    ann, ben, teach = signed_in(ANN), signed_in(BEN), signed_in(TEACH)
    assert ann.get(f"/submissions/{number}/file?name=ui.py").content == solution("ui").encode()
    assert teach.get(f"/submissions/{number}/file?name=ui.py").content == solution("ui").encode()
    assert teach.get(f"/submissions/{number}/?name=ui.py").status_code == 200
    for path in (f"/submissions/{number}/file?name=ui.py", f"/submissions/{number}/?name=ui.py"):
        assert ben.get(path).status_code == 404
    for name in ("make_move.py", "../../secret_key", "/etc/passwd", "ui.py/"):  # only the names stored with it
        assert ann.get(f"/submissions/{number}/file?name={name}").status_code == 404
        assert ann.get(f"/submissions/{number}/?name={name}").status_code == 404


@pytest.fixture
def through_django(monkeypatch):
    """``submit``'s calls answered by this process's portal (Django's test client), not the network;
    ``older`` set: the 202 answer without ``files``, as a portal before them answers."""
    from django.test import Client

    from grader.cli.portal_client import PortalClient

    said = {"older": False}

    def call(self, method, path, body, content_type):
        extra = {"HTTP_AUTHORIZATION": f"Token {self._token}"}
        answer = Client().generic(method, path, data=body or b"", content_type=content_type or "text/plain", **extra)
        data = answer.content
        if said["older"] and method == "POST" and answer.status_code == 202:
            data = json.dumps({k: v for k, v in json.loads(data).items() if k != "files"}).encode()
        return answer.status_code, answer.headers, data

    monkeypatch.setattr(PortalClient, "_call", call)
    return said


def test_submit_sends_the_files_a_task_imports_with_it_and_each_on_its_own_too(tmp_path, capsys, through_django):
    from grader.cli.main import main
    from grader.web.models import Submission

    paths = []
    for task in ("working_game", "ui", "present_board", "nim_sum"):
        paths.append(tmp_path / f"{task}.py")
        paths[-1].write_text(solution(task))
    code = main(["submit", *map(str, paths), "--server", "http://127.0.0.1:9", "--token", token(ANN)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"{paths[0]} handed in with present_board.py, ui.py\n" in out
    assert out.count("handed in with") == 1 and not err
    rows = {row.task: row for row in Submission.objects.filter(student__username=ANN)}
    assert sorted(rows) == ["nim_sum", "present_board", "ui", "working_game"]  # each file its own hand-in, as before
    sent = dict(rows["working_game"].companions.values_list("name", "data"))
    assert {name: bytes(data).decode() for name, data in sent.items()} == {
        "present_board.py": solution("present_board"),
        "ui.py": solution("ui"),
    }
    assert not rows["ui"].companions.exists()


def test_submit_warns_when_the_portal_does_not_say_it_took_them(tmp_path, capsys, through_django):
    from grader.cli.main import main

    through_django["older"] = True
    game, ui = tmp_path / "working_game.py", tmp_path / "ui.py"
    game.write_text(solution("working_game"))
    ui.write_text(solution("ui"))
    assert main(["submit", str(game), str(ui), "--server", "http://127.0.0.1:9", "--token", token(ANN)]) == 0
    out, err = capsys.readouterr()
    assert "handed in with" not in out
    assert f"warning: the portal did not say it took ui.py with {game}: it may grade it with your latest" in err


def test_no_token_or_password_the_portal_prints_starts_with_a_dash(roster):
    # a token pasted after --token that starts with "-" reads as another option: submit then failed
    # with "argument --token: expected one argument" (1 token in 64)
    from grader.web.site import roster as accounts

    secrets = [accounts.printable_secret(32) for _ in range(3000)] + [accounts.printable_secret(9) for _ in range(3000)]
    assert not [secret for secret in secrets if secret.startswith("-")]
    assert len({len(secret) for secret in secrets}) == 2  # the lengths token_urlsafe gives: nothing cut
