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
the course's points change later (a regrade applies new ones).

One case is written by ``case_record`` and read by ``case_from_record``. Outputs are not in a task's
record (the report page shows them); ``kept_case_record`` is a case's record with them and the rest
a report needs, whole and uncut, the form the results cache keeps (``classrun/result_cache.py``), so
a case result is written as data by this module alone.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Dict, List, Mapping, Optional

from grader.marks import plain_number
from grader.model import Case, CaseResult, Difference, KnownMistake, Limits, SourceProblem, Task, TaskResult, Verdict
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
    record["cases"] = [case_record(case, result.points_of(case.case), message_chars) for case in result.cases]
    record["notes"] = [text(note) for note in result.notes]
    if result.problem is not None:
        record["problem"] = {"verdict": result.problem.verdict.value, "message": text(result.problem.message)}
    if result.mistake is not None:
        record["mistake"] = {"label": result.mistake.label, "instructor": result.mistake.instructor_text}
    record["format"] = FORMAT
    return record


def case_record(result: CaseResult, points: float, message_chars: Optional[int] = None) -> Dict[str, Any]:
    """The record of one case's ``result``, worth ``points`` in its task: its name, verdict, time
    (None for a hidden case), message (with ``message_chars``, at most that many characters, its
    start and its end), whether it is hidden, its points and the course's hint it got."""
    message = clipped(result.message, message_chars, "both") if message_chars else result.message
    return {
        "name": result.case.name,
        "verdict": result.verdict.value,
        "time_s": None if result.case.hidden else result.time_s,  # a time a program controls
        "message": message,
        "hidden": result.case.hidden,
        "points": plain_number(points, 4),
        "hint": result.hint,
    }


def kept_case_record(result: CaseResult) -> Dict[str, Any]:
    """``case_record`` of ``result`` (at its case's own points, the message whole) and what that
    record leaves out, for the instructor's side only: a hidden case's time, the outputs (``actual``,
    ``stderr``, ``expected``), the first ``difference`` as [line, column] or None, ``actual_note``
    and ``game``. ``case_from_record`` reads back the very result (all but ``hint_choices``, which
    grading has emptied by the time a case has a result to keep)."""
    record = case_record(result, result.case.points)
    if result.case.hidden:
        record["hidden_time_s"] = result.time_s  # the record's "time_s" is None for it
    difference = result.difference
    record.update(
        actual=result.actual,
        stderr=result.stderr,
        expected=result.expected,
        difference=[difference.line, difference.column] if difference is not None else None,
        actual_note=result.actual_note,
        game=result.game,
    )
    return record


def case_from_record(record: Mapping[str, Any], case: Case) -> CaseResult:
    """The result of ``case`` a case's record stands for (``case_record`` or ``kept_case_record``):
    the record's verdict, message, time and hint, and what a kept record adds; a field it lacks reads
    as the result's default. The case itself (name, points, hidden) is the caller's."""
    time_s = record.get("hidden_time_s", record.get("time_s"))
    return CaseResult(
        case=case,
        verdict=_verdict(record.get("verdict")),
        message=str(record.get("message") or ""),
        time_s=float(time_s or 0.0),
        actual=str(record.get("actual") or ""),
        stderr=str(record.get("stderr") or ""),
        expected=str(record.get("expected") or ""),
        difference=_difference(record.get("difference")),
        actual_note=str(record.get("actual_note") or ""),
        game=bool(record.get("game")),
        hint=str(record.get("hint") or ""),
    )


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
        rebuilt.append(case_from_record(case, base))
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


def _difference(value) -> Optional[Difference]:
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return Difference(int(value[0]), int(value[1]))
    return None


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
