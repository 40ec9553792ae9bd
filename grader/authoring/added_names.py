"""The names ``add-case`` gives a new case when the instructor gives none.

In: the new case's input, or the names the task's cases already have. Out: a name no case has.
A visible case is named after its input; a hidden one only by a number, since students see a
hidden case's name and never its input.
"""

from __future__ import annotations

import re

DEFAULT_NAME_PREFIX = "added: "
DEFAULT_NAME_LENGTH = 40  # characters of the input's first line kept in a default name
# A hidden case's default name: students see it, so it must say nothing of the input.
HIDDEN_NAME = "hidden case {}"
_HIDDEN_NUMBER = re.compile(r"hidden case ([0-9]+)\b", re.IGNORECASE)
_NUMBERED_ONLY = re.compile(r"hidden case [0-9]+(?: \([0-9]+\))?", re.IGNORECASE)


def default_name(case_input: str) -> str:
    """``added: `` and the input's first line, shortened to 40 characters.

    A blank first line gives way to the first line that is not blank (an input of white space only
    is named as empty).
    """
    lines = [line.strip() for line in case_input.splitlines() if line.strip()]
    first = lines[0] if lines else "(empty input)"
    if len(first) > DEFAULT_NAME_LENGTH:
        first = first[: DEFAULT_NAME_LENGTH - 3].rstrip() + "..."
    return DEFAULT_NAME_PREFIX + first


def hidden_default_name(taken) -> str:
    """``hidden case N``, N one more than the largest number of a name in ``taken`` (the task's case
    names) that starts ``hidden case N`` (1 when none does), so a number is never used twice."""
    used = [int(match.group(1)) for match in map(_HIDDEN_NUMBER.match, taken) if match]
    return unused_name(HIDDEN_NAME.format(max(used, default=0) + 1), taken)


def numbered_only(name: str) -> bool:
    """Is ``name`` a hidden case's name of the form ``hidden_default_name`` gives (``hidden case 3``,
    ``hidden case 3 (2)``): words of the grader's own, which say nothing of the course?"""
    return _NUMBERED_ONLY.fullmatch(name.strip()) is not None


def unused_name(name: str, taken) -> str:
    """``name``, or ``name (2)``, ``name (3)``... the first that no case has."""
    candidate, number = name, 1
    while candidate in taken:
        number += 1
        candidate = f"{name} ({number})"
    return candidate
