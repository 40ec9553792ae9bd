"""A task page opens with its failing cases grouped by cause, each said once; the terminal table
says the first failing case's cause in one line, in the report's words; counts meet their nouns
in the right number.

The looping file and the terminal's causes are results made by hand (their messages are those the
grader writes), so no test waits for a time limit; working_game alone and a syntax error are graded.
"""

from __future__ import annotations

import html
import re

import pytest
from support import solution

from grader.model import Case, CaseResult, Difference, Limits, SourceProblem, Task, TaskResult, Verdict
from grader.report import pages as report
from grader.safe_text import plural

LOOP = (
    "Your program was stopped after 2 seconds of processor time (the time limit for this case) while running line 9 "
    "(total = total ^ 1): is that inside a loop that never ends?"
)
NOT_RUN = (
    "Not run: your program ran out of time on 'case 1' and on 'case 2', so the rest of this task's cases "
    "were left out to give you feedback sooner. Make it finish in time first (the messages of those two cases "
    "say where it was stopped), then check again; 'python -m grader check --all' runs every case."
)


def _case(name: str, hint: str = "", hidden: bool = False) -> Case:
    return Case(name, "1 2\n", ("3\n",), "text", {}, Limits(), hidden=hidden, hint=hint)


def _looping() -> TaskResult:
    """A file stuck in a loop at line 9: two time-outs (each with its own hint), 35 cases not run."""
    cases = [_case(f"case {n}", hint=f"hint number {n}", hidden=n == 20) for n in range(1, 38)]
    results = [CaseResult(c, Verdict.TIME_LIMIT_EXCEEDED, f"{LOOP} Hint: {c.hint}", 2.0) for c in cases[:2]]
    results += [CaseResult(c, Verdict.NOT_RUN, NOT_RUN) for c in cases[2:]]
    return TaskResult(Task("nim_sum", "The nim-sum", tuple(cases)), "nim_sum.py", tuple(results))


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def _causes(page: str) -> list:
    section = re.search(r'<section class="causes" id="causes">(.*?)</section>', page, re.S)
    assert section, "the page has a summary of causes"
    return [_text(item) for item in re.findall(r"<li>(.*?)</li>", section.group(1), re.S)]


def test_a_looping_file_opens_with_one_line_for_the_loop_and_the_cases_not_run():
    page = report.task_page(_looping())
    causes = _causes(page)
    assert len(causes) == 1, causes
    assert "2 cases, then 35 not run" in causes[0] and "line 9" in causes[0]
    assert page.index('id="causes"') < page.index("<h2>Cases</h2>")
    # said once: not 35 paragraphs of "not run", nor the loop's sentence once per time-out
    assert _text(page).lower().count("make it finish in time first") == 1 and "Not run: your program" not in _text(page)
    assert "'python -m grader check nim_sum.py --all' runs every case" in causes[0]
    assert _text(page).count("while running line 9") == 1
    # each time-out's row keeps what is its own: its hint
    assert _text(page).count("hint number 1") == 1 and _text(page).count("hint number 2") == 1


def test_working_game_alone_names_the_files_it_needs_once(grade):
    result = grade("working_game", solution("working_game"))
    page = report.task_page(result)
    text = _text(page)
    assert text.count("crashed with ModuleNotFoundError") == 1, "the crash is said once, for all its cases"
    assert text.count("ModuleNotFoundError: No module named 'make_move'") == 1, "its traceback, once"
    assert "present_board.py, make_move.py, optimal_move.py and ui.py are not in the same folder" in text
    for name in ("present_board.py", "optimal_move.py", "ui.py"):
        assert text.count(name) == 1, name
    visible = sum(1 for c in result.cases if not c.case.hidden)
    assert any(f"{visible} cases: Your program crashed with ModuleNotFoundError" in c for c in _causes(page))


def test_a_syntax_error_is_said_once(grade):
    result = grade("nim_sum", solution("nim_sum").replace("def nim_sum(board):", "def nim_sum(board)"))
    assert result.verdict is Verdict.SYNTAX_ERROR
    text = _text(report.task_page(result))
    assert text.count("has a syntax error") == 1
    assert "hidden cases failed" not in text, "nothing ran: no hidden case to speak of"


