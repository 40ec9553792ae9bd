"""The command line of grader-cli.md: exit codes, the table, --json, the report, bad input."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys

import pytest
from support import PROJECT, mutate, solution

from grader.cli.main import main


def check(*args, tmp_path):
    return main(["check", *map(str, args), "--report", str(tmp_path / "report")])


# Every reference solution and every stub is graded by the pytest plugin (testcases/*.yaml);
# these two check the command line on a folder with a few of them.
FEW = ["exclusive_or", "make_move", "present_board"]


def folder_of(tmp_path, source_folder):
    folder = tmp_path / source_folder
    folder.mkdir()
    for task in FEW:
        (folder / f"{task}.py").write_bytes((PROJECT / source_folder / f"{task}.py").read_bytes())
    return folder


def test_folder_of_reference_solutions_is_accepted(tmp_path, capsys):
    assert check(folder_of(tmp_path, "solutions"), tmp_path=tmp_path) == 0
    rows = capsys.readouterr().out.splitlines()[1:-1]
    assert [row.split()[:2] for row in rows] == [[task, "accepted"] for task in FEW]
    index = (tmp_path / "report" / "index.html").read_text(encoding="utf-8")
    for task in FEW:
        assert f'href="{task}.html"' in index
        assert (tmp_path / "report" / f"{task}.html").is_file()


def test_folder_of_stubs_is_rejected_with_exit_1(tmp_path, capsys):
    assert check(folder_of(tmp_path, "exercises"), tmp_path=tmp_path) == 1
    # (a line under a row, indented, says the cause of its first failing case)
    rows = [line for line in capsys.readouterr().out.splitlines()[1:-1] if not line.startswith(" ")]
    assert len(rows) == len(FEW)
    assert all(row.split()[1] != "accepted" for row in rows)


def test_json_follows_the_spec(tmp_path, capsys):
    wrong = tmp_path / "work" / "nim_sum.py"
    wrong.parent.mkdir()
    wrong.write_text(mutate("nim_sum", "total = total ^ row", "total = total + row"), encoding="utf-8")
    code = main(["check", str(wrong), "--json", "--report", str(tmp_path / "report")])
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert code == 1
    assert "nim_sum" in captured.err  # the table goes to stderr with --json
    (task,) = document["tasks"]
    # the spec's fields, and those the task record adds (docs/instructors.md: "check --json"); known_mistake and
    # mistake: added when verify or grade kept the signatures of nim_sum's known mistakes
    spec = {"task", "file", "verdict", "score", "max_score", "cases"}
    assert spec <= set(task) and set(task) - spec <= {"notes", "format", "known_mistake", "mistake", "problem"}
    assert task.get("known_mistake", {"mistake": "the rows are added up with + instead of XOR-ed"})["mistake"] == (
        "the rows are added up with + instead of XOR-ed"
    )
    assert (task["task"], task["file"], task["verdict"]) == ("nim_sum", str(wrong), "wrong_answer")
    assert 0 < task["score"] < task["max_score"] == len(task["cases"])
    for case in task["cases"]:
        assert set(case) == {"name", "verdict", "time_s", "message", "hidden", "points", "hint"}
        assert isinstance(case["time_s"], float) or case["time_s"] is None  # None: a hidden case
        assert (case["verdict"] == "accepted") == (case["message"] == "")


def test_hidden_cases_leak_nothing_in_json_or_html(tmp_path, capsys, course):
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "make_move.py").write_text(mutate("make_move", "if row < 1 or row > len(board):", "if row > len(board):"))
    main(["check", str(folder), "--json", "--report", str(tmp_path / "report")])
    document = json.loads(capsys.readouterr().out)
    page = (tmp_path / "report" / "make_move.html").read_text(encoding="utf-8")
    blocks = {  # each case's <details> block on the page, by case name
        html.unescape(m.group(1)): m.group(0)
        for m in re.finditer(r"<details.*?<strong>(.*?)</strong>.*?</details>", page, re.S)
    }
    cases = {c["name"]: c for c in document["tasks"][0]["cases"]}
    hidden = [case for case in course["make_move"].cases if case.hidden]
    assert any(cases[case.name]["verdict"] != "accepted" for case in hidden)
    for case in hidden:
        block = blocks[case.name]
        for secret in (case.input.strip(), case.expected[0]):
            assert secret not in json.dumps(cases[case.name])
            assert html.escape(secret) not in block and secret not in block
        assert "Input" not in block and "Your output" not in block


def test_task_option_grades_a_file_under_another_name(tmp_path, capsys):
    renamed = tmp_path / "my_attempt.py"
    renamed.write_text(solution("exclusive_or"))
    assert check(renamed, "--task", "exclusive_or", tmp_path=tmp_path) == 0


@pytest.mark.parametrize(
    "args, words",
    [
        (["no/such/file.py"], "no such file or folder"),
        (["{tmp}/notes.py"], "names no task"),
        (["{tmp}/empty"], "no exercise files"),
        (["{tmp}/notes.py", "--task", "nimsum"], "no such task"),
        (["{tmp}/notes.py", "--course", "{tmp}"], "no testcases/ folder"),
        (["{tmp}/exclusive_or.py", "--python", "/no/python"], "cannot be run"),
        (["{tmp}/exclusive_or.py", "--report", "{tmp}/notes.py"], "not a folder"),
    ],
)
def test_bad_arguments_exit_2_with_a_sentence(tmp_path, capsys, args, words):
    (tmp_path / "notes.py").write_text("print('hi')\n")
    (tmp_path / "exclusive_or.py").write_text(solution("exclusive_or"))
    (tmp_path / "empty").mkdir()
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert main(["check", *args] + ([] if "--report" in args else ["--report", str(tmp_path / "r")])) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err
    assert "Traceback" not in err


def test_broken_case_file_exits_2_naming_file_line_and_key(tmp_path, capsys):
    course = tmp_path / "course"
    (course / "testcases").mkdir(parents=True)
    (course / "testcases" / "nim_sum.yaml").write_text(
        "task: nim_sum\ncases:\n  - name: one\n    input: '1'\n    expectd: '1'\n"
    )
    code = check(PROJECT / "solutions" / "nim_sum.py", "--course", course, tmp_path=tmp_path)
    err = capsys.readouterr().err
    assert code == 2
    assert "nim_sum.yaml, line 5" in err and "'expectd'" in err and "did you mean 'expected'" in err


def test_folder_skips_other_files_with_a_note(tmp_path, capsys):
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "exclusive_or.py").write_text(solution("exclusive_or"))
    (folder / "scratch.py").write_text("print(1)\n")
    assert check(folder, tmp_path=tmp_path) == 0
    assert "skipped scratch.py" in capsys.readouterr().err


def test_python_m_grader_runs_as_a_program(tmp_path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "check",
            str(PROJECT / "solutions" / "exclusive_or.py"),
            "--report",
            str(tmp_path / "r"),
        ],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "exclusive_or" in done.stdout and "accepted" in done.stdout


def test_no_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as stop:
        main([])
    assert stop.value.code == 2


def test_watch_grades_again_when_the_file_is_saved(tmp_path):
    import queue
    import threading

    work = tmp_path / "exclusive_or.py"
    work.write_text("print(0)\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "grader", "check", str(work), "--watch", "--report", str(tmp_path / "r")],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        cwd=PROJECT,
    )
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()

    def read_until(predicate, seen):
        while True:  # a line within 60 s, or the test fails instead of hanging
            line = lines.get(timeout=60)
            seen.append(line)
            if predicate(line):
                return

    try:
        seen = []
        read_until(lambda line: line.startswith("Watching"), seen)
        assert any("wrong_answer" in line for line in seen)
        work.write_text(solution("exclusive_or"))
        read_until(lambda line: line.startswith("exclusive_or") and "accepted" in line, seen)
        assert any("again" in line for line in seen)
        assert "accepted" in (tmp_path / "r" / "exclusive_or.html").read_text()
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_add_case_appends_the_reference_answer(tmp_path, capsys):
    import shutil

    course = tmp_path / "course"
    for folder in ("testcases", "solutions"):
        shutil.copytree(PROJECT / folder, course / folder)
    before = (course / "testcases" / "bitwise_xor.yaml").read_text()
    code = main(["add-case", "bitwise_xor", "--input", "12 10", "--name", "12 XOR 10 is 6", "--course", str(course)])
    out = capsys.readouterr().out
    after = (course / "testcases" / "bitwise_xor.yaml").read_text()
    assert code == 0 and "Added the case '12 XOR 10 is 6'" in out and "\n    6\n" in out
    assert after.startswith(before) and "expected: '6'" in after[len(before) :]
    assert main(["add-case", "bitwise_xor", "--input", "12 10", "--course", str(course)]) == 2
    assert "already has this input" in capsys.readouterr().err


@pytest.mark.parametrize("kind, sample", [("cms", "cms_nim_sum"), ("kattis", "kattis_xor")])
def test_import_writes_a_case_file_and_lists_what_was_left_out(tmp_path, capsys, kind, sample):
    folder = PROJECT / "tests" / "data" / "importers" / sample
    course = tmp_path / "course"
    assert main(["import", kind, str(folder), "--task", "imported", "--course", str(course)]) == 0
    out = capsys.readouterr().out
    written = course / "testcases" / "imported.yaml"
    assert f"to {written}" in out and "Not carried over" in out
    from grader.course.loader import load_task
    from grader.nim.lab import lab_checkers

    assert load_task(written, lab_checkers()).cases
    # never overwritten silently
    assert main(["import", kind, str(folder), "--task", "imported", "--course", str(course)]) == 2
    assert "already exists" in capsys.readouterr().err


def test_check_runs_without_the_yaml_writer_library(tmp_path):
    # check only reads YAML: an interpreter without ruamel.yaml (the writer's library, as a Python
    # where the grader's older dependencies were installed by hand) still grades and prints JSON
    blocked = "import sys; sys.modules['ruamel'] = sys.modules['ruamel.yaml'] = None; "
    run = "from grader.cli.main import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", blocked + run, "check", "solutions/nim_sum.py", "--json", "--report", str(tmp_path)],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tasks"][0]["verdict"] == "accepted"
