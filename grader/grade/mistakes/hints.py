"""Which of a case's hints a failure gets: the first whose conditions (``When``) all hold, or none.

A case's hints are tried in order (``course_hints``): its known mistakes and the task's, its
``hints`` entries, and last its plain ``hint``, which explains a wrong answer only. In two steps:
``choices`` keeps, as one run is decided, the hints whose conditions on that run hold (its verdict,
what it printed, the exception it crashed with and its message, what a time-out was: ``time_outs``),
and ``decided`` chooses at once when the first of them waits for no other case; ``resolve``, once
every case of the file is graded, keeps the first whose ``accepted`` cases were accepted, and adds
it to the message. A hint tied to no evidence of the run itself (a plain hint, or one tied to a
verdict and earlier cases only) is not shown on a hidden case that failed the same way as a case
graded before it (``evidence.failed_before``): that failure is the earlier case's cause (the same
wrong format fails the small boards too), not what the hint is about, and the earlier case's
message says it. No hint is given where the grader's own sentence is the whole story: a right
answer printed among other lines, a crash caused by how the file is set up or by a limit of the
grader (the caller says so), a verdict no hint may be tied to (``HINT_VERDICTS``: nothing compiled,
nothing printed, not run). An ``exception`` or ``exception_text`` condition holds for Python's own
exception classes only (``ChildCrash.builtin``): a student's ``class IndexError(Exception)`` proves
nothing of the cause a hint names. Nothing here runs a program; a course's pattern is matched
within ``patterns.MATCH_SECONDS``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from grader.check import patterns
from grader.check.text import significant_lines
from grader.grade.mistakes import evidence
from grader.model import HINT_VERDICTS, TIME_OUT_KINDS, Case, CaseResult, Hint, Verdict, When
from grader.run.run_facts import ChildCrash

Choice = Tuple[Hint, bool]  # a hint, and True for a known mistake
_TOLD = frozenset(TIME_OUT_KINDS[:2])  # the kinds of time-out the grader names a cause for: loop, slow


def course_hints(case: Case) -> Tuple[Choice, ...]:
    """Every hint of ``case`` in the order they are tried: its own known mistakes and the task's
    (True), its ``hints`` and last its plain ``hint``, which explains a wrong answer only."""
    found = tuple(
        (Hint(m.hint, When(output=m.output, pattern=m.pattern, accepted=m.accepted)), True) for m in case.mistakes
    )
    found += tuple((hint, False) for hint in case.hints)
    return found + (((Hint(case.hint), False),) if case.hint else ())


def choices(
    case: Case, verdict: Verdict, output: Optional[str], crash: Optional[ChildCrash], time_out: str = ""
) -> Tuple[Choice, ...]:
    """The hints of ``case`` whose conditions on one run hold, in order, up to the first that needs
    no other case: what ``resolve`` chooses from.

    ``output`` is what the run printed (None: no output to look at, as for a case failed over its
    runs as a whole), ``crash`` the record of the exception it crashed with (None: it did not crash,
    or the crash gets no course hint), ``time_out`` what the grader found a time-out to be
    (``time_outs``: ``loop``, ``slow``, ``unclear``; "" for none, or a run that waited).
    """
    if verdict not in HINT_VERDICTS:
        return ()
    found: List[Choice] = []
    for hint, mistake in course_hints(case):
        if _holds(hint.when, verdict, output, crash) and _time_out_holds(hint.when, verdict, time_out):
            found.append((hint, mistake))
            if not _waits(hint.when):
                break  # it is always chosen when reached: nothing after it can show
    return tuple(found)


def resolve(results: Sequence[CaseResult], others: Optional[Mapping[str, CaseResult]] = None) -> List[CaseResult]:
    """``results`` (one file's cases, in the order they were graded: every visible case before the
    hidden ones) with each failure's hint chosen: the first of its ``hint_choices`` whose
    ``accepted`` cases were accepted, among ``results`` and ``others`` (results of the same file
    graded earlier, by case name), and that is the case's own to give (``_waits``), added to its
    message. What grading kept to compare failures by (``CaseResult.failure``) is dropped.

    A case named there that was not graded, or not run, counts as not accepted.
    """
    verdicts: Dict[str, Verdict] = {name: result.verdict for name, result in (others or {}).items()}
    verdicts.update((result.case.name, result.verdict) for result in results)
    explained = evidence.failed_before(results)
    return [replace(_resolved(r, verdicts, r.case.name in explained), failure=(), advice="") for r in results]


def decided(result: CaseResult) -> CaseResult:
    """``result`` with its hint already chosen when no other case can change the choice: the first
    of its ``hint_choices`` is tied to evidence of this run and waits for no earlier case (a
    pattern, an exception...), and no conjecture waits to be said before it. Else as it is, for
    ``resolve``."""
    if result.hint_choices and not _waits(result.hint_choices[0][0].when) and result.conjecture is None:
        return _resolved(result, {}, False)
    return result


def hint_sentence(text: str, mistake: bool) -> str:
    """How a course's hint is put after the grader's message."""
    return f"This is a common mistake: {text}" if mistake else f"Hint: {text}"


def _waits(when: When) -> bool:
    """Whether a hint's choice waits for the file's other cases: it names earlier cases that must
    be accepted, or it is tied to no evidence of the run itself (no output, pattern or exception),
    so that a case failed the same way before explains the failure instead (``resolve``)."""
    return bool(when.accepted) or not _own_evidence(when)


def _own_evidence(when: When) -> bool:
    """Whether ``when`` asks something of the run's own output, exception or time-out."""
    own = (when.output, when.pattern, when.exception, when.exception_text)
    return any(x is not None for x in own) or bool(when.time_out)


