"""Which graded submission of a task counts, and for how many points: the course record's one rule.

In: a student's graded submissions of one task (``Graded``: order, points, late or not, chosen or
not), the course's choice (``LATEST``, ``BEST`` or ``CHOSEN``), the task's late rule (``LateRule``)
and an instructor's adjustment (``Adjusted``). Out: the submission that counts (``pick``) and what
the mark is made of (``Standing``), which ``marks.marks_of`` applies to the task's result. The
portal's pages, its gradebook, its class page and its Gradescope zip all read marks through here,
so a late penalty or an adjustment is the same in each; ``grade`` knows no deadline, and its marks
are those of a ``Standing()``: the graded points, as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

LATEST, BEST, CHOSEN = "latest", "best", "chosen"
ACCEPT, PENALTY, NOT_COUNTED = "accept", "penalty", "not_counted"


@dataclass(frozen=True)
class LateRule:
    """What late work earns: ``ACCEPT`` in full, ``PENALTY`` less ``percent`` % of its points, or
    ``NOT_COUNTED`` (graded and shown, but an on-time submission counts, or none)."""

    rule: str = ACCEPT
    percent: int = 0

    def in_words(self) -> str:
        if self.rule == PENALTY:
            return f"late work loses {self.percent} % of its points"
        if self.rule == NOT_COUNTED:
            return "late work is graded but does not count"
        return "late work counts in full"


@dataclass(frozen=True)
class Graded:
    """One graded submission as the rule sees it: ``number`` orders hand-ins (later is larger)."""

    number: int
    score: float
    late: bool = False
    chosen: bool = False


@dataclass(frozen=True)
class Adjusted:
    """An instructor's change to a task's counted points, and the comment the student reads."""

    points: float
    comment: str


@dataclass(frozen=True)
class Standing:
    """What a task's mark is made of beyond its graded result: the counted submission was late (and
    the rule for it), every graded submission was late and none counts, an adjustment."""

    late: bool = False
    rule: LateRule = LateRule()
    late_only: bool = False
    adjusted: Optional[Adjusted] = None

    def late_points(self, score: float) -> float:
        """The points late work loses of ``score`` (0 when on time or the rule takes none)."""
        if self.late and self.rule.rule == PENALTY:
            return score * min(max(self.rule.percent, 0), 100) / 100
        return 0.0

    def counted(self, score: float, max_score: float) -> float:
        """The task's points: ``score`` less the late penalty, plus the adjustment, between 0 and
        ``max_score`` (an adjustment can neither make a task negative nor worth more than it is)."""
        if self.late_only:
            score = 0.0
        total = score - self.late_points(score) + (self.adjusted.points if self.adjusted else 0.0)
        return min(max(total, 0.0), max_score)


def counted_points(graded: Graded, rule: LateRule) -> float:
    """What ``graded`` would earn under ``rule`` before any adjustment (for choosing the best)."""
    return Standing(late=graded.late, rule=rule).counted(graded.score, float("inf"))


def pick(graded: Sequence[Graded], marks_from: str, rule: LateRule) -> Optional[Graded]:
    """The submission that counts: of those that may count (all, or the on-time ones when late work
    does not count), the latest; under ``BEST`` the one earning most after the late rule (the later
    of equal ones); under ``CHOSEN`` the one the student chose, or the latest when they chose none
    (or chose one that may not count). None when none may count."""
    eligible = sorted((g for g in graded if not (g.late and rule.rule == NOT_COUNTED)), key=lambda g: g.number)
    if not eligible:
        return None
    if marks_from == BEST:
        return max(reversed(eligible), key=lambda g: counted_points(g, rule))
    if marks_from == CHOSEN:
        chosen = [g for g in eligible if g.chosen]
        return chosen[-1] if chosen else eligible[-1]
    return eligible[-1]


def standing(
    graded: Sequence[Graded], counts: Optional[Graded], rule: LateRule, adjusted: Optional[Adjusted]
) -> Standing:
    """The ``Standing`` of a task whose graded submissions are ``graded`` and of which ``counts``
    (``pick``'s) counts."""
    late_only = counts is None and any(g.late for g in graded) and rule.rule == NOT_COUNTED
    late = counts is not None and counts.late
    return Standing(late=late, rule=rule, late_only=late_only, adjusted=adjusted)
