"""``yaml_writer``: what it writes reads back by PyYAML (the grader's reader) exactly as written, and an
instructor's file keeps its comments, key order, blank lines and indentation when a case is added."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from grader.authoring.add_case import add_case
from grader.authoring.yaml_writer import appended, new_file
from grader.course.course_checkers import course_checkers
from grader.course.loader import load_task
from grader.errors import UsageError
from grader.grade.grading import GradingContext
from grader.run.execute import SubprocessRunner

PROJECT = Path(__file__).resolve().parents[2]

# Texts that YAML 1.2 (ruamel.yaml's default) reads as texts when plain, and PyYAML (YAML 1.1) does not.
YAML_1_1 = [
    "yes",
    "no",
    "on",
    "off",
    "Yes",
    "OFF",
    "y",
    "n",
    "~",
    "null",
    "0777",
    "1_000",
    "1:30",
    "0x1f",
    "2001-12-14",
]
TRICKY = [
    "",
    " ",
    "\n",
    "trailing spaces   ",
    "trailing spaces   \non a line\n",
    "\ttab first\n",
    "a\ttab\n",
    "\n\nleading blank lines\n",
    "no final newline\nhere",
    "ends with blank lines\n\n\n",
    "windows\r\nline ends\r\n",
    "a lone\rcarriage return",
    "unicode: ünïcödé ✓ 🎲 日本",
    "x" * 5000,
    "control \x07 bell \x1b escape\n",
    "\x00",
    "# not a comment",
    "a # not a comment either",
    "key: value",
    "- not a list\n- either\n",
    "'single' and \"double\" quotes",
    "next line\x85line separator\u2028paragraph\u2029",
    "\ufeffa byte order mark",
    "|\n>\n",
    "   indented first line\nthen not\n",
    "@ ` ! & * % ? [ ] { } , =",
]
# present_board's board drawings: the multi-line outputs the course has most of.
BOARD = "1: *\n2: ***\n3: *****\n4: *******\n"


def test_every_text_reads_back_exactly_from_a_new_file():
    texts = YAML_1_1 + TRICKY + [BOARD]
    document = {
        "task": "t",
        "cases": [{"name": f"case {i}", "input": text, "expected": text} for i, text in enumerate(texts)],
    }
    written = new_file(document, ["a header"])
    assert yaml.safe_load(written) == document
    assert written.startswith("# a header\ntask: t\n")
    assert "%YAML" not in written


def test_texts_that_yaml_1_1_reads_otherwise_are_quoted():
    written = new_file({"values": YAML_1_1})
    assert yaml.safe_load(written) == {"values": YAML_1_1}
    for text in YAML_1_1:
        if text not in ("y", "n"):  # PyYAML reads y and n as texts (YAML 1.1 would not): they may be plain
            assert f"\n  - {text}\n" not in written


def test_multi_line_texts_are_literal_blocks_where_exact():
    written = new_file({"board": BOARD, "no final": "a\nb", "spaces": "a  \nb\n", "tab": "a\tb\nc\n"})
    assert "board: |\n  1: *\n  2: ***\n" in written
    assert "no final: |-\n  a\n  b\n" in written
    assert 'spaces: "a  \\nb\\n"' in written  # trailing spaces: quoted, as an editor could strip them
    assert 'tab: "a\\tb\\nc\\n"' in written
    assert yaml.safe_load(written)["board"] == BOARD


def test_numbers_and_null_are_written_as_pyyaml_writes_them():
    written = new_file({"tol": 1e-06, "big": 1e20, "none": None, "flag": True, "count": 3})
    assert written == "tol: 1.0e-06\nbig: 1.0e+20\nnone: null\nflag: true\ncount: 3\n"


INSTRUCTOR = """\
# The instructor's own header.
task: echo        # the task
checker: tokens

cases:
  # the first case
  - name: one
    input: '1'   # quoted on purpose
    expected: "1"
    hidden: yes
    time_limit: 0777
    points: 1_000

  - name: two
    input: |
      2
    hint: >-
      a folded
      hint
