"""Hostile files in a student's folder: links (symbolic and hard), FIFOs and folders named like
exercise files.

A class folder may come from an LMS zip or a tar file and the grader may run as root: a student's
``ui.py`` may be a link to the course's test cases (hidden answers included), to a file only root may
read (``/etc/shadow``), to another student's work or to the reference solution. Such files are never
read, shown or run: the student gets a sentence and no marks for that task, and everyone else is
graded as usual. A hard link is the same file under a second name, so nothing in the student's folder
tells it from their own: a regular file with more than one name is refused wherever the grader reads
a student's files, as the tests run here (as root, in CI) show with files only root may read.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support import PROJECT, gradebook_students, solution

from grader.cli.main import main

YAML_CANARY = "canary-hidden-yaml-7f3a9c"
SECRET_CANARY = "canary-root-only-5b9e21"
SHADOW_CANARY = "canary-shadow-line-3d81f0"
SOLUTION_CANARY = "canary-private-solution-9c4e77"
LINK = "is a symbolic link"
HARD_LINK = "is a hard link"
COPY = "hand in a copy, not a link"


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """A course of two tasks: exclusive_or, and nim_sum, which may import exclusive_or.py."""
    course = tmp_path_factory.mktemp("course")
    for folder in ("testcases", "exercises", "solutions"):
        (course / folder).mkdir()
    for task in ("exclusive_or", "nim_sum"):
        shutil.copy(PROJECT / "exercises" / f"{task}.py", course / "exercises")
        shutil.copy(PROJECT / "solutions" / f"{task}.py", course / "solutions")
    shutil.copy(PROJECT / "testcases" / "exclusive_or.yaml", course / "testcases")
    shutil.copytree(PROJECT / "testcases" / "nim_sum", course / "testcases" / "nim_sum")
    text = (PROJECT / "testcases" / "nim_sum.yaml").read_text(encoding="utf-8")
    text = text.replace("task: nim_sum\n", "task: nim_sum\nuses_files: [exclusive_or]\n", 1)
    # The canary stands for the hidden answers: on every line, so any part of the file shown shows it.
    (course / "testcases" / "nim_sum.yaml").write_text(f"# {YAML_CANARY}\n{_marked(text)}", encoding="utf-8")
    return course


def _marked(text: str) -> str:
    """Every line of a YAML file with the canary as a comment, except inside block scalars (``|``),
    where it would be part of a case's input rather than a comment."""
    lines, block_indent = [], None
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip())
        if block_indent is not None and (not line.strip() or indent > block_indent):
            lines.append(line)
            continue
        block_indent = indent if line.rstrip().endswith(("|", "|-", "|+", ">", ">-")) else None
        lines.append(f"{line}  # {YAML_CANARY}" if line.strip() else "")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def secret(tmp_path_factory) -> Path:
    """A file outside every folder the grader is given, readable by its owner only (root, in CI)."""
    path = tmp_path_factory.mktemp("outside") / "secret.py"
    path.write_text(f'print("{SECRET_CANARY}")\nSECRET = "{SECRET_CANARY}"\n')
    path.chmod(0o600)
    return path


@pytest.fixture(scope="module")
def private(tmp_path_factory) -> dict:
    """Stand-ins for files only root may read, outside every folder the grader is given: a line of
    ``/etc/shadow`` (not Python: the syntax error's excerpt would quote it) and a reference solution
    in a folder of its own (as ``solutions/`` is), each mode 600 in a folder of mode 700."""
    folder = tmp_path_factory.mktemp("private")
    (folder / "etc").mkdir()
    (folder / "solutions").mkdir()
    shadow = folder / "etc" / "shadow"
    shadow.write_text(f"root:$6${SHADOW_CANARY}$Vq1yN:19700:0:99999:7:::\ndaemon:*:19700:0:99999:7:::\n")
    answer = folder / "solutions" / "exclusive_or.py"
    answer.write_text(f"# {SOLUTION_CANARY}\n{solution('exclusive_or')}")
    for path in (shadow, answer):
        path.chmod(0o600)
    for path in (folder / "etc", folder / "solutions"):
        path.chmod(0o700)
    return {"shadow": shadow, "solution": answer}


