"""What a known-wrong solution's message must say: the header's ``says`` words in the message of
the first case it does not pass, none of its ``never-says`` words (docs/testcases.md, "Known-wrong
solutions"). The pytest plugin's item for a known-wrong file checks this beside its verdict.

In: a task, a known-wrong solution (its header read) and a grading context. Out: sentences saying
how its message falls short (empty: it says what its header declares).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Dict, List, Optional

from grader.authoring.known_wrong import WrongSolution
from grader.authoring.verify import grade_beside_reference
from grader.grade.grading import GradingContext
from grader.model import CaseResult, Task

QUICK_TIME_S = 0.5  # the time limit of every case of a `quick` file
QUICK_CASES = 2  # the cases a `quick` file's check grades, unless it names them


def message_task(task: Task, wrong: WrongSolution) -> Task:
    """``task`` as the message check grades it: the cases the header names (``cases``), or for
    ``quick`` the first few, each with a short time limit; else every case."""
    cases = task.cases
    if wrong.cases:
        cases = tuple(c for c in cases if c.name in wrong.cases)
    elif wrong.quick:
        cases = cases[:QUICK_CASES]
    if wrong.quick:
        cases = tuple(replace(c, limits=replace(c.limits, time_s=QUICK_TIME_S)) for c in cases)
    return replace(task, cases=cases)


def first_failure(task: Task, source: Path, course: Path, context: GradingContext) -> Optional[CaseResult]:
    """The first case of ``task`` that ``source`` does not pass (None when it passes them all),
    graded a few cases at a time (as many as run at once) and stopping there."""
    step = max(1, context.jobs)
    earlier: Dict[str, CaseResult] = {}  # the cases graded so far, which a case's hints may wait for
    for start in range(0, len(task.cases), step):
        chunk = replace(task, cases=task.cases[start : start + step])
        for case in grade_beside_reference(chunk, source, course, context, earlier).cases:
            if not case.accepted:
                return case
            earlier[case.case.name] = case
    return None


def says_problems(task: Task, wrong: WrongSolution, course: Path, context: GradingContext) -> List[str]:
    """How the first failing case's message falls short of the header's ``says`` and ``never-says``
    (empty when it holds, or when the header has no ``says``)."""
    if not wrong.says:
        return []
    name = str(wrong.path)
    unknown = [wanted for wanted in wrong.cases if wanted not in {c.name for c in task.cases}]
    if unknown:
        return [f"{name} names cases {unknown} under 'cases', but {task.id} has no such case"]
    failed = first_failure(message_task(task, wrong), wrong.path, course, context)
    if failed is None:
        return [f"{name} passes every case its message check grades: it says nothing"]
    problems = []
    if failed.verdict not in wrong.verdicts:
        problems.append(f"{name}: case '{failed.case.name}' gives {failed.verdict.value}: {failed.message}")
    message = failed.message.lower()
    missing = [word for word in wrong.says if word.lower() not in message]
    if missing:
        problems.append(f"{name}: case '{failed.case.name}' does not say {missing}: {failed.message}")
    misleading = [word for word in wrong.never_says if word.lower() in message]
    if misleading:
        problems.append(f"{name}: case '{failed.case.name}' says {misleading}: {failed.message}")
    return problems
