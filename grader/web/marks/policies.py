"""Instructors' per-task limits and the course's settings: read from a form, described in words.

In: the instructor's form fields (minimum interval in seconds, maximum count in all and in any
hour, deadline in the course's time zone (``local_time``), for one task or every task at once; or
"latest"/"best"; or how many of a student's submissions may wait to be graded at once, and how
many MiB their hand-ins may keep).
A task no instructor set has the default budgets (``policy_for``: ``models.MAX_COUNT_PER_TASK``,
``models.MAX_PER_HOUR``), as a course without settings has ``MAX_WAITING`` and ``MAX_STORED_MIB``:
each is loosened (or, empty or 0, lifted) on ``/teach/``. Out: the values to store, or the
sentence that says what is wrong (nothing is stored then); the lines a student's task page shows;
which submissions count for the class's marks.
The checks at hand-in time live in ``handin``; this module only sets what they read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import List, Optional, Tuple, Union

from django.db import transaction
from django.db.models import Sum

from grader.counting import LateRule
from grader.safe_text import plural
from grader.web.local_time import course_zone, deadline_instant, form_value, last_second, shown_time
from grader.web.models import (
    ACCEPT,
    BEST,
    CHOSEN,
    LATEST,
    MAX_STORED_MIB,
    MAX_WAITING,
    NOT_COUNTED,
    PENALTY,
    QUEUED,
    RUNNING,
    CourseSetting,
    Extension,
    Submission,
    TaskPolicy,
)

MAX_INTERVAL_S = 366 * 24 * 3600  # a year: anything longer is a typo, not a rule
MAX_COUNT = 10_000


@dataclass(frozen=True)
class Limits:
    """A task's limits as a form sends them, checked."""

    min_interval_s: int
    max_count: Optional[int]
    deadline: Optional[datetime]
    late_rule: str = ACCEPT
    late_penalty: int = 0
    max_per_hour: Optional[int] = None


def whole_number(text: str, what: str, low: int, high: int) -> Union[int, str]:
    """A whole number in [low, high], or the sentence saying why ``text`` is not one."""
    text = text.strip()
    if len(text) > 20 or not re.fullmatch(r"-?[0-9]+", text):
        return f"the {what} must be a whole number, not {text[:20]!r}"
    number = int(text)
    if number < 0:
        return f"the {what} cannot be negative ({number})"
    if not low <= number <= high:
        return f"the {what} must be between {low} and {high:,}, not {number:,}"
    return number


def parse_deadline(text: str, zone: Optional[tzinfo] = None) -> Union[Optional[datetime], str]:
    """A deadline from ``YYYY-MM-DD HH:MM`` (or a browser's ``YYYY-MM-DDTHH:MM``) in ``zone`` (the
    course's when not given), as the aware instant stored (on time up to the minute's last
    second: ``local_time.deadline_instant``); None when empty, or the sentence saying why not."""
    return deadline_instant(text, zone if zone is not None else course_zone())


def parse_limits(form, zone: Optional[tzinfo] = None) -> Union[Limits, str]:
    """The limits in ``form`` (``min_interval_s``, ``max_count``, ``deadline`` in ``zone``: the
    course's when not given), or what is wrong."""
    interval_text = form.get("min_interval_s", "").strip() or "0"
    interval = whole_number(interval_text, "minimum interval", 0, MAX_INTERVAL_S)
    if isinstance(interval, str):
        return interval
    counts: List[Optional[int]] = []
    for name, what in (("max_count", "maximum count"), ("max_per_hour", "maximum count in an hour")):
        if not form.get(name, "").strip():
            counts.append(None)
            continue
        given = whole_number(form[name], what, 1, MAX_COUNT)
        if isinstance(given, str):
            return given + " (leave it empty for no limit)"
        counts.append(given)
    count, per_hour = counts
    deadline = parse_deadline(form.get("deadline", ""), zone)
    if isinstance(deadline, str):
        return deadline
    late = parse_late_rule(form)
    if isinstance(late, str):
        return late
    return Limits(interval, count, deadline, *late, max_per_hour=per_hour)


def parse_late_rule(form) -> Union[Tuple[str, int], str]:
    """The late rule (``late_rule``: accept, penalty or not_counted; accept when not sent) and its
    penalty in percent (``late_penalty``, 1 to 100, needed with penalty only), or what is wrong."""
    rule = form.get("late_rule", "").strip() or ACCEPT
    if rule not in (ACCEPT, PENALTY, NOT_COUNTED):
        return f"the late rule is {ACCEPT!r}, {PENALTY!r} or {NOT_COUNTED!r}, not {rule[:20]!r}"
    if rule != PENALTY:
        return rule, 0
    penalty = whole_number(form.get("late_penalty", "").strip() or "0", "late penalty", 1, 100)
    if isinstance(penalty, str):
        return penalty + " (percent of a late submission's points)"
    return rule, penalty