def _link(path: Path, target) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)


def _hard_link(path: Path, target: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.link(target, path)


def _leaks(texts) -> list:
    canaries = (YAML_CANARY, SECRET_CANARY, SHADOW_CANARY, SOLUTION_CANARY)
    return [text[:200] for text in texts if any(canary in text for canary in canaries)]


def _output_texts(out: Path) -> list:
    """The text of every file the grader wrote (the cache is binary, compressed: not a report)."""
    return [
        path.read_text(encoding="utf-8", errors="replace")
        for path in out.rglob("*")
        if path.is_file() and "grading-cache" not in path.name
    ]


# ---- class mode -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory, course, secret, private):
    """A class with one honest student and one of every hostile kind, graded by ``grade``."""
    room = tmp_path_factory.mktemp("class")
    alice = room / "alice"
    alice.mkdir()
    (alice / "exclusive_or.py").write_text(solution("exclusive_or"))
    (alice / "nim_sum.py").write_text(solution("nim_sum"))
    _link(room / "yaml_link" / "exclusive_or.py", course / "testcases" / "nim_sum.yaml")
    _link(room / "yaml_link" / "nim_sum.py", "/proc/self/cwd/testcases/nim_sum.yaml")
    _link(room / "secret_link" / "exclusive_or.py", secret)
    _link(room / "copycat" / "exclusive_or.py", "../alice/exclusive_or.py")
    _link(room / "copycat" / "nim_sum.py", "../alice/nim_sum.py")
    _link(room / "solution_link" / "exclusive_or.py", course / "solutions" / "exclusive_or.py")
    _link(room / "companion_link" / "exclusive_or.py", secret)
    (room / "companion_link" / "nim_sum.py").write_text("import exclusive_or\n" + solution("nim_sum"))
    (room / "fifo").mkdir()
    os.mkfifo(room / "fifo" / "nim_sum.py")
    (room / "fifo" / "exclusive_or.py").write_text(solution("exclusive_or"))
    (room / "folder" / "nim_sum.py").mkdir(parents=True)
    (room / "folder" / "nim_sum.py" / "__init__.py").write_text(f'print("{SECRET_CANARY}")\n')
    (room / "folder" / "exclusive_or.py").write_text(solution("exclusive_or"))
    _link(room / "linked_folder", "alice")
    _hard_link(room / "hard_shadow" / "exclusive_or.py", private["shadow"])
    _hard_link(room / "hard_solution" / "exclusive_or.py", private["solution"])
    _hard_link(room / "hard_companion" / "exclusive_or.py", private["solution"])
    (room / "hard_companion" / "nim_sum.py").write_text("import exclusive_or\n" + solution("nim_sum"))
    (room / "twin_a").mkdir()
    (room / "twin_a" / "nim_sum.py").write_text(solution("nim_sum"))
    _hard_link(room / "twin_b" / "nim_sum.py", room / "twin_a" / "nim_sum.py")
    out = tmp_path_factory.mktemp("marks")
    command = [
        sys.executable,
        "-m",
        "grader",
        "grade",
        str(room),
        "--out",
        str(out),
        "--course",
        str(course),
        "--allow-unprotected",
    ]
    # The time-out only guards the test suite against a grader that blocks on the FIFO.
    done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=600)
    book = {row["student"]: row for row in gradebook_students((out / "gradebook.csv").read_text(encoding="utf-8"))}
    return out, done, book


def _tests(out: Path, student: str, task: str) -> list:
    document = json.loads((out / student / "results.json").read_text(encoding="utf-8"))
    return [t for t in document["tests"] if t["name"].startswith(f"{task}: ")]


