"""A hand-in graded in the one order that keeps hidden cases hidden.

In: the files of one hand-in (one or more tasks, each a ``Submitted``: its task, file, the exercise
files it may import, the name reports show, results already known), the grading context and the
function that grades one case (``grading.grade_case``, passed in: grading calls this module).
Out: a ``TaskResult`` per ``Submitted``, in order.

The order is the promise: every run whose output can reach a student (each task's visible cases,
every repeat of them, and shrinking their failures) has ended before the first run of a hidden case
of the hand-in starts, and nothing runs after the hidden cases. A program cannot leave a hidden
input where a later visible run would print it, because no visible run is later. What a visible
case's entry may still learn from hidden cases is their verdicts (``docs/security.md``): its hint
may wait on another case being accepted, and a case after the second time-out in case order is
``not_run`` (``quick_feedback``), whichever of the two ran first.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from grader.course import reference
from grader.grade import shrink
from grader.grade.mistakes import evidence, hints
from grader.grade.quick_feedback import TimeoutGate
from grader.grade.submitted_program import staged_program
from grader.grade.verdicts import explain_silence, with_smaller_input
from grader.model import Case, CaseResult, SourceProblem, Task, TaskResult, Verdict
from grader.run.execute import Program
from grader.submission import stubs
from grader.submission.files import FileRead, Kind
from grader.submission.problems import all_cases, companion_notes, unusable_file
from grader.submission.source import inspect_source

GradeCase = Callable[..., CaseResult]  # (case, program, context, shown, parallel_runs) → result


@dataclass(frozen=True)
class Submitted:
    """One file of a hand-in: its ``task``, the ``main`` file read, the exercise files it may
    import (``companions``), the name every output shows, and results already ``known`` for this
    very file (by case name, e.g. from a cache: those cases do not run again)."""

    task: Task
    main: FileRead
    companions: Tuple[FileRead, ...]
    shown: str
    known: Mapping[str, CaseResult] = field(default_factory=dict)


@dataclass
class _Running:
    """A file that passed every check before running: its staged program and what its runs gave."""

    task: Task
    shown: str
    data: bytes
    stub: Optional[bytes]
    notes: Tuple[str, ...]
    known: Mapping[str, CaseResult]
    program: Program
    gate: TimeoutGate
    ran: List[Tuple[Case, Optional[CaseResult]]] = field(default_factory=list)
    smaller: Dict[str, Tuple[str, CaseResult]] = field(default_factory=dict)

    def todo(self, hidden: bool) -> List[Case]:
        return [c for c in self.task.cases if c.name not in self.known and c.hidden is hidden]

    def kept(self) -> Dict[str, CaseResult]:
        """The results of the runs so far that the time-out rule keeps, by case name (``TimeoutGate``):
        the visible ones when shrinking, every one when the result is made."""
        return self.gate.kept([case for case, _ in self.ran], [result for _, result in self.ran])


def grade_in_order(
    items: Sequence[Submitted], context, grade_case: GradeCase, stub_of: Callable[[Task], Optional[bytes]]
) -> List[TaskResult]:
    """Grade every file of one hand-in: all visible runs (and their shrinking) first, then all
    hidden ones (see the module's docstring). ``stub_of`` gives a task's exercise file, or None."""
    finished: Dict[int, TaskResult] = {}
    running: List[Tuple[int, _Running]] = []
    with ExitStack() as staged:
        for index, item in enumerate(items):
            outcome = _before_running(item, context, stub_of, staged)
            if isinstance(outcome, TaskResult):
                finished[index] = outcome
            else:
                running.append((index, outcome))
        for _, file in running:
            _run(file, file.todo(hidden=False), context, grade_case)
            _shrink(file, context, grade_case)
        for _, file in running:  # from here on nothing that runs reaches a student but its verdict
            _run(file, file.todo(hidden=True), context, grade_case)
    for index, file in running:
        finished[index] = _result(file)
    return [finished[index] for index in range(len(items))]


def _before_running(
    item: Submitted, context, stub_of: Callable[[Task], Optional[bytes]], staged: ExitStack
) -> Union[TaskResult, _Running]:
    """The file's result when it cannot run (unusable, a rule broken in its text, still the
    exercise file), else the file staged as a program, ready to run."""
    task, main = item.task, item.main
    if main.kind is not Kind.READ:
        return unusable_file(task, item.shown, main)
    data = main.data
    problem = inspect_source(data, task.rules)
    if problem is not None:
        return all_cases(task, item.shown, problem)
    stub = stub_of(task)
    unwritten = stubs.untouched(data, stub) if context.stubs_score_zero else ()
    if unwritten:  # what its empty functions pass by accident says nothing of the student's work
        return all_cases(task, item.shown, SourceProblem(Verdict.WRONG_ANSWER, stubs.stub_message(unwritten)))
    notes = companion_notes(item.shown, item.companions)
    task = reference.with_answers(task, context)
    if not data.strip():
        notes += ("Your file is empty: start from the exercise file, which has the main block the grader talks to.",)
    program = staged.enter_context(staged_program(task, data, item.companions, context.python))
    gate = TimeoutGate(task.cases, item.known, context.quick_feedback, context.not_run_advice)
    return _Running(task, item.shown, data, stub, notes, item.known, program, gate)


def _run(file: _Running, cases: List[Case], context, grade_case: GradeCase) -> None:
    """Run ``cases`` of ``file`` (up to ``case_jobs`` at once), keeping each result in ``file.ran``."""
    if not cases:
        return

    def one(case: Case) -> Optional[CaseResult]:
        return file.gate.run(case, lambda: grade_case(case, file.program, context, file.shown, context.repeat_jobs))

    with ThreadPoolExecutor(max_workers=max(1, context.case_jobs or context.jobs)) as pool:
        file.ran.extend(zip(cases, pool.map(one, cases)))


def _shrink(file: _Running, context, grade_case: GradeCase) -> None:
    """Look for a smaller failing input for each failed visible case (``shrink``); the file's
    shrinks share one budget of run time, in case order."""
    if not context.shrink:
        return
    budget = shrink.ShrinkBudget()
    kept = file.kept()
    for case, result in file.ran:
        if result is None or result.accepted or case.name not in kept:  # not_run already: not shown
            continue
        found = shrink.shrink(file.task, result, file.program, context, file.shown, grade_case, budget)
        if found is not None:
            file.smaller[case.name] = found


def _result(file: _Running) -> TaskResult:
    """The file's ``TaskResult`` from its runs: no program runs here."""
    kept = file.kept()
    # a cause one case suggests is said where the file's failures confirm it, then each hint chosen
    ran = dict(zip(kept, hints.resolve(evidence.settle(list(kept.values())), file.known)))
    for name, found in file.smaller.items():
        if name in ran:
            ran[name] = with_smaller_input(ran[name], *found)
    task = file.task
    results = [ran.get(c.name) or file.known.get(c.name) or file.gate.not_run(c) for c in task.cases]
    broken = next((r for r in results if r.verdict is Verdict.RULE_VIOLATION), None)
    if broken is not None:  # a rule broken while running breaks it for the whole file, as the static check does
        return all_cases(task, file.shown, SourceProblem(Verdict.RULE_VIOLATION, broken.message))
    if any(r.verdict is Verdict.NO_OUTPUT for r in results):
        results = explain_silence(results, file.data, file.stub)
    return TaskResult(task=task, file=file.shown, cases=tuple(results), notes=file.notes)
