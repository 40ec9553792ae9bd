"""``add_case``: a case appended to a task's YAML file, its expected answer from the reference
solution, the rest of the file byte for byte as it was."""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import textwrap
from pathlib import Path

import pytest

import grader.authoring.add_case as add_case_module
from grader.authoring.add_case import add_case
from grader.authoring.added_names import default_name, hidden_default_name
from grader.course.course_checkers import course_checkers
from grader.course.loader import load_task
from grader.errors import CaseFileError, GraderError, UsageError
from grader.grade.grading import GradingContext
from grader.run.execute import SubprocessRunner

PROJECT = Path(__file__).resolve().parents[2]
TASKS = ("nim_sum", "optimal_move", "working_game", "make_move")


@pytest.fixture
def course(tmp_path):
    """A small course in tmp_path: some of the project's test case files and their solutions."""
    folder = tmp_path / "course"
    (folder / "testcases").mkdir(parents=True)
    (folder / "solutions").mkdir()
    for task in TASKS:
        shutil.copy(PROJECT / "testcases" / f"{task}.yaml", folder / "testcases")
        data = PROJECT / "testcases" / task
        if data.is_dir():
            shutil.copytree(data, folder / "testcases" / task)
        shutil.copy(PROJECT / "solutions" / f"{task}.py", folder / "solutions")
    return folder


def context_for(folder: Path) -> GradingContext:
    return GradingContext(
        checkers=course_checkers(folder), python=sys.executable, runner=SubprocessRunner(), course=folder
    )


def load(folder: Path, task: str):
    return load_task(folder / "testcases" / f"{task}.yaml", course_checkers(folder))


def written(task) -> list:
    """The cases written in the file, in order (not those a ``generate:`` entry makes)."""
    return [case for case in task.cases if getattr(case, "generated", None) is None]


def last_written(folder: Path, task_id: str):
    """The last case written in the file; it is also the one furthest down."""
    cases = written(load(folder, task_id))
    assert cases[-1].line == max(case.line for case in cases)
    return cases[-1]


def add(folder: Path, task: str, case_input: str, **options):
    return add_case(folder, task, case_input, context=context_for(folder), **options)


def tiny_course(tmp_path: Path, solution: str, yaml_text: str = "", task: str = "echo") -> Path:
    """A course of one task, ``echo``, whose reference solution is ``solution``."""
    folder = tmp_path / "tiny"
    (folder / "testcases").mkdir(parents=True)
    (folder / "solutions").mkdir()
    yaml_text = (
        yaml_text
        or f"""
        task: {task}
        cases:
          - name: one
            input: '1'
            expected: '1'
    """
    )
    (folder / "testcases" / f"{task}.yaml").write_text(textwrap.dedent(yaml_text).lstrip("\n"), encoding="utf-8")
    (folder / "solutions" / f"{task}.py").write_text(textwrap.dedent(solution), encoding="utf-8")
    return folder


ECHO = """
    import sys
    sys.stdout.write(sys.stdin.read())
"""


# -- adding a case ------------------------------------------------------------------------------


def test_the_expected_answer_comes_from_the_reference_solution(course):
    path = course / "testcases" / "nim_sum.yaml"
    before = path.read_bytes()
    added = add(course, "nim_sum", '{"type": "nim_sum", "input": [1, 2]}')
    assert added.expected == "3"
    assert added.name == 'added: {"type": "nim_sum", "input": [1, 2]}'
    assert added.input == '{"type": "nim_sum", "input": [1, 2]}\n'
    assert added.path == path and added.task_id == "nim_sum"
    after = path.read_bytes()
    assert after.startswith(before)  # comments and every earlier line byte for byte
    assert after[len(before) :].decode() == (
        '  - name: \'added: {"type": "nim_sum", "input": [1, 2]}\'\n'
        '    input: \'{"type": "nim_sum", "input": [1, 2]}\'\n'
        "    expected: '3'\n"
    )
    task = load(course, "nim_sum")
    last = written(task)[-1]
    assert (last.name, last.input, last.expected, last.hidden) == (added.name, added.input, ("3",), False)
    assert len(task.cases) == len(load_task(PROJECT / "testcases" / "nim_sum.yaml", course_checkers(course)).cases) + 1


