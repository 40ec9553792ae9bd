"""pytest plugin: every case in ``testcases/*.yaml`` is a test item run against ``solutions/``.

Each YAML file becomes a collector named after its task, so ``pytest -k nim_sum`` selects one
task. Each case is an item that passes when the reference solution is accepted. One more item per
task checks that the student stub in ``exercises/`` is rejected. Grading itself is ``grading``'s.
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from grader.authoring.known_wrong import read_wrong_solution
from grader.authoring.verify import JUNK, check_wrong_solution, grade_until_decided, wrong_solutions
from grader.authoring.wrong_says import says_problems
from grader.course.course_checkers import course_checkers
from grader.course.layout import Course
from grader.course.loader import load_task
from grader.errors import GraderError
from grader.grade.grading import GradingContext, grade_file
from grader.model import Verdict
from grader.run.forkserver import best_runner

_RUNNER = pytest.StashKey()


def pytest_configure(config) -> None:
    """One runner (a fork server where possible) for the whole session, kept on the config."""
    config.stash[_RUNNER] = None


def pytest_unconfigure(config) -> None:
    runner = config.stash.get(_RUNNER, None)
    if runner is not None:
        runner.close()


def session_runner(config):
    """The session's runner, started on first use."""
    if config.stash.get(_RUNNER, None) is None:
        config.stash[_RUNNER] = best_runner(private=(str(config.rootpath),))
    return config.stash[_RUNNER]


def pytest_collect_file(file_path: Path, parent):
    """Collect ``<course>/testcases/<task>.yaml`` files."""
    if file_path.suffix == ".yaml" and file_path.parent.name == "testcases":
        return TaskFile.from_parent(parent, path=file_path)
    return None


class CaseFileProblem(Exception):
    """A test case file that does not load; shown as its message, not a traceback."""


class TaskFile(pytest.File):
    """One test case file: its cases, then the stub check."""

    def collect(self):
        layout = Course.of_case_file(self.path)
        course = layout.root
        try:
            checkers = course_checkers(course)
            task = load_task(self.path, checkers, str(self.path.relative_to(course)))
        except GraderError as error:
            raise CaseFileProblem(str(error)) from None
        task_ids = layout.task_ids()
        context = GradingContext(
            checkers=checkers,
            python=sys.executable,
            course=course,
            task_ids=task_ids,
            runner=session_runner(self.config),
        )
        solution = layout.solution(task.id)
        # the reference solution must pass every run of a repeated case: they may run at once
        at_once = replace(context, repeat_jobs=context.jobs)
        for case in task.cases:
            yield CaseItem.from_parent(self, name=case.name, task=task, case=case, solution=solution, context=at_once)
        stub = layout.exercise(task.id)
        if stub.is_file():
            yield StubItem.from_parent(
                self, name="the exercise stub is rejected", task=task, stub=stub, context=context
            )
        for label, text in JUNK.items():
            yield JunkItem.from_parent(self, name=f"{label} is rejected", task=task, text=text, context=context)
        for wrong in wrong_solutions(course, task.id) + _not_compiling(layout, task.id):
            yield WrongItem.from_parent(
                self,
                name=f"known-wrong {wrong.path.name} is rejected as declared",
                task=task,
                wrong=wrong,
                course=course,
                context=context,
            )
            if wrong.says:
                yield SaysItem.from_parent(
                    self,
                    name=f"known-wrong {wrong.path.name} says what its header declares",
                    task=task,
                    wrong=wrong,
                    course=course,
                    context=context,
                )

    def repr_failure(self, excinfo):
        if excinfo.errisinstance(CaseFileProblem):
            return str(excinfo.value)
        return super().repr_failure(excinfo)


class CaseFailure(Exception):
    """A reference solution that was not accepted (or a stub that was)."""


