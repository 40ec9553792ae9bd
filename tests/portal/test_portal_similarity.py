"""Similar hand-ins, as an instructor meets them on ``/teach/``: a pair whose working_game is the
same code with other names is listed, honest answers written another way are not, hand-ins that are
the stub as handed out are never a pair, a tiny task says it is too small to tell; the side-by-side
view marks what two files share and shows a student's code as text, never as HTML; students and
visitors see none of it; without copydetect the section says so and nothing fails.
Through Django's test client."""

from __future__ import annotations

import re
import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)
pytest.importorskip("copydetect", reason="similar hand-ins need copydetect (the web extra)")

from portal_client import set_up_portal, signed_in  # noqa: E402
from similar_hand_ins import COPY, HONEST, OTHER_HONEST, OWN_LOOP, REFERENCE, STUB, with_body  # noqa: E402
from support import PROJECT, solution  # noqa: E402

ROSTER = (
    "username,role\n"
    + "".join(f"{name},student\n" for name in ("ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal"))
    + "teach,instructor\n"
)
HOSTILE = '</pre><script>alert("owned")</script><img src=x onerror=alert(1)>'


@pytest.fixture(scope="module")
def roster(tmp_path_factory):
    set_up_portal(tmp_path_factory.mktemp("similar"), ROSTER)


@pytest.fixture(autouse=True)
def fresh(roster):
    """Nothing compared before the test is kept (each test's copydetect as the test has it)."""
    import importlib

    try:
        similarity = importlib.import_module("grader.web.site.similarity")
    except ImportError:  # a portal without the section: the tests say what is missing
        yield
        return
    similarity.forget()
    yield
    similarity.forget()


