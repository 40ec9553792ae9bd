"""Where students land (issue 36): the submission's page says the cause first (the known mistake,
then "What to fix first" as the report computes it), then the failing cases with their input,
expected and actual output, each hint once, a hidden case by its name, verdict, fixed sentence and
hint only, and the student's code from its first line after the module docstring; the API says the
cause ``check`` prints under a task, and a hand-in whose hidden cases wait still reads plainly."""

from __future__ import annotations

import html
import re
import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_get, api_hand_in, set_up_portal, signed_in  # noqa: E402
from support import mutate, solution  # noqa: E402

ADDS = mutate("nim_sum", "total = total ^ row", "total = total + row")  # the typical wrong nim_sum
STUDENT_WORDS = "the rows are added up with + instead of XOR-ed"


@pytest.fixture(scope="module", autouse=True)
def roster(tmp_path_factory):
    set_up_portal(tmp_path_factory.mktemp("portal"), "username,role\nann,student\nben,student\nteach,instructor\n")


def words(page: str) -> str:
    """The page's words, tags dropped (a block's as a space) and entities read, spaces squeezed."""
    inline = re.sub(r"</?(mark|span|strong|a)\b[^>]*>", "", page)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", inline)))


def graded(grade_queue, text: str, user: str = "ann", task: str = "nim_sum") -> tuple:
    """(submission number, its page) of ``text`` handed in and graded."""
    number = api_hand_in(user, task, text)
    grade_queue()
    return number, signed_in(user).get(f"/submissions/{number}/").content.decode()


def case_block(page: str, name: str) -> str:
    """The words of the failing case ``name``'s block on the page."""
    ends = r'<div class="case"|<p class="hint"|<details|<p class="line"|<h2'
    blocks = [re.split(ends, block)[0] for block in page.split('<div class="case" id=')[1:]]
    named = [b for b in blocks if f"<strong>{html.escape(name)}</strong>" in b]
    assert named, f"no block for {name!r}"
    return words(named[0])


def test_the_cause_comes_first_then_the_failing_cases_then_the_code(grade_queue):
    number, page = graded(grade_queue, ADDS)
    main = page.split("<main>")[1]
    fix, known = main.index("What to fix first"), main.index("Your answers match a known mistake: ")
    assert fix < known < main.index("Failing cases") < main.index("Your file: nim_sum.py")
    assert STUDENT_WORDS in words(main[known : main.index("</section>", known)])
    causes = words(main[fix : main.index("</section>", fix)])
    assert "wrong answer" in causes and "First:" in causes
    # the cause the API gives is the line check prints under the task
    assert api_get("ann", f"/api/submissions/{number}")["cause"].startswith("wrong answer: ")


def test_a_failing_visible_case_shows_its_input_expected_and_actual_output(grade_queue):
    from grader.web.worker.course_state import course_tasks

    _, page = graded(grade_queue, ADDS)
    case = next(c for c in course_tasks()["nim_sum"].cases if c.name == "the nim-sum of 1, 3, 5, 7 is 0")
    block = case_block(page, case.name)
    assert f"Input {case.input.strip()}" in block
    assert "Expected 0 " in block and "Got 16 " in block  # 1 + 3 + 5 + 7


def test_each_hint_is_said_once_for_the_cases_that_share_it(grade_queue):
    number, page = graded(grade_queue, ADDS)
    given = [c["hint"] for c in api_get("ann", f"/api/submissions/{number}")["cases"] if c["hint"]]
    shared = {hint for hint in given if given.count(hint) > 1}
    assert shared, "the wrong nim_sum gives several cases one hint"
    for hint in set(given):
        assert page.count(html.escape(hint)) == 1, hint
    longest = max(shared, key=len)
    assert f"(for {given.count(longest)} cases below): {longest}" in words(page)