class CaseItem(pytest.Item):
    """The reference solution must be accepted on one case."""

    def __init__(self, *, task, case, solution: Path, context: GradingContext, **kwargs):
        super().__init__(**kwargs)
        self.task, self.case, self.solution, self.context = task, case, solution, context

    def runtest(self):
        if not self.solution.is_file():
            raise CaseFailure(f"there is no reference solution {self.solution}")
        # the course's own solution: a hidden case graded as a visible one, so a failure shows its output
        graded = grade_file(replace(self.task, cases=(replace(self.case, hidden=False),)), self.solution, self.context)
        if graded.problem is not None:
            raise CaseFailure(f"{self.solution}: {graded.problem.verdict.value}: {graded.problem.message}")
        result = graded.cases[0]
        if not result.accepted:
            raise CaseFailure(
                f"{self.solution} got {result.verdict.value} on '{self.case.name}' "
                f"({self.task.source}, line {self.case.line}): {result.message}\n"
                f"--- its output ---\n{result.actual}{result.stderr}"
            )

    def repr_failure(self, excinfo):
        if excinfo.errisinstance(CaseFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, self.case.line - 1, f"{self.task.id}: {self.case.name}"


class StubItem(pytest.Item):
    """The stub in exercises/ must not be accepted."""

    def __init__(self, *, task, stub: Path, context: GradingContext, **kwargs):
        super().__init__(**kwargs)
        self.task, self.stub, self.context = task, stub, context

    def runtest(self):
        result = grade_file(self.task, self.stub, self.context)
        if result.verdict is Verdict.ACCEPTED:
            raise CaseFailure(f"the stub {self.stub} is accepted: students would pass without writing code")

    def repr_failure(self, excinfo):
        if excinfo.errisinstance(CaseFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{self.task.id}: the exercise stub is rejected"


class JunkItem(pytest.Item):
    """Junk (an empty file, a file that prints nothing) must never pass a task."""

    def __init__(self, *, task, text: str, context: GradingContext, **kwargs):
        super().__init__(**kwargs)
        self.task, self.text, self.context = task, text, context

    def runtest(self):
        with tempfile.TemporaryDirectory(prefix="nim-grader-junk-") as folder:
            path = Path(folder) / f"{self.task.id}.py"
            path.write_text(self.text, encoding="utf-8")
            if grade_file(self.task, path, self.context).verdict is Verdict.ACCEPTED:
                raise CaseFailure(f"{self.name[: -len(' is rejected')]} is accepted: the cases do not check the answer")

    def repr_failure(self, excinfo):
        if excinfo.errisinstance(CaseFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, f"{self.task.id}: {self.name}"


def _not_compiling(layout: Course, task_id: str) -> list:
    """The known-wrong files named <mistake>.py.txt: files that must not compile (a Python 2
    print), kept out of linters' way; ``verify`` grades .py files only, so these items do."""
    folder = layout.wrong(task_id)
    return [read_wrong_solution(task_id, path) for path in sorted(folder.glob("*.py.txt"))] if folder.is_dir() else []


class _KnownWrongItem(pytest.Item):
    """An item about one known-wrong solution of a task: its failure is its sentences."""

    def __init__(self, *, task, wrong, course: Path, context: GradingContext, **kwargs):
        super().__init__(**kwargs)
        self.task, self.wrong, self.course, self.context = task, wrong, course, context

    def repr_failure(self, excinfo):
        if excinfo.errisinstance(CaseFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.wrong.path, None, f"{self.task.id}: known-wrong {self.wrong.path.name}"


class WrongItem(_KnownWrongItem):
    """A known-wrong solution in solutions/wrong/<task>/ gets the verdict its header declares."""

    def runtest(self):
        problems = [self.wrong.header_problem] if self.wrong.header_problem else []
        if not problems:
            result = grade_until_decided(self.task, self.wrong, self.course, self.context)
            problems = check_wrong_solution(self.task, self.wrong, result)
        if problems:
            raise CaseFailure("\n".join(problems))


class SaysItem(_KnownWrongItem):
    """The first case a known-wrong solution fails says what its header's ``says`` declares, and
    none of its ``never-says`` (``authoring/wrong_says.py``); a header's ``xfail`` makes this a
    strict expected failure. The one place that checks a known-wrong file's words."""

    def runtest(self):
        if self.wrong.header_problem:
            raise CaseFailure(f"{self.wrong.path} {self.wrong.header_problem}")
        said = says_problems(self.task, self.wrong, self.course, self.context)
        if self.wrong.xfail:
            if not said:
                raise CaseFailure(f"{self.wrong.path} now says what its header declares: remove its '# xfail:' line")
            pytest.xfail(self.wrong.xfail)
        if said:
            raise CaseFailure("\n".join(said))