def test_hidden_and_hint_are_written(course):
    added = add(
        course,
        "make_move",
        '{"board": [3, 4, 5], "row": 3, "elements": 5}',
        name="take the whole last row",
        hidden=True,
        hint="Taking every object of a row is a legal move.",
    )
    assert added.expected == "[[3, 4, 0], true]"
    text = (course / "testcases" / "make_move.yaml").read_text(encoding="utf-8")
    assert text.startswith((PROJECT / "testcases" / "make_move.yaml").read_text(encoding="utf-8"))
    assert text.endswith("    hidden: true\n    hint: Taking every object of a row is a legal move.\n")
    last = last_written(course, "make_move")
    assert last.hidden and last.hint == "Taking every object of a row is a legal move."


def test_the_written_case_is_graded_like_the_others(course):
    add(course, "nim_sum", '{"type": "is_n_position", "input": [4, 4]}', name="4, 4 is not an N-position")
    task = load(course, "nim_sum")
    from grader.grade.grading import grade_file

    context = context_for(course)
    result = grade_file(task, course / "solutions" / "nim_sum.py", context)
    graded = next(r for r in result.cases if r.case.name == "4, 4 is not an N-position")
    assert graded.case.expected == ("false",)
    assert graded.accepted


def test_a_long_first_line_is_shortened_in_the_default_name():
    name = default_name('{"type": "nim_sum", "input": [1, 2, 3, 4, 5, 6, 7, 8, 9]}\n')
    assert name == 'added: {"type": "nim_sum", "input": [1, 2, 3...'
    assert len(name) == len("added: ") + 40
    assert default_name("\n  \nsecond line\n") == "added: second line"


def test_a_default_name_already_taken_gets_a_number(tmp_path):
    folder = tiny_course(tmp_path, ECHO)
    first = add(folder, "echo", "same first line\n1")
    second = add(folder, "echo", "same first line\n2")
    assert first.name == "added: same first line"
    assert second.name == "added: same first line (2)"


def test_a_hidden_case_without_a_name_is_numbered_not_named_after_its_input(tmp_path):
    folder = tiny_course(tmp_path, ECHO)
    first = add(folder, "echo", "1 1", hidden=True)
    shown = add(folder, "echo", "3 3")
    second = add(folder, "echo", "2 2", hidden=True)
    assert (first.name, shown.name, second.name) == ("hidden case 1", "added: 3 3", "hidden case 2")
    assert first.warning == second.warning == ""
    task = load(folder, "echo")
    assert [(c.name, c.hidden) for c in task.cases][1:] == [
        ("hidden case 1", True),
        ("added: 3 3", False),
        ("hidden case 2", True),
    ]


def test_the_next_hidden_number_follows_the_largest_one_in_the_task(course):
    # make_move has hidden cases 1 to 3, and one more hidden case with a name but no number
    added = add(course, "make_move", '{"board": [3, 4, 5], "row": 3, "elements": 5}', hidden=True)
    assert added.name == "hidden case 4"


def test_hidden_default_name_skips_numbers_in_use():
    assert hidden_default_name([]) == "hidden case 1"
    assert hidden_default_name(["one", "Hidden case 7: big rows", "hidden case 2"]) == "hidden case 8"
    assert hidden_default_name(["hidden case 1x"]) == "hidden case 1"  # not a number of its own


def test_a_hidden_name_that_states_the_input_or_answer_is_added_with_a_warning(tmp_path, capsys):
    folder = tiny_course(tmp_path, ECHO)
    added = add(folder, "echo", "5 7", name="5 7 gives 5 7", hidden=True)
    assert added.name == "5 7 gives 5 7"
    assert "states its input ('5 7') and its expected answer ('5 7')" in added.warning
    assert "key 'name' in testcases/echo.yaml" in added.warning
    assert add(folder, "echo", "8 9", name="8 9 is fine when shown").warning == ""
    assert add(folder, "echo", "6 6", name="equal numbers", hidden=True).warning == ""
    from grader.cli.main import main

    code = main(["add-case", "echo", "--input", "4 4", "--name", "4 4", "--hidden", "--course", str(folder)])
    out, err = capsys.readouterr()
    assert code == 0 and "Added the case '4 4'" in out
    assert err.startswith("Warning: the hidden case's name '4 4' states its input ('4 4')")


# -- refusals -----------------------------------------------------------------------------------


