"""A case's hint is shown only on the failures it explains (docs/testcases.md, "Hints: tied to the
failures they explain"): a plain ``hint`` after a wrong answer only, a ``hints`` entry when its
``when`` holds (verdict, output or pattern, exception, earlier cases accepted), a known mistake on a
wrong answer. A bad ``hints`` entry is refused naming the file, the line and the key; ``verify``
warns about a hint shown to a known-wrong solution whose header expects another.
"""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from support import PROJECT, mutate

from grader.cli.main import main
from grader.course.loader import load_task
from grader.errors import CaseFileError
from grader.grade.grading import grade_file
from grader.model import Verdict, When
from grader.nim.lab import lab_checkers

# What the three misleading hints of the issue said to a nim_sum that adds the rows.
MISLEADING = ("P and N swapped", "old handouts", "32- or 64-bit", "64-bit limit", "32-bit", "main block")
ADDS_THE_ROWS = mutate("nim_sum", "total = total ^ row", "total = total + row")


def write_task(folder: Path, text: str, name: str = "demo") -> Path:
    path = folder / "testcases" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def load(folder: Path, text: str):
    return load_task(write_task(folder, text), lab_checkers())


def failures(result) -> dict:
    """The message of each case not accepted, by case name."""
    return {c.case.name: c.message for c in result.cases if not c.accepted}


# -- the nim_sum of the issue ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(ADDS_THE_ROWS, id="total-plus-row"),
        pytest.param((PROJECT / "solutions/wrong/nim_sum/adds_the_rows.py").read_text(), id="known-wrong-file"),
    ],
)
def test_a_nim_sum_that_adds_the_rows_gets_none_of_the_misleading_hints(grade, source):
    result = grade("nim_sum", source)
    messages = failures(result)
    assert len(messages) > 10
    for name, message in messages.items():
        wrong = [words for words in MISLEADING if words.lower() in message.lower()]
        assert not wrong, f"{name!r}: {wrong} in {message}"
    assert "XOR of every row" in messages["the nim-sum of 1, 3, 5, 7 is 0"]
    # the position cases point back at the nim-sum instead
    assert "fix nim_sum first" in messages["1, 3, 5, 7 is a P-position"]


def test_p_and_n_swapped_still_gets_its_hint(grade):
    source = mutate("nim_sum", "return nim_sum(board) == 0", "return nim_sum(board) != 0")
    source = source.replace("return nim_sum(board) != 0\n\n\ndef is_p", "return nim_sum(board) == 0\n\n\ndef is_p", 1)
    messages = failures(grade("nim_sum", source))
    assert "P and N swapped" in messages["1, 3, 5, 7 is a P-position"]
    assert "hidden case 1: is_p_position" in messages
    assert "P and N swapped" in messages["hidden case 1: is_p_position"]


def test_a_nim_sum_cut_to_32_bits_gets_the_32_bit_hint_on_the_hidden_case(grade):
    result = grade("nim_sum", mutate("nim_sum", "    return total\n", "    return total & 0xFFFFFFFF\n"))
    messages = failures(result)
    hidden = messages["a nim-sum bigger than 32 bits"]
    assert hidden.startswith("This hidden case was not accepted: your program gave a wrong answer. Hint: ")
    assert "32" in hidden and "1103806595079" not in hidden


def test_a_main_block_that_reads_one_line_gets_the_main_block_hint_only_where_the_json_spans_lines(grade):
    source = mutate("nim_sum", "json.loads(sys.stdin.read())", "json.loads(input())")
    messages = failures(grade("nim_sum", source))
    assert list(messages) == ["a test case written over several lines: the nim-sum of 3, 4, 5 is 2"]
    assert "main block" in next(iter(messages.values()))


# -- when a plain hint is shown --------------------------------------------------------------------

DEMO = """
task: demo
time_limit: 1
cases:
  - name: one plus one
    input: '1 1'
    expected: '2'
    hint: Add the two numbers.
"""


