"""``grade`` never marks a class with a weaker sandbox than it says, nor without being told to."""

from __future__ import annotations

import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from grader.cli import main as cli
from grader.run.forkserver import ForkServerRunner

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture
def classroom(tmp_path):
    student = tmp_path / "class" / "ada"
    student.mkdir(parents=True)
    shutil.copyfile(PROJECT / "solutions" / "exclusive_or.py", student / "exclusive_or.py")
    return tmp_path / "class"


@pytest.fixture
def without_network(monkeypatch):
    """A machine whose sandbox cannot cut the network (as without bubblewrap)."""
    real = ForkServerRunner.protections

    def weaker(self, python):
        return replace(real(self, python), no_network=False)

    monkeypatch.setattr(ForkServerRunner, "protections", weaker)


def test_grade_refuses_a_class_without_every_protection(classroom, tmp_path, capsys, without_network):
    out = tmp_path / "marks"
    assert cli.main(["grade", str(classroom), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert "no network" in error and "--allow-unprotected" in error and "Traceback" not in error
    assert not (out / "gradebook.csv").exists()


def test_grade_goes_on_when_told_and_the_reports_say_what_was_missing(
    classroom, tmp_path, without_network, course_without_known_wrong
):
    out = tmp_path / "marks"
    course = ["--course", str(course_without_known_wrong)]
    assert cli.main(["grade", str(classroom), "--out", str(out), *course, "--allow-unprotected"]) in (0, 1)
    page = (out / "ada" / "index.html").read_text(encoding="utf-8")
    assert "not available here:" in page and "no network" in page.split("not available here:")[1]


def test_a_worker_with_fewer_protections_than_the_grading_machine_refuses(without_network):
    """A Dask or process-pool worker never grades with less than the reports' header claims."""
    from grader.errors import GraderError
    from grader.grade.unit_of_work import StudentWork, WorkerSetup, grade_remote
    from grader.run.sandbox import Protections

    everything = Protections(**{name: True for name in Protections.__dataclass_fields__ if name != "note"})
    setup = WorkerSetup(course=str(PROJECT), python=sys.executable, jobs=1, task_ids=(), protections=everything)
    with pytest.raises(GraderError, match="lacks protections the grading machine has .*no network"):
        grade_remote(setup, StudentWork(student="ada", tasks=(), files={}, known={}))


@pytest.mark.parametrize("differs", ["course checkers.py", "grading settings"])
def test_a_worker_that_would_grade_otherwise_than_the_results_are_kept_refuses(tmp_path, differs):
    """A Dask or process-pool worker grades what the first machine keeps under its key: one whose
    course checkers.py, settings (or grader, interpreter, protections) differ says so and grades
    nothing, rather than fill the cache with results the key does not describe."""
    from support import course_of

    from grader.course.course_checkers import course_checkers
    from grader.errors import GraderError
    from grader.grade.grading import GradingContext
    from grader.grade.result_key import interpreter_identity, run_parts
    from grader.grade.unit_of_work import StudentWork, WorkerSetup, grade_remote
    from grader.run.forkserver import best_runner

    here = course_of(tmp_path / "here", ["exclusive_or"])
    there = course_of(tmp_path / "there", ["exclusive_or"])
    if differs == "course checkers.py":
        (there / "checkers.py").write_text("def register(registry):\n    pass  # the worker's own\n")
    with best_runner(private=(here,)) as runner:
        first = GradingContext(
            checkers=course_checkers(here),
            python=sys.executable,
            runner=runner,
            course=here,
            task_ids=("exclusive_or",),
        )
        parts = run_parts(first, interpreter_identity(sys.executable))
        setup = WorkerSetup(
            course=str(there),
            python=sys.executable,
            jobs=1,
            task_ids=("exclusive_or",),
            quick_feedback=differs == "grading settings",  # the first machine's is off
            protections=runner.protections(sys.executable),
            run_parts=tuple(parts.items()),
        )
    with pytest.raises(GraderError, match=f"would grade with another {differs} than the machine that keeps"):
        grade_remote(setup, StudentWork(student="ada", tasks=(), files={}, known={}))
    same = replace(setup, course=str(here), quick_feedback=False)
    assert grade_remote(same, StudentWork(student="ada", tasks=(), files={}, known={})) == ()