# comments after the last case
"""


def test_an_appended_case_leaves_the_file_as_it_was():
    text = appended(INSTRUCTOR, "cases", {"name": "three", "input": "yes", "expected": "1:30"}, "echo.yaml")
    assert text.startswith(INSTRUCTOR)  # comments, blank lines, quoting, yes, 0777 and 1_000 as spelled
    assert text[len(INSTRUCTOR) :] == "\n  - name: three\n    input: 'yes'\n    expected: '1:30'\n"
    data = yaml.safe_load(text)
    assert data["cases"][0]["hidden"] is True and data["cases"][0]["time_limit"] == 0o777
    assert data["cases"][2] == {"name": "three", "input": "yes", "expected": "1:30"}


def test_comments_after_the_last_case_stay_before_the_next_key():
    text = "cases:\n  - name: one\n    input: '1'   # its comment\n\n# the rules\nrules: []\n"
    written = appended(text, "cases", {"name": "two", "input": "2"}, "x.yaml")
    kept = "cases:\n  - name: one\n    input: '1'   # its comment\n"
    assert written == kept + "  - name: two\n    input: '2'\n\n# the rules\nrules: []\n"


def test_a_comment_right_after_a_block_text_stays_before_the_next_key():
    text = "cases:\n  - name: one\n    input: |\n      1 2\n# the rules\nrules: []\n"
    written = appended(text, "cases", {"name": "two", "input": "2"}, "x.yaml")
    kept = "cases:\n  - name: one\n    input: |\n      1 2\n"
    assert written == kept + "  - name: two\n    input: '2'\n# the rules\nrules: []\n"


def test_a_document_start_and_the_comments_after_it_are_kept():
    text = "---\n# the echo task\ncases:\n  - name: one\n    input: '1'\n"
    written = appended(text, "cases", {"name": "two", "input": "2"}, "x.yaml")
    assert written == text + "  - name: two\n    input: '2'\n"


def test_an_anchored_mapping_keeps_its_indentation():
    text = "defaults: &d\n  checker: text\ncases:\n  - <<: *d\n    name: one\n  - &two\n    name: two\n"
    written = appended(text, "cases", {"name": "three", "input": "3"}, "x.yaml")
    assert written == text + "  - name: three\n    input: '3'\n"


def test_an_indentation_ruamel_cannot_keep_is_made_uniform():
    # ruamel.yaml keeps one indentation per file: the rules' list comes back indented as the cases'
    text = "cases:\n- name: one\n  input: '1'\nrules:\n    - import: os\n"
    written = appended(text, "cases", {"name": "two", "input": "2"}, "x.yaml")
    assert written == "cases:\n- name: one\n  input: '1'\n- name: two\n  input: '2'\nrules:\n- import: os\n"
    assert yaml.safe_load(written)["rules"] == yaml.safe_load(text)["rules"]


def test_anchors_windows_line_ends_and_a_missing_final_newline():
    text = "cases:\r\n  - &one\r\n    name: one\r\n    input: '1'"
    written = appended(text, "cases", {"name": "two", "input": "2"}, "x.yaml")
    assert written == "cases:\r\n  - &one\r\n    name: one\r\n    input: '1'\r\n  - name: two\r\n    input: '2'\r\n"


def test_a_file_without_the_list_is_refused():
    with pytest.raises(UsageError, match="no list of cases"):
        appended("task: echo\ncases: 3\n", "cases", {"name": "x"}, "x.yaml")


def test_the_project_files_come_back_unchanged_but_for_the_new_case():
    for path in sorted((PROJECT / "testcases").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        written = appended(text, "cases", {"name": "new", "input": BOARD}, path.name)
        before = yaml.safe_load(text)
        after = yaml.safe_load(written)
        assert after["cases"].pop() == {"name": "new", "input": BOARD}
        assert after == before, path.name
        if list(before)[-1] == "cases":
            assert written.startswith(text), path.name


# -- through add-case: the strings YAML 1.1 reads otherwise as a case's input and answer ---------------


ECHO = "import sys\nsys.stdout.write(sys.stdin.read())\n"


def test_add_case_writes_yaml_1_1_look_alikes_and_multi_line_answers_exactly(tmp_path):
    folder = tmp_path / "course"
    (folder / "testcases").mkdir(parents=True)
    (folder / "solutions").mkdir()
    head = "# echo: the answer is the input\ntask: echo\ncases:\n"
    head += "  - name: one   # the first\n    input: '1'\n    expected: '1'\n"
    (folder / "testcases" / "echo.yaml").write_text(head, encoding="utf-8")
    (folder / "solutions" / "echo.py").write_text(ECHO, encoding="utf-8")
    context = GradingContext(
        checkers=course_checkers(folder), python=sys.executable, runner=SubprocessRunner(), course=folder
    )
    inputs = ["yes", "off", "~", "0777", "1_000", "1:30", "n", BOARD, "  a # b: c\n- d\t\n"]
    for number, case_input in enumerate(inputs):
        add_case(folder, "echo", case_input, name=f"case {number}", hint=YAML_1_1[number], context=context)
    text = (folder / "testcases" / "echo.yaml").read_text(encoding="utf-8")
    assert text.startswith(head)
    assert "    input: |-\n      1: *\n      2: ***\n" in text  # the board as a literal block
    assert "    expected: |-\n      1: *\n      2: ***\n" in text
    task = load_task(folder / "testcases" / "echo.yaml", course_checkers(folder))
    cases = task.cases[1:]
    assert [case.input for case in cases] == [t if t.endswith("\n") else t + "\n" for t in inputs]
    assert [case.hint for case in cases] == YAML_1_1[: len(inputs)]
    assert cases[0].expected == ("yes",) and cases[3].expected == ("0777",)
    assert text.count("# the first") == 1


def test_a_key_twice_is_refused_not_rewritten_with_the_other_value():
    # PyYAML keeps the last value of a key, round-trip mode the first: the cases under the second
    # "cases" were lost, and the new case went under the first
    text = "cases:\n  - name: one\ncases:\n  - name: two\n"
    with pytest.raises(UsageError, match='duplicate key "cases" on line 3'):
        appended(text, "cases", {"name": "three"}, "x.yaml")


def test_a_file_pyyaml_cannot_read_is_a_usage_error_not_a_traceback():
    for text in ("cases:\n  - name: one\n---\nrules: []\n", "cases:\n  - name: one\n    input: 1\t# c\n"):
        with pytest.raises(UsageError, match="x.yaml is not a YAML file the grader reads"):
            appended(text, "cases", {"name": "two"}, "x.yaml")


def test_a_byte_order_mark_and_a_document_end_with_comments_after_it_are_kept():
    text = "\ufeffcases:\n  - name: one\n    input: '1'\n...\n# after the document\n"
    written = appended(text, "cases", {"name": "two", "input": "2"}, "x.yaml")
    kept = "\ufeffcases:\n  - name: one\n    input: '1'\n"
    assert written == kept + "  - name: two\n    input: '2'\n...\n# after the document\n"


def test_line_ends_of_carriage_returns_alone_are_kept():
    text = "cases:\r  - name: one\r    input: '1'\r"
    written = appended(text, "cases", {"name": "two", "input": "2"}, "x.yaml")
    assert written == text + "  - name: two\r    input: '2'\r"


def test_an_anchored_list_keeps_its_indentation():
    text = "cases: &all\n  - name: one\n    input: '1'\nagain: *all\n"
    written = appended(text, "cases", {"name": "two", "input": "2"}, "x.yaml")
    assert written == "cases: &all\n  - name: one\n    input: '1'\n  - name: two\n    input: '2'\nagain: *all\n"


def test_every_header_line_is_a_comment_pyyaml_reads():
    # an empty line was an IndexError, a control character made a file PyYAML refuses, and a line
    # break other than a line feed ended the comment
    header = ["", "bell \x07 and nul \x00", "a\rb\u2028c", "tab\tkept"]
    written = new_file({"task": "t"}, header)
    assert written == "#\n# bell \\x07 and nul \\x00\n# a\n# b\n# c\n# tab\tkept\ntask: t\n"
    assert yaml.safe_load(written) == {"task": "t"}


def test_a_list_of_flow_mappings_keeps_its_indentation():
    # the keys' column inside the first item's braces was taken for the items' indentation
    text = "cases:\n  - {name: one, input: '1'}\n"
    written = appended(text, "cases", {"name": "two", "input": "2"}, "x.yaml")
    assert written == text + "  - name: two\n    input: '2'\n"


@pytest.mark.parametrize(
    "text",
    [
        "cases: [  # the cases\n  {name: one},  # first\n  {name: two}\n]\nrules: []\n",
        "cases: []\nrules: []\n",
        "cases: !!seq\n  - !!map\n    name: one\n",
        "cases:\n  - # the first\n    name: one\n  -\n",
        'cases:   \n  - name: one   \n    input: "a\n      b"\n? rules\n: []\n',
    ],
)
def test_layouts_round_trip_mode_cannot_keep_still_read_back_as_they_were(text):
    written = appended(text, "cases", {"name": "new", "input": "yes"}, "x.yaml")
    after = yaml.safe_load(written)
    assert after["cases"].pop() == {"name": "new", "input": "yes"}
    assert after == yaml.safe_load(text)


def test_add_case_keeps_a_byte_order_mark_carriage_returns_and_a_document_end(tmp_path):
    folder = tmp_path / "course"
    (folder / "testcases").mkdir(parents=True)
    (folder / "solutions").mkdir()
    head = "\ufefftask: echo\rcases:\r  - name: one\r    input: '1'\r    expected: '1'\r"
    path = folder / "testcases" / "echo.yaml"
    path.write_bytes((head + "...\r# the end\r").encode("utf-8"))
    (folder / "solutions" / "echo.py").write_text(ECHO, encoding="utf-8")
    context = GradingContext(
        checkers=course_checkers(folder), python=sys.executable, runner=SubprocessRunner(), course=folder
    )
    add_case(folder, "echo", "a\n---\nb\n...\n", name="two", context=context)
    added = "  - name: two\r    input: |-\r      a\r      ---\r      b\r      ...\r    expected: |-\r      a\r"
    added += "      ---\r      b\r      ...\r"
    assert path.read_bytes().decode("utf-8") == head + added + "...\r# the end\r"
    assert load_task(path, course_checkers(folder)).cases[1].input == "a\n---\nb\n...\n"


def test_a_file_whose_data_round_trip_mode_would_change_is_refused():
    # a set came back as {a null, b null} and pairs as lists: PyYAML read other data than the file's
    for held in ("!!set {a, b}", "!!pairs [a: 1, a: 2]"):
        with pytest.raises(UsageError, match="would change what the file holds"):
            appended(f"held: {held}\ncases:\n  - name: one\n", "cases", {"name": "two"}, "x.yaml")


def test_a_file_with_a_tag_pyyaml_cannot_build_is_a_usage_error():
    text = "%TAG !e! tag:example.com,2000:\n---\ncases:\n  - name: !e!x one\n"
    with pytest.raises(UsageError, match="could not determine a constructor"):
        appended(text, "cases", {"name": "two"}, "x.yaml")


def test_double_quoted_escapes_and_indentation_indicators_read_back_as_they_were():
    text = 'cases:\n  - input: "a\\x07b \\u00e9 \\/ \\\n      c"\n    expected: |1\n      a\n    hint: .NaN\n'
    written = appended(text, "cases", {"name": "new"}, "x.yaml")
    after = yaml.safe_load(written)
    assert after["cases"].pop() == {"name": "new"}
    assert repr(after) == repr(yaml.safe_load(text))
