"""Loading ``testcases/<task>.yaml``: a valid file gives a ``Task``; each mistake a ``CaseFileError``
that names the file, the line and the key, as ``docs/testcases.md`` promises instructors.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from grader.course.course_checkers import course_checkers
from grader.course.loader import load_course, load_task
from grader.errors import CaseFileError
from grader.model import Rule, Verdict
from grader.nim.lab import lab_checkers

PROJECT = Path(__file__).resolve().parents[2]


def write(folder: Path, text: str, name: str = "demo") -> Path:
    """``text`` (dedented) as ``<folder>/testcases/<name>.yaml``; returns its path."""
    path = folder / "testcases" / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def load(folder: Path, text: str, name: str = "demo"):
    return load_task(write(folder, text, name), lab_checkers())


# -- valid files --------------------------------------------------------------------------------


def test_minimal_file_gets_the_defaults(tmp_path):
    task = load(
        tmp_path,
        """
        task: demo
        cases:
          - name: one plus one
            input: '1 1'
            expected: '2'
        """,
    )
    assert task.id == "demo"
    assert task.title == "demo"
    assert task.rules == ()
    (case,) = task.cases
    assert case.name == "one plus one"
    assert case.input == "1 1\n"
    assert case.expected == ("2",)
    assert case.checker == "text"
    assert dict(case.checker_options) == {}
    assert case.limits.time_s == 2.0
    assert case.limits.memory_mib == 512
    assert case.limits.output_bytes == 1_000_000
    assert case.hidden is False
    assert case.hint == ""
    assert case.points == 1
    assert case.line == 3


def test_task_settings_and_case_overrides(tmp_path):
    task = load(
        tmp_path,
        """
        task: demo
        title: A demo task
        checker: tokens
        checker_options:
          case_sensitive: false
        time_limit: 1.5
        memory_limit: 256
        output_limit: 5000
        rules:
          - operator: "^"
            instead: use exclusive_or.
          - name: int
            min_args: 2
        cases:
          - name: uses the task settings
            input: "1\\n"
            expected: 'YES'
          - name: overrides everything
            input: '2'
            expected: '0.5'
            checker: float
            checker_options: {abs_tol: 0.01}
            time_limit: 10
            memory_limit: 1024
            output_limit: 100
            hidden: true
            hint: Think about halves.
            points: 2.5
          - name: another checker, no options
            input: '3'
            expected: '3'
            checker: text
        """,
    )
    assert task.title == "A demo task"
    assert task.rules == (
        Rule(kind="operator", target="^", instead="use exclusive_or."),
        Rule(kind="name", target="int", min_args=2),
    )
    first, second, third = task.cases
    assert (first.checker, dict(first.checker_options)) == ("tokens", {"case_sensitive": False})
    assert (first.limits.time_s, first.limits.memory_mib, first.limits.output_bytes) == (1.5, 256, 5000)
    assert first.input == "1\n"
    assert (second.checker, dict(second.checker_options)) == ("float", {"abs_tol": 0.01})
    assert (second.limits.time_s, second.limits.memory_mib, second.limits.output_bytes) == (10.0, 1024, 100)
    assert second.hidden is True
    assert second.hint == "Think about halves."
    assert second.points == 2.5
    assert (third.checker, dict(third.checker_options)) == ("text", {})
    assert third.limits.time_s == 1.5


def test_expected_as_a_list(tmp_path):
    task = load(
        tmp_path,
        """
        task: demo
        cases:
          - name: either spelling
            input: '1'
            expected:
              - 'yes'
              - 'Yes'
        """,
    )
    assert task.cases[0].expected == ("yes", "Yes")


def test_input_file_and_expected_file_are_read_relative_to_the_yaml_file(tmp_path):
    data = tmp_path / "testcases" / "demo"
    data.mkdir(parents=True)
    (data / "big.txt").write_text("1 2 3", encoding="utf-8")
    (data / "big_expected.txt").write_text("6\n", encoding="utf-8")
    task = load(
        tmp_path,
        """
        task: demo
        cases:
          - name: a big input
            input_file: demo/big.txt
            expected_file: demo/big_expected.txt
        """,
    )
    (case,) = task.cases
    assert case.input == "1 2 3\n"
    assert case.expected == ("6\n",)


def test_input_keeps_its_final_newline(tmp_path):
    task = load(
        tmp_path,
        """
        task: demo
        cases:
          - name: two lines
            input: |
              1
              2
            expected: '3'
        """,
    )
    assert task.cases[0].input == "1\n2\n"


def test_valid_json_and_regex_expected(tmp_path):
    task = load(
        tmp_path,
        """
        task: demo
        checker: json
        cases:
          - name: json
            input: '1'
            expected: '[[3, 2, 5], true]'
          - name: regex
            input: '1'
            expected: '\\d+ moves?'
            checker: regex
            checker_options: {flags: [IGNORECASE]}
        """,
    )
    assert [c.checker for c in task.cases] == ["json", "regex"]


# -- invalid files ------------------------------------------------------------------------------

VALID_CASE = """
  - name: a
    input: '1'
    expected: '1'