def test_a_name_already_used_is_refused_and_the_file_is_unchanged(course):
    path = course / "testcases" / "nim_sum.yaml"
    before = path.read_bytes()
    line = next(c.line for c in load(course, "nim_sum").cases if c.name == "the nim-sum of 1, 3, 5, 7 is 0")
    with pytest.raises(
        UsageError, match=rf"A case named 'the nim-sum of 1, 3, 5, 7 is 0' already exists .*line {line}\)"
    ):
        add(course, "nim_sum", '{"type": "nim_sum", "input": [9]}', name="  the nim-sum of 1, 3, 5, 7 is 0 ")
    assert path.read_bytes() == before


def test_an_input_already_used_is_refused_and_the_file_is_unchanged(course):
    path = course / "testcases" / "nim_sum.yaml"
    before = path.read_bytes()
    # the same input once the loader has added the final newline
    with pytest.raises(UsageError, match=r"The case 'the nim-sum of 1, 3, 5, 7 is 0' .* already has this input"):
        add(course, "nim_sum", '{"type": "nim_sum", "input": [1, 3, 5, 7]}\n', name="new name")
    with pytest.raises(UsageError, match="already has this input"):
        add(course, "nim_sum", '{"type": "nim_sum", "input": [1, 3, 5, 7]}', name="new name")
    assert path.read_bytes() == before


def test_an_input_read_from_a_file_counts_as_used(course):
    data = (course / "testcases" / "nim_sum" / "ten_thousand_big_rows.json").read_text(encoding="utf-8")
    with pytest.raises(UsageError, match="'the nim-sum of 10,000 big rows'"):
        add(course, "nim_sum", data)


def test_an_unknown_task_names_the_known_ones(course):
    with pytest.raises(UsageError) as error:
        add(course, "nim_summ", "1")
    assert "nim_summ" in str(error.value)
    assert "make_move, nim_sum, optimal_move, working_game" in str(error.value)


def test_an_interactive_task_is_refused(course):
    path = course / "testcases" / "working_game.yaml"
    before = path.read_bytes()
    with pytest.raises(UsageError) as error:
        add(course, "working_game", "Alice\nBob\n1 2\n")
    message = str(error.value)
    assert "nim_game" in message and "checker_options" in message and "docs/testcases.md" in message
    assert path.read_bytes() == before


def test_a_solution_that_crashes_is_refused_with_its_error(tmp_path):
    folder = tiny_course(tmp_path, "raise ValueError('no board in this input')\n")
    path = folder / "testcases" / "echo.yaml"
    before = path.read_bytes()
    with pytest.raises(UsageError) as error:
        add(folder, "echo", "2")
    message = str(error.value)
    assert "solutions/echo.py" in message and "exit status 1" in message
    assert "ValueError: no board in this input" in message
    assert path.read_bytes() == before


def test_a_solution_that_prints_nothing_or_runs_too_long_is_refused(tmp_path):
    folder = tiny_course(tmp_path, "import sys\nsys.stdin.read()\n")
    with pytest.raises(UsageError, match="printed nothing"):
        add(folder, "echo", "2")
    slow = tiny_course(
        tmp_path / "slow",
        "while True:\n    pass\n",
        "task: echo\ntime_limit: 0.5\ncases:\n  - name: one\n    input: '1'\n    expected: '1'\n",
    )
    with pytest.raises(UsageError, match=r"took longer than the time limit \(0.5 seconds\)"):
        add(slow, "echo", "2")


def test_a_missing_solution_is_refused(tmp_path):
    folder = tiny_course(tmp_path, ECHO)
    (folder / "solutions" / "echo.py").unlink()
    with pytest.raises(UsageError, match="There is no reference solution solutions/echo.py"):
        add(folder, "echo", "2")


def test_output_that_is_not_valid_json_is_refused_for_the_json_checker(tmp_path):
    yaml_text = "task: echo\nchecker: json\ncases:\n  - name: one\n    input: '1'\n    expected: '1'\n"
    folder = tiny_course(tmp_path, "print('True')\n", yaml_text)
    with pytest.raises(UsageError, match="cannot be the expected answer"):
        add(folder, "echo", "2")


def test_a_file_that_does_not_validate_is_reported_and_left_alone(tmp_path):
    folder = tiny_course(tmp_path, ECHO, "task: echo\ncases:\n  - name: one\n    input: '1'\n    expectd: '1'\n")
    before = (folder / "testcases" / "echo.yaml").read_bytes()
    with pytest.raises(CaseFileError, match="line 5: unknown key 'expectd'"):
        add(folder, "echo", "2")
    assert (folder / "testcases" / "echo.yaml").read_bytes() == before