def parse_limits_for_all(form) -> Union[dict, str]:
    """The fields the every-task form sets on every task, or what is wrong: each value checked as
    ``parse_limits`` checks the per-task form's; a field left empty leaves each task's own, and the
    boxes ``no_max_count``, ``no_max_per_hour`` and ``no_deadline`` clear those on every task. Out: a dict of
    ``TaskPolicy`` fields to values (at least one), or the sentence."""
    parsed = parse_limits(form)
    if isinstance(parsed, str):
        return parsed
    given = {
        name: bool(form.get(name, "").strip())
        for name in ("min_interval_s", "max_count", "max_per_hour", "deadline", "late_rule")
    }
    fields: dict = {}
    if given["min_interval_s"]:
        fields["min_interval_s"] = parsed.min_interval_s
    if given["late_rule"]:
        fields["late_rule"], fields["late_penalty"] = parsed.late_rule, parsed.late_penalty
    boxes = (
        ("max_count", "no_max_count", "maximum count"),
        ("max_per_hour", "no_max_per_hour", "maximum count in an hour"),
        ("deadline", "no_deadline", "deadline"),
    )
    for name, box, what in boxes:
        if form.get(box) and given[name]:
            return f"give a {what} or tick 'no {what} for any task', not both"
        if form.get(box) or given[name]:
            fields[name] = getattr(parsed, name)
    if not fields:
        return "fill in a field (or tick a box) to set on every task: a field left empty leaves each task's own"
    return fields


def policy_rows(task_ids) -> None:
    """Make sure each of ``task_ids`` has its policy row (the defaults: the default budgets, no deadline).

    Why: a row that does not exist cannot be locked. A hand-in that found none would be marked by
    no deadline while an instructor's first deadline was being written, and on PostgreSQL neither
    transaction would see the other's new row. ``INSERT ... ON CONFLICT DO NOTHING`` (SQLite:
    ``INSERT OR IGNORE``) waits for another transaction's uncommitted insert of the same task and
    then inserts nothing, so every caller goes on to lock the one committed row."""
    TaskPolicy.objects.bulk_create([TaskPolicy(task=task_id) for task_id in task_ids], ignore_conflicts=True)


def locked_policy(task_id: str) -> TaskPolicy:
    """``task_id``'s policy row, locked until the transaction ends (made first when there is none):
    a deadline written meanwhile waits for this transaction, or this one for it and reads it."""
    policy_rows([task_id])
    return TaskPolicy.objects.select_for_update().get(task=task_id)


def store_limits_for_all(task_ids, fields: dict) -> None:
    """Set ``fields`` (``parse_limits_for_all``'s) on the policy of each of ``task_ids``, all or none."""
    with transaction.atomic():
        policy_rows(task_ids)
        TaskPolicy.objects.filter(task__in=list(task_ids)).update(**fields)


def store_limits(task_id: str, limits: Limits) -> None:
    """Set ``task_id``'s limits (its row locked from here to the caller's transaction's end)."""
    with transaction.atomic():
        policy_rows([task_id])
        TaskPolicy.objects.filter(task=task_id).update(
            min_interval_s=limits.min_interval_s,
            max_count=limits.max_count,
            max_per_hour=limits.max_per_hour,
            deadline=limits.deadline,
            late_rule=limits.late_rule,
            late_penalty=limits.late_penalty,
        )


def shown_deadline(policy: Optional[TaskPolicy], zone: Optional[tzinfo] = None) -> str:
    """The deadline as the form takes it back, its minute in ``zone`` (the course's when not
    given; ``local_time.form_value``); "" for none."""
    if policy is None or policy.deadline is None:
        return ""
    return form_value(policy.deadline, zone if zone is not None else course_zone())


def deadline_for(student, task_id: str, policy: Optional[TaskPolicy]) -> Optional[datetime]:
    """The deadline ``student``'s hand-ins of ``task_id`` are late after: their extension's, or the
    task's (None: never late). The one rule of whose deadline counts: hand-ins are marked late by
    it, and every page that tells the student their deadline says it."""
    extension = Extension.objects.filter(student=student, task=task_id).values_list("deadline", flat=True).first()
    if extension is not None:
        return extension
    return policy.deadline if policy is not None else None


def policies_by_task() -> dict:
    return {policy.task: policy for policy in TaskPolicy.objects.all()}


def policy_for(task_id: str, lock: bool = False) -> TaskPolicy:
    """``task_id``'s policy: its row (locked ``FOR UPDATE`` with ``lock``, inside a transaction), or
    for a task no instructor set, an unsaved one with the default budgets (never no limits)."""
    rows = TaskPolicy.objects.select_for_update() if lock else TaskPolicy.objects
    found = rows.filter(task=task_id).first()
    return found if found is not None else TaskPolicy(task=task_id)


