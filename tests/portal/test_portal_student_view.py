"""A student's pages, through Django's test client: which submission's marks count (and an earlier
one that scored more), the exercises in the handout's order with deadlines and points, a task's
statement and its count of cases, and the handed-in file shown with line numbers to its owner only."""

from __future__ import annotations

import html
import re
import sys
from datetime import datetime, timezone

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_hand_in, set_up_portal, signed_in  # noqa: E402
from support import HANDOUT, mutate, solution  # noqa: E402

WRONG = mutate("nim_sum", "total = total ^ row", "total = total + row")


@pytest.fixture(scope="module", autouse=True)
def roster(tmp_path_factory):
    set_up_portal(
        tmp_path_factory.mktemp("portal"),
        "username,role\nann,student\nben,student\nteach,instructor\n",
    )


def text_of(page) -> str:
    """The page's words, tags dropped and entities read, spaces squeezed."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page.content.decode())))


def counts_cell(page, task_id: str) -> str:
    """The words of the "Counts" cell of ``task_id``'s line on the exercise list."""
    row = page.content.decode().split(f'href="/tasks/{task_id}/"')[1].split("</tr>")[0]
    cell = row.split('data-label="Counts">')[1].split("</td>")[0]
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", cell))).strip()


def test_the_pages_name_the_submission_that_counts_and_an_earlier_better_one(grade_queue):
    from grader.web.marks.policies import store_marks_from
    from grader.web.worker.course_state import course_tasks

    worth = f"{course_tasks()['nim_sum'].max_score:g}"
    api_hand_in("ann", "nim_sum", solution("nim_sum"))
    api_hand_in("ann", "nim_sum", WRONG)
    grade_queue()
    ann = signed_in("ann")
    task = text_of(ann.get("/tasks/nim_sum/"))
    assert "Your latest graded submission counts: #2," in task
    said = re.search(r"Your latest submission \(#2, ([0-9.]+) / [0-9.]+\) counts, not your best \(#1, (\S+) / ", task)
    assert said and float(said.group(1)) < float(said.group(2)) and said.group(2) == worth
    assert "hand in again to improve it" in task
    home = ann.get("/")
    assert "Your latest graded submission counts" in text_of(home)
    assert re.fullmatch(r"#2 [0-9.]+ / " + worth, counts_cell(home, "nim_sum"))
    assert counts_cell(home, "ui") == "none graded"

    store_marks_from("best")
    task = text_of(ann.get("/tasks/nim_sum/"))
    assert f"Your best graded submission counts: #1, {worth} / {worth}." in task
    assert "not your best" not in task
    assert counts_cell(ann.get("/"), "nim_sum") == f"#1 {worth} / {worth}"
    # another student, nothing graded: the rule, and none counted yet
    assert "none of yours is graded yet" in text_of(signed_in("ben").get("/tasks/nim_sum/"))


def test_the_exercises_follow_the_handout_with_deadlines_and_points():
    from grader.web.models import TaskPolicy
    from grader.web.worker.course_state import course_tasks, handout_order

    tasks = course_tasks()
    assert list(tasks) == HANDOUT  # the course loads them in the handout's order (course/handout.py)
    assert [task.id for task in handout_order(tasks)] == HANDOUT
    TaskPolicy.objects.create(task="nim_sum", deadline=datetime(2026, 12, 1, 23, 59, tzinfo=timezone.utc))
    page = signed_in("ann").get("/").content.decode()
    shown = re.findall(r'(\d+)\. <a href="/tasks/(\w+)/"', page)
    assert shown == [(str(n), task_id) for n, task_id in enumerate(HANDOUT, 1)]
    row = page[page.index('href="/tasks/nim_sum/"') :].split("</tr>")[0]
    assert "2026-12-01 23:59 UTC" in row and f">{tasks['nim_sum'].max_score:g}<" in row


def test_the_handout_order_falls_back_to_the_courses_for_unnumbered_stubs(tmp_path):
    from django.test import override_settings

    from grader.web.worker.course_state import exercise_statement, handout_order

    (tmp_path / "exercises").mkdir()
    (tmp_path / "exercises" / "b.py").write_text('"""Exercise 2 of the lab: <b> & co"""\n')
    (tmp_path / "exercises" / "c.py").write_text('"""Exercise 1 of the lab"""\n')
    (tmp_path / "exercises" / "d.py").write_text("def f(:\n")  # not Python: no statement, no number
    tasks = {name: object() for name in ("a", "b", "c", "d", "e")}
    with override_settings(GRADER_COURSE=str(tmp_path)):
        assert handout_order(tasks) == [tasks["c"], tasks["b"], tasks["a"], tasks["d"], tasks["e"]]
        assert exercise_statement("b") == "Exercise 2 of the lab: <b> & co" and exercise_statement("d") == ""


def test_the_task_page_states_the_exercise_and_counts_its_cases():
    from django.utils.html import escape

    from grader.web.worker.course_state import course_tasks, exercise_statement

    task = course_tasks()["nim_sum"]
    hidden = sum(1 for case in task.cases if case.hidden)
    assert hidden and len(task.cases) > hidden
    page = signed_in("ann").get("/tasks/nim_sum/").content.decode()
    assert f"{len(task.cases)} cases: {len(task.cases) - hidden} public, {hidden} hidden" in page
    statement = exercise_statement("nim_sum")
    assert statement.startswith("Exercise 6 of the Nim lab") and escape(statement) in page


def test_a_student_reads_their_file_with_line_numbers_and_no_one_else_does():
    text = solution("nim_sum") + "# if a < b & 'c': <script>x</script>\n"
    number = api_hand_in("ann", "nim_sum", text)
    page = signed_in("ann").get(f"/submissions/{number}/").content.decode()
    last = len(text.splitlines())
    said = "# if a &lt; b &amp; &#x27;c&#x27;: &lt;script&gt;x&lt;/script&gt;"
    assert f'<td class="n">{last}</td><td>{said}</td>' in page
    # (the page of a hand-in still waiting carries the portal's own script: the student's must not show)
    assert '<td class="n">1</td>' in page and "<script>x" not in page
    assert "lines are shown here" not in page
    assert signed_in("ben").get(f"/submissions/{number}/").status_code == 404
    assert "&lt;script&gt;x" in signed_in("teach").get(f"/submissions/{number}/").content.decode()


def test_a_long_file_is_shown_up_to_its_bound_and_says_so():
    from grader.web.site.views_student import SHOWN_LINES, source_lines

    shown = source_lines("".join(f"x = {n}\n" for n in range(SHOWN_LINES + 5)).encode())
    assert shown["cut"] and shown["total"] == SHOWN_LINES + 5 and len(shown["lines"]) == SHOWN_LINES
    assert shown["lines"][-1] == (SHOWN_LINES, f"x = {SHOWN_LINES - 1}")
    assert source_lines(b"a\r\nb\xff\n") == {"lines": [(1, "a"), (2, "b\ufffd")], "total": 2, "cut": False}
    from grader.web.models import Submission

    number = api_hand_in("ann", "nim_sum", solution("nim_sum"))
    Submission.objects.filter(id=number).update(data="".join(f"x = {n}\n" for n in range(SHOWN_LINES + 5)).encode())
    page = text_of(signed_in("ann").get(f"/submissions/{number}/"))
    assert f"Only its first {SHOWN_LINES} of {SHOWN_LINES + 5} lines are shown here" in page
    assert f"{SHOWN_LINES}x = {SHOWN_LINES - 1}" in page and f"x = {SHOWN_LINES}" not in page