def grade_demo(tmp_path, context, text: str, program: str):
    task = load(tmp_path, text)
    path = tmp_path / "demo.py"
    path.write_text(textwrap.dedent(program), encoding="utf-8")
    return grade_file(task, path, context)


@pytest.mark.parametrize(
    "program, verdict",
    [
        ("print(3)\n", Verdict.WRONG_ANSWER),
        ("raise ValueError('oops')\n", Verdict.RUNTIME_ERROR),
        ("while True:\n    pass\n", Verdict.TIME_LIMIT_EXCEEDED),
        ("print(' 2')\n", Verdict.PRESENTATION_ERROR),
        ("print('debug')\nprint(2)\n", Verdict.WRONG_ANSWER),  # the answer is there, among other lines
    ],
)
def test_a_plain_hint_is_shown_after_a_wrong_answer_only(tmp_path, context, program, verdict):
    (case,) = grade_demo(tmp_path, context, DEMO, program).cases
    assert case.verdict is verdict, case.message
    shown = verdict is Verdict.WRONG_ANSWER and "debug" not in program
    assert ("Hint: Add the two numbers." in case.message) is shown, case.message
    assert case.hint == ("Add the two numbers." if shown else "")


def test_a_crash_and_a_time_out_get_no_logic_hint_on_the_course(grade):
    """The issue's exclusive_or: "Return the number 0, not False or None" to a crash and a time-out."""
    crash = mutate("exclusive_or", "    if a == b:\n        return 0\n", "    if a == b:\n        return 0 / 0\n")
    slow = mutate("exclusive_or", "    if a == b:\n        return 0\n", "    while a == b:\n        pass\n")
    for source, verdict in ((crash, Verdict.RUNTIME_ERROR), (slow, Verdict.TIME_LIMIT_EXCEEDED)):
        first = grade("exclusive_or", source).cases[0]
        assert first.verdict is verdict
        assert "Hint:" not in first.message and "not False or None" not in first.message, first.message


# -- conditional hints -----------------------------------------------------------------------------

CONDITIONAL = """
task: demo
time_limit: 1
cases:
  - name: one plus one
    input: '1 1'
    expected: '2'
  - name: two plus three
    input: '2 3'
    expected: '5'
    hint: Add the two numbers.
    hints:
      - when: {pattern: '^6\\s*$'}
        text: That is two times three.
      - when: {exception: ZeroDivisionError}
        text: Nothing here divides.
      - when: {verdict: [wrong_answer, runtime_error], accepted: one plus one}
        text: Small numbers work; look at the bigger ones.
"""


@pytest.mark.parametrize(
    "program, hint",
    [
        ("a, b = map(int, input().split())\nprint(a * b)\n", "That is two times three."),  # 6: the pattern
        ("a, b = map(int, input().split())\nprint(a * b + 2)\n", "Add the two numbers."),  # 8, and 1 + 1 wrong
        ("print(1 // 0)\n", "Nothing here divides."),
        ("raise ValueError('no')\n", ""),  # a crash, but neither that exception nor 1 + 1 right
        (
            "a, b = map(int, input().split())\nprint(a + b if a == 1 else 0)\n",
            "Small numbers work; look at the bigger ones.",
        ),
        (
            "a, b = map(int, input().split())\nprint(2 if a == 1 else int('x'))\n",
            "Small numbers work; look at the bigger ones.",
        ),
    ],
)
def test_a_conditional_hint_fires_on_its_conditions_and_not_otherwise(tmp_path, context, program, hint):
    result = grade_demo(tmp_path, context, CONDITIONAL, program)
    case = result.cases[1]
    assert not case.accepted
    assert case.hint == hint, case.message
    assert (f"Hint: {hint}" in case.message) if hint else ("Hint:" not in case.message)


