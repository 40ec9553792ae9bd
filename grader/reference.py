"""Expected answers from the reference solution, for generated cases; and shrinking a failure.

A generated case (``generate:`` in YAML) has no expected answer written down: it is what the
course's reference solution prints for the input. When a student's program fails a generated case,
``shrink`` looks for a smaller input (fewer rows, smaller heaps or numbers) that still fails, so the
report can show the smallest failing input found.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Optional, Tuple

from grader.errors import UsageError
from grader.execute import Program
from grader.generators import GENERATORS, render
from grader.model import Case, CaseResult, Task

# Runs of the student's program one shrink may spend (each candidate costs one, plus the reference).
SHRINK_BUDGET = 40


def reference_program(task: Task, context) -> Program:
    """The reference solution of ``task`` as a program; ``UsageError`` when there is none."""
    from grader.grading import program_for

    solution = Path(context.course) / "solutions" / f"{task.id}.py" if context.course else None
    if solution is None or not solution.is_file():
        raise UsageError(
            f"{task.source}: generated cases take their expected answers from the reference solution "
            f"{solution or 'solutions/' + task.id + '.py'}, which is missing."
        )
    # trusted: run in a fork server of its own, so no student's program is ever forked from a process
    # that held the reference solution
    return replace(program_for(task, solution, context.python)[0], trusted=True)


def needs_answer(case: Case, context) -> bool:
    return case.generated is not None and not case.expected and context.checkers.get(case.checker).needs_expected


def answer(case: Case, program: Program, context) -> str:
    """What the reference solution prints for ``case`` (``UsageError`` if it does not run cleanly)."""
    run = context.runner.run(program, case.input.encode("utf-8"), case.limits)
    if run.exit_code != 0 or run.timed_out or not run.stdout.strip():
        last = run.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        raise UsageError(
            f"the reference solution {program.script} does not answer the generated case '{case.name}' "
            f"(input {case.input.strip()!r}): {last[0]}"
        )
    return run.stdout.decode("utf-8", "replace")


def with_answers(task: Task, context) -> Task:
    """``task`` with the expected answers of its generated cases filled in from the reference."""
    pending = [case for case in task.cases if needs_answer(case, context)]
    if not pending:
        return task
    program = reference_program(task, context)
    answers = {case.name: answer(case, program, context) for case in pending}
    cases = tuple(replace(c, expected=(answers[c.name],)) if c.name in answers else c for c in task.cases)
    return replace(task, cases=cases)


def shrink(task: Task, result: CaseResult, program: Program, context, shown: str) -> Optional[Tuple[str, CaseResult]]:
    """The smallest input found that still fails like ``result`` did, with its result, or None."""
    from grader.grading import grade_case

    case = result.case
    if case.generated is None or case.hidden:
        return None
    generator = GENERATORS[case.generated.generator]
    reference = reference_program(task, context) if context.checkers.get(case.checker).needs_expected else None
    fields = json.loads(case.generated.fields_json)
    best = None
    budget = SHRINK_BUDGET
    improved = True
    while improved and budget > 0:
        improved = False
        for candidate in generator.shrink(fields):
            budget -= 1
            if budget < 0:
                break
            text = render(case.generated.template, candidate)
            trial = replace(case, input=text if text.endswith("\n") else text + "\n", hint="", mistakes=())
            if reference is not None:
                try:
                    trial = replace(trial, expected=(answer(trial, reference, context),))
                except UsageError:
                    continue  # the reference cannot answer it: not a valid smaller case
            outcome = grade_case(trial, program, context, shown)
            if not outcome.accepted:
                fields, best, improved = candidate, (trial.input, outcome), True
                break
    return best
