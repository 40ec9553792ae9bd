"""A class run at scale: the results cache, resuming, weights, progress and other executors.

Most tests use a small course of their own (one task, exclusive_or, with four cases) so that a
class of several students grades in a second or two.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from support import PROJECT, course_of, gradebook_students, solution

from grader.classrun.grade_class import grade_class
from grader.classrun.progress import Progress
from grader.classrun.result_cache import ResultCache
from grader.cli.main import main
from grader.course.course_checkers import course_checkers
from grader.course.loader import load_course
from grader.grade.grading import GradingContext
from grader.marks import StudentMarks, TaskMark
from grader.model import Verdict

WRONG = solution("exclusive_or").replace("return 1\n", "return 0\n", 1)
LOOPS = "while True:\n    pass\n"
FLOODS = "while True:\n    print('x' * 1000)\n"


@pytest.fixture
def small_course(tmp_path):
    """A course folder holding only the exclusive_or task (and its stub and solution)."""
    course = course_of(tmp_path / "course", ["exclusive_or"])
    case_file = course / "testcases" / "exclusive_or.yaml"
    yaml_text = case_file.read_text(encoding="utf-8")
    case_file.write_text(yaml_text.replace("task: exclusive_or", "task: exclusive_or\ntime_limit: 0.5"))
    return course


def make_class(root: Path, files: dict) -> Path:
    """A class folder: student name → the text of their exclusive_or.py (None: nothing handed in)."""
    for student, text in files.items():
        (root / student).mkdir(parents=True)
        if text is not None:
            (root / student / "exclusive_or.py").write_text(text)
    return root


def gradebook(out: Path) -> dict:
    return {row["student"]: row for row in gradebook_students((out / "gradebook.csv").read_text(encoding="utf-8"))}


def grade(class_dir: Path, out: Path, course: Path, *extra: str) -> int:
    return main(["grade", str(class_dir), "--out", str(out), "--course", str(course), "--allow-unprotected", *extra])


class CountingRunner:
    """A runner that counts the programs it runs, around a real one."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.runs = 0

    def run(self, program, stdin, limits):
        self.runs += 1
        return self.inner.run(program, stdin, limits)

    def interact(self, program, session, limits):
        self.runs += 1
        return self.inner.interact(program, session, limits)

    def protections(self, python):
        return self.inner.protections(python)


def class_context(course: Path, runner) -> GradingContext:
    return GradingContext(
        checkers=course_checkers(course),
        python=sys.executable,
        runner=runner,
        jobs=2,
        course=course,
        task_ids=("exclusive_or",),
    )


def run_class(room: Path, out: Path, course: Path, runner, **options):
    """``grade_class`` on ``course`` as it is now, quietly, through ``runner``."""
    options.setdefault("progress", Progress(len(list(room.iterdir())), io.StringIO()))
    tasks = list(load_course(course).values())
    return grade_class(room, tasks, out, class_context(course, runner), **options)


def test_a_second_run_takes_every_result_from_the_cache(small_course, tmp_path, capsys):
    room = make_class(tmp_path / "class", {"ann": solution("exclusive_or"), "ben": WRONG, "cid": None})
    out = tmp_path / "out"
    assert grade(room, out, small_course) == 1
    first = capsys.readouterr()
    assert "12 cases (6 not accepted)" in first.err and "from the cache" not in first.err
    before = gradebook(out)
    assert grade(room, out, small_course) == 1
    second = capsys.readouterr().err
    assert "12 cases (6 not accepted, 12 from the cache)" in second
    assert gradebook(out) == before
    assert (out / "grading-cache.sqlite").is_file()


def test_adding_a_case_grades_that_task_again_whole(small_course, tmp_path, context):
    """A case's result depends on the task's other cases in the same grading (hints that wait for
    earlier cases, not_run after two time-outs), so a changed task is graded whole, as fresh."""
    room = make_class(tmp_path / "class", {"ann": solution("exclusive_or"), "ben": WRONG})
    out = tmp_path / "out"
    counting = CountingRunner(context.runner)
    path = small_course / "testcases" / "exclusive_or.yaml"
    with ResultCache(out / "cache.sqlite") as cache:
        run_class(room, out, small_course, counting, cache=cache)
        assert counting.runs == 8
        path.write_text(path.read_text() + "\n  - name: one and zero again\n    input: '1 0'\n    expected: '1'\n")
        counting.runs = 0
        run_class(room, out, small_course, counting, cache=cache)
        assert counting.runs == 2 * 5  # the task, whole, for each of the two students
        counting.runs = 0
        run_class(room, out, small_course, counting, cache=cache)
        assert counting.runs == 0  # and then nothing
    assert gradebook(out)["ann"]["total"] == "5" and gradebook(out)["ben"]["total"] == "2"