def _resolved(result: CaseResult, verdicts: Mapping[str, Verdict], failed_before: bool) -> CaseResult:
    """``result`` with the one explanation it gets added to its message: the first of its hints
    that holds, else the grader's ``advice`` (what its exception usually means), else none."""
    for hint, mistake in result.hint_choices:
        if failed_before and not _own_evidence(hint.when):
            continue  # the earlier case's cause, not what this hint is about
        if all(verdicts.get(name) is Verdict.ACCEPTED for name in hint.when.accepted):
            message = f"{result.message} {hint_sentence(hint.text, mistake)}".strip()
            return replace(result, message=message, hint=hint.text, hint_choices=(), advice="")
    message = f"{result.message} {result.advice}".strip()
    return replace(result, message=message, hint_choices=(), advice="")


def _holds(when: When, verdict: Verdict, output: Optional[str], crash: Optional[ChildCrash]) -> bool:
    """Do the conditions of ``when`` on one run hold (``accepted`` is ``resolve``'s)?"""
    if verdict not in when.verdicts:
        return False
    if not _crash_holds(when, crash):
        return False
    if when.output is None and when.pattern is None:
        return True
    if output is None or not output.strip():
        return False
    if when.output is not None:
        return "\n".join(significant_lines(output)) == "\n".join(significant_lines(when.output))
    return when.pattern is not None and _found(when.pattern, output)


def _time_out_holds(when: When, verdict: Verdict, time_out: str) -> bool:
    """Does ``when``'s ``time_out`` hold: on a time-out, is it of a kind the hint names? A hint that
    names none holds where the grader could not tell the kind (``unclear``, a run that waited): where
    it told a loop that never ends or slow work, its sentence names the cause, and a hint that says
    nothing of which it is would be a second voice that may contradict it. Other verdicts of the
    hint are not affected."""
    if verdict is not Verdict.TIME_LIMIT_EXCEEDED:
        return True
    if when.time_out:
        return time_out in when.time_out
    return time_out not in _TOLD


def _crash_holds(when: When, crash: Optional[ChildCrash]) -> bool:
    """Do ``when``'s conditions on the exception hold: a crash with Python's own exception of that
    class, whose message the ``exception_text`` regex is found in? (True when it has none.)"""
    if when.exception is None and when.exception_text is None:
        return True
    if crash is None or not crash.builtin:
        return False  # no crash record, or the student's own class of that name: its cause is unknown
    if when.exception is not None and when.exception != crash.exception:
        return False
    return when.exception_text is None or _found(when.exception_text, crash.text)


def _found(pattern: str, text: str) -> bool:
    """Is the course's ``pattern`` found in ``text`` within the time bound?"""
    try:
        return patterns.search(pattern, text)
    except patterns.PatternTimeout:
        return False  # no match found in time: not this hint, never a stop
