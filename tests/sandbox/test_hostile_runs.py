"""Hostile output end to end: graded as the student's wrong answer, with a sentence, by ``grade_file``,
``python -m grader check`` (exit status 1, not 2) and a class run; a game whose output the session
cannot read leaves no process of the program running. The checkers one by one are in
``test_hostile_output.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from dataclasses import replace

import pytest
from support import PROJECT, course_of, gradebook_students, solution

from grader.check.guard import GuardedSession
from grader.cli.main import main
from grader.grade.grading import grade_file
from grader.model import Limits, Verdict
from grader.run.execute import Program

posix_only = pytest.mark.skipif(os.name != "posix", reason="/proc and process groups")

DIGITS = "1" * 5000
# Each task's hostile program and the words its message must hold.
HOSTILE = {
    "optimal_move": ("print('1' * 5000)\n", "Your output is not a move: it holds a number of more than 4,300 digits."),
    "nim_sum": ("print('[' * 200000 + ']' * 200000)\n", "brackets nested too deeply"),
    "make_move": ("print('[[' + '1' * 4301 + ', 2], true]')\n", "it holds a number of more than 4,300 digits"),
}
# A program that leaves a child with ``marker`` in its command line, then prints ``line``.
LEAVES_A_CHILD = """import subprocess, sys, time
{reads}
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "{marker}"])
print({line}, flush=True)
time.sleep(60)
"""


def running(marker: str) -> list:
    """The ids of processes whose command line holds ``marker`` (zombies have none)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if marker.encode() in handle.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def gone(marker: str, within_s: float = 5.0) -> bool:
    """True once no process holds ``marker`` (a killed one may take a moment to be reaped)."""
    deadline = time.monotonic() + within_s
    while running(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.parametrize("task_id", sorted(HOSTILE))
def test_unreadable_output_is_a_wrong_answer(grade, task_id):
    source, words = HOSTILE[task_id]
    result = grade(task_id, source)
    case = result.cases[0]
    assert case.verdict is Verdict.WRONG_ANSWER
    assert words in case.message and len(case.message) < 600, case.message
    assert all(c.verdict is Verdict.WRONG_ANSWER for c in result.cases)


def test_check_exits_1_for_unreadable_output(tmp_path):
    path = tmp_path / "optimal_move.py"
    path.write_text(HOSTILE["optimal_move"][0], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "grader", "check", str(path), "--report", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr
    assert "failed unexpectedly" not in done.stderr
    assert done.stdout.split("\n")[1].split()[:2] == ["optimal_move", "wrong_answer"]


def test_a_class_run_keeps_the_other_tasks_of_a_student_with_unreadable_output(tmp_path):
    course = course_of(tmp_path / "course", ["exclusive_or", "nim_sum"])
    student = tmp_path / "class" / "eve"
    student.mkdir(parents=True)
    (student / "exclusive_or.py").write_text(solution("exclusive_or"), encoding="utf-8")
    (student / "nim_sum.py").write_text(HOSTILE["nim_sum"][0], encoding="utf-8")
    out = tmp_path / "out"
    code = main(["grade", str(student.parent), "--out", str(out), "--course", str(course), "--allow-unprotected"])
    assert code == 1
    (row,) = gradebook_students((out / "gradebook.csv").read_text(encoding="utf-8"))
    assert row["exclusive_or"] == "4" and row["nim_sum"] == "0", row
    page = (out / "eve" / "nim_sum.html").read_text(encoding="utf-8")
    assert "brackets nested too deeply" in page


# -- the interactive game ---------------------------------------------------------------------------


def game_folder(tmp_path, source: str):
    """working_game.py with ``source`` beside the exercise files it imports (the reference's)."""
    folder = tmp_path / "lab"
    folder.mkdir()
    for companion in ("present_board", "make_move", "optimal_move", "ui"):
        shutil.copyfile(PROJECT / "solutions" / f"{companion}.py", folder / f"{companion}.py")
    path = folder / "working_game.py"
    path.write_text(source, encoding="utf-8")
    return path


# The line a game's program prints, after the starting board → what the message says (5,000 zeros
# are the number 0).
_BOARD = '"Nim:\\n1: X\\n2: X X X\\n3: X X X X X\\n4: X X X X X X X\\n" + '
GAME_LINES = {
    "5000-zeros": (
        _BOARD + '"Computer removes 1 from row " + "0" * 5000',
        ["Computer's move is illegal: row 0 does not exist"],
    ),
    "5000-nines": (
        _BOARD + '"Computer removes 1 from row " + "9" * 5000',
        [
            'The move "Computer removes 1 from row 9999999999 ... 99999',
            '9999" is illegal: it has a number of more than 4,300 digits, and no row or heap is that large.',
        ],
    ),
}


@posix_only
@pytest.mark.parametrize("shape", sorted(GAME_LINES))
def test_a_game_line_with_a_5000_digit_row_is_a_wrong_answer_and_the_program_is_stopped(
    tmp_path, course, context, shape
):
    line, words = GAME_LINES[shape]
    marker = f"hostile-{uuid.uuid4().hex}"
    source = LEAVES_A_CHILD.format(reads="input(); input(); input()", marker=marker, line=line)
    task = course["working_game"]
    (case,) = [c for c in task.cases if "the computer starts on 1 3 5 7" in c.name]
    result = grade_file(replace(task, cases=(case,)), game_folder(tmp_path, source), context)
    (graded,) = result.cases
    assert graded.verdict is Verdict.WRONG_ANSWER
    assert graded.message.startswith(words[0]) and all(w in graded.message for w in words), graded.message
    assert graded.time_s < case.limits.time_s  # stopped there and then, not at its time limit
    assert gone(marker), "the program's child outlived its game"


def sleeper(tmp_path, marker: str) -> Program:
    """A program that leaves a marked child, prints a 5,000-digit number and sleeps."""
    script = tmp_path / "prog.py"
    script.write_text(LEAVES_A_CHILD.format(reads="", marker=marker, line=f"'{DIGITS}'"), encoding="utf-8")
    return Program(python=sys.executable, script=script, run_name="prog.py")


class Fragile:
    """A session whose reading of the output raises (int() of 5,000 digits), as an unguarded one may."""

    transcript = ""

    def output(self, text: str) -> None:
        if text.strip():
            int(text)

    def waiting(self):
        return None

    def done(self) -> bool:
        return False

    def outcome(self, run):
        return None


@posix_only
def test_a_session_that_raises_still_ends_its_program(tmp_path, context):
    marker = f"hostile-{uuid.uuid4().hex}"
    with pytest.raises(ValueError):  # a session the registry did not guard: its error goes on...
        context.runner.interact(sleeper(tmp_path, marker), Fragile(), Limits(time_s=20))
    assert gone(marker), "the program outlived the session's error"  # ...but the program is stopped


@posix_only
def test_a_guarded_session_that_raises_is_the_students_wrong_answer(tmp_path, context):
    marker = f"hostile-{uuid.uuid4().hex}"
    session = GuardedSession(Fragile())
    started = time.monotonic()
    run = context.runner.interact(sleeper(tmp_path, marker), session, Limits(time_s=20))
    assert time.monotonic() - started < 20 and not run.timed_out
    problem = session.outcome(run)
    assert problem.verdict is Verdict.WRONG_ANSWER and "more than 4,300 digits" in problem.message
    assert gone(marker)
