"""``python -m grader grade``: a class folder in, reports, Gradescope results and a gradebook out."""

from __future__ import annotations

import contextlib
import csv
import io
import json

import pytest
from support import PROJECT, gradebook_students, solution

from grader.cli.main import main


@pytest.fixture(scope="module")
def graded(tmp_path_factory, protections, mistake_signatures):
    """Three students (one good, one hostile: a crash and binary junk, one who handed in a stub),
    graded once for the module: (the out folder, grade's exit status, what it printed)."""
    if protections.grader_in_reach:
        # docs/security.md's table says so: such a program can kill the runs beside it.
        pytest.skip("programs run as the grader's user in its process namespace here: one can signal the grader")
    room = tmp_path_factory.mktemp("class")
    good, hostile, stub = (room / name for name in ("alice", "bob", "carol"))
    for folder in (good, hostile, stub):
        folder.mkdir(parents=True)
    (good / "exclusive_or.py").write_text(solution("exclusive_or"))
    (good / "make_move.py").write_text(solution("make_move"))
    (hostile / "exclusive_or.py").write_text("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n")
    (hostile / "make_move.py").write_bytes(bytes(range(256)))
    (stub / "nim_sum.py").write_text((PROJECT / "exercises" / "nim_sum.py").read_text())
    out = tmp_path_factory.mktemp("graded") / "out"
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        code = main(["grade", str(room), "--out", str(out), "--allow-unprotected"])
    return out, code, printed.getvalue()


def test_a_class_is_graded_into_reports_results_and_a_gradebook(graded):
    out, code, printed = graded
    assert code == 1  # not everything was accepted
    assert "Graded 3 students on 9 tasks" in printed
    rows = gradebook_students((out / "gradebook.csv").read_text(encoding="utf-8"))
    assert [r["student"] for r in rows] == ["alice", "bob", "carol"]
    alice = rows[0]
    assert alice["exclusive_or"] == "4" and int(alice["make_move"]) > 0 and alice["nim_sum"] == "0"
    assert int(alice["total"]) == int(alice["exclusive_or"]) + int(alice["make_move"])
    assert rows[1]["total"] == "0" and rows[2]["total"] == "0"
    for student in ("alice", "bob", "carol"):
        assert (out / student / "index.html").is_file()
        assert (out / student / "exclusive_or.html").is_file()
    overview = (out / "index.html").read_text(encoding="utf-8")
    assert overview.index("bob") < overview.index("alice")  # those who need help first


def test_results_json_has_gradescopes_fields(graded, course):
    out, _, _ = graded
    document = json.loads((out / "alice" / "results.json").read_text())
    assert set(document) >= {"score", "tests"}
    assert document["score"] == sum(t["score"] for t in document["tests"])
    for test in document["tests"]:
        assert set(test) == {"name", "score", "max_score", "status", "output", "visibility"}
        # no test is "hidden": Gradescope would hide the total from the student
        assert test["status"] in ("passed", "failed") and test["visibility"] == "visible"
    hidden = [t for t in document["tests"] if t["name"].endswith(" (hidden)")]
    assert hidden
    secrets = {c.input.strip() for task in course.values() for c in task.cases if c.hidden}
    for test in hidden:
        assert not any(secret in test["output"] for secret in secrets if len(secret) > 3)
    missing = next(t for t in document["tests"] if t["name"].startswith("nim_sum: "))
    assert missing["status"] == "failed" and "No nim_sum.py was handed in" in missing["output"]


def test_a_hostile_student_does_not_spoil_the_others(graded):
    out, _, _ = graded
    bob = json.loads((out / "bob" / "results.json").read_text())
    alice = json.loads((out / "alice" / "results.json").read_text())
    assert bob["score"] == 0
    assert all(t["status"] == "passed" for t in alice["tests"] if t["name"].startswith("exclusive_or: "))


def test_bad_class_folders_exit_2(tmp_path, capsys):
    assert main(["grade", str(tmp_path / "nothing"), "--out", str(tmp_path / "o")]) == 2
    assert "no such folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["grade", str(tmp_path / "empty"), "--out", str(tmp_path / "o")]) == 2
    assert "no student folders" in capsys.readouterr().err


def test_item_analysis_and_junit(graded):
    import xml.etree.ElementTree as ElementTree

    out, _, _ = graded
    rows = list(csv.DictReader((out / "cases.csv").open()))
    first = next(r for r in rows if r["task"] == "exclusive_or" and r["case"] == "0 xor 0 is 0")
    # out of the two who handed exclusive_or in (carol handed in nim_sum only): not the class's three
    assert (first["passed"], first["students"], first["pass_rate"]) == ("1", "2", "0.500")
    tree = ElementTree.parse(out / "junit.xml")
    suites = tree.getroot().findall("testsuite")
    assert len(suites) == 3 * 9
    alice = next(s for s in suites if s.get("name") == "alice.exclusive_or")
    assert alice.get("failures") == "0" and len(alice.findall("testcase")) == 4
    bob = next(s for s in suites if s.get("name") == "bob.exclusive_or")
    assert bob.get("failures") == "4" and bob.find("testcase/failure") is not None
