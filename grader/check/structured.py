"""The checkers of answers with a structure: ``float`` (numbers within a tolerance), ``regex`` (the
output has a form) and ``json`` (the same JSON value).

In: a program's output and the expected text (a number list, a pattern, a JSON text). Out: a
``CheckOutcome`` saying where the answer departs from it; and the validators that reject, at load
time, an expected text or options these checkers cannot use.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Mapping, Optional, Sequence

from grader.check import patterns
from grader.check.guard import unreadable_message
from grader.check.text import ACCEPTED, extra_lines_message, first_word_message, quote, significant_lines
from grader.model import CheckOutcome, Verdict


def check_float(
    actual: str,
    expected: str,
    case_input: str,
    *,
    abs_tol: float = 1e-9,
    rel_tol: float = 1e-9,
) -> CheckOutcome:
    """Word by word; words that are numbers on both sides may differ within the tolerances."""
    got, want = actual.split(), expected.split()
    for number, (mine, theirs) in enumerate(zip(got, want), start=1):
        if mine == theirs:
            continue
        try:
            close = math.isclose(float(mine), float(theirs), abs_tol=abs_tol, rel_tol=rel_tol)
        except ValueError:
            close = False
        if not close:
            return CheckOutcome(
                Verdict.WRONG_ANSWER,
                f"Value {number} differs: expected {quote(theirs)}, your program printed "
                f"{quote(mine)} (allowed difference: {abs_tol:g}, or {rel_tol:g} relative).",
            )
    if len(got) != len(want):
        return CheckOutcome(Verdict.WRONG_ANSWER, first_word_message(got, want))
    return ACCEPTED


def validate_float_options(options: Mapping[str, Any]) -> Optional[str]:
    """Why the ``float`` checker's tolerances cannot be used (each must be 0 or more), or None."""
    for key in ("abs_tol", "rel_tol"):
        value = options.get(key, 0.0)
        if not 0 <= value < math.inf:
            return f"option '{key}' of checker 'float' must be a number of 0 or more, not {value!r}"
    return None


_REGEX_FLAGS = {"IGNORECASE": patterns.IGNORECASE, "MULTILINE": patterns.MULTILINE, "DOTALL": patterns.DOTALL}


def _regex_flags(flags) -> int:
    value = 0
    for name in flags:
        value |= _REGEX_FLAGS[name]
    return value


def check_regex(actual: str, expected: str, case_input: str, *, flags: Sequence[str] = ()) -> CheckOutcome:
    """The whole output matches ``expected`` as a regular expression.

    Lines are compared as the text checker reads them: trailing white space (and Windows line
    ends) and trailing blank lines do not matter.
    """
    if patterns.fullmatch(expected, "\n".join(significant_lines(actual)), _regex_flags(flags)):
        return ACCEPTED
    return CheckOutcome(
        Verdict.WRONG_ANSWER,
        f"Your output {quote(actual.strip())} does not have the expected form.",
    )


def validate_regex_options(options: Mapping[str, Any]) -> Optional[str]:
    """Why the ``regex`` checker's ``flags`` cannot be used (an unknown flag), or None."""
    for flag in options.get("flags", ()):
        if not isinstance(flag, str) or flag not in _REGEX_FLAGS:
            return f"unknown regex flag {flag!r} (known: {', '.join(_REGEX_FLAGS)})"
    return None


def validate_regex(expected: str, options: Mapping[str, Any]) -> Optional[str]:
    """Why ``expected`` is not a usable regular expression, or None."""
    problem = patterns.problem(expected)
    return f"expected is not a valid regular expression: {problem}" if problem else None