"""


def bad(id, text, line, words, marks=()):
    return pytest.param(textwrap.dedent(text).lstrip("\n"), line, words, id=id, marks=marks)


BAD_FILES = [
    bad(
        "yaml-syntax-error",
        """
        task: demo
        cases:
          - name: a
            input: '1
            expected: '1'
        """,
        5,
        ["YAML syntax error"],
    ),
    bad(
        "yaml-unclosed-flow",
        """
        task: demo
        cases: [
        """,
        3,
        ["YAML syntax error"],
    ),
    bad(
        "top-level-list",
        """
        - name: a
          input: '1'
        """,
        None,
        ["must be a mapping"],
    ),
    bad("empty-file", "", None, ["must be a mapping"]),
    bad(
        "unknown-top-level-key",
        """
        task: demo
        chekcer: json
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        2,
        ["unknown key 'chekcer'", "at the top of the file", "did you mean 'checker'?"],
    ),
    bad(
        "unknown-case-key-expectd",
        """
        task: demo
        cases:
          - name: a
            input: '1'
            expected: '1'
          - name: b
            input: '1'
            expectd: '1'
        """,
        8,
        ["unknown key 'expectd'", "in case 'b'", "did you mean 'expected'?"],
    ),
    bad(
        "input-is-a-number",
        """
        task: demo
        cases:
          - name: a
            input: 5
            expected: '5'
        """,
        4,
        ["'input'", "in case 'a'", "text", "quotes"],
    ),
    bad(
        "expected-is-a-number",
        """
        task: demo
        cases:
          - name: a
            input: '5'
            expected: 010
        """,
        5,
        ["'expected'", "text"],
    ),
    bad(
        "hidden-is-text",
        """
        task: demo
        cases:
          - name: a
            input: '1'
            expected: '1'
            hidden: "yes"
        """,
        6,
        ["'hidden'", "true or false"],
    ),
    bad(
        "points-is-a-bool",
        """
        task: demo
        cases:
          - name: a
            input: '1'
            expected: '1'
            points: yes
        """,
        6,
        ["'points'", "a number", "true/false"],
    ),
    bad(
        "cases-is-a-mapping",
        """
        task: demo
        cases:
          name: a
        """,
        2,
        ["'cases'", "a list"],
    ),
    bad(
        "missing-cases",
        """
        task: demo
        title: Demo
        """,
        1,
        ["'cases' is missing"],
    ),
    bad(
        "empty-cases",
        """
        task: demo
        cases: []
        """,
        2,
        ["'cases' is empty"],
    ),
    bad(
        "case-not-a-mapping",
        """
        task: demo
        cases:
          - just some text
        """,
        2,
        ["each case must be a mapping"],
    ),
    bad(
        "case-without-name",
        """
        task: demo
        cases:
          - input: '1'
            expected: '1'
        """,
        3,
        ["no 'name'"],
    ),
    bad(
        "missing-expected",
        """
        task: demo
        cases:
          - name: a
            input: '1'
        """,
        3,
        ["'expected' is missing", "in case 'a'"],
    ),
    bad(
        "missing-input",
        """
        task: demo
        cases:
          - name: a
            expected: '1'
        """,
        3,
        ["'input' is missing", "in case 'a'"],
    ),
    bad(
        "input-and-input-file",
        """
        task: demo
        cases:
          - name: a
            input: '1'
            input_file: a.txt
            expected: '1'
        """,
        5,
        ["'input'", "'input_file'", "not both"],
    ),
    bad(
        "expected-and-expected-file",
        """
        task: demo
        cases:
          - name: a
            input: '1'
            expected: '1'
            expected_file: a.txt
        """,
        6,
        ["'expected'", "'expected_file'", "not both"],
    ),
    bad(
        "missing-input-file",
        """
        task: demo
        cases:
          - name: a
            input_file: demo/nowhere.txt
            expected: '1'
        """,
        4,
        ["'demo/nowhere.txt'", "does not exist", "in case 'a'"],
    ),
    bad(
        "missing-expected-file",
        """
        task: demo
        cases:
          - name: a
            input: '1'
            expected_file: nowhere.txt
        """,
        5,
        ["'nowhere.txt'", "does not exist"],
    ),
    bad(
        "unknown-checker-jsn",
        """
        task: demo
        checker: jsn
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        2,
        ["unknown checker 'jsn'", "did you mean 'json'?", "known checkers"],
    ),
    bad(
        "unknown-checker-in-a-case",
        """
        task: demo
        cases:
          - name: a
            input: '1'
            expected: '1'
            checker: token
        """,
        6,
        ["unknown checker 'token'", "did you mean 'tokens'?"],
    ),
    bad(
        "unknown-checker-option",
        """
        task: demo
        checker: tokens
        checker_options:
          ignore_case: true
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        3,
        ["no option 'ignore_case'", "case_sensitive"],
    ),
    bad(
        "option-of-text-checker",
        """
        task: demo
        cases:
          - name: a
            input: '1'
            expected: '1'
            checker_options: {case_sensitive: false}
        """,
        6,
        ["checker 'text' has no option 'case_sensitive'"],
    ),
    bad(
        "checker-option-of-wrong-type",
        """
        task: demo
        checker: float
        cases:
          - name: a
            input: '1'
            expected: '1'
            checker_options:
              abs_tol: small
        """,
        7,
        ["'abs_tol'", "a number", "not text"],
    ),
    bad(
        "unknown-regex-flag",
        """
        task: demo
        checker: regex
        checker_options: {flags: [IGNORCASE]}
        cases:
          - name: a
            input: '1'
            expected: 'a'
        """,
        3,
        ["unknown regex flag 'IGNORCASE'", "IGNORECASE"],
    ),
    bad(
        "duplicate-case-names",
        """
        task: demo
        cases:
          - name: a
            input: '1'
            expected: '1'
          - name: b
            input: '2'
            expected: '2'
          - name: a
            input: '3'
            expected: '3'
        """,
        9,
        ["'a' already exists", "line 3"],
    ),
    bad(
        "key-twice-in-a-case",
        """
        task: demo
        cases:
          - name: a
            input: '1'
            expected: '1'
            input: '2'
        """,
        6,
        ["'input' appears twice"],
    ),
    bad(
        "key-twice-at-top-level",
        """
        task: demo
        checker: text
        checker: json
        cases: []
        """,
        3,
        ["'checker' appears twice"],
    ),
    bad(
        "expected-list-with-a-number",
        """
        task: demo
        cases:
          - name: a
            input: '1'
            expected:
              - '1'
              - 2
        """,
        5,
        ["'expected'", "in case 'a'", "2 is not text"],
    ),
    bad(
        "expected-list-with-json-not-quoted",
        """
        task: demo
        checker: json
        cases:
          - name: a
            input: '1'
            expected:
              - [1, 2]
        """,
        6,
        ["'expected'", "quote the whole JSON"],
    ),
    bad(
        "expected-empty-list",
        """
        task: demo
        cases:
          - name: a
            input: '1'
            expected: []
        """,
        5,
        ["'expected'", "empty list"],
    ),
    bad(
        "expected-not-json",
        """
        task: demo
        checker: json
        cases:
          - name: a
            input: '1'
            expected: '[[3, 2, 5], True]'
        """,
        6,
        ["not valid JSON", "in case 'a'", "[[3, 2, 5], True]"],
    ),
    bad(
        "expected-not-json-in-a-list",
        """
        task: demo
        checker: json
        cases:
          - name: a
            input: '1'
            expected: ['[1]', "{'a': 1}"]
        """,
        6,
        ["not valid JSON", "in case 'a'"],
    ),
    bad(
        "expected-invalid-regex",
        """
        task: demo
        cases:
          - name: a
            input: '1'
            expected: '(\\d+'
            checker: regex
        """,
        5,
        ["not a valid regular expression", "in case 'a'"],
    ),
    bad(
        "task-does-not-match-file-name",
        """
        task: other
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        1,
        ["'task' is 'other'", "demo.yaml", "task: demo"],
    ),
    bad(
        "rule-not-a-mapping",
        """
        task: demo
        rules:
          - "^"
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        2,
        ["each rule must be a mapping"],
    ),
    bad(
        "rule-unknown-operator",
        """
        task: demo
        rules:
          - operator: xor
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        3,
        ["unknown operator 'xor'", "^"],
    ),
    bad(
        "rule-with-two-kinds",
        """
        task: demo
        rules:
          - operator: "^"
            name: operator.xor
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        3,
        ["exactly one of operator, name, import, format_spec", "has 2"],
    ),
    bad(
        "rule-with-no-kind",
        """
        task: demo
        rules:
          - instead: do it yourself.
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        3,
        ["exactly one of", "has none"],
    ),
    bad(
        "rule-unknown-key",
        """
        task: demo
        rules:
          - operater: "^"
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        3,
        ["unknown key 'operater'", "in a rule", "did you mean 'operator'?"],
    ),
    bad(
        "min-args-on-operator-rule",
        """
        task: demo
        rules:
          - operator: "^"
            min_args: 2
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        4,
        ["'min_args'", "'name' rule"],
    ),
    bad(
        "zero-time-limit",
        """
        task: demo
        time_limit: 0
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        2,
        ["'time_limit' must be a number more than 0"],
    ),
    bad(
        "negative-time-limit-in-a-case",
        """
        task: demo
        cases:
          - name: a
            input: '1'
            expected: '1'
            time_limit: -1
        """,
        6,
        ["'time_limit' must be a number more than 0"],
    ),
    bad(
        "zero-memory-limit",
        """
        task: demo
        memory_limit: 0
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        2,
        ["'memory_limit' must be a number more than 0"],
    ),
    bad(
        "negative-float-tolerance",
        """
        task: demo
        checker: float
        checker_options: {abs_tol: -0.01}
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        3,
        ["abs_tol", "0 or more"],
    ),
    bad(
        "time-limit-as-text",
        """
        task: demo
        time_limit: 2s
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        2,
        ["'time_limit'", "a number"],
    ),
    # -- found by these tests, now fixed ---------------------------------------------------
    bad(
        "regex-flag-that-is-a-list",
        """
        task: demo
        checker: regex
        checker_options: {flags: [[IGNORECASE]]}
        cases:
          - name: a
            input: '1'
            expected: 'a'
        """,
        3,
        ["flag"],
    ),
    bad(
        "infinite-memory-limit",
        """
        task: demo
        memory_limit: .inf
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        2,
        ["'memory_limit'"],
    ),
    bad(
        "format-spec-rule-with-width",
        """
        task: demo
        rules:
          - format_spec: "08b"
        cases:
          - name: a
            input: '1'
            expected: '1'
        """,
        3,
        ["format_spec"],
    ),
]


