"""Similar hand-ins from the database: what the section of ``/teach/`` lists (``similar_hand_ins``)
and the files it compares, for ``similarity`` to judge and ``views_similar`` to show.

In: the database's submissions (each student's latest hand-in of each task, graded or not;
instructors' own hand-ins left out), the course's stubs (``exercises/<task>.py``, the boilerplate)
and reference solutions (how big the task's answers are). Out: the section's content, per task in
the handout's order: its pairs, or why it lists none; computed on demand within ``BUDGET_S``
seconds, what was compared kept in this process (``similarity``), so a task left for later says so
and the next visit carries on.
"""

from __future__ import annotations

import time
from typing import Any, Dict, List, Optional

from django.db.models import Max

from grader.web.models import Submission
from grader.web.site import similarity
from grader.web.worker.course_state import course, course_tasks

BUDGET_S = 4.0  # seconds a visit of /teach/ may spend comparing; the rest is done at the next visit
SECTION_BUDGET_S = 20.0  # and of /teach/similar/, the section alone (asked for on purpose)


def stub_of(task_id: str) -> str:
    """The task's stub as text ("" when the course has none or it cannot be read: nothing left out)."""
    try:
        return course().exercise(task_id).read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def _reference(task_id: str) -> Optional[str]:
    """The task's reference solution as text (None when the course has none): how big its answers are."""
    try:
        return course().solution(task_id).read_bytes().decode("utf-8", "replace")
    except OSError:
        return None


def _read(hand_ins: List[similarity.HandIn]) -> List[similarity.HandIn]:
    """The hand-ins with their files' bytes, read from the database."""
    data = dict(Submission.objects.filter(id__in=[h.number for h in hand_ins]).values_list("id", "data"))
    return [similarity.HandIn(h.student, h.number, h.sha256, bytes(data.get(h.number) or b"")) for h in hand_ins]


def latest_hand_ins() -> Dict[str, List[similarity.HandIn]]:
    """Each student's latest hand-in of each task (by task id; students only), without their bytes."""
    # the class as every listing has it (``enrolment``): students, not dropped
    latest = Submission.objects.filter(student__is_staff=False, student__is_active=True)
    latest = latest.values("student_id", "task").annotate(last=Max("id"))
    numbers = [row["last"] for row in latest]
    rows = Submission.objects.filter(id__in=numbers).values_list("id", "task", "student__username", "sha256")
    found: Dict[str, List[similarity.HandIn]] = {}
    for number, task_id, student, sha in sorted(rows, key=lambda row: row[2]):
        found.setdefault(task_id, []).append(similarity.HandIn(student, number, sha))
    return found


def _row(task, outcome: similarity.TaskSimilarity, count: int) -> Dict[str, Any]:
    """What the section shows of one task."""
    said = {
        similarity.TOO_SMALL: "Too small to tell: its answers have too little code of their own.",
        similarity.TOO_FEW: (
            f"Fewer than {similarity.MIN_FILES} hand-ins to compare ({outcome.compared}): no usual to measure against."
        ),
        similarity.PAIRS: "No pair stands out.",
    }.get(outcome.outcome, "")
    pairs = [
        {
            "first": pair.first.student,
            "second": pair.second.student,
            "first_id": pair.first.number,
            "second_id": pair.second.number,
            "percent": similarity.percent(pair.similarity),
        }
        for pair in outcome.pairs
    ]
    skipped = [{"student": name, "reason": reason} for name, reason in outcome.skipped]
    return {
        "task": task,
        "count": count,
        "said": said,
        "pairs": pairs,
        "median": similarity.percent(outcome.median),
        "compared": outcome.compared,
        "skipped": skipped,
    }


def similar_hand_ins(budget_s: float = BUDGET_S) -> Dict[str, Any]:
    """The section's content: the rule in a sentence, and per task (in the handout's order) its
    pairs, or why it lists none; a task not reached within ``budget_s`` says it waits."""
    deadline = time.monotonic() + budget_s  # copydetect's first import (a second or more) counts too
    cd = similarity.detector()
    context: Dict[str, Any] = {"rule": similarity.RULE, "missing": cd if isinstance(cd, str) else "", "tasks": []}
    if context["missing"]:
        return context
    by_task = latest_hand_ins()
    waiting = False
    for task in course_tasks().values():
        hand_ins = by_task.get(task.id, [])
        if not hand_ins:
            context["tasks"].append({"task": task, "count": 0, "said": "Nobody has handed it in yet."})
            continue
        if not waiting:
            try:
                outcome = similarity.compare_task(hand_ins, stub_of(task.id), deadline, _read, _reference(task.id))
            except similarity.OutOfTime:
                waiting = True
        if waiting:
            said = "Not compared yet (it takes a while the first time): reload the page to carry on."
            context["tasks"].append({"task": task, "count": len(hand_ins), "said": said})
            continue
        context["tasks"].append(_row(task, outcome, len(hand_ins)))
    return context
