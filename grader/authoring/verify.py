"""``python -m grader verify``: is the course's test suite right, and does it catch anything?

Checks, for every task of a course folder: the test case file loads; the reference solution in ``solutions/``
passes every case, twice (an expected answer that depends on chance or time shows up as a difference), with room
to spare: its answer uses at most half of the case's output limit and its run at most half of the time limit, so
a correct but wordier or slower student passes too; the stub in ``exercises/`` and junk (an empty file, a file
that prints nothing) are rejected; every known-wrong solution in ``solutions/wrong/<task>/`` gets the verdict
its header declares and is caught by the cases it names. From the known-wrong runs it builds the kill matrix:
which cases catch which wrong solutions, the cases that catch none, and the wrong solutions that no case
catches. It also looks at the names of hidden cases: one that states its case's input or expected answer
(``hidden_names``) is worth a look, not a failure, since renaming is the instructor's call. So is a course hint
shown to a known-wrong solution that its header's ``hints`` does not expect (``hint_warnings``): a hint that
names another mistake than the file's; and a hint that cannot reach the failures it is about (``hint_reach``:
about speed but never shown after a time-out, about an endless loop but shown to slow work too, or always beaten
by an earlier one).

A known-wrong solution starts with a header of comment lines (``grader.authoring.known_wrong`` reads
it and says each key)::

    # Mistake: zero-based rows
    # verdict: wrong_answer
    # caught-by: row 0 does not exist; the first row is row 1
    # says: Rows count from 1

Verify grades with ``verdict`` and ``caught-by`` and looks at the hints shown with ``hints``;
``says``, ``never-says``, ``cases``, ``quick`` and ``xfail`` are for the test suite's check of what
the first failing case's message says. A header line that is not ``# key: value`` with a known key,
or a malformed value, is a finding.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from grader.authoring.hidden_names import hidden_name_warnings
from grader.authoring.hint_reach import hint_reach_warnings
from grader.authoring.known_wrong import WrongSolution, hint_warnings, read_wrong_solution
from grader.course import reference
from grader.course.layout import Course
from grader.course.loader import load_course
from grader.errors import UsageError
from grader.grade.grading import GradingContext, grade_file
from grader.grade.mistakes.known_mistakes import MistakeSignature, signature_of
from grader.model import CaseResult, Task, TaskResult, Verdict

JUNK = {"an empty file": "", "a file that prints nothing": "def nothing():\n    pass\n"}
# The header verdicts a known mistake's signature is made from: a wrong output to know it by.
SIGNED_VERDICTS = (Verdict.WRONG_ANSWER, Verdict.PRESENTATION_ERROR)
# The share of a case's output and time limits the reference solution may use: the rest is room
# for correct answers that print a little more or run a little slower.
LIMIT_SHARE = 0.5


@dataclass(frozen=True)
class Finding:
    """Something that falls short, as one sentence for the instructor."""

    task_id: str
    what: str


@dataclass(frozen=True)
class KillMatrix:
    """For one task: which known-wrong solutions each case catches (does not accept)."""

    task_id: str
    cases: Tuple[str, ...]
    wrong: Tuple[WrongSolution, ...]
    caught: Dict[Tuple[str, str], bool] = field(default_factory=dict)  # (case name, wrong label)

    def catchers(self, label: str) -> List[str]:
        return [case for case in self.cases if self.caught.get((case, label))]

    def weak_cases(self) -> List[str]:
        """Cases that catch none of the known-wrong solutions."""
        if not self.wrong:
            return []
        return [case for case in self.cases if not any(self.caught.get((case, w.label)) for w in self.wrong)]

    def uncaught(self) -> List[WrongSolution]:
        """Known-wrong solutions that every case accepts."""
        return [w for w in self.wrong if not self.catchers(w.label)]


@dataclass(frozen=True)
class VerifyReport:
    """All findings and kill matrices of one verification."""

    findings: Tuple[Finding, ...]  # what falls short: verify fails
    matrices: Tuple[KillMatrix, ...]
    checked: Tuple[str, ...]  # one line per thing that held, for the summary
    # worth a look, not a failure: cases that catch no known-wrong solution, hidden cases whose names
    # state their input or answer (the verify page shows them under "Worth a look")
    weak: Tuple[Finding, ...] = ()
    # each task with the signatures of its known mistakes, made from the runs above (mistake_signatures)
    signatures: Tuple[Tuple[Task, Tuple[MistakeSignature, ...]], ...] = ()

    @property
    def ok(self) -> bool:
        return not self.findings


def wrong_solutions(course: Path, task_id: str) -> List[WrongSolution]:
    """The known-wrong solutions of a task, in name order."""
    folder = Course(course).wrong(task_id)
    return [read_wrong_solution(task_id, p) for p in sorted(folder.glob("*.py"))] if folder.is_dir() else []


def signed(wrong: WrongSolution) -> bool:
    """Is ``wrong`` graded for a signature (a header that holds, declaring a wrong output)?"""
    return not wrong.header_problem and any(v in SIGNED_VERDICTS for v in wrong.verdicts)


def signatures_of_runs(runs: Iterable[Tuple[WrongSolution, TaskResult]]) -> Tuple[MistakeSignature, ...]:
    """The signatures of graded known-wrong solutions (their hidden cases are never read), in order."""
    found = []
    for wrong, result in runs:
        if signed(wrong):
            signature = signature_of(result, wrong.label, wrong.student_text, wrong.mistake)
            found += [signature] if signature is not None else []
    return tuple(found)


def full_strength(context: GradingContext) -> GradingContext:
    """``context`` as verify grades with it: known-wrong solutions need verdicts, not small inputs
    (no shrinking); and every run of a repeated case runs, even after ``min_distinct`` different
    right answers, so that a mistake that shows in some runs only (a random 0 taken from a row) is
    caught as surely as the case can, and a header's verdict holds on every verify, not only when
    the mistake happens to show before enough different answers have. Every case runs, even after
    two time-outs (``quick_feedback`` off), whichever path asks: a signature is the same made by
    ``verify``, ``grade`` or the portal."""
    return replace(context, shrink=False, stop_when_random=False, quick_feedback=False)


def grade_beside_reference(
    task: Task, source: Path, course: Path, context: GradingContext, earlier: Optional[Dict[str, CaseResult]] = None
) -> TaskResult:
    """Grade ``source`` as ``task``, next to the reference solutions of the files it may import.

    ``earlier`` holds the results of the same file on cases graded before (by name), which a
    case's hints may wait for (``hints.resolve``).
    """
    with tempfile.TemporaryDirectory(prefix="nim-grader-verify-") as folder:
        target = Path(folder) / f"{task.id}.py"
        shutil.copyfile(source, target)
        for name in task.uses_files:
            companion = Course(course).solution(name)
            if companion.is_file():
                shutil.copyfile(companion, Path(folder) / companion.name)
        return grade_file(task, target, context, str(source), earlier)


def grade_until_decided(task: Task, wrong: WrongSolution, course: Path, context: GradingContext) -> TaskResult:
    """Grade a known-wrong solution only as far as its header needs: the cases in order until the
    first that is not accepted (that decides the verdict), and the cases it names in caught-by.

    Faster than all cases for a solution that runs into the time limit; the kill matrix needs all.
    Graded as ``full_strength`` says.
    """
    context = full_strength(context)
    step = max(2, context.jobs)
    graded: List[CaseResult] = []
    for start in range(0, len(task.cases), step):
        chunk = replace(task, cases=task.cases[start : start + step])
        graded += grade_beside_reference(chunk, wrong.path, course, context, _by_name(graded)).cases
        if any(not c.accepted for c in graded):
            break
    done = {c.case.name for c in graded}
    named = tuple(c for c in task.cases if c.name in wrong.caught_by and c.name not in done)
    if named:
        graded += grade_beside_reference(
            replace(task, cases=named), wrong.path, course, context, _by_name(graded)
        ).cases
    return TaskResult(task=task, file=str(wrong.path), cases=tuple(graded))


def _by_name(results: Sequence[CaseResult]) -> Dict[str, CaseResult]:
    return {result.case.name: result for result in results}


def check_wrong_solution(task: Task, wrong: WrongSolution, result: TaskResult) -> List[str]:
    """Sentences saying how a graded known-wrong solution falls short of its header (empty: it holds)."""
    name = str(wrong.path)
    if wrong.header_problem:
        return [f"{name} {wrong.header_problem}"]
    problems = []
    if result.verdict is Verdict.ACCEPTED:
        problems.append(f"{name} ({wrong.mistake or 'a known-wrong solution'}) is accepted: no case catches it")
    elif result.verdict not in wrong.verdicts:
        first = next(c for c in result.cases if not c.accepted)
        declared = " or ".join(verdict.value for verdict in wrong.verdicts)
        problems.append(
            f"{name} should get {declared} but gets {result.verdict.value} "
            f"(first on '{first.case.name}': {first.message})"
        )
    names = {c.case.name: c for c in result.cases}
    known = {case.name for case in task.cases}
    for case_name in wrong.caught_by:
        if case_name not in known:
            problems.append(f"{name} names the case '{case_name}' in caught-by, but {task.id} has no such case")
        elif case_name in names and names[case_name].accepted:
            problems.append(f"{name} should be caught by '{case_name}', but that case accepts it")
    return problems


def verify_course(
    course: Path, context: GradingContext, progress: Optional[Callable[[str], None]] = None, only: Sequence[str] = ()
) -> VerifyReport:
    """Run every check of the module docstring over ``course`` (only its tasks of ``only``, if any); raises
    ``GraderError`` when its case files do not load or ``only`` names no task of it (else findings)."""
    say = progress or (lambda _: None)
    context = full_strength(context)
    tasks = load_course(course)
    if any(task_id not in tasks for task_id in only):
        missing = next(task_id for task_id in only if task_id not in tasks)
        raise UsageError(f"verify: the course has no task {missing!r}; its tasks are {', '.join(tasks)}.")
    tasks = {task_id: tasks[task_id] for task_id in only} if only else tasks
    findings: List[Finding] = []
    weak: List[Finding] = []
    checked: List[str] = [f"{len(tasks)} test case files load"]
    matrices: List[KillMatrix] = []
    signatures: List[Tuple[Task, Tuple[MistakeSignature, ...]]] = []
    telling = [Finding(task.id, warning) for task in tasks.values() for warning in hidden_name_warnings(task)]
    weak += telling
    weak += [Finding(task.id, warning) for task in tasks.values() for warning in hint_reach_warnings(task)]
    if not telling:
        checked.append("no hidden case's name states its input or expected answer")
    for task in tasks.values():
        graded = reference.answered(task, context)  # (``task`` itself names the signatures kept for it)
        say(f"{task.id}: reference solution")
        findings += _check_reference(graded, course, context, checked)
        say(f"{task.id}: stub and junk")
        findings += _check_rejected(graded, course, context, checked)
        wrong = wrong_solutions(course, task.id)
        caught: Dict[Tuple[str, str], bool] = {}
        runs: List[Tuple[WrongSolution, TaskResult]] = []
        hints_fit = True
        for solution in wrong:
            say(f"{task.id}: {solution.path.name}")
            if solution.header_problem:
                findings.append(Finding(task.id, f"{solution.path} {solution.header_problem}"))
                continue
            result = grade_beside_reference(graded, solution.path, course, context)
            runs.append((solution, result))
            for case in result.cases:
                caught[(case.case.name, solution.label)] = not case.accepted
            problems = check_wrong_solution(task, solution, result)
            findings += [Finding(task.id, p) for p in problems]
            misplaced = hint_warnings(task, solution, result)
            weak += [Finding(task.id, warning) for warning in misplaced]
            hints_fit = hints_fit and not misplaced
        signatures.append((task, signatures_of_runs(runs)))
        matrix = KillMatrix(task.id, tuple(c.name for c in task.cases), tuple(wrong), caught)
        matrices.append(matrix)
        if wrong:
            checked.append(f"{task.id}: {len(wrong)} known-wrong solutions graded")
        if wrong and hints_fit:
            checked.append(f"{task.id}: every hint shown to a known-wrong solution is one its header expects")
        for weak_case in matrix.weak_cases():
            weak.append(
                Finding(task.id, f"the case '{weak_case}' catches none of the {len(wrong)} known-wrong solutions")
            )
    return VerifyReport(tuple(findings), tuple(matrices), tuple(checked), tuple(weak), tuple(signatures))


def _check_reference(task: Task, course: Path, context: GradingContext, checked: List[str]) -> List[Finding]:
    solution = Course(course).solution(task.id)
    if not solution.is_file():
        return [Finding(task.id, f"there is no reference solution {solution}")]
    # the course's own solution, for the instructor: its hidden cases graded as visible ones, so that
    # their messages, outputs and times are kept (a hidden case's result keeps none of them)
    shown = replace(task, cases=tuple(replace(case, hidden=False) for case in task.cases))
    runs = [grade_beside_reference(shown, solution, course, context) for _ in range(2)]
    findings = []
    for number, run in enumerate(runs, start=1):
        for case in run.cases:
            if not case.accepted:
                findings.append(
                    Finding(
                        task.id,
                        f"the reference solution {solution} gets {case.verdict.value} on '{case.case.name}' "
                        f"(line {case.case.line} of {task.source}, run {number} of 2): {case.message}",
                    )
                )
    first, second = ({c.case.name: c.accepted for c in run.cases} for run in runs)
    for name in first:
        if first[name] != second[name]:
            findings.append(
                Finding(
                    task.id,
                    f"'{name}' accepted the reference solution in one run and not the other: "
                    "its expected answer depends on chance or time",
                )
            )
    if not findings:
        checked.append(f"{task.id}: the reference solution passes all {len(task.cases)} cases, twice")
    tight = limit_problems(task, runs)
    if not tight:
        checked.append(f"{task.id}: the reference solution uses at most half of every case's output and time limits")
    return findings + [Finding(task.id, problem) for problem in tight]


def limit_problems(task: Task, runs: Sequence[TaskResult], check_time: bool = True) -> List[str]:
    """Sentences for the cases whose limits leave the reference solution too little room.

    ``runs`` are graded runs of the reference solution on ``task``. A case is named when, in any
    run it passed, its answer took more than ``LIMIT_SHARE`` of the case's output limit (in bytes)
    or (with ``check_time``) its run more than that share of the time limit. Returns an empty list
    when every case fits.
    """
    largest: Dict[str, Tuple[int, float]] = {}
    for run in runs:
        for result in run.cases:
            if result.accepted:
                size, seconds = largest.get(result.case.name, (0, 0.0))
                largest[result.case.name] = (max(size, len(result.actual.encode("utf-8"))), max(seconds, result.time_s))
    problems = []
    for case in task.cases:
        if case.name not in largest:
            continue
        size, seconds = largest[case.name]
        where = f"'{case.name}' (line {case.line} of {task.source})"
        if size > case.limits.output_bytes * LIMIT_SHARE:
            problems.append(
                f"the reference solution prints {size:,} bytes on {where}, more than half of the case's output "
                f"limit of {case.limits.output_bytes:,} bytes: set output_limit to at least {2 * size:,}, so that a "
                "correct answer that prints a little more still fits"
            )
        if check_time and seconds > case.limits.time_s * LIMIT_SHARE:
            problems.append(
                f"the reference solution takes {seconds:.2f} s on {where}, more than half of the case's time limit "
                f"of {case.limits.time_s:g} s: set time_limit to at least {2 * seconds:.1f} or make the case smaller, "
                "so that a correct but slower solution still passes"
            )
    return problems


def _check_rejected(task: Task, course: Path, context: GradingContext, checked: List[str]) -> List[Finding]:
    findings = []
    stub = Course(course).exercise(task.id)
    candidates = [(f"the stub {stub}", stub)] if stub.is_file() else []
    with tempfile.TemporaryDirectory(prefix="nim-grader-junk-") as folder:
        for label, text in JUNK.items():
            path = Path(folder) / label.replace(" ", "_") / f"{task.id}.py"
            path.parent.mkdir()
            path.write_text(text, encoding="utf-8")
            candidates.append((label, path))
        for label, path in candidates:
            # (the cases themselves must reject a stub: grading's rule that a stub scores 0 is not asked)
            running = replace(context, stubs_score_zero=False)
            if grade_beside_reference(task, path, course, running).verdict is Verdict.ACCEPTED:
                findings.append(Finding(task.id, f"{label} is accepted: the cases do not check the answer"))
    if not findings:
        checked.append(f"{task.id}: the stub, an empty file and a silent file are rejected")
    return findings