def test_class_run_ends_normally_with_everyone_in_the_gradebook(graded_class):
    out, done, book = graded_class
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(book) == sorted(
        ["alice", "companion_link", "copycat", "fifo", "folder", "linked_folder", "secret_link", "solution_link"]
        + ["yaml_link", "hard_shadow", "hard_solution", "hard_companion", "twin_a", "twin_b"]
    )


def test_hidden_answers_and_outside_files_reach_no_output(graded_class):
    out, done, _ = graded_class
    assert not _leaks(_output_texts(out)), "a linked file's content reached an output file"
    assert not _leaks([done.stdout, done.stderr])


@pytest.mark.parametrize(
    "student, tasks",
    [
        ("yaml_link", ("exclusive_or", "nim_sum")),
        ("secret_link", ("exclusive_or",)),
        ("copycat", ("exclusive_or", "nim_sum")),
        ("solution_link", ("exclusive_or",)),
        ("companion_link", ("exclusive_or",)),
    ],
)
def test_a_linked_file_earns_nothing_and_says_why(graded_class, student, tasks):
    out, _, book = graded_class
    for task in tasks:
        assert book[student][task] == "0"
        tests = _tests(out, student, task)
        assert tests and all(f"{task}.py {LINK}: hand in the file itself" in t["output"] for t in tests)


@pytest.mark.parametrize(
    "student, task",
    [
        ("hard_shadow", "exclusive_or"),
        ("hard_solution", "exclusive_or"),
        ("hard_companion", "exclusive_or"),
        ("twin_a", "nim_sum"),  # one file by two names: either may be the other's, so neither is read
        ("twin_b", "nim_sum"),
    ],
)
def test_a_hard_linked_file_earns_nothing_and_says_why(graded_class, student, task):
    out, _, book = graded_class
    assert book[student][task] == "0"
    tests = _tests(out, student, task)
    assert tests and all(f"{task}.py {HARD_LINK}" in t["output"] and COPY in t["output"] for t in tests)
    page = (out / student / f"{task}.html").read_text(encoding="utf-8")
    assert f"{task}.py {HARD_LINK}" in page and COPY in page


def test_a_hard_linked_companion_is_not_copied_beside_the_program(graded_class):
    out, _, book = graded_class
    assert book["hard_companion"]["nim_sum"] == "0"  # it imports exclusive_or.py, which was not there
    page = (out / "hard_companion" / "nim_sum.html").read_text(encoding="utf-8")
    assert f"exclusive_or.py {HARD_LINK}" in page and "ran without it" in page


def test_a_linked_companion_is_not_copied_beside_the_program(graded_class):
    out, _, book = graded_class
    assert book["companion_link"]["nim_sum"] == "0"  # it imports exclusive_or.py, which was not there
    page = (out / "companion_link" / "nim_sum.html").read_text(encoding="utf-8")
    assert f"exclusive_or.py {LINK}" in page and "ran without it" in page


@pytest.mark.parametrize("student, words", [("fifo", "is a named pipe (FIFO)"), ("folder", "is a folder")])
def test_a_fifo_or_folder_named_like_an_exercise_is_refused_and_the_rest_graded(graded_class, student, words):
    out, _, book = graded_class
    assert book[student]["nim_sum"] == "0"
    assert all(f"nim_sum.py {words}" in t["output"] for t in _tests(out, student, "nim_sum"))
    assert book[student]["exclusive_or"] == book["alice"]["exclusive_or"] != "0"


def test_a_student_folder_that_is_a_link_is_not_followed(graded_class):
    out, _, book = graded_class
    assert book["linked_folder"]["total"] == "0"
    document = json.loads((out / "linked_folder" / "results.json").read_text(encoding="utf-8"))
    assert all("The folder linked_folder is a symbolic link" in t["output"] for t in document["tests"])