def hand_in(student: str, task: str, text: str) -> int:
    """A hand-in of ``text`` as ``student``'s ``task``.py, as the database keeps it (graded or not
    does not matter here); its number."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from grader.web.models import Submission

    data = text.encode()
    row = Submission.objects.create(
        student=get_user_model().objects.get(username=student),
        task=task,
        file_name=f"{task}.py",
        data=data,
        sha256=Submission.digest(data),
        submitted_at=timezone.now(),
    )
    return row.id


def section(client) -> str:
    answer = client.get("/teach/")
    assert answer.status_code == 200
    found = re.search(r'<section id="similar".*?</section>', answer.content.decode(), re.S)
    assert found, "the class page has a section of similar hand-ins"
    return found.group()


def task_row(html: str, task: str) -> str:
    rows = [row for row in re.findall(r"<tr>.*?</tr>", html, re.S) if f'<span class="muted">{task}</span>' in row]
    assert len(rows) == 1, f"one row of {task} in the section"
    return rows[0]


def listed(html: str, task: str):
    """The pairs the section lists for ``task``: each as the two usernames, sorted."""
    return {tuple(sorted(pair)) for pair in re.findall(r">(\w+) and (\w+)</a>", task_row(html, task))}


def test_a_renamed_copy_is_listed_and_honest_answers_are_not():
    hand_in("ann", "working_game", REFERENCE)
    hand_in("ben", "working_game", COPY)
    hand_in("cat", "working_game", HONEST)
    hand_in("dan", "working_game", OTHER_HONEST)
    html = section(signed_in("teach"))
    assert listed(html, "working_game") == {("ann", "ben")}
    row = task_row(html, "working_game")
    assert "100% alike" in row and "4 hand-ins compared" in row
    assert "The task's median pair" in row


def test_the_latest_hand_in_counts_so_a_copy_replaced_by_own_work_is_no_longer_listed():
    hand_in("ann", "working_game", REFERENCE)
    hand_in("ben", "working_game", COPY)
    hand_in("cat", "working_game", HONEST)
    client = signed_in("teach")
    assert listed(section(client), "working_game") == {("ann", "ben")}
    hand_in("ben", "working_game", OTHER_HONEST)
    assert listed(section(client), "working_game") == set()


def test_a_dropped_students_hand_in_is_not_compared_and_comes_back_with_them():
    from django.contrib.auth import get_user_model

    from grader.web import enrolment

    hand_in("ann", "working_game", REFERENCE)
    hand_in("ben", "working_game", COPY)
    hand_in("cat", "working_game", HONEST)
    client = signed_in("teach")
    ben = get_user_model().objects.get(username="ben")
    enrolment.drop(ben)
    assert listed(section(client), "working_game") == set()  # gone from every listing of the class
    enrolment.restore(get_user_model().objects.get(username="ben"))
    assert listed(section(client), "working_game") == {("ann", "ben")}


def test_hand_ins_that_are_the_stub_are_never_a_pair():
    for student in ("ann", "ben", "cat"):
        hand_in(student, "working_game", STUB)  # three identical files: the stub as handed out
    hand_in("dan", "working_game", STUB.replace("# Write your code here.", "# todo"))
    hand_in("eve", "working_game", HONEST)
    hand_in("fay", "working_game", OTHER_HONEST)
    row = task_row(section(signed_in("teach")), "working_game")
    assert listed(row, "working_game") == set()
    for student in ("ann", "ben", "cat", "dan"):
        assert f"{student} (less than 200 tokens of its own code" in row
    assert "Fewer than 3 hand-ins to compare (2)" in row


def test_a_tiny_task_is_too_small_to_tell_even_when_copied():
    for student in ("ann", "ben", "cat"):
        hand_in(student, "exclusive_or", solution("exclusive_or"))
    row = task_row(section(signed_in("teach")), "exclusive_or")
    assert "Too small to tell" in row and " alike</li>" not in row


def test_a_file_over_the_bound_is_not_compared_and_says_why():
    from grader.web.site.similarity import MAX_BYTES

    huge = REFERENCE + "\n" + "\n".join(f"padding_{n} = {n}" for n in range(MAX_BYTES // 12))
    hand_in("ann", "working_game", huge)
    hand_in("ben", "working_game", "\ufeff" + HONEST.replace("\n", "\r\n"))
    row = task_row(section(signed_in("teach")), "working_game")
    assert f"ann (its file has {len(huge.encode()):,} bytes, over the {MAX_BYTES:,} compared)" in row
    assert "Fewer than 3 hand-ins to compare (1)" in row


def test_not_utf8_is_said():
    hand_in("ann", "working_game", REFERENCE)
    from grader.web.models import Submission

    data = b"\xff\xfe" + REFERENCE.encode("utf-16-le")  # as a hand-in keeps it: the bytes and their digest
    Submission.objects.filter(student__username="ann").update(data=data, sha256=Submission.digest(data))
    assert "ann (its file is not UTF-8 text)" in task_row(section(signed_in("teach")), "working_game")


def test_the_side_by_side_view_marks_what_they_share_and_escapes_their_code():
    first = hand_in("ann", "working_game", REFERENCE.replace("import io\n", f"import io  # {HOSTILE}\n"))
    second = hand_in("ben", "working_game", with_body(OWN_LOOP, comment=f"    # {HOSTILE}\n"))
    answer = signed_in("teach").get(f"/teach/similar/{first}/{second}/")
    assert answer.status_code == 200
    page = answer.content.decode()
    assert "<script>" not in page and "<img" not in page and "</pre><script>" not in page
    assert page.count("&lt;/pre&gt;&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt;") == 2
    files = re.findall(r"<figure>.*?</figure>", page, re.S)
    assert len(files) == 2 and all("<mark>" in each for each in files)
    # the stub's own code (run_game, kept as handed out in both) is never marked as shared
    assert not re.search(r"<mark>[^<]*def run_game", page)
    assert "ann" in page and "ben" in page and "alike" in page


def test_the_view_of_a_copy_marks_nearly_all_of_its_own_code():
    first = hand_in("ann", "working_game", REFERENCE)
    second = hand_in("ben", "working_game", COPY)
    page = signed_in("teach").get(f"/teach/similar/{first}/{second}/").content.decode()
    assert "<strong>100% alike.</strong>" in page
    files = re.findall(r"<figure>.*?</figure>", page, re.S)
    assert len(files) == 2
    for code in files:
        assert re.search(r"<mark>[^<]*while not is_board_empty\(board\):", code)
        # the exercise's statement (the stub's docstring, shared with nothing) is folded away
        assert re.search(r'<details class="fold"><summary>Lines 1–\d+: nothing shared', code)


def test_two_tasks_or_one_students_own_hand_ins_are_not_a_pair():
    client = signed_in("teach")
    game = hand_in("ann", "working_game", REFERENCE)
    ui = hand_in("ben", "ui", solution("ui"))
    again = hand_in("ann", "working_game", COPY)
    for first, second in ((game, ui), (game, again), (game, game), (game, 10**9)):
        assert client.get(f"/teach/similar/{first}/{second}/").status_code == 404


def test_students_and_visitors_see_none_of_it():
    from django.test import Client

    first = hand_in("ann", "working_game", REFERENCE)
    second = hand_in("ben", "working_game", COPY)
    student = signed_in("ann")
    for path in ("/teach/", "/teach/similar/", f"/teach/similar/{first}/{second}/"):
        answer = student.get(path)
        assert answer.status_code == 403 and b"ben" not in answer.content
        visitor = Client().get(path)
        assert visitor.status_code == 302 and visitor["Location"].startswith("/login/")


def test_without_copydetect_the_section_says_so_and_nothing_fails(monkeypatch):
    first = hand_in("ann", "working_game", REFERENCE)
    second = hand_in("ben", "working_game", COPY)
    monkeypatch.setitem(sys.modules, "copydetect", None)  # import copydetect now raises ImportError
    client = signed_in("teach")
    html = section(client)
    assert "Similar hand-ins cannot be shown: copydetect is not installed here" in html
    answer = client.get(f"/teach/similar/{first}/{second}/")
    assert answer.status_code == 200 and b"copydetect is not installed here" in answer.content
    assert client.get("/teach/similar/").status_code == 200


def test_a_visit_stops_comparing_at_its_budget_and_the_next_carries_on():
    from grader.web.site.similar_section import similar_hand_ins

    hand_in("ann", "working_game", REFERENCE)
    hand_in("ben", "working_game", COPY)
    hand_in("cat", "working_game", HONEST)
    waiting = {row["task"].id: row["said"] for row in similar_hand_ins(budget_s=0)["tasks"]}
    assert waiting["working_game"].startswith("Not compared yet")
    done = {row["task"].id: row for row in similar_hand_ins()["tasks"]}
    assert [(p["first"], p["second"]) for p in done["working_game"]["pairs"]] == [("ann", "ben")]


def test_the_stub_is_the_courses_own(monkeypatch):
    """The boilerplate is read from the course's exercises folder, the one the students were given."""
    from grader.web.site import similar_section

    assert similar_section.stub_of("working_game") == (PROJECT / "exercises" / "working_game.py").read_text()
    assert similar_section.stub_of("no_such_task") == ""


def test_a_file_dropped_from_what_is_kept_before_it_is_compared_is_read_again(monkeypatch):
    """A fingerprint kept when the section looked (so its file was not read) and dropped before it
    was compared (another visit filled what is kept) is made from the file, read then."""
    import hashlib
    import time

    from grader.web.site import similarity

    similarity.forget()
    files = {"ann": REFERENCE, "ben": COPY, "cat": HONEST}
    hand_ins = [
        similarity.HandIn(name, n, hashlib.sha256(text.encode()).hexdigest())
        for n, (name, text) in enumerate(files.items())
    ]
    asked = set()
    real = similarity.known

    def known_once(sha256, stub):  # kept when first looked at, gone by the time it is compared
        if sha256 not in asked:
            asked.add(sha256)
            return True
        return real(sha256, stub)

    def read(wanted):
        return [similarity.HandIn(h.student, h.number, h.sha256, files[h.student].encode()) for h in wanted]

    monkeypatch.setattr(similarity, "known", known_once)
    found = similarity.compare_task(hand_ins, STUB, time.monotonic() + 600, read)
    similarity.forget()
    assert found.compared == 3 and not found.skipped
    assert [(p.first.student, p.second.student) for p in found.pairs] == [("ann", "ben")]
