"""What one file's failures prove together: a cause is said where it explains them, a smaller input
is shown where it fails the same way, and a failure explained by an earlier one is told so.

One failing case seldom proves a cause. A program that always answers [1, 1] is right as [2, 1] on
a board where that happens to win, so "rows count from 1: your move would be right as [2, 1]"
from that one board misleads; a smaller input that fails with another exception is another bug;
a case that fails the same way as an earlier one (the same wrong format, the same crash) fails for
the earlier one's cause, whatever its own hint is about. Pure functions over ``CaseResult``:

- ``failure_key``: how one run failed, as two failures are compared: its verdict, and for a crash
  with a record Python's (or the student's) exception class and the file and line it was raised
  at; else the message with what belongs to its case alone taken out (numbers, lists, how many
  times a word of a quoted output comes), so that 'Line 2 differs from column 4: expected "1: X X",
  your program printed "1: | |"' and the same of row 7 are one kind, and 'expected "0", your
  program printed "16"' and 'expected "true", your program printed "false"' two.
  Grading keeps it on a failed result (``CaseResult.failure``) while the file is graded.
- ``same_failure``: do two results fail the same way (shrinking shows a smaller input only then)?
- ``settle``: each ``Conjecture`` (a cause a checker saw in one output) said in its case's message
  where the same cause explains at least ``MIN_EXPLAINED`` of the file's failing visible cases and
  at least ``SHARE`` of them; else dropped, and the cases say the plain facts.
- ``failed_before``: the hidden cases that failed the same way as a case graded before them (every
  visible case before the hidden ones, each in file order), whose hints tied to no evidence of their
  own are then not theirs to show (``hints.resolve``). Of a hidden case a student reads only its
  verdict and hint, so its hint reads as the cause; where a case before it failed the same way, the
  cause is that one, whose message (input, expected, got on a visible case) says it. A visible case
  keeps its hint: it shows its own facts beside it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from typing import FrozenSet, List, Optional, Sequence, Set, Tuple

from grader.model import CaseResult, Verdict
from grader.run.run_facts import ChildCrash

# A conjecture is said when it explains at least this many of the failing visible cases...
MIN_EXPLAINED = 2
# ...and at least this share of them: "all, or clearly most".
SHARE = 2 / 3

_QUOTED = re.compile(r'"[^"\n]*"|`[^`\n]*`')
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_LIST = re.compile(r"\[[#,\s]*\]")
_PLURAL = re.compile(r"(# \w+?)s\b")
_RUN = re.compile(r"(?<!\S)(\S+)(?: \1)*(?!\S)")  # a word and its repeats: "X", "X X X"
_ELIDED = re.compile(r"(\S+…)\s+\.\.\.…\s+\1")  # a long text shortened in its middle ("check.text.quote")


def failure_key(verdict: Verdict, message: str, crash: Optional[ChildCrash] = None) -> Tuple[str, ...]:
    """How a run that ended with ``verdict`` and ``message`` failed, as two failures are compared
    (``crash``: the record of the exception it crashed with, if any): (verdict, kind, detail), the
    kind as ``message_kind`` says, the detail as ``message_detail`` (for a crash, both its exception
    and where it was raised). () for an accepted run."""
    if verdict is Verdict.ACCEPTED:
        return ()
    if crash is not None:
        frame = crash.frames[-1] if crash.frames else None
        where = f"{crash.exception} at {frame.file}:{frame.line}" if frame is not None else crash.exception
        return (verdict.value, where, where)
    return (verdict.value, message_kind(message), message_detail(message))


def message_kind(message: str) -> str:
    """``message`` without what belongs to its case alone: its numbers, lists of numbers (``[#, #]``)
    and the plural a number takes; in quoted text (an output, an expected answer) its numbers and how
    often a word comes again ("1: X X X" and "4: X" are "#: X…", a row of that form; "true" stays
    "true", another answer than "#")."""
    return _normalized(message, numbers_quoted=False)


def message_detail(message: str) -> str:
    """``message_kind``, with a quoted text that is a number alone as it is (an answer): 'expected
    "1", your program printed "0"' is another failure than 'expected "0", your program printed "1"';
    'expected "1: X X X", your program printed "1: | | |"' is the same as on a row of 1000 objects,
    or on row 2."""
    return _normalized(message, numbers_quoted=True)


def _normalized(message: str, numbers_quoted: bool) -> str:
    parts: List[str] = []
    end = 0
    for quoted in _QUOTED.finditer(message):
        parts += [_NUMBER.sub("#", message[end : quoted.start()]), _shape(quoted.group(), numbers_quoted)]
        end = quoted.end()
    parts.append(_NUMBER.sub("#", message[end:]))
    return _PLURAL.sub(r"\1", _LIST.sub("[…]", "".join(parts)))


def _shape(quoted: str, numbers: bool) -> str:
    """A quoted text's form: numbers as # (unless ``numbers`` and the text is a number alone), a word
    and its repeats as one, a shortened middle left out."""
    inner = quoted[1:-1]
    if not (numbers and _NUMBER.fullmatch(inner.strip())):
        inner = _NUMBER.sub("#", inner)
    inner = _ELIDED.sub(r"\1", _RUN.sub(r"\1…", inner))
    return quoted[0] + inner + quoted[-1]


def same_failure(first: CaseResult, second: CaseResult) -> bool:
    """Whether two failed results failed the same way: the same verdict and kind (a smaller input's
    numbers are its own)."""
    return bool(first.failure) and first.verdict is second.verdict and first.failure[:2] == second.failure[:2]


def settle(results: Sequence[CaseResult]) -> List[CaseResult]:
    """``results`` (one file's, as graded) with each conjecture said in its message where it
    explains the file's failing visible cases (``MIN_EXPLAINED``, ``SHARE``), else dropped.

    Only visible cases are evidence: of a hidden case a student may learn the verdict, never what
    the program printed there (``docs/security.md``).
    """
    failing = [r for r in results if _counts(r) and not r.case.hidden]
    explained = Counter(r.conjecture.kind for r in failing if r.conjecture is not None)
    confirmed = {kind for kind, count in explained.items() if count >= MIN_EXPLAINED and count >= SHARE * len(failing)}
    return [_said(result, confirmed) for result in results]


def failed_before(results: Sequence[CaseResult]) -> FrozenSet[str]:
    """The names of the hidden cases among ``results`` (in the order they were graded) that failed
    the same way as a case before them, to the detail (``message_detail``)."""
    seen: Set[Tuple[str, ...]] = set()
    later: Set[str] = set()
    for result in results:
        if not _counts(result) or not result.failure:
            continue
        if result.failure in seen and result.case.hidden:
            later.add(result.case.name)
        seen.add(result.failure)
    return frozenset(later)


def _counts(result: CaseResult) -> bool:
    """A failure that is evidence: a case run and not accepted."""
    return not result.accepted and result.verdict is not Verdict.NOT_RUN


def _said(result: CaseResult, confirmed: Set[str]) -> CaseResult:
    conjecture = result.conjecture
    if conjecture is None:
        return result
    if conjecture.kind in confirmed:  # the grader names the cause: it speaks alone, no course hint with it
        message = f"{result.message} {conjecture.text}".strip()
        return replace(result, message=message, conjecture=None, hint_choices=())
    return replace(result, conjecture=None)
