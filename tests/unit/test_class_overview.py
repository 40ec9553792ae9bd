"""The class overview page: who to help first, the score distribution, each case's pass rate, all marks."""

from __future__ import annotations

import html
import re
from typing import List, Sequence, Tuple

import pytest

from grader.marks import CaseTally, StudentMarks, TaskMark
from grader.model import Case, Limits, Task, Verdict
from grader.report import pages as report
from grader.report.class_charts import histogram, percent_text
from grader.report.class_overview import class_overview

HOSTILE = "<script>alert(1)</script>"


def case(name: str, hidden: bool = False) -> Case:
    return Case(name, "", ("",), "exact", {}, limits=Limits(), hidden=hidden)


TASKS = (
    Task("nim_sum", "The nim-sum", (case("two rows"), case("a big board", hidden=True))),
    Task("make_move", "Making a move", (case("take one"),)),
    Task("empty_task", "A task with no cases", ()),
)


def mark(task: str, score: float, max_score: float = 10, verdict: Verdict = Verdict.WRONG_ANSWER, **kw) -> TaskMark:
    if score == max_score:
        verdict = Verdict.ACCEPTED
    return TaskMark(task, verdict, score, max_score, failed=0 if score == max_score else 1, cases=2, **kw)


def student(name: str, nim: float, move: float, **kw) -> StudentMarks:
    return StudentMarks(name, (mark("nim_sum", nim, **kw), mark("make_move", move), mark("empty_task", 0, 0)))


def text_of(page: str) -> str:
    """The page's text, roughly as read: inline tags dropped, others a space, entities decoded, spaces normalised."""
    text = re.sub(r"</?(a|span|wbr)\b[^>]*>", "", page)
    text = re.sub(r"<[^>]+>", " ", text)
    return " ".join(html.unescape(text).replace("\u00a0", " ").split())


def render(tmp_path, students: Sequence[StudentMarks], tallies: Sequence[CaseTally] = (), tasks=TASKS) -> str:
    path = tmp_path / "out" / "index.html"
    report.write_class_html(students, tallies, tasks, path, "protections: no network")
    return path.read_text(encoding="utf-8")


def section(page: str, heading_id: str) -> str:
    """The page from the heading with ``heading_id`` to the next h2."""
    start = page.index(f'id="{heading_id}"')
    end = page.find("<h2", start)
    return page[start : end if end >= 0 else len(page)]


@pytest.fixture
def classroom() -> List[StudentMarks]:
    return [
        student("alice", 10, 10),  # everything accepted: 100 %
        student("bob", 0, 0, verdict=Verdict.RUNTIME_ERROR),  # 0 %
        student("carol", 5, 10, verdict=Verdict.TIME_LIMIT_EXCEEDED),  # 75 %
        student("dave", 0, 2, missing=True, verdict=Verdict.NO_OUTPUT),  # 10 %
        student("erin", 8.5, 10),  # 92.5 %
        student(HOSTILE, 3, 0),  # 15 %
    ]


TALLIES = (
    CaseTally("nim_sum", "two rows", False, 5, 6),
    CaseTally("nim_sum", "a big board", True, 1, 6),
    CaseTally("make_move", "take one", False, 6, 6),
)


def test_histogram_bars_count_the_students_in_each_range(classroom):
    chart = histogram(classroom)
    counts = [count for _, count in chart.counts]
    # 0 % (bob); 10 % (dave) and 15 % (hostile) in 10–20; 75 % (carol); 92.5 % and 100 % in 90–100.
    assert counts == [1, 2, 0, 0, 0, 0, 0, 1, 0, 2]
    assert [bar.label for bar in chart.bars] == ["1", "2", "", "", "", "", "", "1", "", "2"]
    heights = [bar.height for bar in chart.bars]
    assert heights[1] == heights[9] == 2 * heights[0] > 0 and heights[2] == 0
    assert all(bar.y + bar.height == chart.bottom for bar in chart.bars)  # every bar stands on the axis


def test_the_page_draws_and_tells_the_same_histogram(tmp_path, classroom):
    page = render(tmp_path, classroom, TALLIES)
    chart = section(page, "distribution-heading")
    assert '<svg class="chart histogram"' in chart and 'role="img"' in chart and "aria-label=" in chart
    titles = [text_of(t) for t in re.findall(r"<title>(.*?)</title>", chart)]
    assert "2 students scored 90–100 %" in titles and "1 student scored 70–80 %" in titles
    assert "No student scored 20–30 %" in titles
    numbers = text_of(chart)
    assert "0–10 %: 1" in numbers and "10–20 %: 2" in numbers and "90–100 %: 2" in numbers


def test_summary_line_counts_students_and_those_done(tmp_path, classroom):
    text = text_of(render(tmp_path, classroom, TALLIES))
    # shares 1, 0, .75, .1, .925, .15: mean 48.75 %, median 45 %
    assert "6 students · mean 49 % of the points, median 45 % · 1 with every task accepted" in text


def test_those_who_need_help_come_first_with_their_weakest_tasks(tmp_path, classroom):
    page = render(tmp_path, classroom, TALLIES)
    helped = section(page, "help-heading")
    names = re.findall(r'<li><a href="[^"]*">([^<]*)</a>', helped)
    assert [html.unescape(n) for n in names] == ["bob", "dave", HOSTILE, "carol", "erin"]  # alice: all accepted
    items = [text_of(item) for item in re.split(r"(?=<li><a )", helped)[1:]]
    assert items[0].startswith("bob · 0 / 20 points (0 %)")
    assert "nim_sum: crashed (0/10)" in items[0] and "make_move: wrong answer (0/10)" in items[0]
    assert "nim_sum: not handed in (0/10)" in items[1]  # dave did not hand it in
    assert items[3].startswith("carol") and "nim_sum: took too long (5/10)" in items[3]
    assert "make_move" not in items[3]  # accepted, so not among her weak tasks
    assert 'href="bob/index.html"' in helped