def test_a_hidden_case_shows_the_chosen_text_and_nothing_of_the_output(tmp_path, context):
    text = CONDITIONAL.replace("    hint: Add the two numbers.\n", "    hint: Add the two numbers.\n    hidden: true\n")
    result = grade_demo(tmp_path, context, text, "a, b = map(int, input().split())\nprint(a * b)\n")
    case = result.cases[1]
    assert case.message == (
        "This hidden case was not accepted: your program gave a wrong answer. Hint: That is two times three."
    )
    assert case.actual == "" and case.hint == "That is two times three."


def test_a_known_mistake_explains_a_wrong_answer_only_and_may_wait_for_earlier_cases(tmp_path, context):
    text = """
    task: demo
    cases:
      - name: one plus one
        input: '1 1'
        expected: '2'
      - name: two plus three
        input: '2 3'
        expected: '5'
        mistakes:
          - output: '6'
            accepted: [one plus one]
            hint: multiplied, not added.
          - output: '1'
            hint: subtracted.
    """
    multiplies_after_one = "a, b = map(int, input().split())\nprint(2 if a == 1 else a * b)\n"
    multiplies = "a, b = map(int, input().split())\nprint(a * b)\n"
    crashes_after = "a, b = map(int, input().split())\nprint(b - a)\nraise SystemExit(3)\n"
    common = "This is a common mistake: "
    assert common + "multiplied" in grade_demo(tmp_path, context, text, multiplies_after_one).cases[1].message
    assert common not in grade_demo(tmp_path, context, text, multiplies).cases[1].message  # 1 + 1 was wrong
    crashed = grade_demo(tmp_path, context, text, crashes_after).cases[1]
    assert crashed.verdict is Verdict.RUNTIME_ERROR and common not in crashed.message


def test_a_hint_waits_for_earlier_cases_across_the_chunks_verify_grades(tmp_path, context):
    """``grade_file`` with the results graded before (``known``): the hint sees them."""
    task = load(tmp_path, CONDITIONAL)
    path = tmp_path / "demo.py"
    path.write_text("a, b = map(int, input().split())\nprint(a + b if a == 1 else 0)\n", encoding="utf-8")
    from dataclasses import replace

    first = grade_file(replace(task, cases=task.cases[:1]), path, context)
    second = grade_file(replace(task, cases=task.cases[1:]), path, context, known={"one plus one": first.cases[0]})
    assert second.cases[0].hint == "Small numbers work; look at the bigger ones."
    alone = grade_file(replace(task, cases=task.cases[1:]), path, context)
    assert alone.cases[0].hint == "Add the two numbers."  # one plus one not graded: not accepted


# -- the schema ------------------------------------------------------------------------------------


def test_hints_load_with_their_defaults(tmp_path):
    task = load(tmp_path, CONDITIONAL)
    pattern, crash, after = task.cases[1].hints
    assert pattern.when == When(pattern="^6\\s*$")
    assert crash.when == When(verdicts=(Verdict.RUNTIME_ERROR,), exception="ZeroDivisionError")
    assert after.when.verdicts == (Verdict.WRONG_ANSWER, Verdict.RUNTIME_ERROR)
    assert after.when.accepted == ("one plus one",)


