"""The files course teams feed to other tools: Gradescope results, gradebook, item analysis, JUnit.

Pure functions from results or marks to text; writing them is ``class_outputs``' job.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence, Tuple
from xml.sax.saxutils import quoteattr

from grader.marks import CaseTally, StudentMarks, plain_number
from grader.model import Task, TaskResult
from grader.safe_text import for_page, for_spreadsheet


@dataclass(frozen=True)
class GradescopeTest:
    """One test of a Gradescope ``results.json``: a case of a task (or a task not handed in)."""

    name: str
    points: float
    accepted: bool
    output: str
    hidden: bool = False
    time_s: float = 0.0


def gradescope_document(tests: Sequence[GradescopeTest], score: Optional[float] = None) -> dict:
    """The Gradescope autograder ``results.json`` document of ``tests``.

    Each test's points when accepted, its message as output; hidden ones are marked
    ``"visibility": "hidden"``. ``execution_time`` is the seconds the student's programs ran.
    Only fields Gradescope documents are used (the total possible is the sum of the tests'
    ``max_score``). ``score``: the total, when it is not the sum of the accepted tests' points.
    """
    total = sum(test.points for test in tests if test.accepted) if score is None else score
    return {
        "score": plain_number(total),
        "execution_time": round(sum(test.time_s for test in tests), 3),
        "tests": [
            {
                "name": test.name,
                "score": plain_number(test.points if test.accepted else 0),
                "max_score": plain_number(test.points),
                "status": "passed" if test.accepted else "failed",
                "output": test.output or "Accepted.",
                "visibility": "hidden" if test.hidden else "visible",
            }
            for test in tests
        ],
    }


def gradescope(results: Sequence[TaskResult], marks: Optional[StudentMarks] = None) -> dict:
    """The Gradescope ``results.json`` document for one student's results: a test per case
    (``"task: case"``), and for a task not handed in one failed test worth the task
    (``"task: not handed in"``, as the portal's export has it). With ``marks`` (the portal's,
    through its late rule and adjustments: ``marks_of``), the total is theirs and the document's
    ``output`` says, task by task, what changed the graded points."""
    tests = []
    for task in results:
        if not task.handed_in:
            tests.append(
                GradescopeTest(
                    f"{task.task.id}: not handed in",
                    task.max_score,
                    False,
                    task.problem.message if task.problem else "",
                )
            )
            continue
        tests += [
            GradescopeTest(
                f"{task.task.id}: {case.case.name}",
                task.points_of(case.case),
                case.accepted,
                case.message,
                case.case.hidden,
                case.time_s,
            )
            for case in task.cases
        ]
    if marks is None:
        return gradescope_document(tests, score=sum(task.score for task in results))
    # the total as the gradebook writes it (4 decimals at most): a late penalty leaves floating
    # point's noise (16 less 7 % is 14.879999999999999), which would differ from the CSV's 14.88
    document = gradescope_document(tests, score=plain_number(marks.score, 4))
    changed = [
        f"{t.task}: {plain_number(t.graded or 0, 4)} graded, {plain_number(t.score, 4)} counted ({t.changed})"
        for t in marks.tasks
        if t.changed
    ]
    if changed:
        document["output"] = "\n".join(changed)
    return document


def _row(cells: Sequence) -> list:
    return [for_spreadsheet(cell) for cell in cells]


def gradebook_csv(
    students: Sequence[StudentMarks],
    tasks: Sequence[Task],
    people: Optional[Mapping[str, Tuple[str, str]]] = None,
) -> str:
    """One row per student, one column per task (its score), and the total (``grader-cli.md``);
    then ``not_handed_in``: the tasks with no file, space-separated (a 0 there is not a 0 earned).
    With ``people`` (the portal's roster: username -> (name, email)), four more columns at the end,
    ``name`` and ``email`` (empty for a student the mapping lacks), ``late`` (each task whose
    counted work was late, with its rule: ``make_move late -20 %``) and ``adjustments`` (each
    instructor's change with its comment: ``nim_sum +3: regraded by hand``), both ``; ``-separated;
    without it, none."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    extra = ["name", "email", "late", "adjustments"] if people is not None else []
    writer.writerow(_row(["student", *(task.id for task in tasks), "total", "not_handed_in", *extra]))
    for student in students:
        scores = {t.task: t.score for t in student.tasks}
        missing = {t.task for t in student.tasks if t.missing}
        who = []
        if people is not None:
            late = "; ".join(f"{t.task} {t.late}" for t in student.tasks if t.late)
            adjusted = "; ".join(f"{t.task} {t.adjustment}" for t in student.tasks if t.adjustment)
            who = [*people.get(student.student, ("", "")), late, adjusted]
        writer.writerow(
            _row(
                [
                    student.student,
                    *(plain_number(scores.get(t.id, 0), 4) for t in tasks),
                    plain_number(student.score, 4),
                    " ".join(t.id for t in tasks if t.id in missing),
                    *who,
                ]
            )
        )
    return out.getvalue()


def cases_csv(tallies: Sequence[CaseTally]) -> str:
    """Item analysis: for every case, how many students passed it, out of how many, and the rate."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_row(["task", "case", "hidden", "passed", "students", "pass_rate"]))
    for tally in tallies:
        hidden = str(tally.hidden).lower()
        writer.writerow(_row([tally.task, tally.case, hidden, tally.passed, tally.students, f"{tally.pass_rate:.3f}"]))
    return out.getvalue()


# Characters XML 1.0 cannot hold at all, not even escaped, that ``for_page`` leaves (noncharacters).
_NOT_XML = re.compile("[\ufffe\uffff]")


def _attribute(text: str) -> str:
    """``text`` as a quoted XML attribute: shown as a page shows it (a CI server shows it on one)."""
    return quoteattr(_NOT_XML.sub("\ufffd", for_page(text)))


JUNIT_HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n'
JUNIT_TAIL = "</testsuites>\n"


def junit_suites(student: str, results: Sequence[TaskResult]) -> str:
    """One student's part of the JUnit XML: a test suite per task, a test case per case."""
    lines = []
    for task in results:
        failures = sum(1 for c in task.cases if not c.accepted)
        name = _attribute(f"{student}.{task.task.id}")
        lines.append(f'  <testsuite name={name} tests="{len(task.cases)}" failures="{failures}">')
        for case in task.cases:
            attrs = f'classname={name} name={_attribute(case.case.name)} time="{case.time_s:.3f}"'
            if case.accepted:
                lines.append(f"    <testcase {attrs}/>")
            else:
                message = _attribute(f"{case.verdict.value}: {case.message}")
                lines.append(f"    <testcase {attrs}><failure message={message}/></testcase>")
        lines.append("  </testsuite>")
    return "".join(line + "\n" for line in lines)