def check_json(actual: str, expected: str, case_input: str) -> CheckOutcome:
    """The same JSON value: numbers by value, ``true`` never equal to ``1``, key order free."""
    want = json.loads(expected)
    try:
        got = json.loads(actual)
    except json.JSONDecodeError as error:
        lines = significant_lines(actual)
        answer_lines = [i for i, line in enumerate(lines) if _is_json_of(line, want)]
        if answer_lines:
            extra = extra_lines_message(lines, [lines[answer_lines[0]]]) or ""
            return CheckOutcome(Verdict.WRONG_ANSWER, extra, answer_found=True)
        return CheckOutcome(Verdict.WRONG_ANSWER, _not_json_message(actual, error))
    except (ValueError, RecursionError) as error:  # JSON Python will not read: 5,000 digits, deep brackets
        return CheckOutcome(Verdict.WRONG_ANSWER, unreadable_message(error))
    where = _json_difference(got, want, "")
    if where is None:
        return ACCEPTED
    path, mine, theirs = where
    place = f" in {_path_words(path)}" if path and path != "the top level" else ""
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) != len(theirs):
        where_list = f"The list{place}" if place else "Your list"
        return CheckOutcome(
            Verdict.WRONG_ANSWER,
            f"{where_list} has {len(mine)} item{'s' if len(mine) != 1 else ''}; {len(theirs)} "
            f"{'were' if len(theirs) != 1 else 'was'} expected: expected {quote(_dump(theirs))}, your program "
            f"printed {quote(_dump(mine))}.",
        )
    return CheckOutcome(
        Verdict.WRONG_ANSWER,
        f"Your answer differs{place}: expected {quote(_dump(theirs))}, your program printed {quote(_dump(mine))}.",
    )


def _dump(value: Any) -> str:
    return json.dumps(value)


def _path_words(path: str) -> str:
    """``[0][2]`` → ``item 3 of item 1 (counting from 1)``: where in a JSON answer, for a person."""
    parts = re.findall(r"\[([^\]]*)\]", path)
    words = [f"item {int(p) + 1}" if p.isdigit() else f"key {p}" for p in parts]
    return " of ".join(reversed(words)) + " (counting from 1)"


def _is_json_of(line: str, want: Any) -> bool:
    """Is ``line`` (a line of untrusted output) the JSON value ``want``? False when it cannot be read."""
    try:
        return _json_difference(json.loads(line), want, "") is None
    except (ValueError, RecursionError):
        return False


def _not_json_message(actual: str, error: json.JSONDecodeError) -> str:
    text = actual.strip()
    if not text:
        return "Your program printed only white space; a JSON answer was expected."
    hint = ""
    if re.search(r"\b(True|False|None)\b", text) or "'" in text:
        hint = (
            " It looks like Python's own printing (True, False, None or 'quotes'): "
            "print json.dumps(answer) instead, as the main block of the exercise does."
        )
    elif len(text.splitlines()) > 1:
        hint = " Your program printed several lines: leftover debug prints? Print only the answer."
    return f"Your output {quote(text)} is not valid JSON ({error.msg}).{hint}"


def _json_difference(got: Any, want: Any, path: str):
    """(path, got, want) of the first difference, or None when equal."""
    if isinstance(want, bool) or isinstance(got, bool):
        same = isinstance(want, bool) and isinstance(got, bool) and want == got
        return None if same else (path, got, want)
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        return None if got == want else (path, got, want)
    if isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want) and all(not isinstance(v, (list, dict)) for v in got + want):
            return (path or "the top level", got, want)  # a flat list of the wrong length: say so first
        for index, (mine, theirs) in enumerate(zip(got, want)):
            found = _json_difference(mine, theirs, f"{path}[{index}]")
            if found:
                return found
        if len(got) != len(want):
            return (path or "the top level", got, want)
        return None
    if isinstance(want, dict) and isinstance(got, dict):
        if set(got) != set(want):
            return (path, got, want)
        for key in want:
            found = _json_difference(got[key], want[key], f"{path}[{json.dumps(key)}]")
            if found:
                return found
        return None
    return None if type(got) is type(want) and got == want else (path, got, want)


def validate_json(expected: str, options: Mapping[str, Any]) -> Optional[str]:
    """Why ``expected`` is not valid JSON (with the column), or None."""
    try:
        json.loads(expected)
    except json.JSONDecodeError as error:
        return f"expected is not valid JSON ({error.msg}, column {error.colno}): {quote(expected)}"
    return None
