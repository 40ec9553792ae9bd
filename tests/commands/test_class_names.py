"""What students name their folders and files must not drive the instructor's terminal, a
spreadsheet, or what the class run grades; and the results cache keeps its answers private.
"""

from __future__ import annotations

import csv
import io
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from support import PROJECT, course_of, solution

from grader.classrun.folders import scan_class
from grader.classrun.progress import Progress
from grader.classrun.result_cache import ResultCache
from grader.cli.main import main
from grader.marks import StudentMarks, TaskMark
from grader.model import Verdict
from grader.report.exports import gradebook_csv
from grader.safe_text import for_terminal

HOSTILE_NAMES = ["\x1b]0;pwned\x07title", "clear\x1b[2Jscreen", "\u202eevil\u2066", "c1\x9b31mred", "tab\tnew\nline"]
FORMULAS = ['=HYPERLINK("x","y")', "+1+2", "-3+4", "@SUM(1)"]


@pytest.fixture
def course(tmp_path) -> Path:
    """A course of one quick task, exclusive_or, whose first case's name starts like a formula."""
    course = course_of(tmp_path / "course", ["exclusive_or"])
    case_file = course / "testcases" / "exclusive_or.yaml"
    text = case_file.read_text(encoding="utf-8")
    case_file.write_text(
        text.replace("  - name: 0 xor 0 is 0\n", "  - name: '=1+1 0 xor 0 is 0'\n", 1), encoding="utf-8"
    )
    return course


def make_class(root: Path, names) -> Path:
    for name in names:
        (root / name).mkdir(parents=True)
        (root / name / "exclusive_or.py").write_text(solution("exclusive_or"))
    return root


def rows(path: Path) -> list:
    return list(csv.reader(path.open(encoding="utf-8", newline="")))


