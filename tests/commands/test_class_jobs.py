"""``--jobs`` in a class run is applied once: ``jobs`` students at once, each one case at a time."""

from __future__ import annotations

import io
import sys
import threading

from support import course_of

from grader.classrun.grade_class import grade_class
from grader.classrun.progress import Progress
from grader.course.course_checkers import course_checkers
from grader.course.loader import load_course
from grader.grade.grading import GradingContext


class InFlightRunner:
    """A runner that records the most programs it had running at once, around a real one."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.now = 0
        self.most = 0
        self.runs = 0
        self._lock = threading.Lock()

    def _around(self, call):
        with self._lock:
            self.now += 1
            self.runs += 1
            self.most = max(self.most, self.now)
        try:
            return call()
        finally:
            with self._lock:
                self.now -= 1

    def run(self, program, stdin, limits):
        return self._around(lambda: self.inner.run(program, stdin, limits))

    def interact(self, program, session, limits):
        return self._around(lambda: self.inner.interact(program, session, limits))

    def protections(self, python):
        return self.inner.protections(python)


def _one_task_course(tmp_path):
    return course_of(tmp_path / "course", ["exclusive_or"])


def _grade_slow_class(tmp_path, context, students):
    """Grade ``students`` who each hand in a slow exclusive_or, with jobs=2; the recording runner."""
    course = _one_task_course(tmp_path)
    room = tmp_path / "class"
    for student in students:
        (room / student).mkdir(parents=True)
        # Slow enough that runs overlap when the grader lets them; each file differs, as real ones do.
        (room / student / "exclusive_or.py").write_text(f"import time\n\ntime.sleep(0.2)\nprint(0)  # {student}\n")
    runner = InFlightRunner(context.runner)
    tasks = list(load_course(course).values())
    grading = GradingContext(
        checkers=course_checkers(course),
        python=sys.executable,
        runner=runner,
        jobs=2,
        course=course,
        task_ids=("exclusive_or",),
    )
    outcome = grade_class(room, tasks, tmp_path / "out", grading, progress=Progress(len(students), io.StringIO()))
    assert len(outcome.students) == len(students) and not outcome.grader_failures
    assert runner.runs == len(students) * 4
    return runner


def test_a_class_graded_with_two_jobs_runs_at_most_two_programs_at_once(tmp_path, context):
    runner = _grade_slow_class(tmp_path, context, ("ann", "ben", "cid"))
    assert runner.most <= 2  # two students at once, each one case at a time (not 2 x 2)


def test_a_class_of_one_still_uses_every_job(tmp_path, context):
    runner = _grade_slow_class(tmp_path, context, ("ann",))
    assert runner.most == 2  # one student: its cases share the two jobs
