"""Known mistakes, by their signature: does a student's result look like a known-wrong solution's?

In: a graded ``TaskResult`` and the task's ``MistakeSignature`` values (made by
``authoring/mistake_signatures.py`` from the known-wrong solutions in ``solutions/wrong/<task>/``).
Out: the ``KnownMistake`` it matches, or None; ``with_known_mistake`` returns the result with its
``mistake`` field set.

A signature is what a known-wrong solution does on the task's VISIBLE cases: for each visible case
it fails, its verdict and a digest of its output (line ends made ``\\n``, final line breaks left
off; nothing else is normalised, so a spacing mistake stays itself). A hidden case never enters a
signature nor a match: a diagnosis a student reads may say nothing a hidden case decided.

A result matches a signature when (precision first: a wrong diagnosis is worse than none)

- its file ran (no compile error or broken rule: those say so already);
- no visible case the known-wrong solution fails is accepted in the result (that case tells the
  two apart);
- ``matched``, its failing visible cases on which it has the known-wrong solution's verdict and,
  for a wrong answer or a spacing mistake, the very same output, are at least three quarters of its
  failing visible cases and of the signature's cases that it ran (a case ``not_run`` after two
  time-outs, which may be hidden ones, counts on neither side); a crash, time-out or other verdict with no output
  to compare matches on the verdict alone but is never evidence;
- at least ``MIN_EVIDENCE`` of them are wrong answers or spacing mistakes with the same output;
- no other known mistake (other words) matches as many cases: a tie says nothing.

A signature whose known-wrong solution has fewer than ``MIN_EVIDENCE`` such cases is not made: it
could only ever match on verdicts.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Dict, Iterable, List, Optional, Tuple

from grader.model import KnownMistake, TaskResult, Verdict

# Verdicts whose output is compared: the only ones that are evidence of a particular mistake.
OUTPUT_VERDICTS = frozenset({Verdict.WRONG_ANSWER, Verdict.PRESENTATION_ERROR})
# Cases with the same wrong output a match needs at least: outputs such as "true" or "0" are common
# to many mistakes, so one or two alike prove little.
MIN_EVIDENCE = 3
# The share of the failing cases, the student's and the known-wrong solution's, that must match.
MIN_SHARE = 0.75


@dataclass(frozen=True)
class MistakeSignature:
    """A known-wrong solution's failures on the visible cases of its task.

    ``cases`` holds (case name, verdict value, output digest) for each visible case it fails, in
    the task's order; ``student_text`` reads after "Your answers match a known mistake:".
    """

    label: str
    student_text: str
    instructor_text: str
    cases: Tuple[Tuple[str, str, str], ...]


def output_digest(output: str) -> str:
    """The digest of an output as signatures compare it: ``\\r\\n`` read as ``\\n``, final line breaks
    left off."""
    text = output.replace("\r\n", "\n").rstrip("\n")
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def failing_visible(result: TaskResult) -> Dict[str, Tuple[str, str]]:
    """(verdict value, output digest) of each visible case of ``result`` that ran and was not
    accepted, by case name (the digest is "" for a verdict whose output is not compared)."""
    failing = {}
    for case in result.cases:
        if case.case.hidden or case.accepted or case.verdict is Verdict.NOT_RUN:
            continue
        digest = output_digest(case.actual) if case.verdict in OUTPUT_VERDICTS else ""
        failing[case.case.name] = (case.verdict.value, digest)
    return failing


def signature_of(result: TaskResult, label: str, student_text: str, instructor_text: str) -> Optional[MistakeSignature]:
    """The signature of a known-wrong solution's graded ``result``; None when the file did not run or
    fails fewer than ``MIN_EVIDENCE`` visible cases with a wrong output (nothing to match it by)."""
    if result.problem is not None:
        return None
    failing = failing_visible(result)
    if sum(1 for _, digest in failing.values() if digest) < MIN_EVIDENCE:
        return None
    cases = tuple((name, verdict, digest) for name, (verdict, digest) in failing.items())
    return MistakeSignature(label, student_text, instructor_text, cases)


def match_mistake(result: TaskResult, signatures: Iterable[MistakeSignature]) -> Optional[KnownMistake]:
    """The known mistake ``result`` matches (the module docstring says when), or None."""
    if result.problem is not None:
        return None
    failing = failing_visible(result)
    if not failing:
        return None
    accepted = {c.case.name for c in result.cases if c.accepted and not c.case.hidden}
    # cases not run (after two time-outs, hidden ones among them) decide nothing either way
    not_run = {c.case.name for c in result.cases if c.verdict is Verdict.NOT_RUN}
    found: List[Tuple[int, MistakeSignature]] = []
    for signature in signatures:
        known = {name: (verdict, digest) for name, verdict, digest in signature.cases if name not in not_run}
        if accepted & known.keys():
            continue
        matched = [name for name, seen in failing.items() if known.get(name) == seen]
        evidence = sum(1 for name in matched if failing[name][1])
        enough = len(matched) >= MIN_SHARE * len(failing) and len(matched) >= MIN_SHARE * len(known)
        if evidence >= MIN_EVIDENCE and enough:
            found.append((len(matched), signature))
    if not found:
        return None
    best = max(count for count, _ in found)
    texts = {signature.instructor_text for count, signature in found if count == best}
    if len(texts) > 1:
        return None  # two different mistakes explain the answers equally well: say neither
    signature = next(signature for count, signature in found if count == best)
    said = signature.student_text.rstrip(". ")  # the banner puts its own full stop after the count
    return KnownMistake(signature.label, said, signature.instructor_text, best, len(failing))


def with_known_mistake(result: TaskResult, signatures: Iterable[MistakeSignature]) -> TaskResult:
    """``result`` with ``mistake`` set to the known mistake it matches (unchanged when none)."""
    mistake = match_mistake(result, signatures)
    return result if mistake is None else replace(result, mistake=mistake)
