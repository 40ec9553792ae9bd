"""Course hints that cannot reach the failures they are about, read from the test case file alone.

In: a ``Task``. Out: ``hint_reach_warnings``, sentences ``verify`` lists as worth a look (the exit
status does not change: the wording is the instructor's call). Three cases, each a hint that is
never shown where it would help, or shown where it misleads:

- a hint about speed ("keep it quick", "too slow", "faster") that is never shown after a time-out
  the grader found to be slow work: a plain ``hint`` and a known mistake explain a wrong answer
  only, and a ``when`` with no ``time_out`` holds only where the grader could not tell the kind
  (``grade/mistakes``: where it told one, its own sentence speaks), so a correct but slow program
  loses the case with no word of it (``when: {verdict: time_limit_exceeded, time_out: [slow,
  unclear]}`` is the way to say it);
- a hint about a loop that never ends, tied to time-outs that may be slow work (``unclear`` ones, or
  ``slow``): a brute force that is merely slow is told it loops (``time_out: loop`` ties it to the
  time-outs the grader found in a loop);
- a hint after one that always wins over it: an earlier hint of the case with the same verdicts or
  more and no other condition is always chosen first, so the later one never shows.

Which words make a hint "about speed" or "about a loop" is a short list (``_SPEED``, ``_ENDLESS``):
meant to catch the usual wording and little else.
"""

from __future__ import annotations

import re
from typing import Dict, List, Tuple

from grader.grade.mistakes.hints import course_hints
from grader.model import Case, Hint, Task, Verdict
from grader.safe_text import plural

_SPEED = re.compile(r"\b(quick(ly|er)?|fast(er)?|slow(er|ly)?|speed|efficient(ly)?|time limit|in time)\b", re.I)
_ENDLESS = re.compile(r"never ends|never stops|endless|infinite loop|loops? forever", re.I)
_TLE = Verdict.TIME_LIMIT_EXCEEDED
_SHOWN = 70  # characters of a hint quoted in a warning


def hint_reach_warnings(task: Task) -> List[str]:
    """The hints of ``task``'s cases that cannot reach the failures they are about (module
    docstring), each said once for all the cases that share it (a YAML anchor)."""
    found: Dict[Tuple[str, str, str], List[Case]] = {}
    for case in task.cases:
        hints = [hint for hint, _ in course_hints(case)]
        for number, hint in enumerate(hints):
            if _SPEED.search(hint.text) and not _after_slow(hint):
                shown = ", ".join(v.value for v in hint.when.verdicts)
                found.setdefault(("speed", hint.text, shown), []).append(case)
            if _ENDLESS.search(hint.text) and _TLE in hint.when.verdicts and hint.when.time_out != ("loop",):
                found.setdefault(("endless", hint.text, ""), []).append(case)
            winner = next((h for h in hints[:number] if _always_before(h, hint)), None)
            if winner is not None:
                found.setdefault(("shadowed", hint.text, winner.text), []).append(case)
    return [_warning(kind, text, other, cases, task.source) for (kind, text, other), cases in found.items()]


def _warning(kind: str, text: str, other: str, cases: List[Case], source: str) -> str:
    first = cases[0]
    more = f" and {plural(len(cases) - 1, 'other case')}" if len(cases) > 1 else ""
    where = f"'{_quoted(text)}' on '{first.name}' (line {first.line} of {source}){more}"
    if kind == "speed":
        return (
            f"the hint {where} is about speed but shows only after {other}: a correct program that is too slow "
            "gets a time-out and never sees it; tie it to time-outs with a 'hints' entry, when: {verdict: "
            "time_limit_exceeded, time_out: [slow, unclear]}"
        )
    if kind == "endless":
        return (
            f"the hint {where} is about a loop that never ends, but shows after time-outs that may be slow work "
            "(those the grader could not tell apart): add time_out: loop to its when, so that it shows where the "
            "grader found such a loop"
        )
    return (
        f"the hint {where} can never show: the hint '{_quoted(other)}' before it holds on every failure it "
        "would explain and is chosen first; give the earlier one a condition, or remove one"
    )


def _after_slow(hint: Hint) -> bool:
    """Is ``hint`` shown after a time-out the grader found to be slow work?"""
    return _TLE in hint.when.verdicts and "slow" in hint.when.time_out


def _always_before(earlier: Hint, later: Hint) -> bool:
    """Does ``earlier`` hold on every failure ``later`` could explain (so it is always chosen first)?"""
    when = earlier.when
    unconditional = (
        when.output is None
        and when.pattern is None
        and when.exception is None
        and when.exception_text is None
        and not when.accepted
        and not when.time_out
    )
    # (a when with no time_out holds on no time-out the grader told a loop or slow work)
    told = _TLE in later.when.verdicts and bool(set(later.when.time_out) - {"unclear"})
    return unconditional and set(later.when.verdicts) <= set(when.verdicts) and not told


def _quoted(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
