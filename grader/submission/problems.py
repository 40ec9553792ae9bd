"""A task's result when its file cannot run at all: not handed in, too large, or not a file the
grader may use (a link, a FIFO, a folder); and the notes on exercise files it imports that were not used.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence, Tuple

from grader.model import CaseResult, SourceProblem, Task, TaskResult, Verdict
from grader.submission.files import MAX_SOURCE_BYTES, FileRead, Kind


def _is_are(names: Sequence[str]) -> str:
    return "is" if len(names) == 1 else "are"


def _listed(names: Sequence[str]) -> str:
    """``a.py, b.py and c.py``: names as a sentence lists them."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def companion_notes(shown: str, companions: Sequence[FileRead]) -> Tuple[str, ...]:
    """Notes on the exercise files a submission may import that were not used: missing or refused."""
    name = Path(shown).name
    missing = [c.name for c in companions if c.kind is Kind.MISSING]
    notes = []
    if missing:
        folder = Path(shown).parent
        notes.append(
            f"{name} may import your other exercise files, but {_listed(missing)} {_is_are(missing)} "
            f"not in the same folder ({folder})."
        )
    for companion in companions:
        if companion.kind in (Kind.REFUSED, Kind.TOO_LARGE):
            notes.append(f"{companion.reason} It was not used, so {name} ran without it.")
    return tuple(notes)


def unusable_file(task: Task, shown: str, found: FileRead) -> TaskResult:
    """The result for a file that was not handed in, is too large, or cannot be used (a link, a FIFO)."""
    if found.kind is Kind.MISSING:
        return missing_file(task, shown)
    if found.kind is Kind.TOO_LARGE:
        return too_large(task, shown)
    return all_cases(task, shown, SourceProblem(Verdict.RUNTIME_ERROR, f"{found.reason} It was not run."))


def too_large(task: Task, shown: str) -> TaskResult:
    """The result for a file larger than ``MAX_SOURCE_BYTES``: not read, not run."""
    problem = SourceProblem(
        Verdict.RUNTIME_ERROR,
        f"The file is larger than {MAX_SOURCE_BYTES // 1024 // 1024} MiB, far more than any answer to "
        "this exercise needs, so it was not run. Hand in the exercise file itself.",
    )
    return all_cases(task, shown, problem)


def missing_file(task: Task, shown: str) -> TaskResult:
    """The result for a file that was not handed in: every case ``not_handed_in`` (not "printed
    nothing": no program ran), saying which file was looked for, by its name alone."""
    name = shown.rsplit("/", 1)[-1]
    problem = SourceProblem(Verdict.NOT_HANDED_IN, f"No {name} was handed in, so no case could be run.")
    return all_cases(task, shown, problem)


def all_cases(task: Task, shown: str, problem: SourceProblem) -> TaskResult:
    """Every case gets the verdict of a file that could not run."""
    message = problem.message
    cases = tuple(CaseResult(case=c, verdict=problem.verdict, message=message) for c in task.cases)
    return TaskResult(task=task, file=shown, cases=cases, problem=problem)
