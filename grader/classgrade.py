"""Grading a whole class: every student's folder, every task, and the files course teams use.

``grade_class(class_dir, tasks, context, executor)`` grades each (student, task) pair as its own
unit of work on any ``concurrent.futures``-style executor; one student's broken, hostile or
missing files are recorded as that student's results and never stop the others. ``write_outputs``
writes, all atomically: per student the HTML report and ``results.json`` (Gradescope's autograder
format), and for the class ``gradebook.csv``, ``cases.csv`` (each case's pass rate: item
analysis), ``junit.xml`` (for CI systems) and the overview ``index.html``.
"""

from __future__ import annotations

import csv
import io
import json
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from grader import report
from grader.grading import GradingContext, grade_file, missing_file
from grader.model import Task, TaskResult


@dataclass(frozen=True)
class StudentResult:
    """One student's results, a TaskResult per task of the course (in task order)."""

    student: str
    tasks: Tuple[TaskResult, ...]

    @property
    def score(self) -> float:
        return sum(r.score for r in self.tasks)

    @property
    def max_score(self) -> float:
        return sum(r.max_score for r in self.tasks)


def students_in(class_dir: Path) -> List[Path]:
    """The student folders of a class folder (not hidden ones), by name."""
    return sorted(p for p in class_dir.iterdir() if p.is_dir() and not p.name.startswith("."))


def grade_class(
    class_dir: Path,
    tasks: Sequence[Task],
    context: GradingContext,
    executor: Optional[Executor] = None,
    progress: Optional[Callable[[str, TaskResult], None]] = None,
) -> List[StudentResult]:
    """Grade every student folder of ``class_dir`` on every task; results by student name."""
    students = students_in(class_dir)
    own = executor is None
    pool = executor or ThreadPoolExecutor(max_workers=max(1, context.jobs))
    try:
        futures = {
            (student.name, task.id): pool.submit(_grade_one, task, student, context)
            for student in students
            for task in tasks
        }
        results: Dict[str, List[TaskResult]] = {student.name: [] for student in students}
        for (name, _), future in futures.items():
            result = future.result()
            results[name].append(result)
            if progress is not None:
                progress(name, result)
    finally:
        if own:
            pool.shutdown()
    return [StudentResult(name, tuple(graded)) for name, graded in results.items()]


def _grade_one(task: Task, student: Path, context: GradingContext) -> TaskResult:
    path = student / f"{task.id}.py"
    shown = f"{student.name}/{task.id}.py"
    if not path.is_file():
        return missing_file(task, shown)
    return grade_file(task, path, context, shown)


def gradescope(result: StudentResult) -> dict:
    """The Gradescope autograder ``results.json`` document for one student.

    One test per case (``"task: case"``), its points when accepted, the message as output;
    hidden cases are marked ``"visibility": "hidden"``.
    """
    tests = []
    for task in result.tasks:
        for case in task.cases:
            tests.append(
                {
                    "name": f"{task.task.id}: {case.case.name}",
                    "score": _number(case.case.points if case.accepted else 0),
                    "max_score": _number(case.case.points),
                    "status": "passed" if case.accepted else "failed",
                    "output": case.message or "Accepted.",
                    "visibility": "hidden" if case.case.hidden else "visible",
                }
            )
    return {"score": _number(result.score), "max_score": _number(result.max_score), "tests": tests}


def _number(value: float):
    return int(value) if float(value).is_integer() else value


def gradebook_csv(results: Sequence[StudentResult], tasks: Sequence[Task]) -> str:
    """One row per student, one column per task (its score), and the total."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", *(task.id for task in tasks), "total", "max"])
    for result in results:
        scores = {r.task.id: r.score for r in result.tasks}
        writer.writerow(
            [
                result.student,
                *(_number(scores.get(t.id, 0)) for t in tasks),
                _number(result.score),
                _number(result.max_score),
            ]
        )
    return out.getvalue()


def cases_csv(results: Sequence[StudentResult]) -> str:
    """Item analysis: for every case, how many students passed it, out of how many, and the rate."""
    passed: Dict[Tuple[str, str], int] = {}
    seen: Dict[Tuple[str, str], int] = {}
    hidden: Dict[Tuple[str, str], bool] = {}
    for result in results:
        for task in result.tasks:
            for case in task.cases:
                key = (task.task.id, case.case.name)
                seen[key] = seen.get(key, 0) + 1
                passed[key] = passed.get(key, 0) + (1 if case.accepted else 0)
                hidden[key] = case.case.hidden
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["task", "case", "hidden", "passed", "students", "pass_rate"])
    for key, count in seen.items():
        writer.writerow([key[0], key[1], str(hidden[key]).lower(), passed[key], count, f"{passed[key] / count:.3f}"])
    return out.getvalue()


def junit_xml(results: Sequence[StudentResult]) -> str:
    """JUnit XML for CI systems: a test suite per student and task, a test case per case."""
    from xml.sax.saxutils import quoteattr

    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<testsuites>"]
    for result in results:
        for task in result.tasks:
            failures = sum(1 for c in task.cases if not c.accepted)
            name = quoteattr(f"{result.student}.{task.task.id}")
            lines.append(f'  <testsuite name={name} tests="{len(task.cases)}" failures="{failures}">')
            for case in task.cases:
                attrs = f'classname={name} name={quoteattr(case.case.name)} time="{case.time_s:.3f}"'
                if case.accepted:
                    lines.append(f"    <testcase {attrs}/>")
                else:
                    message = quoteattr(f"{case.verdict.value}: {case.message}")
                    lines.append(f"    <testcase {attrs}><failure message={message}/></testcase>")
            lines.append("  </testsuite>")
    lines.append("</testsuites>")
    return "\n".join(lines) + "\n"


def write_outputs(results: Sequence[StudentResult], tasks: Sequence[Task], out: Path, note: str = "") -> None:
    """Write every student's report and results.json, then the gradebook and the class overview."""
    out.mkdir(parents=True, exist_ok=True)
    for result in results:
        folder = out / result.student
        report.write_html(list(result.tasks), folder, note)
        report.write_text(folder / "results.json", json.dumps(gradescope(result), indent=2, ensure_ascii=False))
    report.write_text(out / "gradebook.csv", gradebook_csv(results, tasks))
    report.write_text(out / "cases.csv", cases_csv(results))
    report.write_text(out / "junit.xml", junit_xml(results))
    report.write_class_html(results, tasks, out / "index.html", note)
