"""Course files with limits: too large, nested too deeply, or pointing outside the course folder.

Each is refused with one line that names the file (and the line and key where there is one), exit
status 2, and no traceback, however hostile the course folder.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support import PROJECT, solution

from grader.course import files as course_files
from grader.course.files import read_yaml
from grader.course.loader import load_task
from grader.errors import CaseFileError
from grader.nim.lab import lab_checkers

CASE = "task: demo\ncases:\n  - name: a\n"


def course_with(tmp_path, text: str):
    """A course folder whose only task (nim_sum) is ``text``; returns (course, yaml path)."""
    course = tmp_path / "course"
    (course / "testcases").mkdir(parents=True)
    path = course / "testcases" / "nim_sum.yaml"
    path.write_text(text, encoding="utf-8")
    return course, path


def check(course, tmp_path) -> subprocess.CompletedProcess:
    """``python -m grader check`` of the reference nim_sum against ``course``, as a user runs it."""
    work = tmp_path / "nim_sum.py"
    work.write_text(solution("nim_sum"), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "grader", "check", str(work), "--course", str(course), "--report", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=120,
    )


def assert_one_line_error(done: subprocess.CompletedProcess, *words: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: testcases/nim_sum.yaml")
    for word in words:
        assert word in lines[0]


def test_yaml_nested_100000_deep_is_refused_with_its_line(tmp_path):
    course, _ = course_with(tmp_path, "task: nim_sum\ncases:\n  - name: a\n    input: " + "[" * 100000 + "\n")
    done = check(course, tmp_path)
    assert_one_line_error(done, f"line 4: lists and mappings are nested here more than {course_files.MAX_YAML_DEPTH}")


def test_nesting_up_to_the_limit_loads_and_one_more_level_does_not(tmp_path):
    limit = course_files.MAX_YAML_DEPTH
    path = tmp_path / "deep.yaml"
    path.write_text("[" * limit + "]" * limit + "\n")
    nested: list = []
    for _ in range(limit - 1):
        nested = [nested]
    assert read_yaml(path, "deep.yaml") == nested
    path.write_text("[" * (limit + 1) + "]" * (limit + 1) + "\n")
    with pytest.raises(CaseFileError, match=r"^deep\.yaml, line 1: lists and mappings are nested"):
        read_yaml(path, "deep.yaml")


def test_a_yaml_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    course, path = course_with(tmp_path, "")
    with path.open("wb") as handle:
        handle.truncate(course_files.MAX_YAML_BYTES + 1024 * 1024)  # sparse: nothing written to parse
    done = check(course, tmp_path)
    assert_one_line_error(done, "not read: it is 9 MiB, more than the 8 MiB such a file may be")


def test_a_big_expected_file_is_refused_with_line_and_key(tmp_path, monkeypatch):
    monkeypatch.setattr("grader.course.case_validation.MAX_DATA_BYTES", 1000)
    path = tmp_path / "testcases" / "demo.yaml"
    path.parent.mkdir()
    (path.parent / "answer.txt").write_text("x" * 1001)
    path.write_text(CASE + "    input: '1'\n    expected_file: answer.txt\n")
    with pytest.raises(CaseFileError) as caught:
        load_task(path, lab_checkers())
    assert caught.value.line == 5
    assert "'expected_file' in case 'a'" in str(caught.value)
    assert "more than the" in str(caught.value)


def test_a_fifo_named_as_input_file_is_refused_not_waited_for(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("this system has no named pipes")
    path = tmp_path / "testcases" / "demo.yaml"
    path.parent.mkdir()
    os.mkfifo(path.parent / "pipe")
    path.write_text(CASE + "    input_file: pipe\n    expected: '1'\n")
    with pytest.raises(CaseFileError, match="not a regular file"):
        load_task(path, lab_checkers())


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("../../secret.txt", id="dot-dot"),
        pytest.param("{outside}", id="absolute-path"),
        pytest.param("link.txt", id="symlink-to-outside"),
        pytest.param("linked_folder/secret.txt", id="symlinked-folder"),
    ],
)
@pytest.mark.parametrize("key", ["input_file", "expected_file"])
def test_a_file_outside_the_course_folder_is_refused(tmp_path, name, key):
    outside = tmp_path / "secret.txt"
    outside.write_text("the answers\n")
    course, path = course_with(tmp_path, "")
    (course / "testcases" / "link.txt").symlink_to(outside)
    (course / "testcases" / "linked_folder").symlink_to(tmp_path, target_is_directory=True)
    name = name.format(outside=outside)
    other = "expected: '1'" if key == "input_file" else "input: '1'"
    path.write_text(f"task: nim_sum\ncases:\n  - name: a\n    {key}: {name}\n    {other}\n")
    with pytest.raises(CaseFileError) as caught:
        load_task(path, lab_checkers(), shown="testcases/nim_sum.yaml")
    message = str(caught.value)
    assert message.startswith(f"testcases/nim_sum.yaml, line 4: '{key}' in case 'a' names '{name}'")
    assert "outside the course folder" in message
    assert "the answers" not in message


def test_a_file_elsewhere_in_the_course_folder_is_fine(tmp_path):
    course, path = course_with(tmp_path, "")
    (course / "data").mkdir()
    (course / "data" / "in.txt").write_text("[1, 2]\n")
    (course / "testcases" / "link.txt").symlink_to(course / "data" / "in.txt")
    path.write_text(
        "cases:\n  - {name: a, input_file: ../data/in.txt, expected: '3'}\n"
        "  - {name: b, input_file: link.txt, expected: '3'}\n"
    )
    task = load_task(path, lab_checkers())
    assert [case.input for case in task.cases] == ["[1, 2]\n", "[1, 2]\n"]


def test_check_refuses_a_case_reading_outside_the_course(tmp_path):
    course, _ = course_with(tmp_path, "cases:\n  - name: a\n    input_file: /etc/passwd\n    expected: '1'\n")
    done = check(course, tmp_path)
    assert_one_line_error(done, "line 3: 'input_file' in case 'a' names '/etc/passwd'", "outside the course folder")
    assert "root:" not in done.stderr + done.stdout


def test_a_control_character_in_yaml_is_named_with_its_line(tmp_path):
    course, path = course_with(tmp_path, "")
    path.write_text("cases:\n  - name: 'a\x00'\n    input: '1'\n    expected: '1'\n")
    done = check(course, tmp_path)
    assert_one_line_error(done, "line 2: the character U+0000 is not allowed in YAML")