@pytest.mark.parametrize("text, line, words", BAD_FILES)
def test_invalid_file(tmp_path, text, line, words):
    path = tmp_path / "testcases" / "demo.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CaseFileError) as caught:
        load_task(path, lab_checkers())
    message = str(caught.value)
    assert message.startswith(f"{path}")
    assert caught.value.line == line
    if line is None:
        assert ", line" not in message
    else:
        assert message.startswith(f"{path}, line {line}: ")
    for word in words:
        assert word in message


def test_shown_name_is_used_in_messages(tmp_path):
    path = write(tmp_path, "task: demo\ncases: []\n")
    with pytest.raises(CaseFileError, match=r"^testcases/demo\.yaml, line 2: "):
        load_task(path, lab_checkers(), shown="testcases/demo.yaml")


def test_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "testcases" / "demo.yaml"
    path.parent.mkdir(parents=True)
    path.write_bytes("task: demo\ntitle: 'café'\n".encode("latin-1"))
    with pytest.raises(CaseFileError, match="not UTF-8"):
        load_task(path, lab_checkers())


def test_fractional_limits_are_not_silently_zero(tmp_path):
    text = "task: demo\nmemory_limit: 0.5\noutput_limit: 0.5\ncases:" + VALID_CASE
    try:
        task = load(tmp_path, text)
    except CaseFileError as error:  # rejecting the value is a fine fix too
        assert "limit" in str(error)
        return
    limits = task.cases[0].limits
    assert limits.memory_mib > 0
    assert limits.output_bytes > 0


