"""Expected answers from the course's reference solutions, for generated cases.

A generated case (``generate:`` in YAML) has no expected answer written down: it is what the
course's reference solution prints for the input. ``with_answers`` fills them in before grading;
``program_for`` finds the reference solution (or a student's file) with the companion files it uses.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Tuple

from grader.check.registry import OutputChecker
from grader.course.layout import Course
from grader.errors import GraderError, UsageError
from grader.model import Case, Task
from grader.run.execute import Program
from grader.submission.files import is_regular_file


def program_for(task: Task, path: Path, python: str) -> Tuple[Program, Tuple[str, ...]]:
    """The program to run for a course's own file ``path`` (a reference solution), with the
    exercise files it uses (``uses_files``, regular files beside it, not links) copied beside it.

    A student's file goes through ``grade_file``, which reads and stages it safely instead.
    Returns the program and a note naming the files that are missing.
    """
    companions = [path.parent / f"{name}.py" for name in task.uses_files]
    missing = [p.name for p in companions if not is_regular_file(p)]
    program = Program(
        python=python,
        script=path,
        run_name=f"{task.id}.py",
        companions=tuple(p for p in companions if p.name not in missing),
        own_modules=task.uses_files,
    )
    notes = (
        (f"{path.name} may import {', '.join(missing)}, which {'is' if len(missing) == 1 else 'are'} not beside it.",)
        if missing
        else ()
    )
    return program, notes


def reference_program(task: Task, context) -> Program:
    """The reference solution of ``task`` as a program; ``UsageError`` when there is none."""
    solution = Course(Path(context.course)).solution(task.id) if context.course else None
    if solution is None or not solution.is_file():
        raise UsageError(
            f"{task.source}: generated cases take their expected answers from the reference solution "
            f"{solution or 'solutions/' + task.id + '.py'}, which is missing."
        )
    # trusted: run in a fork server of its own, so no student's program is ever forked from a process
    # that held the reference solution
    return replace(program_for(task, solution, context.python)[0], trusted=True)


def needs_answer(case: Case, context) -> bool:
    checker = context.checkers.get(case.checker)
    return (
        case.generated is not None
        and not case.expected
        and isinstance(checker, OutputChecker)
        and checker.needs_expected
    )


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


def answered(task: Task, context) -> Task:
    """``with_answers``, for a caller that grades ``task`` many times (``verify``: the reference
    twice, the stub, the junk, each known-wrong solution), so that the reference runs once per
    generated case, not once per file graded; ``task`` as it is when the reference cannot answer
    (each grading then says why, as before)."""
    try:
        return with_answers(task, context)
    except GraderError:
        return task