def test_a_hidden_cases_cause_shows_nothing_its_row_does_not():
    secret = _case("secret", hint="the course's hint", hidden=True)
    other = _case("other secret", hidden=True)
    crash = "Your program crashed with ValueError (PRINTED-BY-THE-PROGRAM) on line 3."
    result = TaskResult(
        Task("nim_sum", "The nim-sum", (secret, other)),
        "nim_sum.py",
        (CaseResult(secret, Verdict.RUNTIME_ERROR, crash, 0.1), CaseResult(other, Verdict.RUNTIME_ERROR, crash, 0.1)),
    )
    page = report.task_page(result)
    assert "PRINTED-BY-THE-PROGRAM" not in page and "ValueError" not in page
    assert _causes(page) == ["crashed 2 hidden cases. First: “secret”, “other secret”."]


def _one(verdict: Verdict, message: str, problem=None, difference=None) -> TaskResult:
    case = _case("case 1")
    return TaskResult(
        Task("nim_sum", "The nim-sum", (case,)),
        "nim_sum.py",
        (CaseResult(case, verdict, message, 0.1, difference=difference),),
        problem=problem,
    )


def test_the_table_says_the_facts_and_what_explains_them_under_the_row_in_the_reports_words():
    # the first sentence of the message (the facts), then the first of the one explanation it got
    crash = _one(
        Verdict.RUNTIME_ERROR,
        "Your program crashed with IndexError (list index out of range) on line 12: x = board[5]. "
        "Your function reads board[5], a fixed position. A board may have fewer rows.",
    )
    syntax = "Line 74 has a syntax error: expected ':'. A line that starts a block must end with a colon ':'."
    broken = _one(Verdict.SYNTAX_ERROR, syntax, problem=SourceProblem(Verdict.SYNTAX_ERROR, syntax, line=74))
    wrong = _one(
        Verdict.WRONG_ANSWER,
        'Line 1 differs from column 1: expected "7", your program printed "0. Or 1". Hint: XOR.',
        difference=Difference(1, 1),
    )
    table = report.terminal_table([crash, broken, wrong, _looping()]).splitlines()
    assert table[1].split()[:2] == ["nim_sum", "runtime_error"]  # the columns keep their meaning
    crashed = "Your program crashed with IndexError (list index out of range) on line 12: x = board[5]."
    assert table[2] == f"    crashed: {crashed} Your function reads board[5], a fixed position."
    colon = "A line that starts a block must end with a colon ':'."
    assert table[4] == f"    does not compile: Line 74 has a syntax error: expected ':'. {colon}"
    printed = 'Line 1 differs from column 1: expected "7", your program printed "0. Or 1".'
    assert table[6] == f"    wrong answer: {printed} Hint: XOR."
    assert table[8] == f"    took too long: {LOOP} Hint: hint number 1"


def test_the_tables_cause_is_safe_for_a_terminal():
    table = report.terminal_table([_one(Verdict.WRONG_ANSWER, 'expected "7", printed "\x1b[2J".')])
    assert "\x1b" not in table and "\\x1b[2J" in table


def test_a_count_meets_its_noun_in_the_right_number(tmp_path):
    assert (plural(1, "task"), plural(2, "task"), plural(0, "case")) == ("1 task", "2 tasks", "0 cases")
    one = _one(Verdict.WRONG_ANSWER, "wrong")
    report.write_html([one], tmp_path)
    index = _text((tmp_path / "index.html").read_text(encoding="utf-8"))
    assert "1 of 1 task still needs work" in index and "0 / 1 case\n" in index
    assert "0 of 1 case accepted" in _text((tmp_path / "nim_sum.html").read_text(encoding="utf-8"))
    report.write_html([one, one], tmp_path)
    assert "2 of 2 tasks still need work" in _text((tmp_path / "index.html").read_text(encoding="utf-8"))


# -- one mistake over many cases is one cause (issue 36) -----------------------------------------

EXTRA_LINES = "Your program prints extra lines before the answer"
ONE_MISTAKE = {  # a real-style file of tests/real_mistakes, and words its one cause must say
    "the row counter is moved on before the row is printed: rows count from 2": "each number that differs is one "
    "too high",
    "the board is printed as a list first, a debug print left in": EXTRA_LINES,
    "the two bits printed while testing, left in": EXTRA_LINES,
    "the running total printed at every row, left in": EXTRA_LINES,
    "binary_numeral looks the bits up in a table of four-bit numbers": "Your program crashed with KeyError on line",
}