def test_identical_files_share_results_and_a_changed_one_is_graded_again(small_course, tmp_path, capsys):
    room = make_class(tmp_path / "class", {"ann": WRONG, "ben": solution("exclusive_or")})
    out = tmp_path / "out"
    grade(room, out, small_course)
    (room / "ann" / "exclusive_or.py").write_text(solution("exclusive_or") + "# fixed it\n")
    capsys.readouterr()
    assert grade(room, out, small_course) == 0
    assert "4 from the cache" in capsys.readouterr().err  # ben's; ann's new file ran
    assert gradebook(out)["ann"]["total"] == "4"


def test_an_interrupted_run_goes_on_where_it_stopped(small_course, tmp_path, context):
    # Each file differs (a comment), as real ones do: no student's results can stand in for another's.
    students = {f"s{i:02}": (solution("exclusive_or") if i % 3 else WRONG) + f"# s{i:02}\n" for i in range(8)}
    room = make_class(tmp_path / "class", students)
    out = tmp_path / "out"

    class StopAfterThree(Progress):
        def student_done(self, marks, from_cache):
            super().student_done(marks, from_cache)
            if self.students == 3:
                raise KeyboardInterrupt

    counting = CountingRunner(context.runner)
    with ResultCache(out / "cache.sqlite") as cache:
        with pytest.raises(KeyboardInterrupt):
            run_class(room, out, small_course, counting, cache=cache, progress=StopAfterThree(8, io.StringIO()))
    assert not (out / "gradebook.csv").exists()  # no half gradebook
    assert not list(out.glob(".junit-*"))
    assert counting.runs >= 3 * 4  # the three students counted, and maybe some not yet
    counting.runs = 0
    with ResultCache(out / "cache.sqlite") as cache:
        outcome = run_class(room, out, small_course, counting, cache=cache)
    assert counting.runs == 5 * 4  # only the students who had not finished
    assert len(outcome.students) == 8
    expected = {name: ("4" if name not in ("s00", "s03", "s06") else "2") for name in students}
    assert {name: row["total"] for name, row in gradebook(out).items()} == expected


