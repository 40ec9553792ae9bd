"""When a task's hidden cases run on the portal: after each student's deadline, or at every hand-in.

A program can choose what it does on a hidden case (its verdict, how long it takes) and read that
choice back on its author's page: a few bits a hand-in, enough to read the hidden inputs in a
few hours (docs/portal.md, "3. The hidden-verdict channel"). So, unless the instructor chooses
otherwise (``CourseSetting.hidden_results``), a hand-in made before its student's deadline is
graded on the task's public cases only: its hidden cases do not run at all, so neither their
verdicts nor their times exist to be shown. Each hidden case shows ``not_run`` and the sentence
saying when it runs; the row is ``public_only``. Once the student's deadline has passed (their
extension's, else the task's: ``policies.deadline_for``) or the instructor runs hidden cases at
once, ``release_due`` asks for every such row to be graded again, in full, as owed idle work (a
regrade: the public result stays shown until the full one lands).

In: the course setting, a student and a task, the moment. Out: whether the hidden cases wait and
the sentence that says until when; the task to grade (``public_task``) and the full result made
from the public one (``with_hidden_waiting``); how many rows were asked again.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Optional, Tuple

from django.db.models import Q
from django.utils import timezone

from grader.model import CaseResult, Task, TaskResult, Verdict
from grader.web.local_time import course_zone, deadline_words, shown_time
from grader.web.marks.policies import deadline_for
from grader.web.models import AFTER_DEADLINE, AT_ONCE, DONE, CourseSetting, Extension, Submission, TaskPolicy
from grader.web.worker import queue


@dataclass(frozen=True)
class HiddenWait:
    """The hidden cases of a student's task wait: until ``deadline`` (None: the task has none yet)."""

    deadline: Optional[datetime]

    def sentence(self) -> str:
        """What each hidden case of a hand-in graded now says."""
        if self.deadline is None:
            # (kept with the row: said as of its grading, so that a deadline set later does not belie it)
            return "Hidden case: it runs after your deadline for this task, which was not set when this was graded."
        return f"Hidden case: it runs after your deadline, {shown_time(self.deadline, course_zone())}."

    def note(self) -> str:
        """The note of a hand-in graded now, on its page and its report."""
        when = "which was not set when this was graded: the task's page says it now"
        if self.deadline is not None:
            when = deadline_words(self.deadline, course_zone())
        return (
            f"Your hidden cases run after your deadline for this task ({when}): until then each submission is "
            "graded on the public cases only, and its score counts those. It is then graded again in full."
        )


def hidden_results() -> str:
    """``after_deadline`` (a course without the setting) or ``at_once``."""
    setting = CourseSetting.objects.filter(pk=1).first()
    return setting.hidden_results if setting is not None else AFTER_DEADLINE


def parse_hidden_results(text: str) -> Tuple[Optional[str], str]:
    """The choice in the form, or None and the sentence saying what the choices are."""
    if text in (AFTER_DEADLINE, AT_ONCE):
        return text, ""
    return None, f"hidden cases run {AFTER_DEADLINE!r} or {AT_ONCE!r}, not {text[:20]!r}"


def store_hidden_results(choice: str) -> int:
    """Set when hidden cases run; out: how many rows graded on their public cases are now owed a
    full grading (``release_due``)."""
    CourseSetting.objects.update_or_create(pk=1, defaults={"hidden_results": choice})
    return release_due()


def hidden_wait(student, task: Task, now: Optional[datetime] = None) -> Optional[HiddenWait]:
    """Whether ``task``'s hidden cases wait for ``student`` at ``now`` (default: now): None when
    they run (the task has none, the course runs them at once, or the student's deadline has
    passed), else until when."""
    if not any(case.hidden for case in task.cases) or hidden_results() == AT_ONCE:
        return None
    policy = TaskPolicy.objects.filter(task=task.id).first()
    deadline = deadline_for(student, task.id, policy)
    if deadline is not None and deadline < (now or timezone.now()):
        return None
    return HiddenWait(deadline)


def hidden_words(student, task: Task) -> list:
    """What a student's task page says of its hidden cases, when they wait ([] when they run)."""
    wait = hidden_wait(student, task)
    return [] if wait is None else [wait.note()]


def public_task(task: Task) -> Task:
    """``task`` with its public cases only: what a hand-in whose hidden cases wait is graded on."""
    return replace(task, cases=tuple(case for case in task.cases if not case.hidden))


def with_hidden_waiting(public: TaskResult, task: Task, wait: HiddenWait) -> TaskResult:
    """The result of the whole ``task`` from ``public``'s (graded on ``public_task``): each public
    case as graded, each hidden case ``not_run`` with the sentence of ``wait``, scored as the whole
    task scores (a task's total scales by all its cases). A file that did not run at all says the
    same of every case, hidden ones too (nothing of a hidden case ran)."""
    graded = {result.case.name: result for result in public.cases}
    if public.problem is not None:
        problem = public.problem
        waiting = [CaseResult(case=case, verdict=problem.verdict, message=problem.message) for case in task.cases]
    else:
        waiting = [CaseResult(case=case, verdict=Verdict.NOT_RUN, message=wait.sentence()) for case in task.cases]
    cases = tuple(graded.get(case.name) or waiting[index] for index, case in enumerate(task.cases))
    notes = public.notes + (wait.note(),)
    return replace(public, task=task, cases=cases, notes=notes)


def public_verdict(result: TaskResult) -> str:
    """The verdict a row graded on its public cases keeps: its first public case not accepted,
    else ``not_run`` (its hidden cases): a failure of a public case is never hidden behind them."""
    for case in result.cases:
        if not case.case.hidden and not case.accepted:
            return case.verdict.value
    return Verdict.NOT_RUN.value if any(case.case.hidden for case in result.cases) else Verdict.ACCEPTED.value


def release_due(now: Optional[datetime] = None) -> int:
    """Ask again (``queue.ask_again``: a regrade, owed idle work) for every graded row of the
    public cases only whose hidden cases may run now; how many. Rows already owed a grading are
    left: the grading they wait for decides at its start."""
    rows = Submission.objects.filter(public_only=True, status=DONE, pending=False)
    if hidden_results() == AT_ONCE:
        return queue.ask_again(rows.values_list("id", flat=True))
    now = now or timezone.now()
    due: list = []
    for task_id in rows.values_list("task", flat=True).distinct():
        of_task = rows.filter(task=task_id)
        extended = Extension.objects.filter(task=task_id)
        passed = extended.filter(deadline__lt=now).values_list("student_id", flat=True)
        deadline = TaskPolicy.objects.filter(task=task_id).values_list("deadline", flat=True).first()
        by_task = Q(pk__in=[])
        if deadline is not None and deadline < now:
            by_task = ~Q(student_id__in=extended.values_list("student_id", flat=True))
        due += of_task.filter(by_task | Q(student_id__in=passed)).values_list("id", flat=True)
    return queue.ask_again(due)
