"""Does a hidden case's name give away its input or its expected answer?

A student sees a hidden case's name, verdict and hint, never its input or answer; a name such as
``1 xor 1 is 0`` shows both. ``telling_name`` says what a name gives away, ``hidden_name_warnings``
lists the hidden cases of a task whose names do (``verify`` shows them as worth a look, and
``add-case`` when it is given such a name). The rule, meant to catch the usual ``<input> is
<answer>`` names and little else (docs/testcases.md, "Hidden cases"); letter case and runs of white
space do not matter, and the number after the word ``case`` in a name (``hidden case 3``) is the
case's own number, not data:

- numbers: all the numbers of the input (or of an expected answer), in their order and with no
  other number between them, are numbers of the name (``1 1`` in ``1 xor 1 is 0``, ``[5, 4, 3, 2]``
  in ``5, 4, 3, 2 is a P-position``, ``13`` in ``13 is 1101 in binary``). Numbers are compared by
  value (``000`` is ``0``) wherever their digits are (``x64`` holds 64); a ``-`` right before the
  digits is their sign unless a letter or digit comes before it (``10-5`` is 10 and 5);
- text: the whole stripped input or expected answer appears in the name as words (bounded by
  characters that are not letters or digits), when it is at least 2 characters long;
- JSON: when the input or answer is JSON, each of its string values of at least 2 characters does
  too (``"HAL, a Computer Program"``), except the value of a ``type`` key, which says what is asked
  rather than holding data (``{"type": "is_human", "input": ...}``).

The JSON literals ``true``, ``false`` and ``null`` as a whole answer are not compared: a yes/no
answer cannot be kept out of names that say what is asked.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Iterator, List, Sequence

from grader.model import Case, Task

_NUMBER = re.compile(r"(?<![0-9A-Za-z])-?[0-9]+|[0-9]+")
_CASE_NUMBER = re.compile(r"\bcase\s+#?[0-9]+", re.IGNORECASE)
_SHORTEST_TEXT = 2  # characters: a text shorter than this (one digit, one letter) is a number or noise
_YES_NO = {"true", "false", "null"}
_SHOWN = 40  # characters of the input or answer quoted in a warning


def telling_name(case: Case) -> str:
    """What ``case``'s name gives away, as words (``its input ('1 1')``), or ``""`` when nothing.

    In: any case (hidden or not; interactive cases, with no input or answer, give nothing away).
    """
    return name_gives_away(case.name, case.input, case.expected)


def name_gives_away(name: str, case_input: str, expected: Sequence[str]) -> str:
    """What ``name`` gives away of ``case_input`` and the ``expected`` answers (any one of them), as
    words (``its input ('1 1') and its expected answer ('0')``), or ``""`` when nothing."""
    name = _normal(_CASE_NUMBER.sub(" ", name))
    numbers = _numbers(name)
    told = []
    if case_input.strip() and _appears(case_input, name, numbers):
        told.append(f"its input ({_shown(case_input)})")
    for answer in expected:
        if answer.strip() and _appears(answer, name, numbers):
            told.append(f"its expected answer ({_shown(answer)})")
            break
    return " and ".join(told)


def hidden_name_warnings(task: Task) -> List[str]:
    """One sentence per hidden case of ``task`` whose name gives its input or answer away, naming
    the file, the case's line and the key ``name``; empty when none does."""
    warnings = []
    for case in task.cases:
        if not case.hidden:
            continue
        told = telling_name(case)
        if told:
            warnings.append(
                f"{task.source}, line {case.line}, key 'name': the hidden case '{case.name}' names {told}, which "
                "students are never to see: a hidden case shows its name to them, so rename it by what it "
                "checks without its values, or 'hidden case N'"
            )
    return warnings


def _appears(text: str, name: str, name_numbers: Sequence[str]) -> bool:
    """Does ``text`` (an input or an answer) appear in ``name`` (normalised) by the module's rule?"""
    wanted = list(itertools.islice(_number_values(text), len(name_numbers) + 1))
    if wanted and len(wanted) <= len(name_numbers) and _run_in(wanted, name_numbers):
        return True
    return any(_has_words(piece, name) for piece in _texts(text))


def _texts(text: str) -> Iterator[str]:
    """The whole text and, for JSON, its string values (those under a ``type`` key aside)."""
    whole = _normal(text)
    if whole not in _YES_NO:
        yield whole
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than Python's parser goes
        return
    yield from (_normal(s) for s in _strings(value))


def _strings(value, key: str = "") -> Iterator[str]:
    if isinstance(value, str):
        if key != "type":
            yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for inner, item in value.items():
            yield from _strings(item, str(inner))


def _has_words(piece: str, name: str) -> bool:
    """``piece`` appears in ``name`` with no letter or digit glued to either end."""
    if len(piece) < _SHORTEST_TEXT or len(piece) > len(name):
        return False
    pattern = r"(?<![0-9a-z])" + re.escape(piece) + r"(?![0-9a-z])"
    return re.search(pattern, name) is not None


def _run_in(wanted: Sequence[str], numbers: Sequence[str]) -> bool:
    """``wanted`` occurs in ``numbers`` as a contiguous run."""
    width = len(wanted)
    return any(list(numbers[start : start + width]) == list(wanted) for start in range(len(numbers) - width + 1))


def _numbers(text: str) -> List[str]:
    return list(_number_values(text))


def _number_values(text: str) -> Iterator[str]:
    """The numbers of ``text`` as digit strings compared by value: ``-007`` is ``-7``, ``000`` is ``0``.

    Strings, not ints: an input may hold numbers of thousands of digits, which ``int`` refuses.
    """
    for match in _NUMBER.finditer(text):
        token = match.group()
        sign = "-" if token.startswith("-") else ""
        digits = token.lstrip("-").lstrip("0") or "0"
        yield ("" if digits == "0" else sign) + digits


def _normal(text: str) -> str:
    """``text`` in lower case, each run of white space one space, stripped."""
    return " ".join(text.split()).casefold()


def _shown(text: str) -> str:
    """``text`` on one line, shortened, in quotes, for a warning."""
    first = " ".join(text.split())
    if len(first) > _SHOWN:
        first = first[: _SHOWN - 3].rstrip() + "..."
    return f"'{first}'"
