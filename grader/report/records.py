"""One record of a graded task, written and read here only.

In: a ``TaskResult`` (``task_record``), or a record and the course's ``Task`` (``result_from_record``).
Out: the record, a JSON-ready dict, or the ``TaskResult`` it stands for. The record is what
``check --json`` gives for each task (``grader-cli.md``'s fields and a few more), what the portal
keeps with each graded submission, and what every export reads (the gradebook's and class page's
marks, the Gradescope zip), so a submission's marks are computed by one rule (``TaskResult.score``)
from one record wherever they are shown.

A hidden case is in it as the result holds it, concealed (``CaseResult.concealed``): its name,
verdict, fixed sentence and the course's hint, no time and nothing a program controls. A record
keeps each case's points as graded, so marks read from it stay those it was graded with even when
the course's points change later (a regrade applies new ones). Outputs are not in it: the report
page shows them and the results cache keeps them (``classrun/result_cache.py``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict, List, Mapping, Optional

from grader.marks import plain_number
from grader.model import Case, CaseResult, KnownMistake, Limits, SourceProblem, Task, TaskResult, Verdict
from grader.report.shown import clipped

FORMAT = 1  # a record says which form it has: a reader meets old rows of the portal too


def task_record(result: TaskResult, message_chars: Optional[int] = None) -> Dict[str, Any]:
    """The record of ``result``; with ``message_chars``, each case's message and each note keeps at
    most that many characters, its start and its end (a program decides how long the text it quotes is)."""

    def text(value: str) -> str:
        return clipped(value, message_chars, "both") if message_chars else value

    record: Dict[str, Any] = {
        "task": result.task.id,
        "file": result.file,
        "verdict": result.verdict.value,
        "score": plain_number(result.score, 4),
        "max_score": plain_number(result.max_score, 4),
    }
    if result.mistake is not None:
        found = result.mistake
        record["known_mistake"] = {"mistake": found.student_text, "matched": found.matched, "failing": found.failing}
    record["cases"] = [
        {
            "name": case.case.name,
            "verdict": case.verdict.value,
            "time_s": None if case.case.hidden else case.time_s,  # a time a program controls
            "message": text(case.message),
            "hidden": case.case.hidden,
            "points": plain_number(result.points_of(case.case), 4),
            "hint": case.hint,
        }
        for case in result.cases
    ]
    record["notes"] = [text(note) for note in result.notes]
    if result.problem is not None:
        record["problem"] = {"verdict": result.problem.verdict.value, "message": text(result.problem.message)}
    if result.mistake is not None:
        record["mistake"] = {"label": result.mistake.label, "instructor": result.mistake.instructor_text}
    record["format"] = FORMAT
    return record


def result_from_record(record: Mapping[str, Any], task: Task) -> TaskResult:
    """The ``TaskResult`` a record stands for, graded as ``task`` (its title and rules; the cases
    and their points are the record's own). A record the portal kept before some field existed
    reads with that field's default: no hint, no mistake, the points shared out equally."""
    cases = [case for case in record.get("cases") or () if isinstance(case, Mapping)]
    shared = float(record.get("max_score") or task.max_score or 0) / max(1, len(cases))
    known = {case.name: case for case in task.cases}
    rebuilt: List[CaseResult] = []
    for case in cases:
        name = str(case.get("name", ""))
        points = case.get("points")
        hidden = bool(case.get("hidden"))
        base = known.get(name) or Case(name, "", (), "exact", {}, Limits(), hidden=hidden)
        base = replace(base, hidden=hidden, points=float(points) if points is not None else shared)
        rebuilt.append(
            CaseResult(
                case=base,
                verdict=_verdict(case.get("verdict")),
                message=str(case.get("message") or ""),
                time_s=float(case.get("time_s") or 0.0),
                hint=str(case.get("hint") or ""),
            )
        )
    graded = replace(task, cases=tuple(result.case for result in rebuilt), total=None)  # the record's points
    return TaskResult(
        task=graded,
        file=str(record.get("file") or f"{task.id}.py"),
        cases=tuple(rebuilt),
        problem=_problem(record.get("problem")),
        notes=tuple(str(note) for note in record.get("notes") or ()),
        mistake=_mistake(record),
    )


def _verdict(value) -> Verdict:
    try:
        return Verdict(value)
    except ValueError:
        return Verdict.RUNTIME_ERROR  # (no record is written with another; a hand-edited row is not a pass)


def _problem(value) -> Optional[SourceProblem]:
    if not isinstance(value, Mapping):
        return None
    return SourceProblem(_verdict(value.get("verdict")), str(value.get("message") or ""))


def _mistake(record: Mapping[str, Any]) -> Optional[KnownMistake]:
    said, kept = record.get("known_mistake"), record.get("mistake")
    if not isinstance(said, Mapping) or not isinstance(kept, Mapping):
        return None
    return KnownMistake(
        str(kept.get("label", "")),
        str(said.get("mistake", "")),
        str(kept.get("instructor", "")),
        int(said.get("matched") or 0),
        int(said.get("failing") or 0),
    )
