"""The known mistakes a student kit ships, so that ``check`` in the kit names them as the portal does.

In: the course, its tasks, each task's public cases and a grading context (``shipped_signatures``,
for ``make_kit``), then the kit as it loads back (``mistakes_file``); a kit's folder and the tasks it
loads (``kit_signatures``, for ``check``). Out: the signatures to ship, the kit's ``MISTAKES`` file
as bytes and a note for the course team; the signatures by task id, for the tasks whose public
cases are still those the kit was made with.

A signature is made of a known-wrong solution's failures on the task's visible cases only
(``mistake_signatures``): each case's name, verdict and a digest of its output. Before one goes in
the kit it is checked to hold nothing else: every case it names must be a visible case of the task
and no hidden case may have that name (``visible_only``); otherwise no kit is written, for it is
the grader's fault. What names a known-wrong solution is left out (its label, and the instructor's
text, shipped as a digest: matching needs only to tell two mistakes apart). Each task's entry
carries a digest of the task's public cases as the kit's case files load back (``cases_key``): a case
file changed since, by a student or a newer kit, does not load the entry, and ``check`` then names
no known mistake for that task rather than a wrong one.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Dict, Mapping, Sequence, Tuple

from grader.errors import GraderError
from grader.grade.mistakes.known_mistakes import MistakeSignature
from grader.grade.result_key import digest
from grader.model import Task

MISTAKES = "known_mistakes.json"  # in the kit's folder, beside its marker
_FORMAT = 1


def cases_key(task: Task) -> str:
    """The digest of ``task``'s cases as the kit's case files load (where each is written left out)."""
    return digest(tuple(replace(case, line=0, generated=None) for case in task.cases))


def shipped_signatures(
    course: Path, tasks: Mapping[str, Task], public: Mapping[str, Task], context
) -> Dict[str, Tuple[MistakeSignature, ...]]:
    """The signatures a kit ships for the tasks of ``public`` (each task's public cases), by task id:
    those kept, the missing ones made (``course_signatures``: the known-wrong solutions graded once),
    each checked to name the task's public cases only (a ``GraderError`` otherwise: no kit), without
    what names a known-wrong solution."""
    # here, not at the top: check reads a kit through this module and never grades a known-wrong file
    from grader.authoring.mistake_signatures import course_signatures, visible_only

    made = course_signatures(course, [tasks[task_id] for task_id in public if task_id in tasks], context)
    shipped: Dict[str, Tuple[MistakeSignature, ...]] = {}
    for task_id, signatures in made.items():
        visible = {case.name for case in visible_only(tasks[task_id]).cases}
        hidden = {case.name for case in tasks[task_id].cases if case.hidden}
        allowed = (visible & {case.name for case in public[task_id].cases}) - hidden
        for signature in signatures:
            named = {name for name, _, _ in signature.cases}
            if not named <= allowed:
                raise GraderError(
                    f"a known mistake of {task_id} names a case that is not one of its public cases "
                    f"({sorted(named - allowed)[:3]}), so no kit was written. This is the grader's fault: "
                    "please report it."
                )
        if signatures:
            shipped[task_id] = tuple(
                replace(s, label="", instructor_text=_digest_of(s.instructor_text)) for s in signatures
            )
    return shipped


def shipped_note(shipped: Mapping[str, Sequence[MistakeSignature]]) -> str:
    """What the kit's ``MISTAKES`` holds, for the course team ("" for nothing)."""
    count = sum(len(signatures) for signatures in shipped.values())
    if not count:
        return ""
    return (
        f"The kit's check names {count} known mistakes of {len(shipped)} tasks, from digests of the known-wrong "
        "solutions' outputs on the public cases (nothing of a hidden case, no solution)."
    )


def mistakes_file(shipped: Mapping[str, Sequence[MistakeSignature]], kit_tasks: Mapping[str, Task]) -> bytes:
    """The kit's ``MISTAKES`` file: each task's ``shipped`` signatures under the key of its cases as
    the kit's case files load (``kit_tasks``: the kit loaded back before it is moved into place)."""
    from grader.authoring.mistake_signatures import signature_data

    tasks = {
        task_id: {"cases": cases_key(kit_tasks[task_id]), "signatures": signature_data(signatures)}
        for task_id, signatures in shipped.items()
        if task_id in kit_tasks
    }
    return (json.dumps({"format": _FORMAT, "tasks": tasks}, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def _digest_of(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def kit_signatures(root: Path, tasks: Sequence[Task]) -> Dict[str, Tuple[MistakeSignature, ...]]:
    """The signatures the kit ``root`` ships for ``tasks``, each task's only while its cases are
    those the kit was made with (``cases_key``); none from a file that is missing, not a regular
    file, too large or of another shape."""
    from grader.authoring.mistake_signatures import regular_file_text, signatures_from

    try:
        document = json.loads(regular_file_text(root / MISTAKES))
        entries = document["tasks"] if document.get("format") == _FORMAT else {}
        found = {}
        for task in tasks:
            entry = entries.get(task.id)
            if isinstance(entry, dict) and entry.get("cases") == cases_key(task):
                found[task.id] = signatures_from(entry["signatures"])
        return found
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError, MemoryError):
        return {}
