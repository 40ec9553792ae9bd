"""What a student reads first, through Django's test client: a refused hand-in's sentence at the top
of the task's page (before the form, the submissions and the statement) whatever refused it; every
list of the course's tasks in the handout's order, the exercises under the student's total; and no
link of any page a student or an instructor can reach leads to a 404 or a 500."""

from __future__ import annotations

import html
import io
import re
import sys
from html.parser import HTMLParser
from typing import Dict, List, Tuple
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_get, api_hand_in, set_up_portal  # noqa: E402
from support import HANDOUT, PROJECT, mutate, solution  # noqa: E402

from grader.course.handout import handout_order  # noqa: E402
from grader.course.layout import Course  # noqa: E402
from grader.course.loader import load_course  # noqa: E402
from grader.submission.files import MAX_SOURCE_BYTES  # noqa: E402

ORIGIN = "http://testserver"


@pytest.fixture(scope="module", autouse=True)
def roster(tmp_path_factory):
    set_up_portal(
        tmp_path_factory.mktemp("portal"),
        "username,role\nann,student\nben,student\nd.o+1@lab,student\njosé,student\nteach,instructor\n",
    )


def client_of(name: str):
    """A client signed in as ``name`` that answers a view's exception as the 500 a user gets."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client(raise_request_exception=False)
    client.force_login(get_user_model().objects.get(username=name))
    return client


def text_of(content: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", content))).strip()


# -- a refused hand-in: its sentence first ---------------------------------------------------------


def _upload(name: str, data: bytes):
    upload = io.BytesIO(data)
    upload.name = name
    return upload


def _one_waiting():
    api_hand_in("ann", "nim_sum", solution("nim_sum"))  # left ungraded: it waits


def _bound_waiting():
    from grader.web.models import CourseSetting

    _one_waiting()
    CourseSetting.objects.update_or_create(pk=1, defaults={"max_waiting": 1})


def _max_count():
    from grader.web.models import TaskPolicy

    _one_waiting()
    TaskPolicy.objects.update_or_create(task="nim_sum", defaults={"max_count": 1})


def _too_soon():
    from grader.web.models import TaskPolicy

    _one_waiting()
    TaskPolicy.objects.update_or_create(task="nim_sum", defaults={"min_interval_s": 3600})


# (what was sent, what to set up first, words of the refusal, status): every way the form refuses
REFUSALS = [
    pytest.param({"text": "   "}, None, "No file: send the exercise file", 400, id="nothing"),
    pytest.param({"text": solution("make_move")}, None, "make_move", 400, id="another-tasks-file"),
    pytest.param({"file": _upload("nim_sum.py", b"\x89PNG\r\n\x1a\n\0\0")}, None, "is not text", 400, id="an-image"),
    pytest.param({"text": "#" * (MAX_SOURCE_BYTES + 1)}, None, "over the limit of", 413, id="too-large"),
    pytest.param(
        {"text": solution("nim_sum"), "also": _upload("ui.py", b"x = 1\n")},
        None,
        "takes its own file only",
        400,
        id="a-file-not-taken",
    ),
    pytest.param({"text": solution("nim_sum")}, _bound_waiting, "waiting to be graded", 429, id="waiting-bound"),
    pytest.param({"text": solution("nim_sum")}, _max_count, "", 429, id="max-count"),
    pytest.param({"text": solution("nim_sum")}, _too_soon, "", 429, id="too-soon"),
]


@pytest.mark.parametrize("sent, before, words, status", REFUSALS)
def test_a_refused_hand_in_says_why_first_then_the_form_the_submissions_and_the_statement(sent, before, words, status):
    from django.utils.html import escape

    from grader.web.worker.course_state import exercise_statement

    if before is not None:
        before()
    answer = client_of("ann").post("/tasks/nim_sum/", sent)
    page = answer.content.decode()
    assert answer.status_code == status, text_of(page)[:400]
    body = page[page.index("<main>") + len("<main>") :]
    alert = body.index('<p class="note problem" role="alert"')
    # nothing but the page's heading above the refusal
    assert re.fullmatch(r"\s*<h1>[^<]*</h1>\s*", body[:alert]), body[:alert]
    said = text_of(body[alert:].split("</p>", 1)[0].split(">", 1)[1])
    assert words in said and said.endswith("."), said
    form = body.index('<form method="post" enctype="multipart/form-data"')
    history = body.index("<h2>Your submissions</h2>")
    statement = body.index(f'<pre class="statement">{escape(exercise_statement("nim_sum"))}</pre>')
    assert alert < form < history < statement


def test_a_task_page_with_nothing_refused_has_no_alert_and_keeps_the_same_order():
    page = client_of("ann").get("/tasks/nim_sum/").content.decode()
    assert 'role="alert"' not in page
    assert (
        page.index("<h2>Hand in</h2>") < page.index("<h2>Your submissions</h2>") < page.index("<h2>The exercise</h2>")
    )


# -- the handout's order, and the student's total ----------------------------------------------------


def test_every_list_of_the_tasks_follows_the_handout():
    assert handout_order(Course(PROJECT), sorted(HANDOUT)) == HANDOUT
    assert list(load_course(PROJECT)) == HANDOUT  # what `grade`, `verify` and the kit list
    assert [task["id"] for task in api_get("ann", "/api/tasks")] == HANDOUT
    home = client_of("ann").get("/").content.decode()
    assert re.findall(r'\d+\. <a href="/tasks/(\w+)/"', home) == HANDOUT
    teach = client_of("teach").get("/teach/").content.decode()
    listed = re.findall(r'action="/teach/tasks/(\w+)/limits"', teach)
    assert list(dict.fromkeys(listed)) == HANDOUT


def test_the_exercise_list_shows_the_students_total_out_of_the_courses(grade_queue):
    from grader.web.worker.course_state import course_tasks

    tasks = course_tasks()
    whole = sum(task.max_score for task in tasks.values())
    assert f"Your total: 0 / {whole:g} points so far" in text_of(client_of("ben").get("/").content.decode())
    api_hand_in("ann", "nim_sum", solution("nim_sum"))
    api_hand_in("ann", "exclusive_or", solution("exclusive_or"))
    api_hand_in("ann", "bin_num", "def numeral_binary(n):\n    return 0\n")  # graded, worth nothing
    grade_queue()
    earned = tasks["nim_sum"].max_score + tasks["exclusive_or"].max_score
    assert f"Your total: {earned:g} / {whole:g} points so far" in text_of(client_of("ann").get("/").content.decode())


# -- no link leads to a 404 ---------------------------------------------------------------------------


class _Links(HTMLParser):
    """The addresses of a page's links (``<a href>``) and of anything it loads (``src``)."""

    def __init__(self):
        super().__init__()
        self.found: List[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value and (name == "src" or (name == "href" and tag in ("a", "link", "area"))):
                self.found.append(value)


def crawl(client, start: str = "/", depth: int = 6, most: int = 400) -> Dict[str, Tuple[int, str]]:
    """Every same-origin address reached from ``start`` by following links and redirects, at most
    ``depth`` steps and ``most`` addresses: address → (status, the page that led there)."""
    answers: Dict[str, Tuple[int, str]] = {}
    frontier = [(start, "(start)")]
    for _ in range(depth + 1):
        later = []
        for address, came_from in frontier:
            if address in answers or len(answers) >= most:
                continue
            response = client.get(address)
            answers[address] = (response.status_code, came_from)
            if response.status_code in (301, 302, 303, 307, 308):
                links = [response["Location"]]
            elif "text/html" in response.get("Content-Type", ""):
                parser = _Links()
                parser.feed(response.content.decode("utf-8", "replace"))
                links = parser.found
            else:
                links = []
            for link in links:
                target = urldefrag(urljoin(ORIGIN + address, link))[0]
                where = urlsplit(target)
                if f"{where.scheme}://{where.netloc}" == ORIGIN:
                    later.append((target[len(ORIGIN) :] or "/", address))
        frontier = later
    return answers


@pytest.fixture
def graded_term(grade_queue):
    """ann: a right nim_sum, a wrong one and a present_board, graded, and a make_move still waiting;
    ben: nothing; two students whose names are no plain word in an address, graded too."""
    for name in ("d.o+1@lab", "josé"):  # their links on the class overview are quoted
        api_hand_in(name, "present_board", solution("present_board"))
    api_hand_in("ann", "nim_sum", solution("nim_sum"))
    api_hand_in("ann", "nim_sum", mutate("nim_sum", "total = total ^ row", "total = total + row"))
    api_hand_in("ann", "present_board", solution("present_board"))
    grade_queue()
    api_hand_in("ann", "make_move", solution("make_move"))  # waiting


@pytest.mark.parametrize("who", ["ann", "ben", "teach"])
def test_no_link_on_any_page_a_user_reaches_is_a_404_or_a_500(graded_term, who):
    answers = crawl(client_of(who))
    broken = {address: found for address, found in answers.items() if found[0] in (404, 500)}
    assert broken == {}, f"broken links (address: status, the page that links it): {broken}"
    reached = set(answers)
    if who == "ann":
        # the crawl went where a student goes: each task, a submission, its report and its file
        assert {f"/tasks/{task}/" for task in HANDOUT} <= reached
        assert any(re.fullmatch(r"/submissions/\d+/report", a) for a in reached)
        assert any(re.fullmatch(r"/submissions/\d+/file", a) for a in reached)
    if who == "teach":
        assert {"/teach/", "/teach/class/", "/teach/queue/", "/teach/class/ann/index.html"} <= reached
        assert {"/teach/class/d.o%2B1%40lab/index.html", "/teach/class/jos%C3%A9/index.html"} <= reached
        assert any(re.fullmatch(r"/submissions/\d+/report", a) for a in reached)


def test_the_reports_links_lead_back_to_the_submission_and_to_the_exercises(grade_queue):
    number = api_hand_in("ann", "nim_sum", solution("nim_sum"))
    grade_queue()
    client = client_of("ann")
    report = client.get(f"/submissions/{number}/report").content.decode()
    parser = _Links()
    parser.feed(report)
    targets = {urljoin(f"{ORIGIN}/submissions/{number}/report", link)[len(ORIGIN) :] for link in parser.found}
    assert {f"/submissions/{number}/", "/"} <= targets
    for target in targets:
        assert client.get(target, follow=True).status_code == 200, target