BAD_HINTS = [
    pytest.param(
        "hints: [{when: {verdcit: runtime_error}, text: x}]",
        "unknown key 'verdcit' in the 'when' of hint 1 in case 'second' (did you mean 'verdict'?)",
        id="unknown-key",
    ),
    pytest.param("hints: [{when: {verdict: runtime_error}}]", "hint 1 in case 'second' needs a 'text'", id="no-text"),
    pytest.param("hints: [{txt: x}]", "unknown key 'txt' in hint 1 in case 'second' (did you mean 'text'?)", id="typo"),
    pytest.param(
        "hints: ['just text']", "each entry of 'hints' in case 'second' must be a mapping", id="not-a-mapping"
    ),
    pytest.param(
        "hints: [{when: {verdict: syntax_error}, text: x}]",
        "'verdict' in the 'when' of hint 1 in case 'second' names 'syntax_error', after which no case runs",
        id="syntax-error",
    ),
    pytest.param(
        "hints: [{when: {verdict: [wrong_answer, slow]}, text: x}]",
        "names 'slow', which is not a verdict; a hint can be tied to: wrong_answer, presentation_error",
        id="no-such-verdict",
    ),
    pytest.param(
        "hints: [{when: {pattern: '(', output: '1'}, text: x}]",
        "give either 'output' or 'pattern' in the 'when' of hint 1 in case 'second', not both",
        id="output-and-pattern",
    ),
    pytest.param(
        "hints: [{when: {pattern: '(unclosed'}, text: x}]",
        "'pattern' in the 'when' of hint 1 in case 'second' is not a valid regular expression",
        id="bad-regex",
    ),
    pytest.param(
        "hints: [{when: {exception: json.JSONDecodeError}, text: x}]",
        "'exception' in the 'when' of hint 1 in case 'second' is the class name of an exception",
        id="dotted-exception",
    ),
    pytest.param(
        "hints: [{when: {exception: TypeError, verdict: wrong_answer}, text: x}]",
        "'exception' in the 'when' of hint 1 in case 'second' needs the verdict runtime_error",
        id="exception-without-crash",
    ),
    pytest.param(
        "hints: [{when: {accepted: secnd}, text: x}]",
        "names the case 'secnd', which is not a case written before this one in the file",
        id="not-an-earlier-case",
    ),
    pytest.param(
        "hints: [{when: {accepted: [first, third]}, text: x}]",
        "names the case 'third', which is not a case written before this one",
        id="a-later-case",
    ),
    pytest.param(
        "hints: [{when: {accepted: fist}, text: x}]",
        "names the case 'fist' (did you mean 'first'?)",
        id="close-name",
    ),
    pytest.param(
        "hints: [{when: {accepted: hidden one}, text: x}]",
        "names the hidden case 'hidden one': a visible case's hint cannot wait for a hidden one",
        id="visible-waits-for-hidden",
    ),
    pytest.param(
        "mistakes: [{output: '1', accepted: nobody, hint: x}]",
        "'accepted' in the mistakes in case 'second' names the case 'nobody'",
        id="mistake-accepted",
    ),
    pytest.param(
        "hints: {when: {}, text: x}", "'hints' in case 'second' must be a list, not a mapping", id="not-a-list"
    ),
]


@pytest.mark.parametrize("entry, problem", BAD_HINTS)
def test_a_bad_hints_entry_is_refused_naming_file_line_and_key(tmp_path, entry, problem):
    text = f"""
task: demo
cases:
  - name: first
    input: '1'
    expected: '1'
  - name: hidden one
    input: '2'
    expected: '2'
    hidden: true
  - name: second
    input: '3'
    expected: '3'
    {entry}
  - name: third
    input: '4'
    expected: '4'
"""
    with pytest.raises(CaseFileError) as caught:
        load(tmp_path, text)
    assert str(caught.value).startswith(f"{tmp_path / 'testcases' / 'demo.yaml'}, line 13: "), str(caught.value)
    assert problem in str(caught.value)


def test_a_task_mistake_cannot_wait_for_a_case(tmp_path):
    text = """
    task: demo
    mistakes:
      - output: '1'
        accepted: first
        hint: x
    cases:
      - name: first
        input: '1'
        expected: '1'
    """
    with pytest.raises(CaseFileError, match=r"line 4: 'accepted' in the task's mistakes goes only with a case's own"):
        load(tmp_path, text)