# -- checkers without an expected answer --------------------------------------------------------


def test_optimal_move_stores_no_expected(course):
    path = course / "testcases" / "optimal_move.yaml"
    before = path.read_bytes()
    added = add(course, "optimal_move", "[2, 3, 4]", name="2, 3, 4 has one winning move")
    assert added.expected is None
    after = path.read_bytes()
    assert after.startswith(before)
    # the cases of this file are separated by blank lines: so is the new one
    assert after[len(before) :].decode() == "\n  - name: 2, 3, 4 has one winning move\n    input: '[2, 3, 4]'\n"
    last = last_written(course, "optimal_move")
    assert last.name == "2, 3, 4 has one winning move" and last.expected == () and last.input == "[2, 3, 4]\n"


def test_a_solution_the_checker_rejects_is_refused(tmp_path):
    yaml_text = "task: echo\nchecker: optimal_move\ncases:\n  - name: one\n    input: '[1, 3, 5]'\n"
    folder = tiny_course(tmp_path, "print('[9, 1]')\n", yaml_text)
    with pytest.raises(UsageError, match="does not accept the reference solution's output"):
        add(folder, "echo", "[1, 2]")


# -- the text written ---------------------------------------------------------------------------


def test_newlines_quotes_and_non_ascii_text_round_trip(tmp_path):
    folder = tiny_course(tmp_path, ECHO)
    case_input = 'first line: it\'s "quoted"\n\tsecond line, café, 日本, 🙂 \\ # not a comment\n'
    hint = 'Don\'t forget: "quotes" stay; naïve\ntwo lines'
    added = add(folder, "echo", case_input, name="tricky: it's # not a comment", hint=hint)
    assert added.expected == case_input.rstrip("\n")
    last = last_written(folder, "echo")
    assert last.name == "tricky: it's # not a comment"
    assert last.input == case_input
    assert last.expected == (case_input.rstrip("\n"),)
    assert last.hint == hint
    text = (folder / "testcases" / "echo.yaml").read_text(encoding="utf-8")
    assert "café, 日本, 🙂" in text  # written as it is, not escaped


def test_a_file_without_a_final_newline_gets_one_before_the_case(tmp_path):
    folder = tiny_course(tmp_path, ECHO, "task: echo\ncases:\n  - name: one\n    input: '1'\n    expected: '1'")
    path = folder / "testcases" / "echo.yaml"
    before = path.read_bytes()
    add(folder, "echo", "2")
    after = path.read_bytes()
    assert after.startswith(before)
    assert (
        after[len(before) :] == b"\n  - name: 'added: 2'\n    input: '2'\n    expected: '2'\n"
    )  # one line break added
    assert [c.name for c in load(folder, "echo").cases] == ["one", "added: 2"]


def test_windows_line_ends_are_kept(tmp_path):
    folder = tiny_course(tmp_path, ECHO)
    path = folder / "testcases" / "echo.yaml"
    path.write_bytes(b"# a comment\r\ntask: echo\r\ncases:\r\n  - name: one\r\n    input: '1'\r\n    expected: '1'\r\n")
    before = path.read_bytes()
    add(folder, "echo", "2")
    after = path.read_bytes()
    assert after.startswith(before)
    assert after[len(before) :] == b"  - name: 'added: 2'\r\n    input: '2'\r\n    expected: '2'\r\n"


def test_cases_before_another_key_get_the_case_right_after_the_last_one(tmp_path):
    yaml_text = """\
        # cases first, then the rules
        task: echo
        cases:
        - name: one          # this file indents its list less
          input: '1'
          expected: '1'
          hint: >-
            a folded
            hint

        # the rules of the task
        rules:
          - import: os
    """
    folder = tiny_course(tmp_path, ECHO, yaml_text)
    path = folder / "testcases" / "echo.yaml"
    before = path.read_text(encoding="utf-8")
    add(folder, "echo", "2", hidden=True)
    after = path.read_text(encoding="utf-8")
    cut = before.index("\n# the rules")
    written_case = "- name: hidden case 1\n  input: '2'\n  expected: '2'\n  hidden: true\n"
    # One indentation per file is all ruamel.yaml keeps: this file indents its cases' dashes less than
    # its rules' dashes, and the rules come back indented as the cases are (the same data).
    rest = before[cut:].replace("\n  - import: os", "\n- import: os")
    assert after == before[:cut] + written_case + rest
    task = load(folder, "echo")
    assert [c.name for c in task.cases] == ["one", "hidden case 1"]
    assert task.cases[0].hint == "a folded hint"
    assert [r.target for r in task.rules] == ["os"]