# -- course folders -----------------------------------------------------------------------------


ALWAYS_CHECKER = """
from grader.model import CheckOutcome, Verdict


def register(registry):
    registry.register("always", lambda actual, expected, case_input: CheckOutcome(Verdict.ACCEPTED))
"""


def test_course_checkers_py_adds_a_checker(tmp_path):
    (tmp_path / "checkers.py").write_text(ALWAYS_CHECKER, encoding="utf-8")
    write(tmp_path, "task: demo\nchecker: always\ncases:" + VALID_CASE)
    tasks = load_course(tmp_path)
    assert list(tasks) == ["demo"]
    assert tasks["demo"].cases[0].checker == "always"
    assert tasks["demo"].source == str(Path("testcases") / "demo.yaml")
    checker = course_checkers(tmp_path).get("always")
    assert checker("anything", "else", "", {}).verdict is Verdict.ACCEPTED


def test_without_checkers_py_a_custom_checker_is_unknown(tmp_path):
    write(tmp_path, "task: demo\nchecker: always\ncases:" + VALID_CASE)
    with pytest.raises(CaseFileError, match="unknown checker 'always'"):
        load_course(tmp_path)


@pytest.mark.parametrize(
    "source, words",
    [
        pytest.param(
            "def register(registry):\n    raise RuntimeError('boom')\n", ["RuntimeError", "boom"], id="register-raises"
        ),
        pytest.param("raise ImportError('no module named nim')\n", ["ImportError"], id="module-raises"),
        pytest.param("def register(registry)\n    pass\n", ["SyntaxError"], id="syntax-error"),
        pytest.param("x = 1\n", ["register"], id="no-register-function"),
        pytest.param(
            "def register(registry):\n    registry.register('text', lambda a, e, i: None)\n",
            ["'text'", "already registered"],
            id="builtin-name-taken",
        ),
    ],
)
def test_broken_course_checkers_py(tmp_path, source, words):
    checkers_py = tmp_path / "checkers.py"
    checkers_py.write_text(source, encoding="utf-8")
    write(tmp_path, "task: demo\ncases:" + VALID_CASE)
    with pytest.raises(CaseFileError) as caught:
        load_course(tmp_path)
    message = str(caught.value)
    assert message.startswith(str(checkers_py))
    for word in words:
        assert word in message


def test_load_course_names_tasks_by_file(tmp_path):
    write(tmp_path, "task: alpha\ncases:" + VALID_CASE, name="alpha")
    write(tmp_path, "cases:" + VALID_CASE, name="beta")
    tasks = load_course(tmp_path)
    assert sorted(tasks) == ["alpha", "beta"]
    assert tasks["beta"].id == "beta"


def test_load_course_error_uses_the_path_inside_the_course(tmp_path):
    write(tmp_path, "task: demo\ncases: []\n")
    with pytest.raises(CaseFileError) as caught:
        load_course(tmp_path)
    assert str(caught.value).startswith(f"{Path('testcases') / 'demo.yaml'}, line 2: ")


# -- the project's own test cases ---------------------------------------------------------------


def test_project_testcases_load():
    tasks = load_course(PROJECT)
    assert tasks, "no testcases/*.yaml found"
    for task_id, task in tasks.items():
        assert (PROJECT / "exercises" / f"{task_id}.py").is_file(), task_id
        assert len(task.cases) >= 4, task_id
        assert any(case.hidden and case.hint for case in task.cases), f"{task_id}: no hidden case with a hint"