def test_a_killed_run_resumes_from_the_command_line(small_course, tmp_path):
    room = make_class(tmp_path / "class", {f"s{i:02}": solution("exclusive_or") for i in range(6)})
    out = tmp_path / "out"
    command = [
        sys.executable,
        "-m",
        "grader",
        "grade",
        str(room),
        "--out",
        str(out),
        "--course",
        str(small_course),
        "--jobs",
        "1",
        "--allow-unprotected",
    ]
    process = subprocess.Popen(command, cwd=PROJECT, stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen = process.stderr.readline()
    assert seen.startswith("[1/6] ")
    os.killpg(process.pid, signal.SIGKILL)  # as a crash or a power cut would: no chance to tidy up
    process.wait()
    process.stderr.close()
    assert not (out / "gradebook.csv").exists()
    done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "from the cache" in done.stderr
    assert [row["total"] for row in gradebook(out).values()] == ["4"] * 6
    assert not list(out.glob(".junit-*"))


def test_hostile_students_among_good_ones(small_course, tmp_path):
    room = make_class(
        tmp_path / "class",
        {
            "ann": solution("exclusive_or"),
            "bad-loop": LOOPS,
            "bad-flood": FLOODS,
            "bad-junk": None,
            "bad-kill": "import os, signal\nos.killpg(0, signal.SIGKILL)\n",
            "ben": solution("exclusive_or"),
        },
    )
    (room / "bad-junk" / "exclusive_or.py").write_bytes(os.urandom(4096))
    out = tmp_path / "out"
    assert grade(room, out, small_course) == 1
    book = gradebook(out)
    assert book["ann"]["total"] == book["ben"]["total"] == "4"
    assert all(book[name]["total"] == "0" for name in book if name.startswith("bad-"))
    verdicts = {
        name: {t["status"] for t in json.loads((out / name / "results.json").read_text())["tests"]} for name in book
    }
    assert verdicts["ann"] == verdicts["ben"] == {"passed"}
    loop = (out / "bad-loop" / "exclusive_or.html").read_text()
    assert "time limit" in loop


def test_a_huge_file_is_not_read(small_course, tmp_path):
    room = make_class(tmp_path / "class", {"ann": solution("exclusive_or"), "big": None})
    with (room / "big" / "exclusive_or.py").open("wb") as handle:
        handle.truncate(64 * 1024 * 1024)  # sparse: no disk used
    out = tmp_path / "out"
    grade(room, out, small_course)
    results = json.loads((out / "big" / "results.json").read_text())
    assert "larger than 1 MiB" in results["tests"][0]["output"]


# Gradescope's documented fields (https://gradescope-autograders.readthedocs.io/en/latest/specs/).
GRADESCOPE_TOP = {
    "score",
    "execution_time",
    "output",
    "output_format",
    "test_output_format",
    "test_name_format",
    "visibility",
    "stdout_visibility",
    "extra_data",
    "tests",
    "leaderboard",
}
GRADESCOPE_TEST = {
    "score",
    "max_score",
    "status",
    "name",
    "name_format",
    "number",
    "output",
    "output_format",
    "tags",
    "visibility",
    "extra_data",
}


def check_gradescope(document: dict) -> None:
    """Fail unless ``document`` keeps to Gradescope's documented results.json format."""
    assert set(document) <= GRADESCOPE_TOP, set(document) - GRADESCOPE_TOP
    assert isinstance(document["score"], (int, float))
    assert isinstance(document.get("execution_time", 0), (int, float))
    assert isinstance(document["tests"], list)
    for test in document["tests"]:
        assert set(test) <= GRADESCOPE_TEST, set(test) - GRADESCOPE_TEST
        assert isinstance(test["name"], str) and test["name"]
        assert isinstance(test["score"], (int, float)) and isinstance(test["max_score"], (int, float))
        assert test["status"] in ("passed", "failed")
        if test["max_score"]:  # (a late rule or an adjustment is worth 0 and takes or gives points)
            assert 0 <= test["score"] <= test["max_score"]
            assert (test["status"] == "passed") == (test["score"] == test["max_score"])
        assert isinstance(test["output"], str)
        # "If test cases are hidden, students will not be able to see their total score" (the spec)
        assert test.get("visibility", "visible") == "visible"
    total = sum(t["score"] for t in document["tests"])
    assert abs(document["score"] - total) < 1e-9


def test_results_json_keeps_to_gradescopes_format(small_course, tmp_path):
    room = make_class(tmp_path / "class", {"ann": solution("exclusive_or"), "ben": WRONG, "cid": None})
    out = tmp_path / "out"
    grade(room, out, small_course)
    for student in ("ann", "ben", "cid"):
        check_gradescope(json.loads((out / student / "results.json").read_text()))
    ben = json.loads((out / "ben" / "results.json").read_text())
    # the hidden cases are named as the page names them, and show what the page shows of them
    assert [t["name"].endswith(" (hidden)") for t in ben["tests"]] == [False, False, True, True]
    assert [t["visibility"] for t in ben["tests"]] == ["visible"] * 4
    assert ben["score"] == 2 and ben["tests"][1]["status"] == "failed"


def test_a_task_total_shares_its_points_out(small_course, tmp_path):
    path = small_course / "testcases" / "exclusive_or.yaml"
    text = path.read_text().replace("title: Exclusive or", "title: Exclusive or\ntotal: 10")
    path.write_text(text.replace("    hidden: true\n", "    hidden: true\n    points: 3\n", 1))
    room = make_class(tmp_path / "class", {"ann": solution("exclusive_or"), "ben": WRONG})
    out = tmp_path / "out"
    grade(room, out, small_course)
    book = gradebook(out)
    assert book["ann"]["total"] == "10" and list(book["ann"]) == ["student", "exclusive_or", "total", "not_handed_in"]
    # ben fails "1 0" and "0 1" (1 and 3 points), so passes 2 of the 6 points: 10 * 2 / 6
    assert book["ben"]["total"] == "3.3333"
    ben = json.loads((out / "ben" / "results.json").read_text())
    check_gradescope(ben)
    assert [t["max_score"] for t in ben["tests"]] == pytest.approx([10 / 6, 10 / 6, 5, 10 / 6])


def test_a_file_that_is_not_a_cache_is_left_alone(small_course, tmp_path, capsys):
    room = make_class(tmp_path / "class", {"ann": solution("exclusive_or")})
    notes = tmp_path / "notes.txt"
    notes.write_text("my marking notes\n" * 100)
    assert grade(room, tmp_path / "out", small_course, "--cache", str(notes)) == 2
    assert "cannot use this file as the results cache" in capsys.readouterr().err
    assert notes.read_text() == "my marking notes\n" * 100


def test_fresh_and_no_cache(small_course, tmp_path, capsys):
    room = make_class(tmp_path / "class", {"ann": solution("exclusive_or")})
    out = tmp_path / "out"
    grade(room, out, small_course)
    capsys.readouterr()
    grade(room, out, small_course, "--fresh")
    assert "from the cache" not in capsys.readouterr().err
    grade(room, tmp_path / "other", small_course, "--no-cache")
    assert not (tmp_path / "other" / "grading-cache.sqlite").exists()


def test_the_output_folder_cannot_be_inside_the_class(small_course, tmp_path, capsys):
    room = make_class(tmp_path / "class", {"ann": solution("exclusive_or")})
    assert grade(room, room / "out", small_course) == 2
    assert "outside" in capsys.readouterr().err


def test_any_executor_will_do(small_course, tmp_path, context):
    room = make_class(tmp_path / "class", {"ann": solution("exclusive_or"), "ben": WRONG, "cid": LOOPS})
    out = tmp_path / "out"
    with ProcessPoolExecutor(max_workers=2) as pool:
        outcome = run_class(room, out, small_course, context.runner, executor=pool)
    assert [s.score for s in outcome.students] == [4, 2, 0]
    assert outcome.students[2].tasks[0].verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert (out / "cid" / "exclusive_or.html").is_file()


def test_a_dask_cluster_grades_the_class(small_course, tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    room = make_class(tmp_path / "class", {"ann": solution("exclusive_or"), "ben": WRONG, "cid": LOOPS})
    out = tmp_path / "out"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        code = grade(room, out, small_course, "--dask", cluster.scheduler_address)
    assert code == 1
    assert {k: v["total"] for k, v in gradebook(out).items()} == {"ann": "4", "ben": "2", "cid": "0"}
    assert "Graded 3 students" in capsys.readouterr().out


def test_an_unreachable_dask_scheduler_is_a_clear_error(small_course, tmp_path, capsys):
    pytest.importorskip("distributed")
    room = make_class(tmp_path / "class", {"ann": solution("exclusive_or")})
    start = time.monotonic()
    assert grade(room, tmp_path / "out", small_course, "--dask", "tcp://127.0.0.1:9") == 2
    assert "cannot reach the Dask scheduler" in capsys.readouterr().err
    assert time.monotonic() - start < 60


def marks(name: str, *tasks) -> StudentMarks:
    return StudentMarks(name, tuple(TaskMark(t, v, s, m, f, c) for t, v, s, m, f, c in tasks))


def test_progress_on_a_terminal_redraws_one_line():
    stream = io.StringIO()
    clock = iter(range(100)).__next__
    progress = Progress(2, stream, terminal=True, clock=lambda: float(clock()))
    progress.student_done(marks("ann", ("nim_sum", Verdict.ACCEPTED, 3, 3, 0, 3)), 0)
    progress.student_done(marks("ben", ("nim_sum", Verdict.WRONG_ANSWER, 1, 3, 2, 3)), 3)
    summary = progress.finish()
    lines = stream.getvalue().split("\r")
    assert "[###" in lines[1] and "1/2 students" in lines[1] and "3 cases (0 not accepted)" in lines[1]
    assert "2/2 students" in lines[2] and "6 cases (2 not accepted, 3 from the cache)" in lines[2]
    assert stream.getvalue().endswith("\n") and stream.getvalue().count("\n") == 1
    assert summary.startswith("2 students, 6 cases (2 not accepted, 3 from the cache) in ")


def test_progress_elsewhere_is_a_line_per_student():
    stream = io.StringIO()
    progress = Progress(2, stream, terminal=False)
    progress.student_done(marks("ann", ("nim_sum", Verdict.ACCEPTED, 3, 3, 0, 3)), 0)
    progress.student_done(marks("ben", ("nim_sum", Verdict.RUNTIME_ERROR, 0, 3, 3, 3)), 0)
    assert stream.getvalue().splitlines() == [
        "[1/2] ann: 3/3 points; every task accepted",
        "[2/2] ben: 0/3 points; not accepted: nim_sum (crashed)",
    ]