def test_windows_line_ends_before_another_key(tmp_path):
    folder = tiny_course(tmp_path, ECHO)
    path = folder / "testcases" / "echo.yaml"
    head = (
        b"task: echo\r\ncases:\r\n  - name: one\r\n    input: '1'\r\n    expected: '1'\r\n    hint: >-\r\n      a\r\n"
    )
    tail = b"\r\n# rules\r\nrules: []\r\n"
    path.write_bytes(head + tail)
    add(folder, "echo", "2")
    assert path.read_bytes() == head + b"  - name: 'added: 2'\r\n    input: '2'\r\n    expected: '2'\r\n" + tail
    assert [c.name for c in load(folder, "echo").cases] == ["one", "added: 2"]


def test_a_kept_block_scalar_keeps_its_blank_lines(tmp_path):
    case = "  - name: one\n    input: '1'\n    expected: '1'\n    hint: |+\n      kept\n\n\n"
    yaml_text = f"task: echo\ncases:\n{case}rules: []\n"
    folder = tiny_course(tmp_path, ECHO, yaml_text)
    add(folder, "echo", "2")
    task = load(folder, "echo")
    assert task.cases[0].hint == "kept\n\n\n"
    assert [c.name for c in task.cases] == ["one", "added: 2"]


def test_flow_style_cases_take_the_case_in_their_style(tmp_path):
    folder = tiny_course(tmp_path, ECHO, "task: echo\ncases: [{name: one, input: '1', expected: '1'}]\n")
    path = folder / "testcases" / "echo.yaml"
    add(folder, "echo", "2")
    assert path.read_text(encoding="utf-8").startswith("task: echo\ncases: [{name: one, input: '1', expected: '1'}, {")
    assert [c.name for c in load(folder, "echo").cases] == ["one", "added: 2"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_the_file_keeps_its_permissions(tmp_path):
    folder = tiny_course(tmp_path, ECHO)
    path = folder / "testcases" / "echo.yaml"
    path.chmod(0o640)
    add(folder, "echo", "2")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in path.parent.iterdir()) == ["echo.yaml"]  # no temporary file left


def test_a_file_that_does_not_read_back_is_restored(tmp_path, monkeypatch):
    folder = tiny_course(tmp_path, ECHO)
    path = folder / "testcases" / "echo.yaml"
    before = path.read_bytes()
    real_case_entry = add_case_module.case_entry

    def broken_case_entry(*args, **kwargs):
        return {**real_case_entry(*args, **kwargs), "input": "something else"}

    monkeypatch.setattr(add_case_module, "case_entry", broken_case_entry)
    with pytest.raises(GraderError, match="the new case read back with a different input; the file was left as it was"):
        add(folder, "echo", "2")
    assert path.read_bytes() == before


def test_a_file_that_does_not_validate_after_writing_is_restored(tmp_path, monkeypatch):
    folder = tiny_course(tmp_path, ECHO)
    path = folder / "testcases" / "echo.yaml"
    before = path.read_bytes()
    monkeypatch.setattr(add_case_module, "case_entry", lambda *args, **kwargs: {"name": "x", "inputt": "2"})
    with pytest.raises(GraderError, match="did not validate .*unknown key 'inputt'.*the file was left as it was"):
        add(folder, "echo", "2")
    assert path.read_bytes() == before


def test_every_project_file_takes_a_case(tmp_path):
    """Each non-interactive task of the project gets a case that its file and solution accept."""
    folder = tmp_path / "project"
    shutil.copytree(PROJECT / "testcases", folder / "testcases")
    shutil.copytree(PROJECT / "solutions", folder / "solutions")
    inputs = {
        "bin_num": {"type": "num_bin", "value": 1000003},
        "nim_sum": {"type": "nim_sum", "input": [6, 6, 1]},
        "make_move": {"board": [7, 2], "row": 2, "elements": 1},
        "optimal_move": [6, 6, 1],
    }
    for task_id, value in inputs.items():
        path = folder / "testcases" / f"{task_id}.yaml"
        before = path.read_bytes()
        added = add(folder, task_id, json.dumps(value), name="a new case")
        assert path.read_bytes().startswith(before)
        assert last_written(folder, task_id).name == added.name
