"""Kattis's default output validator, as the checker of this grader closest to it.

In: the validator flags of a problem or test group (``case_sensitive``, ``space_change_sensitive``,
``float_tolerance x``, ...) as problem.yaml and testdata.yaml give them. Out: a checker name and its
options, with a note for each way the checker differs from the validator. A tolerance that is not
a number is a ``UsageError`` naming the file; unknown flags are kept for the caller to note.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

from grader.authoring.importing import Notes
from grader.errors import UsageError


@dataclass
class ValidatorFlags:
    """The default output validator's flags (Kattis problemtools, default_validator.cc)."""

    case_sensitive: bool = False
    space_change_sensitive: bool = False
    abs_tol: Optional[float] = None
    rel_tol: Optional[float] = None
    unknown: Tuple[str, ...] = ()


def parse_flags(words: Sequence[str], where: str) -> ValidatorFlags:
    """Read validator flags as problemtools' default validator does: a later flag overrides an earlier
    one, and ``float_tolerance x`` sets both the absolute and the relative tolerance to x."""
    flags, unknown = ValidatorFlags(), []
    words = list(words)
    position = 0
    while position < len(words):
        word = words[position]
        if word == "case_sensitive":
            flags.case_sensitive = True
        elif word == "space_change_sensitive":
            flags.space_change_sensitive = True
        elif word in ("float_tolerance", "float_absolute_tolerance", "float_relative_tolerance"):
            text = words[position + 1] if position + 1 < len(words) else ""
            try:
                value = float(text)
            except ValueError:
                value = -1.0
            if not 0 <= value < math.inf:
                raise UsageError(f"{where}: '{word}' must be followed by a tolerance of 0 or more, not {text!r}.")
            if word != "float_relative_tolerance":
                flags.abs_tol = value
            if word != "float_absolute_tolerance":
                flags.rel_tol = value
            position += 1
        else:
            unknown.append(word)
        position += 1
    flags.unknown = tuple(unknown)
    return flags


def validator_checker(flags: ValidatorFlags, notes: Notes) -> Tuple[str, Dict[str, Any]]:
    """The checker and options closest to Kattis's default output validator with these flags.

    Followed: Kattis problemtools, support/default_validator/default_validator.cc, and the legacy
    package format's "Default Output Validator Specification". The validator compares the
    white-space-separated tokens of output and answer; case-INsensitively (strcasecmp) unless
    ``case_sensitive``; any run of white space equals any other unless ``space_change_sensitive``
    (then every white space character must match); with a float tolerance, a token that is a number
    in the answer must be a number within the absolute OR the relative tolerance (relative to the
    answer's value; math.isclose, used by our float checker, takes the larger of the two values, a
    negligible difference).
    """
    if flags.abs_tol is not None or flags.rel_tol is not None:
        options = {"abs_tol": flags.abs_tol or 0.0, "rel_tol": flags.rel_tol or 0.0}
        if not flags.case_sensitive:
            notes.add(
                "The float checker compares words that are not numbers case-sensitively, where Kattis ignores "
                "case (no case_sensitive flag)."
            )
        if flags.space_change_sensitive:
            notes.add("space_change_sensitive was not carried over: the float checker ignores how words are spaced.")
        return "float", options
    if flags.space_change_sensitive:
        notes.add(
            "space_change_sensitive maps to the text checker with trailing_space, which rejects changed spacing as "
            "Kattis does but forgives missing or extra line ends and blank lines at the very end of the output."
        )
        if not flags.case_sensitive:
            notes.add(
                "The text checker compares letters case-sensitively, where Kattis ignores case (space_change_sensitive "
                "without case_sensitive)."
            )
        return "text", {"trailing_space": True}
    return "tokens", ({} if flags.case_sensitive else {"case_sensitive": False})


def flag_words(value: Any, where: str) -> List[str]:
    """Validator flags given as one string (legacy) or a list of strings (2023-07)."""
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return [str(v) for v in value]
    if isinstance(value, dict) and isinstance(value.get("flags", ""), str):
        return value.get("flags", "").split()  # legacy map form {name: validator, flags: "..."}
    raise UsageError(f"{where}: the validator flags must be text such as 'float_tolerance 1e-6', not {value!r}.")
