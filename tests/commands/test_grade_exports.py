"""``grade``'s exports agree with each student's own page, and ``grade --roster`` puts every student
of the class list in them: one right, one wrong, one on the roster with no folder (every task
not handed in, 0 points), and a folder not on the roster (graded, and said). The gradebook has the
points each task is worth first after its header; the class page's pass rates are out of those who
handed the task in."""

from __future__ import annotations

import html
import json
import re

import pytest
from support import course_of, gradebook_students, solution

from grader.cli.main import main

WRONG = solution("exclusive_or").replace("return 1\n", "return 0\n", 1)


@pytest.fixture
def small_course(tmp_path):
    """A course folder holding only the exclusive_or task (four cases, two of them hidden)."""
    return course_of(tmp_path / "course", ["exclusive_or"])


def text_of(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).replace("\u00a0", " ").split())


def run_grade(room, out, course, *extra) -> int:
    return main(["grade", str(room), "--out", str(out), "--course", str(course), "--allow-unprotected", *extra])


def test_with_a_roster_every_export_has_everyone_and_agrees_with_their_own_page(tmp_path, small_course, capsys):
    room = tmp_path / "class"
    for name, text in {"ann": solution("exclusive_or"), "ben": WRONG, "stray": WRONG}.items():
        (room / name).mkdir(parents=True)
        (room / name / "exclusive_or.py").write_text(text, encoding="utf-8")
    roster = tmp_path / "roster.csv"
    roster.write_text("username,role,name\nann,student,Ann\nBen,student,\ncid,student,Cid\nteach,instructor,\n")
    out = tmp_path / "out"
    assert run_grade(room, out, small_course, "--roster", str(roster)) == 1
    said = capsys.readouterr().err
    assert "On the roster with no folder in " in said and said.split("On the roster with no folder")[1].split("\n")[
        0
    ].endswith(": cid")
    assert "Not on the roster (1 folder of " in said and "graded all the same" in said and ": stray" in said
    text = (out / "gradebook.csv").read_text(encoding="utf-8")
    assert text.splitlines()[0] == "student,exclusive_or,total,not_handed_in"
    lms = (out / "gradebook-lms.csv").read_text(encoding="utf-8")  # the same, with the row an LMS import reads
    assert lms.splitlines()[1] == "Points Possible,4,4," and gradebook_students(lms) == gradebook_students(text)
    book = {row["student"]: row for row in gradebook_students(text)}
    assert set(book) == {"ann", "ben", "cid", "stray"}  # Ben of the roster is the folder ben; teach is no student
    assert (book["cid"]["total"], book["cid"]["not_handed_in"]) == ("0", "exclusive_or")
    raw = (out / "index.html").read_text(encoding="utf-8")
    overview = text_of(raw)
    for student, row in book.items():
        document = json.loads((out / student / "results.json").read_text(encoding="utf-8"))
        assert document["score"] == float(row["total"]) == sum(t["score"] for t in document["tests"]), student
        assert {t["visibility"] for t in document["tests"]} == {"visible"}
        page = text_of((out / student / "index.html").read_text(encoding="utf-8"))
        passed = sum(1 for t in document["tests"] if t["status"] == "passed")
        if student == "cid":
            assert "not handed in" in page and document["tests"][0]["name"] == "exclusive_or: not handed in"
        else:  # (each case is worth a point here)
            assert f"{passed} / 4 cases" in page and float(row["exclusive_or"]) == passed, student
        marks = raw.split(f'title="{student}"')[1].split("</tr>")[0]  # their row of the class's table
        assert f">{row['exclusive_or']}/4<" in marks and f">{row['total']} / 4 (" in marks, student
    # the pass rates are out of the three who handed exclusive_or in, not the four of the class
    assert "handed in by 3 of 4 students" in overview
    assert re.search(r"0 xor 0 is 0: 3 of 3 students who handed it in passed", overview)


def test_a_roster_that_cannot_be_used_is_a_sentence(tmp_path, small_course, capsys):
    room = tmp_path / "class"
    (room / "ann").mkdir(parents=True)
    roster = tmp_path / "roster.csv"
    cases = {
        "name,email\nann,a@b.c\n": "the header row must name username and role",
        "username,role\nann,teacher\n": "line 2: the role must be student, ta or instructor, not 'teacher'",
        "username,role\nann,student\nANN,student\n": "line 3: ANN is the student of line 2 (ann) again",
        "username,role\nann,student\ncon,student\n": "line 3: con has no folder in the class folder and cannot",
    }
    for text, sentence in cases.items():
        roster.write_text(text)
        assert run_grade(room, tmp_path / "out", small_course, "--roster", str(roster)) == 2
        err = capsys.readouterr().err
        assert sentence in err and "Traceback" not in err, err
    assert run_grade(room, tmp_path / "out", small_course, "--roster", str(tmp_path / "none.csv")) == 2
    assert "none.csv: cannot be read" in capsys.readouterr().err
