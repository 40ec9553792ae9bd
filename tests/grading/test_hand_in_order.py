"""The order of a hand-in's runs: every run whose output a student can see (visible cases, their
repeats, shrinking their failures) ends before the first run of a hidden case starts, across all
the tasks of the hand-in, on the path every command shares (``grade_hand_in``: ``check``, and
through ``grade_work`` a class run, a Dask worker and the portal).

An order probe: a runner around the real one notes the input of every run as it starts. A run
whose input is a hidden case's is hidden; any other (a visible case's, a shrink candidate's) is
visible. A program could otherwise leave a mark during a hidden case (the page cache, a counter of
the machine) and read it back in a later visible run, which its author sees.
"""

from __future__ import annotations

import threading
from dataclasses import replace

from support import PROJECT

from grader.grade.grading import grade_hand_in, submitted_file
from grader.grade.unit_of_work import StudentWork, grade_work

# Wrong files that fail visible generated cases (so shrinking runs) and hidden ones.
WRONG = {
    "nim_sum": "adds_the_rows.py",
    "bin_num": "least_significant_first.py",
    "present_board": "double_space_after_colon.py",
}


class OrderProbe:
    """The real runner, noting each run's input in the order the runs start."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.inputs: list = []
        self._lock = threading.Lock()

    def run(self, program, stdin, limits):
        with self._lock:
            self.inputs.append(stdin.decode("utf-8", "replace"))
        return self.inner.run(program, stdin, limits)

    def interact(self, program, session, limits):
        raise AssertionError("no game in this hand-in")

    def protections(self, python):
        return self.inner.protections(python)


def _assert_visible_first(inputs, tasks):
    hidden = {case.input for task in tasks for case in task.cases if case.hidden}
    visible = {case.input for task in tasks for case in task.cases if not case.hidden}
    assert not hidden & visible, "the probe cannot tell these cases apart"
    kinds = ["hidden" if text in hidden else "visible" for text in inputs]
    assert "hidden" in kinds and "visible" in kinds
    first_hidden = kinds.index("hidden")
    late = [text for text, kind in zip(inputs[first_hidden:], kinds[first_hidden:]) if kind == "visible"]
    assert not late, f"visible runs after the first hidden one: {late[:3]}"
    assert any(text not in visible for text in inputs[:first_hidden]), "no shrinking ran: the probe proves less"


def test_a_class_or_portal_unit_runs_every_visible_case_first(course, context):
    probe = OrderProbe(context.runner)
    tasks = tuple(course[task_id] for task_id in WRONG)
    files = {
        f"{task_id}.py": (PROJECT / "solutions" / "wrong" / task_id / name).read_bytes()
        for task_id, name in WRONG.items()
    }
    work = StudentWork(student="ada", tasks=tasks, files=files, known={})
    results = grade_work(replace(context, runner=probe, jobs=2), work)
    assert all(result.score < result.max_score for result in results)
    _assert_visible_first(probe.inputs, tasks)


def test_check_of_several_files_runs_every_visible_case_first(course, context, tmp_path):
    probe = OrderProbe(context.runner)
    tasks = [course[task_id] for task_id in WRONG]
    items = []
    for task in tasks:
        path = tmp_path / f"{task.id}.py"
        path.write_bytes((PROJECT / "solutions" / "wrong" / task.id / WRONG[task.id]).read_bytes())
        items.append(submitted_file(task, path))
    grade_hand_in(items, replace(context, runner=probe, jobs=2, quick_feedback=True))
    _assert_visible_first(probe.inputs, tasks)
