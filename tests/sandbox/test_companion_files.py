"""A crash or a loop inside a file the program imports is blamed on that file, not the program.

working_game.py imports the student's present_board.py (and others); when the error is in
present_board.py the student must read "line 56 of present_board.py" with that file's line, and the
traceback must name each frame's own file.
"""

from __future__ import annotations

import shutil
import textwrap
from dataclasses import replace
from pathlib import Path

from support import PROJECT

from grader.course.loader import load_task
from grader.grade import diagnose
from grader.grade.grading import grade_file
from grader.model import Verdict
from grader.nim.lab import lab_checkers
from grader.run.run_facts import ChildCrash, Frame

ASSERT = '    assert len(board) < 0, "the board is never this"\n'


def student_folder(tmp_path: Path, present_board_change: str) -> Path:
    """A student's folder holding every reference solution, present_board.py changed."""
    folder = tmp_path / "ann"
    folder.mkdir()
    for path in (PROJECT / "solutions").glob("*.py"):
        shutil.copy(path, folder)
    board = folder / "present_board.py"
    text = board.read_text(encoding="utf-8")
    assert '    lines = ["Nim:"]\n' in text
    board.write_text(text.replace('    lines = ["Nim:"]\n', '    lines = ["Nim:"]\n' + present_board_change))
    return folder


def test_a_crash_in_a_companion_names_that_file_and_its_line(tmp_path, course, context):
    folder = student_folder(tmp_path, ASSERT)
    line = (folder / "present_board.py").read_text().splitlines().index(ASSERT.rstrip("\n")) + 1
    result = grade_file(course["working_game"], folder / "working_game.py", context, "ann/working_game.py")
    case = result.cases[0]
    assert case.verdict is Verdict.RUNTIME_ERROR
    assert f"AssertionError (the board is never this) on line {line} of present_board.py: assert len(board) < 0" in (
        case.message
    )
    assert "The error is in your present_board.py" in case.message
    assert f'File "ann/present_board.py", line {line}, in present_board' in case.stderr
    assert 'File "ann/working_game.py", line' in case.stderr
    assert f'File "ann/working_game.py", line {line},' not in case.stderr


def test_a_crash_in_the_program_itself_names_no_other_file(tmp_path, course, context):
    folder = student_folder(tmp_path, "")
    game = folder / "working_game.py"
    game.write_text(game.read_text().replace("def play_nim(", "1 / 0\n\n\ndef play_nim(", 1))
    result = grade_file(course["working_game"], game, context, "ann/working_game.py")
    case = result.cases[0]
    assert "ZeroDivisionError" in case.message and " of " not in case.message.split(":")[0]
    assert "The error is in your" not in case.message
    assert 'File "ann/working_game.py"' in case.stderr


def test_a_loop_in_a_companion_names_that_file_at_the_time_limit(tmp_path, context):
    # a task that is not a game, whose program imports the student's present_board.py
    course = tmp_path / "course"
    (course / "testcases").mkdir(parents=True)
    yaml_path = course / "testcases" / "show.yaml"
    yaml_path.write_text(
        textwrap.dedent(
            """
            uses_files: [present_board]
            time_limit: 0.5
            cases:
              - {name: one row, input: '[1]', expected: "Nim:\\n1: X"}
            """
        )
    )
    task = load_task(yaml_path, lab_checkers())
    folder = student_folder(tmp_path, "    while len(board) >= 0:\n        lines.append('')\n")
    program = folder / "show.py"
    program.write_text(
        "import json\nfrom present_board import present_board\n\nprint(present_board(json.loads(input())))\n"
    )
    lines = (folder / "present_board.py").read_text().splitlines()
    loop = [
        number
        for number, text in enumerate(lines, start=1)
        if "while len(board) >= 0" in text or "lines.append(''" in text
    ]
    result = grade_file(task, program, replace(context, task_ids=("show",)), "ann/show.py")
    case = result.cases[0]
    assert case.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert any(f"while running line {number} of present_board.py (" in case.message for number in loop), case.message


def test_the_shown_traceback_keeps_each_frames_file():
    stderr = textwrap.dedent(
        """\
        Traceback (most recent call last):
          File "/run/x/working_game.py", line 3, in <module>
            present_board([])
          File "/run/x/present_board.py", line 9, in present_board
            assert False
        AssertionError
        """
    )
    shown = diagnose.student_traceback(stderr, "/run/x", "ann/working_game.py", "working_game.py")
    assert 'File "ann/working_game.py", line 3, in <module>' in shown
    assert 'File "ann/present_board.py", line 9, in present_board' in shown
    record = ChildCrash("AssertionError", True, "", (Frame("working_game.py", 3), Frame("present_board.py", 9)))
    crash = diagnose.crash_of(
        record, lambda name: "\n" * 8 + "    assert False\n" if name == "present_board.py" else ""
    )
    assert (crash.file, crash.line, crash.source) == ("present_board.py", 9, "assert False")


def test_a_syntax_error_in_an_imported_file_is_found_in_that_file(tmp_path, course, context):
    """The process running the program reports where the imported file does not compile."""
    folder = tmp_path / "ann"
    folder.mkdir()
    for path in (PROJECT / "solutions").glob("*.py"):
        shutil.copy(path, folder)
    board = folder / "present_board.py"
    lines = board.read_text().splitlines()
    number = next(i for i, line in enumerate(lines, start=1) if line.startswith("def present_board("))
    lines[number - 1] = lines[number - 1].rstrip(":")
    board.write_text("\n".join(lines) + "\n")
    result = grade_file(course["working_game"], folder / "working_game.py", context, "ann/working_game.py")
    visible = next(c for c in result.cases if not c.case.hidden)
    assert visible.verdict is Verdict.RUNTIME_ERROR
    assert "SyntaxError (" in visible.message  # ("expected ':'", or "invalid syntax" before Python 3.10)
    assert f"on line {number} of present_board.py: def present_board(" in visible.message
