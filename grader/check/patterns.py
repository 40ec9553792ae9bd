"""A course's regular expressions matched against a program's output within a time bound.

A pattern of the usual form (``\\[(\\d+(, )?)*\\]``) can take minutes on an output of a few dozen
characters a program chose for it (backtracking), and Python's ``re`` cannot be stopped meanwhile.
The ``regex`` package matches the same patterns (its default version follows ``re``) and stops
after ``MATCH_SECONDS``: ``PatternTimeout`` then, which the checker's guard makes the student's
wrong answer and a known mistake treats as not matched.
"""

from __future__ import annotations

from typing import Optional

import regex

# The time one match of a course's pattern may take on one output.
MATCH_SECONDS = 1.0
IGNORECASE, MULTILINE, DOTALL = regex.IGNORECASE, regex.MULTILINE, regex.DOTALL


class PatternTimeout(Exception):
    """A pattern took longer than ``MATCH_SECONDS`` on an output."""

    def __init__(self) -> None:
        super().__init__(
            f"the case's pattern took more than {MATCH_SECONDS:g} s to match your output (its form makes "
            "the pattern try too many ways)"
        )


def fullmatch(pattern: str, text: str, flags: int = 0) -> bool:
    """Does ``pattern`` match all of ``text``? ``PatternTimeout`` past the bound."""
    try:
        return regex.fullmatch(pattern, text, flags, timeout=MATCH_SECONDS) is not None
    except TimeoutError:
        raise PatternTimeout() from None


def search(pattern: str, text: str) -> bool:
    """Does ``pattern`` match somewhere in ``text``? ``PatternTimeout`` past the bound."""
    try:
        return regex.search(pattern, text, timeout=MATCH_SECONDS) is not None
    except TimeoutError:
        raise PatternTimeout() from None


def problem(pattern: str) -> Optional[str]:
    """Why ``pattern`` cannot be used (it does not compile), or None."""
    try:
        regex.compile(pattern)
    except regex.error as error:
        return str(error)
    return None
