"""What the worker keeps with a graded row for the site's pages, so that no page grades or runs
anything: the visible failing cases' outputs (``kept_outputs``, shown by ``site/landing.py``) and
the links back its stored report carries (``REPORT_LINKS``, served by ``site/pages.py``).

In: a graded ``TaskResult``. Out: plain lists and strings a row's JSON field holds.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from grader.model import TaskResult, Verdict
from grader.report.shown import Shown, ShownLine, shown_lines

# What the page shows of an input or output: a few lines, and those around the first difference.
LANDING = Shown(head_lines=6, context_lines=2, tail_lines=1, line_chars=160, text_chars=600)
KEPT_FAILURES = 40  # visible failing cases whose outputs a row keeps (the full report has every case)
# The report's links back, relative to /submissions/N/report: that submission's page, the exercises.
REPORT_LINKS = (("./", "← This submission"), ("/", "All tasks"))


def kept_outputs(result: TaskResult) -> List[Dict[str, Any]]:
    """What a graded row keeps for its page: for each visible case that ran and was not accepted
    (the first ``KEPT_FAILURES``), its name and its input, expected output (None when several
    answers are right) and actual output as lines to show (``LANDING``: the first difference
    marked), whether the output is a game's transcript, and the grader's note on it. Never a
    hidden case's anything; nothing when the file did not run."""
    if result.problem is not None:
        return []
    kept: List[Dict[str, Any]] = []
    for case in result.cases:
        if case.case.hidden or case.accepted or case.verdict is Verdict.NOT_RUN:
            continue
        diff = case.difference
        line, column = (diff.line, diff.column) if diff else (0, 0)
        expected = shown_lines(case.expected, line, column, LANDING) if case.case.expected else None
        kept.append(
            {
                "name": case.case.name,
                "input": _stored(shown_lines(case.case.input, shown=LANDING)),
                "expected": _stored(expected) if expected is not None else None,
                "actual": _stored(shown_lines(case.actual, line, column, LANDING)),
                "game": case.game,
                "note": case.actual_note,
            }
        )
        if len(kept) == KEPT_FAILURES:
            break
    return kept


def _stored(lines: Sequence[ShownLine]) -> list:
    return [[s.number, s.before, s.marked, s.after, s.differs, s.gap] for s in lines]