@pytest.mark.parametrize("name", ONE_MISTAKE)
def test_one_mistake_over_many_cases_is_one_cause_said_once(name, grade):
    from real_mistakes import referee

    entry = next(e for e in referee.FILES if e.name == name)
    page = report.task_page(grade(entry.task, entry.text()))
    visible = [c for c in _causes(page) if "hidden case" not in c]
    assert len(visible) == 1, visible
    assert ONE_MISTAKE[name] in visible[0] and "each case below says how" not in visible[0], visible[0]
    assert "What went wrong is said once" not in page


def test_a_cause_said_whole_at_the_top_is_pointed_to_once_not_in_every_case(grade):
    result = grade("working_game", solution("working_game"))  # no companion files: one crash, every case
    text = _text(report.task_page(result))
    assert text.count("is not said again in the cases it names") == 1
    assert "What went wrong is said once" not in text


def _failed(name: str, verdict: Verdict, message: str, actual: str = "", expected: str = "3\n") -> CaseResult:
    case = Case(name, "1 2\n", (expected,), "text", {}, Limits())
    return CaseResult(case, verdict, message, 0.1, actual=actual, expected=expected)


def _page_causes(*results: CaseResult) -> list:
    task = TaskResult(Task("nim_sum", "The nim-sum", tuple(r.case for r in results)), "nim_sum.py", results)
    return _causes(report.task_page(task))


def test_the_same_exception_at_two_lines_is_two_causes():
    causes = _page_causes(
        _failed("a", Verdict.RUNTIME_ERROR, "Your program crashed with KeyError ('10000') on line 9: t[k]."),
        _failed("b", Verdict.RUNTIME_ERROR, "Your program crashed with KeyError ('111') on line 9: t[k]."),
        _failed("c", Verdict.RUNTIME_ERROR, "Your program crashed with KeyError ('7') on line 14: u[k]."),
    )
    assert causes[0].startswith("crashed 2 cases: Your program crashed with KeyError on line 9: t[k].")
    assert "'10000'" not in causes[0] and "'111'" not in causes[0], "a text true of one case only"
    assert causes[1].startswith("crashed 1 case.")


def test_extra_lines_before_in_one_case_and_after_in_another_are_one_cause():
    causes = _page_causes(
        _failed("a", Verdict.WRONG_ANSWER, "The answer is right, but ...", actual="debug\n3\n"),
        _failed("b", Verdict.WRONG_ANSWER, "The answer is right, but ... (other)", actual="3\nbye\n"),
    )
    assert len(causes) == 1 and "prints extra lines before or after the answer" in causes[0], causes
    assert 'in “a” the first extra line is "debug"' in causes[0]


def test_numbers_off_by_different_amounts_are_not_one_shift():
    causes = _page_causes(
        _failed("a", Verdict.WRONG_ANSWER, 'Line 1 differs: expected "3", printed "4".', actual="4\n"),
        _failed("b", Verdict.WRONG_ANSWER, 'Line 1 differs: expected "3", printed "5".', actual="5\n"),
        _failed("c", Verdict.WRONG_ANSWER, 'Line 1 differs: expected "3", printed "4"!', actual="4\n"),
    )
    assert "each number that differs is one too high" in causes[0] and "“a”, “c”" in causes[0], causes
    # "b" is off by 2: not in the shift's cause, said on its own
    assert causes[1].startswith("wrong answer 1 case.") and "“b”" in causes[1]


def test_one_sentence_with_different_values_is_said_with_the_values_left_out():
    causes = _page_causes(
        _failed("a", Verdict.WRONG_ANSWER, 'Your output stops after 2 lines; 5 were expected. Next: "x".'),
        _failed("b", Verdict.WRONG_ANSWER, 'Your output stops after 3 lines; 5 were expected. Next: "y".'),
    )
    assert causes == [
        'wrong answer 2 cases: Your output stops after … lines; 5 were expected. Next: "…". First: “a”, “b”.'
    ]


def test_a_report_of_the_public_cases_only_says_so_in_its_headline():
    # the portal's report of a hand-in whose hidden cases wait for the deadline (web/worker/hidden_results.py)
    accepted = _one(Verdict.ACCEPTED, "")
    page = _text(report.bounded_task_page(accepted, public_only=True))
    assert "public cases accepted" in page and "1 of 1 public case accepted" in page
    whole = _text(report.bounded_task_page(accepted))
    assert "public" not in whole and "1 of 1 case accepted" in whole