def limits_in_words(task_id: str, student) -> List[str]:
    """What a student should know of a task's limits and deadline, and of the course's bound on
    submissions waiting to be graded, one sentence each ([] for none)."""
    said = []
    bound = max_waiting()
    if bound:
        waiting = waiting_count(student)
        said.append(
            f"At most {bound} of your submissions may wait to be graded at once; you have {waiting} waiting now."
        )
    stored = max_stored_bytes()
    if stored:
        kept = stored_bytes(student)
        said.append(f"Your hand-ins may keep {mebibytes(stored)} in all; they keep {mebibytes(kept)} now.")
    policy = policy_for(task_id)
    if policy.max_count is not None:
        used = Submission.objects.filter(student=student, task=task_id).count()
        said.append(f"You may hand it in {plural(policy.max_count, 'time')}; you have used {used}.")
    if policy.max_per_hour is not None:
        said.append(f"At most {plural(policy.max_per_hour, 'hand-in')} of it in any hour.")
    if policy.min_interval_s:
        said.append(f"Wait at least {policy.min_interval_s} s between two submissions.")
    # the student's own deadline (an extension's, when they have one), as their hand-ins are marked by
    deadline = deadline_for(student, task_id, policy)
    if deadline is not None:
        late = LateRule(policy.late_rule, policy.late_penalty).in_words()
        yours = " (your extension)" if deadline != policy.deadline else ""
        zone = course_zone()
        said.append(
            f"Deadline: {shown_time(deadline, zone)}{yours}: a hand-in up to {last_second(deadline, zone)} is on "
            f"time, later ones are graded and marked late ({late})."
        )
    return said


def marks_from() -> str:
    """ "latest" or "best": which graded submission of each task counts (latest until set)."""
    setting = CourseSetting.objects.filter(pk=1).first()
    return setting.marks_from if setting is not None else LATEST


def parse_marks_from(text: str) -> Tuple[Optional[str], str]:
    """The choice in the form, or None and the sentence saying what the choices are."""
    if text in (LATEST, BEST, CHOSEN):
        return text, ""
    return None, f"marks come from each student's {LATEST!r}, {BEST!r} or {CHOSEN!r} submission, not {text[:20]!r}"


def store_marks_from(choice: str) -> None:
    CourseSetting.objects.update_or_create(pk=1, defaults={"marks_from": choice})


def max_waiting() -> int:
    """How many of a student's submissions may wait to be graded at once (0: no bound)."""
    setting = CourseSetting.objects.filter(pk=1).first()
    return setting.max_waiting if setting is not None else MAX_WAITING


def waiting_count(student) -> int:
    """How many of ``student``'s submissions wait to be graded: queued, or being graded (a regrade
    of a graded one keeps its status, and is not the student's doing)."""
    return Submission.objects.filter(student=student, status__in=(QUEUED, RUNNING)).count()


def parse_max_waiting(text: str) -> Union[int, str]:
    """The bound in the form (empty or 0: no bound), or the sentence saying what is wrong."""
    number = whole_number(text.strip() or "0", "number of submissions waiting", 0, MAX_COUNT)
    return number + " (0 or empty for no bound)" if isinstance(number, str) else number


def store_max_waiting(bound: int) -> None:
    CourseSetting.objects.update_or_create(pk=1, defaults={"max_waiting": bound})


def max_stored_bytes() -> int:
    """How many bytes one student's hand-ins may keep, files sent with them included (0: no bound)."""
    setting = CourseSetting.objects.filter(pk=1).first()
    return (setting.max_stored_mib if setting is not None else MAX_STORED_MIB) * 1024 * 1024


def stored_bytes(student) -> int:
    """The bytes ``student``'s hand-ins keep (``Submission.stored_bytes``: summed in the database)."""
    return Submission.objects.filter(student=student).aggregate(kept=Sum("stored_bytes"))["kept"] or 0


def mebibytes(count: int) -> str:
    """``count`` bytes for a person: "16 MiB", "0.3 MiB"."""
    return f"{count / (1024 * 1024):.3g} MiB"


def parse_max_stored(text: str) -> Union[int, str]:
    """The MiB in the form (empty or 0: no bound), or the sentence saying what is wrong."""
    number = whole_number(text.strip() or "0", "MiB a student's hand-ins may keep", 0, 1024 * 1024)
    return number + " (0 or empty for no bound)" if isinstance(number, str) else number


def store_max_stored(mib: int) -> None:
    CourseSetting.objects.update_or_create(pk=1, defaults={"max_stored_mib": mib})