def test_the_honest_student_is_graded_as_usual(graded_class):
    out, _, book = graded_class
    document = json.loads((out / "alice" / "results.json").read_text(encoding="utf-8"))
    assert document["score"] == sum(t["max_score"] for t in document["tests"]) > 0
    assert book["alice"]["total"] == str(document["score"])


# ---- check mode -------------------------------------------------------------------------------


def _targets(course: Path, secret: Path, other: Path) -> dict:
    return {
        "yaml": course / "testcases" / "nim_sum.yaml",
        "root-only": secret,
        "another student": other,
        "solution": course / "solutions" / "exclusive_or.py",
    }


def _check(paths, report: Path, course: Path, capsys) -> tuple:
    code = main(["check", *map(str, paths), "--json", "--report", str(report), "--course", str(course)])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out.strip() else None, captured


@pytest.mark.parametrize("named", ["folder", "file"])
@pytest.mark.parametrize("target", ["yaml", "root-only", "another student", "solution"])
def test_check_refuses_a_linked_exercise_file(tmp_path, course, secret, capsys, target, named):
    other = tmp_path / "bob" / "exclusive_or.py"
    other.parent.mkdir()
    other.write_text(solution("exclusive_or"))
    work = tmp_path / "work"
    _link(work / "exclusive_or.py", _targets(course, secret, other)[target])
    report = tmp_path / "report"
    code, document, captured = _check([work if named == "folder" else work / "exclusive_or.py"], report, course, capsys)
    assert code == 1
    (task,) = document["tasks"]
    assert task["score"] == 0 and all(f"exclusive_or.py {LINK}" in c["message"] for c in task["cases"])
    assert not _leaks([captured.out, captured.err, *_output_texts(report)])


@pytest.mark.parametrize("named", ["folder", "file"])
@pytest.mark.parametrize("target", ["shadow", "solution", "another student"])
def test_check_refuses_a_hard_linked_exercise_file(tmp_path, course, private, capsys, target, named):
    """One rule everywhere: ``check`` refuses a hard link too, even though a person checking their own
    folder could read the file anyway (as root, or a TA checking a student's folder, they could not)."""
    other = tmp_path / "bob" / "exclusive_or.py"
    other.parent.mkdir()
    other.write_text(solution("exclusive_or"))
    work = tmp_path / "work"
    _hard_link(work / "exclusive_or.py", {**private, "another student": other}[target])
    report = tmp_path / "report"
    code, document, captured = _check([work if named == "folder" else work / "exclusive_or.py"], report, course, capsys)
    assert code == 1
    (task,) = document["tasks"]
    assert task["score"] == 0
    assert all(f"exclusive_or.py {HARD_LINK}" in c["message"] and COPY in c["message"] for c in task["cases"])
    assert f"exclusive_or.py {HARD_LINK}" in (report / "exclusive_or.html").read_text(encoding="utf-8")
    assert not _leaks([captured.out, captured.err, *_output_texts(report)])


def test_check_does_not_copy_a_hard_linked_companion(tmp_path, course, private, capsys):
    work = tmp_path / "work"
    work.mkdir()
    (work / "nim_sum.py").write_text("import exclusive_or\n" + solution("nim_sum"))
    _hard_link(work / "exclusive_or.py", private["solution"])
    report = tmp_path / "report"
    code, document, captured = _check([work / "nim_sum.py"], report, course, capsys)
    assert code == 1 and document["tasks"][0]["score"] == 0
    assert not _leaks([captured.out, captured.err, *_output_texts(report)])
    assert f"exclusive_or.py {HARD_LINK}" in (report / "nim_sum.html").read_text(encoding="utf-8")


