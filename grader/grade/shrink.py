"""Shrinking a failure: a smaller input that still fails as a generated case did.

When a student's program fails a generated case with a wrong answer or a crash, ``shrink`` looks
for a smaller input (fewer rows, smaller heaps or numbers) that still fails the same way, so the
report can show the smallest failing input found. The same way (``evidence.same_failure``): the same
verdict and the same kind of difference, or the same exception at the same line; a smaller input
that fails otherwise shows another mistake than the case's (a crash where the case got a wrong
answer), and is not taken. Shrinking runs programs and checks what they print, so it has a
budget of time (``ShrinkBudget``: the runs' own, or the time the shrink took, whichever is more)
that one file's shrinks share.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, replace
from typing import Callable, Optional, Tuple

from grader.check.registry import OutputChecker
from grader.course.generators import GENERATORS, render
from grader.course.reference import answer, reference_program
from grader.errors import UsageError
from grader.grade.mistakes import evidence
from grader.model import CaseResult, Task, Verdict
from grader.run.execute import Program
from grader.run.run_facts import RunResult

# Failures a smaller input can explain quickly. A time-out, an output flood, running out of memory
# or printing nothing would cost every candidate as much again, and a smaller input rarely explains
# them; they are never shrunk, and a candidate that fails that way is not "a smaller failing input".
SHRINKABLE = frozenset({Verdict.WRONG_ANSWER, Verdict.PRESENTATION_ERROR, Verdict.RUNTIME_ERROR})
# Run time (seconds, as the runs report it) that all the shrinks of one file may spend together...
TASK_SHRINK_SECONDS = 1.0
# ...and that one shrink may spend, in multiples of the failing run's own time.
SHRINK_FACTOR = 10
# A candidate given less time than this could not even start: shrinking stops there.
MIN_CANDIDATE_SECONDS = 0.005
# Candidates one shrink may try at most, however fast they are.
SHRINK_CANDIDATES = 40


@dataclass
class ShrinkBudget:
    """The run time (seconds) that shrinking may still spend on one file: its shrinks share it.

    Made afresh for each file graded (``grading.grade_submission``), never kept between files.
    """

    seconds: float = TASK_SHRINK_SECONDS


class _Metered:
    """A runner that adds up the time its runs report (``RunResult.time_s``), around a real one."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.spent = 0.0
        self._lock = threading.Lock()

    def _count(self, run: RunResult) -> RunResult:
        with self._lock:
            self.spent += run.time_s
        return run

    def run(self, program, stdin, limits):
        return self._count(self.inner.run(program, stdin, limits))

    def interact(self, program, session, limits):
        return self._count(self.inner.interact(program, session, limits))

    def protections(self, python):
        return self.inner.protections(python)


def shrinkable(result: CaseResult) -> bool:
    """Whether ``shrink`` looks for a smaller input for ``result``: a wrong answer, a presentation
    error or a crash (``SHRINKABLE``) of a visible generated case. The portal, which grades first
    without shrinking, reads it to know whether a file owes a second pass that shrinks."""
    case = result.case
    return case.generated is not None and not case.hidden and result.verdict in SHRINKABLE


def shrink(
    task: Task,
    result: CaseResult,
    program: Program,
    context,
    shown: str,
    grade_case: Callable[..., CaseResult],
    budget: Optional[ShrinkBudget] = None,
) -> Optional[Tuple[str, CaseResult]]:
    """The smallest input found that still fails as ``result`` did (``evidence.same_failure``),
    with its result, or None.

    Only a wrong answer, a presentation error or a crash (``SHRINKABLE``) of a visible generated
    case is shrunk. The shrink may spend ``SHRINK_FACTOR`` times the failing run's time, and no more
    than ``budget`` has left (which it lowers by what it spent: runs of the program and of the
    reference solution, as they report it). Each candidate runs with at most the time left, so a
    slow candidate ends the shrink; when the time is up, the smallest failing input found so far
    is the answer. ``grade_case`` grades one candidate (``grading.grade_case``, passed in: grading
    calls this module, not the other way round).
    """
    case = result.case
    if not shrinkable(result) or case.generated is None:
        return None
    generated = case.generated
    budget = budget if budget is not None else ShrinkBudget()
    allowed = min(SHRINK_FACTOR * result.time_s, budget.seconds)
    meter = _Metered(context.runner)
    metered = replace(context, runner=meter)
    # What a shrink spends is the time it takes, the grader's own work included (checking each
    # candidate's output can cost far more than running it: a program printing 500,000 lines).
    started = time.monotonic()
    generator = GENERATORS[generated.generator]
    checker = context.checkers.get(case.checker)
    needs_expected = isinstance(checker, OutputChecker) and checker.needs_expected
    reference = reference_program(task, context) if needs_expected else None
    fields = json.loads(generated.fields_json)
    best = None
    tried = 0
    improved = True
    try:
        while improved:
            improved = False
            for candidate in generator.shrink(fields):
                left = allowed - max(meter.spent, time.monotonic() - started)
                if left < MIN_CANDIDATE_SECONDS or tried >= SHRINK_CANDIDATES:
                    return best
                tried += 1
                text = render(generated.template, candidate)
                limits = replace(case.limits, time_s=min(case.limits.time_s, left))
                trial = replace(
                    case,
                    input=text if text.endswith("\n") else text + "\n",
                    hint="",
                    mistakes=(),
                    hints=(),
                    limits=limits,
                )
                if reference is not None:
                    try:
                        trial = replace(trial, expected=(answer(trial, reference, metered),))
                    except UsageError:
                        continue  # the reference cannot answer it (in the time left): not a valid smaller case
                outcome = grade_case(trial, program, metered, shown)
                if outcome.verdict in SHRINKABLE and evidence.same_failure(result, outcome):
                    fields, best, improved = candidate, (trial.input, outcome), True
                    break
        return best
    finally:
        budget.seconds = max(0.0, budget.seconds - max(meter.spent, time.monotonic() - started))