def test_at_most_ten_students_are_listed_to_help_first():
    crowd = [student(f"s{i:02d}", i % 10, 0) for i in range(25)]
    overview = class_overview(crowd, [], TASKS)
    assert len(overview.help) == 10
    assert [e.student for e in overview.help][:3] == ["s00", "s10", "s20"]


def test_a_hostile_student_name_stays_text(tmp_path, classroom):
    page = render(tmp_path, classroom, TALLIES)
    assert "<script" not in page and "alert(1)</" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert 'href="%3Cscript%3Ealert%281%29%3C/script%3E/index.html"' in page


def test_each_case_shows_its_pass_rate_and_hidden_cases_say_so(tmp_path, classroom):
    page = render(tmp_path, classroom, TALLIES)
    cases = text_of(section(page, "cases-heading"))
    assert "two rows 5/6 (83 %)" in cases
    assert "a big board (hidden) 1/6 (17 %)" in cases
    assert "take one 6/6 (100 %)" in cases
    assert "This task has no cases." in cases
    assert re.search(r'<rect class="bad"[^>]*/>\s*<text class="rate"[^>]*>1/6', page)
    assert re.search(r'<rect class="ok"[^>]*/>\s*<text class="rate"[^>]*>5/6', page)


def test_hardest_cases_are_listed_lowest_pass_rate_first(tmp_path, classroom):
    page = render(tmp_path, classroom, TALLIES)
    hardest = page[page.index("Hardest cases") : page.index('class="task-charts"')]
    items = [text_of(item) for item in re.findall(r"<li>(.*?)</li>", hardest)]
    # the case everybody passed is not among the hardest
    assert items == [
        "nim_sum · a big board (hidden): 1 of 6 who handed it in (17 %)",
        "nim_sum · two rows: 5 of 6 who handed it in (83 %)",
    ]
    assert 'href="#cases-nim_sum"' in hardest and 'id="cases-nim_sum"' in page


def test_the_full_table_lists_everyone_lowest_share_first(tmp_path, classroom):
    page = render(tmp_path, classroom, TALLIES)
    table = section(page, "marks-heading")
    names = [html.unescape(n) for n in re.findall(r'<th scope="row"><a [^>]*>([^<]*)</a>', table)]
    assert names == ["bob", "dave", HOSTILE, "carol", "erin", "alice"]
    assert 'title="crashed"' in table and 'title="not handed in"' in table
    assert "20 / 20 (100 %)" in text_of(table)


def test_the_page_is_self_contained(tmp_path, classroom):
    page = render(tmp_path, classroom, TALLIES)
    assert "http://" not in page and "https://" not in page
    assert not re.search(r"""(src|href)=["']?//""", page)
    assert "<link" not in page and "<script" not in page and "<img" not in page
    assert "<style>" in page


@pytest.mark.parametrize("tasks", [TASKS, ()], ids=["tasks", "no tasks"])
def test_an_empty_class_renders(tmp_path, tasks: Tuple[Task, ...]):
    page = render(tmp_path, [], [], tasks)
    text = text_of(page)
    assert "No students graded yet." in text
    assert "0–10 %: 0" in text
    assert "<svg" in page  # the distribution's axes, with no bars


def test_students_with_nothing_to_earn_and_cases_nobody_ran_render(tmp_path):
    nothing = StudentMarks("zed", ())
    page = render(tmp_path, [nothing], [CaseTally("nim_sum", "two rows", False, 0, 0)])
    text = text_of(page)
    assert "1 student · mean 100 % of the points" in text
    assert "two rows no student ran it" in text


def test_percentages_never_round_to_all_or_nothing():
    assert percent_text(0) == "0\u00a0%" and percent_text(1) == "100\u00a0%"
    assert percent_text(1 / 300) == "1\u00a0%" and percent_text(299 / 300) == "99\u00a0%"
    assert percent_text(0.5) == "50\u00a0%"


def test_each_task_says_how_many_handed_it_in_and_its_rates_are_out_of_them(tmp_path, classroom):
    """dave did not hand nim_sum in: its chart says 5 of the 6, every case's title "who handed it in"."""
    page = render(tmp_path, classroom, TALLIES)
    charts = text_of(section(page, "cases-heading"))
    assert "handed in by 5 of 6 students: each case's rate is out of those who handed it in." in charts
    assert "handed in by 6 of 6 students" in charts  # make_move
    titles = [text_of(t) for t in re.findall(r"<title>(.*?)</title>", section(page, "cases-heading"))]
    assert "two rows: 5 of 6 students who handed it in passed (83 %)" in titles


def test_a_task_not_handed_in_is_not_counted_in_its_cases_pass_rates():
    from grader.marks import Tallies
    from grader.model import CaseResult, TaskResult
    from grader.submission.problems import missing_file

    task = TASKS[1]
    passed = TaskResult(task, "make_move.py", tuple(CaseResult(c, Verdict.ACCEPTED, "") for c in task.cases))
    tallies = Tallies()
    tallies.add([passed])
    tallies.add([missing_file(task, "make_move.py")])
    (tally,) = tallies.tallies()
    assert (tally.passed, tally.students, tally.pass_rate) == (1, 1, 1.0)  # not 1 of the 2 in the class