def test_check_does_not_copy_a_linked_companion(tmp_path, course, secret, capsys):
    work = tmp_path / "work"
    work.mkdir()
    (work / "nim_sum.py").write_text("import exclusive_or\n" + solution("nim_sum"))
    _link(work / "exclusive_or.py", secret)
    report = tmp_path / "report"
    code, document, captured = _check([work / "nim_sum.py"], report, course, capsys)
    assert code == 1 and document["tasks"][0]["score"] == 0
    assert not _leaks([captured.out, captured.err, *_output_texts(report)])
    assert f"exclusive_or.py {LINK}" in (report / "nim_sum.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("kind, words", [("fifo", "is a named pipe (FIFO)"), ("folder", "is a folder")])
def test_check_reports_a_fifo_or_folder_named_like_an_exercise(tmp_path, course, kind, words):
    work = tmp_path / "work"
    work.mkdir()
    (work / "exclusive_or.py").write_text(solution("exclusive_or"))
    os.mkfifo(work / "nim_sum.py") if kind == "fifo" else (work / "nim_sum.py").mkdir()
    command = [sys.executable, "-m", "grader", "check", str(work), "--json", "--course", str(course)]
    command += ["--report", str(tmp_path / "report")]
    # The time-out only guards the test suite against a grader that blocks on the FIFO.
    done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stderr
    tasks = {t["task"]: t for t in json.loads(done.stdout)["tasks"]}
    assert tasks["exclusive_or"]["verdict"] == "accepted"
    assert tasks["nim_sum"]["score"] == 0
    assert all(f"nim_sum.py {words}" in c["message"] for c in tasks["nim_sum"]["cases"])


def test_check_does_not_follow_a_folder_that_is_a_link(tmp_path, course, capsys):
    work = tmp_path / "work"
    work.mkdir()
    (work / "exclusive_or.py").write_text(solution("exclusive_or"))
    _link(tmp_path / "linked", work)
    assert main(["check", str(tmp_path / "linked"), "--course", str(course), "--report", str(tmp_path / "r")]) == 2
    assert "is a symbolic link to a folder" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


# ---- files a program names --------------------------------------------------------------------

# A program that says, on the channel where its own process reports how it ended, that it broke a
# rule, crashed or was running a line of a file that is not its own: the grader quotes a line only
# from the student's own files as it read them (the program and its companions), by exact name.
_NAMES_A_FILE = """\
import json, os, time
here = os.path.dirname(os.path.abspath(__file__))
name = {name!r}.replace("HERE", here)
if {kind!r} == "rule":
    os.write(3, json.dumps({{"rule": 0, "file": name, "line": 1}}).encode() + b"\\n")
    os._exit(121)
if {kind!r} == "crash":
    crash = {{"type": "ValueError", "builtin": True, "text": "", "frames": [[name, 1, "f"]]}}
    os.write(3, json.dumps({{"crash": crash}}).encode() + b"\\n")
    os._exit(1)
os.write(3, ('Current thread 0x0001 (most recent call first):\\n  File "%s", line 1 in f\\n' % name).encode())
os.close(3)  # the stack dumped at the time limit would come after, and the last dump is the one read
time.sleep(60)
"""


@pytest.mark.parametrize("kind", ["rule", "crash", "stack"])
@pytest.mark.parametrize("where", ["absolute", "climbing out of the run folder"])
def test_a_file_a_program_names_is_never_quoted(tmp_path, course, private, capsys, kind, where):
    shadow = str(private["shadow"])
    name = shadow if where == "absolute" else "HERE/" + "../" * 24 + shadow.lstrip("/")
    if kind != "stack" and where != "absolute":
        name = "../" * 24 + shadow.lstrip("/")  # a record's names are relative to the run folder
    work = tmp_path / "work"
    work.mkdir()
    (work / "exclusive_or.py").write_text(_NAMES_A_FILE.format(name=name, kind=kind))
    report = tmp_path / "report"
    code, document, captured = _check([work / "exclusive_or.py"], report, course, capsys)
    assert code == 1
    (task,) = document["tasks"]
    verdict = {"rule": "rule_violation", "crash": "runtime_error", "stack": "time_limit_exceeded"}[kind]
    assert task["score"] == 0 and task["verdict"] == verdict
    assert not _leaks([captured.out, captured.err, *_output_texts(report)])
