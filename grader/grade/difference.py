"""Where an output first departs from the expected one: the place the report highlights.

Text in, a ``Difference`` (1-based line and column) or None out. Lines compare as the text checker
does (``significant_lines``), so what is highlighted is what the checker objected to.
"""

from __future__ import annotations

from typing import Optional

from grader.check.checkers import significant_lines
from grader.model import Difference


def first_difference(expected: str, actual: str) -> Optional[Difference]:
    """The first (line, column) where ``actual`` departs from ``expected``, both 1-based.

    Lines compare as the text checker does (trailing white space ignored); None when equal.
    """
    want, got = significant_lines(expected), significant_lines(actual)
    for number in range(max(len(want), len(got))):
        mine = got[number] if number < len(got) else None
        theirs = want[number] if number < len(want) else None
        if mine == theirs:
            continue
        if mine is None or theirs is None:
            return Difference(line=number + 1, column=1)
        column = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
        return Difference(line=number + 1, column=column + 1)
    return None