def test_the_code_starts_after_the_module_docstring_which_one_click_shows():
    from grader.web.site.landing import docstring_lines

    number = api_hand_in("ann", "nim_sum", ADDS)
    end = docstring_lines(ADDS)
    assert ADDS.splitlines()[end - 1].endswith('"""') and end > 20
    page = signed_in("ann").get(f"/submissions/{number}/").content.decode()
    folded = page.split('<details class="docstring">')[1].split("</details>")[0]
    assert f"Lines 1–{end}: the module docstring" in folded and '<td class="n">1</td>' in folded
    code = page.split('aria-label="nim_sum.py with its line numbers">')[1]
    first = re.search(r'<td class="n">(\d+)</td>', code)
    assert first and int(first.group(1)) == end + 1


@pytest.mark.parametrize(
    "text, lines",
    [
        ('"""One line."""\nx = 1\n', 0),  # too short to fold
        ('# a comment\n"""\n1\n2\n3\n"""\nimport json\n', 6),
        ('"""\n1\n2\n3\n4\n"""\ndef f(:\n', 6),  # a syntax error further down changes nothing
        ('"""\n1\n2\n3\n4\n""".strip()\n', 0),  # an expression, not a docstring
        ("import json\n" + '"""\n1\n2\n3\n4\n"""\n', 0),
        ('"""never closed\n1\n2\n3\n4\n', 0),
        ("", 0),
    ],
)
def test_what_is_folded_is_the_module_docstring_alone(text, lines):
    from grader.web.site.landing import docstring_lines

    assert docstring_lines(text) == lines


def test_a_hidden_case_shows_its_name_verdict_sentence_and_hint_and_nothing_else(grade_queue):
    from grader.web.worker.course_state import course_tasks

    _, page = graded(grade_queue, ADDS)
    hidden = [c for c in course_tasks()["nim_sum"].cases if c.hidden]
    lines = re.findall(r'<p class="line" id="case-\d+">.*?</p>', page, re.S)
    failed = [line for line in lines if "(hidden)" in line]
    assert failed, "the wrong nim_sum fails a hidden case"
    for line in failed:
        said = words(line)
        assert "This hidden case was not accepted: your program" in said and "Input" not in said
        assert any(html.escape(case.name) in line for case in hidden)
    for case in hidden:
        assert html.escape(case.name) in page
        assert html.escape(case.input.strip()) not in page
        assert not any(len(e.strip()) > 5 and html.escape(e.strip()) in page for e in case.expected)


def test_accepted_cases_are_one_line_and_a_right_file_has_no_cause(grade_queue):
    _, page = graded(grade_queue, solution("nim_sum"))
    shown = words(page)
    assert "What to fix first" not in shown and "Failing cases" not in shown
    assert re.search(r"accepted \d+ cases", shown)
    assert '<div class="case"' not in page


def test_before_the_deadline_the_waiting_hidden_cases_are_one_line_and_no_cause(grade_queue):
    from grader.web.models import AFTER_DEADLINE, CourseSetting

    CourseSetting.objects.update_or_create(pk=1, defaults={"hidden_results": AFTER_DEADLINE})
    right, page = graded(grade_queue, solution("nim_sum"))
    shown = words(page)
    assert "public cases accepted" in shown and "What to fix first" not in shown
    waiting = re.findall(r"not run (\d+) cases: Hidden case: it runs after your deadline", shown)
    assert len(waiting) == 1 and int(waiting[0]) >= 2  # the sentence once, for every case that waits
    assert api_get("ann", f"/api/submissions/{right}")["cause"] == ""
    wrong, page = graded(grade_queue, ADDS)
    main = page.split("<main>")[1]
    causes = words(main[main.index("What to fix first") : main.index("</section>")])
    assert "not run" not in causes and "wrong answer" in causes  # a case that waits is nothing to fix
    assert api_get("ann", f"/api/submissions/{wrong}")["cause"].startswith("wrong answer: ")


def test_a_row_graded_before_outputs_were_kept_sends_to_the_full_report(grade_queue):
    from grader.web.models import Submission

    number, _ = graded(grade_queue, ADDS)
    Submission.objects.filter(id=number).update(outputs=[])
    page = signed_in("ann").get(f"/submissions/{number}/").content.decode()
    assert "Input" not in words(page.split("Failing cases")[1].split("Your file")[0])
    assert "expected and actual output of each case are in the full report" in words(page)