def test_a_pattern_that_backtracks_for_ever_is_not_matched_and_grading_goes_on(tmp_path, context):
    text = r"""
    task: demo
    cases:
      - name: a list
        input: '1'
        expected: '[1]'
        hint: Print the list.
        hints:
          - when: {pattern: '^\[(\d+(, )?)*\]$'}
            text: A list of numbers.
    """
    program = "print('[' + '1, ' * 30 + 'x]')\n"
    case = grade_demo(tmp_path, context, textwrap.dedent(text), program).cases[0]
    assert case.verdict is Verdict.WRONG_ANSWER
    assert case.hint == "Print the list."


# -- verify ----------------------------------------------------------------------------------------


@pytest.fixture
def xor_course(tmp_path):
    """A copy of the course with exclusive_or only, its solution, stub and one known-wrong solution."""
    root = tmp_path / "course"
    for folder in ("testcases", "solutions/wrong/exclusive_or", "exercises"):
        (root / folder).mkdir(parents=True)
    shutil.copy(PROJECT / "testcases" / "exclusive_or.yaml", root / "testcases")
    shutil.copy(PROJECT / "solutions" / "exclusive_or.py", root / "solutions")
    shutil.copy(PROJECT / "exercises" / "exclusive_or.py", root / "exercises")
    shutil.copy(PROJECT / "solutions" / "wrong" / "exclusive_or" / "uses_and.py", root / "solutions/wrong/exclusive_or")
    return root


def verify(course, capsys):
    code = main(["verify", "--course", str(course)])
    return code, capsys.readouterr().out


def test_verify_is_quiet_about_the_hints_of_the_course(xor_course, capsys):
    course = xor_course
    code, out = verify(course, capsys)
    assert code == 0, out
    assert "exclusive_or: every hint shown to a known-wrong solution is one its header expects" in out
    assert "is shown the hint" not in out


def test_verify_warns_about_a_misplaced_hint_without_failing(xor_course, capsys):
    """A hint about returning True tied to every wrong answer of '1 xor 0 is 1': and's 0 gets it too."""
    course = xor_course
    path = course / "testcases" / "exclusive_or.yaml"
    text = path.read_text()
    start = text.index("  - name: 1 xor 0 is 1")
    end = text.index("\n\n", start)
    case = text[start:end]
    replaced = case.split("\n")[:3] + ["    hint: Return the number 1, not True."]
    path.write_text(text[:start] + "\n".join(replaced) + text[end:])
    line = text[:start].count("\n") + 1
    code, out = verify(course, capsys)
    assert code == 0, out
    warning = (
        "solutions/wrong/exclusive_or/uses_and.py (writes the truth table of and: 1 only when both bits are 1) is "
        "shown the hint 'Return the number 1, not True.' on '1 xor 0 is 1' "
        f"(line {line} of testcases/exclusive_or.yaml)"
    )
    assert warning in out
    assert "does not expect" in out and "Everything held." in out
    # the header may say the hint fits: then verify is quiet again
    wrong = course / "solutions" / "wrong" / "exclusive_or" / "uses_and.py"
    header = wrong.read_text()
    hints_line = next((line for line in header.splitlines() if line.startswith("# hints:")), None)
    if hints_line:
        header = header.replace(hints_line, hints_line + "; the number 1, not True")
    else:
        header = header.replace(
            "# verdict: wrong_answer\n", "# verdict: wrong_answer\n# hints: the number 1, not True\n"
        )
    wrong.write_text(header)
    code, out = verify(course, capsys)
    assert code == 0 and "is shown the hint" not in out, out


def test_verify_warns_about_a_hints_word_no_hint_contains(xor_course, capsys):
    course = xor_course
    wrong = course / "solutions" / "wrong" / "exclusive_or" / "uses_and.py"
    lines = wrong.read_text().splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if line.startswith("# hints:"))
    lines[index] = lines[index].rstrip("\n") + "; no such hint\n"
    wrong.write_text("".join(lines))
    code, out = verify(course, capsys)
    assert code == 0
    assert (
        "uses_and.py (writes the truth table of and: 1 only when both bits are 1) expects a hint with 'no such hint'"
        in out
    )