def terminal_unsafe(text: str) -> list:
    """The characters of ``text`` a terminal would act on (a line break is fine)."""
    return sorted({c for c in text if c != "\n" and (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\u202e\u2066")})


# ---- terminal ---------------------------------------------------------------------------------


def test_student_names_reach_the_terminal_escaped(tmp_path, course):
    room = make_class(tmp_path / "class", ["alice", *HOSTILE_NAMES])
    (room / "\x1b[31mnotes.txt").write_text("not a student")
    command = [
        sys.executable,
        "-m",
        "grader",
        "grade",
        str(room),
        "--out",
        str(tmp_path / "out"),
        "--allow-unprotected",
    ]
    done = subprocess.run(command + ["--course", str(course)], cwd=PROJECT, capture_output=True, timeout=600)
    assert done.returncode == 0, done.stderr
    for stream in (done.stdout, done.stderr):
        assert not terminal_unsafe(stream.decode("utf-8")), stream
    err = done.stderr.decode("utf-8")
    assert "\\x1b]0;pwned\\x07title: 4/4 points" in err and "\\u202eevil\\u2066: 4/4 points" in err
    assert "\\x1b[31mnotes.txt: skipped, it is a file" in err


def test_progress_lines_escape_a_student_name():
    stream = io.StringIO()
    progress = Progress(1, stream, terminal=False)
    progress.student_done(StudentMarks("\x1b[2J\u202e", (TaskMark("nim_sum", Verdict.ACCEPTED, 1, 1, 0, 1),)), 0)
    assert stream.getvalue() == "[1/1] \\x1b[2J\\u202e: 1/1 points; every task accepted\n"


def test_check_escapes_file_names_it_skips(tmp_path, course, capsys):
    work = tmp_path / "work"
    work.mkdir()
    (work / "exclusive_or.py").write_text(solution("exclusive_or"))
    (work / "\x1b]0;owned\x07.py").write_text("print(1)\n")
    assert main(["check", str(work), "--course", str(course), "--report", str(tmp_path / "report")]) == 0
    captured = capsys.readouterr()
    assert not terminal_unsafe(captured.out + captured.err)
    assert "skipped \\x1b]0;owned\\x07.py (not exercise names)" in captured.err


def test_for_terminal_escapes_controls_and_keeps_letters():
    assert for_terminal("é ü 名前 🙂 ok") == "é ü 名前 🙂 ok"
    assert for_terminal("a\x00b\x7f\x85\u2028\udcff") == "a\\x00b\\x7f\\x85\\u2028\\udcff"
    assert for_terminal(for_terminal("\x1b[2J")) == "\\x1b[2J"


# ---- spreadsheets -----------------------------------------------------------------------------


def test_gradebook_and_item_analysis_cells_cannot_be_formulas(tmp_path, course):
    room = make_class(tmp_path / "class", ["alice", *FORMULAS])
    out = tmp_path / "out"
    assert main(["grade", str(room), "--out", str(out), "--course", str(course), "--allow-unprotected"]) == 0
    book = rows(out / "gradebook.csv")
    names = [row[0] for row in book[1:]]
    assert sorted(names) == sorted(["alice", *(f"'{name}" for name in FORMULAS)])
    # numbers stay numbers (the task, the total; then no task not handed in)
    assert all(row[1:] == ["4", "4", ""] for row in book[1:])
    cases = {row[1]: row for row in rows(out / "cases.csv")[1:]}
    assert cases["'=1+1 0 xor 0 is 0"][3:] == ["5", "5", "1.000"]


def test_gradebook_escapes_control_characters_in_names():
    marks = StudentMarks("\x1b[2J=x", (TaskMark("nim_sum", Verdict.ACCEPTED, 1, 1, 0, 1),))
    text = gradebook_csv([marks], [])
    assert "\x1b" not in text and "\\x1b[2J=x" in text


# ---- which folders are students ---------------------------------------------------------------


def test_folders_named_with_a_dot_are_students(tmp_path, course, capsys):
    room = make_class(tmp_path / "class", ["alice", "...", ".bob"])
    out = tmp_path / "out"
    assert main(["grade", str(room), "--out", str(out), "--course", str(course), "--allow-unprotected"]) == 0
    assert sorted(row[0] for row in rows(out / "gradebook.csv")[1:]) == ["...", ".bob", "alice"]
    assert (out / "_..." / "results.json").is_file()  # (a name of only dots is no folder on Windows)
    assert (out / "_...").resolve().parent == out.resolve()
    assert "Graded 3 students" in capsys.readouterr().out


def test_what_is_not_a_student_is_named_in_the_summary(tmp_path, course, capsys):
    room = make_class(tmp_path / "class", ["alice", "__MACOSX", ".git"])
    (room / "notes.txt").write_text("marks to enter by Friday")
    out = tmp_path / "out"
    assert main(["grade", str(room), "--out", str(out), "--course", str(course), "--allow-unprotected"]) == 0
    err = capsys.readouterr().err
    assert "Not graded (3 of the entries in" in err
    assert "__MACOSX: skipped, it is macOS's resource forks from a zip file" in err
    assert ".git: skipped, it is Git's own folder" in err
    assert "notes.txt: skipped, it is a file, not a student folder" in err
    assert [row[0] for row in rows(out / "gradebook.csv")[1:]] == ["alice"]


def test_a_folder_named_like_a_class_file_is_graded_in_a_folder_of_its_own(tmp_path, course, capsys):
    room = make_class(tmp_path / "class", ["alice", "index.html", "Gradebook.csv", "grading-cache.sqlite-wal"])
    out = tmp_path / "out"
    assert main(["grade", str(room), "--out", str(out), "--course", str(course), "--allow-unprotected"]) == 0
    err = capsys.readouterr().err
    for name in ("index.html", "Gradebook.csv", "grading-cache.sqlite-wal"):
        assert f"{name}: its reports are in the folder {name}~2 of the output: a folder by its own name" in err
        assert (out / f"{name}~2" / "results.json").is_file()
    assert sorted(row[0] for row in rows(out / "gradebook.csv")[1:]) == sorted(
        ["alice", "index.html", "Gradebook.csv", "grading-cache.sqlite-wal"]
    )
    assert (out / "index.html").is_file() and (out / "gradebook.csv").is_file()


def test_two_folders_that_show_the_same_name_are_told_apart(tmp_path):
    room = tmp_path / "class"
    for name in ("a\x01b", "a\\x01b", "alice"):
        (room / name).mkdir(parents=True)
    listing = scan_class(room, ())
    # the one that shows as itself keeps the name; neither folder holds a backslash (Windows)
    assert [(s.path.name, s.name, s.folder) for s in listing.students] == [
        ("a\\x01b", "a\\x01b", "a_x01b"),
        ("a\x01b", "a\\x01b~2", "a_x01b~2"),
        ("alice", "alice", "alice"),
    ]
    assert not listing.skipped
    line = next(line for line in listing.renamed if "graded as" in line)
    assert line.startswith("a\\x01b: graded as a\\x01b~2 in the gradebook") and "'a\\x01b'" in line


# ---- the results cache ------------------------------------------------------------------------


@pytest.fixture
def umask_022():
    old = os.umask(0o022)  # the usual umask: files readable by everyone unless made otherwise
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_class_run_cache_is_readable_by_its_owner_only(tmp_path, course, umask_022):
    room = make_class(tmp_path / "class", ["alice"])
    out = tmp_path / "out"
    assert main(["grade", str(room), "--out", str(out), "--course", str(course), "--allow-unprotected"]) == 0
    assert mode(out / "grading-cache.sqlite") == 0o600
    assert mode(out / "gradebook.csv") == 0o600  # as every other output


def test_the_cache_and_its_side_files_are_private_while_open(tmp_path, umask_022):
    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"")
    path.chmod(0o644)  # an existing cache from an older grader is made private too
    with ResultCache(path) as cache:
        cache.store("key", [])
        sides = [p for p in tmp_path.iterdir() if p.name.startswith("cache.sqlite-")]
        assert sides, "SQLite in WAL mode keeps side files while open"
        assert {p.name: mode(p) for p in [path, *sides]} == {p.name: 0o600 for p in [path, *sides]}
