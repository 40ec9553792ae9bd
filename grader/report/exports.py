"""The files course teams feed to other tools: Gradescope results, gradebook, item analysis, JUnit.

Pure functions from results or marks to text; writing them is ``class_outputs``' job.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, replace
from typing import List, Mapping, Optional, Sequence, Tuple
from xml.sax.saxutils import quoteattr

from grader.marks import CaseTally, StudentMarks, TaskMark, plain_number
from grader.model import Task, TaskResult
from grader.safe_text import for_page, for_spreadsheet

# Gradescope's documented results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/,
# "Output format" and "Controlling Test Case Visibility"): a top-level ``score`` "overrides total of
# tests if specified", the total possible is the sum of the tests' ``max_score``, and "if test cases
# are hidden, students will not be able to see their total score". So every test here is
# ``visible``: a hidden case shows no more than the portal's page shows of it (its name, verdict,
# fixed sentence and course hint: ``CaseResult.concealed``, which every ``TaskResult`` holds for
# its hidden cases), and the total a student sees is the sum of the tests they see.
VISIBLE = "visible"


@dataclass(frozen=True)
class GradescopeTest:
    """One test of a Gradescope ``results.json``: a case of a task, a task not handed in, or what
    changed a task's graded points (a late rule, an adjustment: worth nothing, ``max_score`` 0, its
    ``score`` the points it took or gave)."""

    name: str
    points: float
    accepted: bool
    output: str
    time_s: float = 0.0
    change: Optional[float] = None  # a change's points (then ``points`` is 0)

    def entry(self) -> dict:
        if self.change is not None:
            score, status = self.change, "passed" if self.change >= 0 else "failed"
        else:
            score, status = self.points if self.accepted else 0, "passed" if self.accepted else "failed"
        return {
            "name": self.name,
            "score": plain_number(score),
            "max_score": plain_number(self.points),
            "status": status,
            "output": self.output or "Accepted.",
            "visibility": VISIBLE,
        }


def gradescope_document(tests: Sequence[GradescopeTest], score: Optional[float] = None) -> dict:
    """The Gradescope autograder ``results.json`` document of ``tests``.

    Each test's points when accepted (a change's own points), its message as output, every test
    ``visible`` (see ``VISIBLE``). ``execution_time`` is the seconds the student's programs ran.
    Only fields Gradescope documents are used (the total possible is the sum of the tests'
    ``max_score``). ``score``: the total as written (default: the sum of the tests' scores).
    """
    entries = [test.entry() for test in tests]
    return {
        "score": plain_number(sum(e["score"] for e in entries)) if score is None else score,
        "execution_time": round(sum(test.time_s for test in tests), 3),
        "tests": entries,
    }


def _case_tests(task: TaskResult) -> List[GradescopeTest]:
    """A test per case (``"task: case"``, a hidden one ``"task: case (hidden)"`` as the page names
    it, with what it shows concealed), or for a task not handed in one failed test worth the task."""
    if not task.handed_in:
        message = task.problem.message if task.problem else ""
        return [GradescopeTest(f"{task.task.id}: not handed in", task.max_score, False, message)]
    tests = []
    for case in task.cases:
        if case.case.hidden:
            shown = case.concealed_for(task.problem)  # (already so in a TaskResult: said where it is written)
            tests.append(
                GradescopeTest(
                    f"{task.task.id}: {case.case.name} (hidden)",
                    task.points_of(case.case),
                    shown.accepted,
                    shown.message,
                )
            )
        else:
            tests.append(
                GradescopeTest(
                    f"{task.task.id}: {case.case.name}",
                    task.points_of(case.case),
                    case.accepted,
                    case.message,
                    case.time_s,
                )
            )
    return tests


def _change_tests(mark: TaskMark) -> List[GradescopeTest]:
    """What changed ``mark``'s graded points, a test each: the late rule (the points it took) and
    the adjustment (what it gave or took once the task is kept between 0 and its worth)."""
    graded = mark.graded if mark.graded is not None else mark.score
    tests = []
    after_late = graded - mark.late_lost
    if mark.late_lost:
        tests.append(
            GradescopeTest(
                f"{mark.task}: {mark.late}",
                0,
                False,
                f"{mark.task} was handed in late: {mark.late}.",
                change=-mark.late_lost,
            )
        )
    if mark.adjustment:
        said = f"Your instructor adjusted {mark.task}: {mark.adjustment}"
        tests.append(GradescopeTest(f"{mark.task}: adjusted", 0, False, said, change=mark.score - after_late))
    return tests


def gradescope(results: Sequence[TaskResult], marks: Optional[StudentMarks] = None) -> dict:
    """The Gradescope ``results.json`` document for one student's results: a test per case
    (``"task: case"``), and for a task not handed in one failed test worth the task
    (``"task: not handed in"``). With ``marks`` (the portal's, through its late rule and
    adjustments: ``marks_of``), the total is theirs, each late rule and adjustment that changed a
    task's points is a test of its own after the task's cases (worth nothing, its score what it
    took or gave), and the document's ``output`` says, task by task, what changed the graded
    points. Either way the total is the sum of the tests' scores; with a change it is the
    gradebook's total to the digit (4 decimals at most), the last change taking up the rounding."""
    by_task = {mark.task: mark for mark in marks.tasks} if marks is not None else {}
    tests: List[GradescopeTest] = []
    for task in results:
        tests += _case_tests(task)
        if task.task.id in by_task:
            tests += _change_tests(by_task[task.task.id])
    if marks is None or not any(test.change is not None for test in tests):
        return gradescope_document(tests)  # (the marks are the graded points: the tests' sum is the total)
    # the total as the gradebook writes it (4 decimals at most): a late penalty leaves floating
    # point's noise (16 less 7 % is 14.879999999999999), which would differ from the CSV's 14.88;
    # the last change takes up that rounding, so that the tests still add up to the total
    total = plain_number(marks.score, 4)
    last = max(index for index, test in enumerate(tests) if test.change is not None)
    others = sum(test.entry()["score"] for index, test in enumerate(tests) if index != last)
    tests[last] = replace(tests[last], change=total - others)
    document = gradescope_document(tests, score=total)
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


# The first cell of the row after the gradebook's header: what each column is worth, as Canvas's
# gradebook export writes it and its import reads it (an LMS makes a new column out of that many points).
POINTS_POSSIBLE = "Points Possible"


def student_rows(rows: Sequence[Sequence[str]]) -> List[Sequence[str]]:
    """The students' rows of a gradebook read as CSV rows: without the header and ``POINTS_POSSIBLE``."""
    return [row for row in rows[1:] if not (row and row[0] == POINTS_POSSIBLE)]


def gradebook_csv(
    students: Sequence[StudentMarks],
    tasks: Sequence[Task],
    people: Optional[Mapping[str, Tuple[str, str]]] = None,
    points_possible: bool = False,
) -> str:
    """One row per student, one column per task (its score), and the total (``grader-cli.md``: one
    row per student, so the ``POINTS_POSSIBLE`` row, what each task and the total are worth, comes
    first after the header only with ``points_possible``: the LMS import's file); then
    ``not_handed_in``: the tasks with no file, space-separated (a 0 there is not a 0 earned).
    With ``people`` (the portal's roster: username -> (name, email)), four more columns at the end,
    ``name`` and ``email`` (empty for a student the mapping lacks), ``late`` (each task whose
    counted work was late, with its rule: ``make_move late -20 %``) and ``adjustments`` (each
    instructor's change with its comment: ``nim_sum +3: regraded by hand``), both ``; ``-separated;
    without it, none."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    extra = ["name", "email", "late", "adjustments"] if people is not None else []
    writer.writerow(_row(["student", *(task.id for task in tasks), "total", "not_handed_in", *extra]))
    worth = [plain_number(task.max_score, 4) for task in tasks]
    if points_possible:
        total = plain_number(sum(t.max_score for t in tasks), 4)
        writer.writerow(_row([POINTS_POSSIBLE, *worth, total, "", *("" for _ in extra)]))
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
