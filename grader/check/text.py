"""The text checkers and their wording: ``text`` (line by line) and ``tokens`` (word by word).

In: a program's output and the expected text. Out: a ``CheckOutcome`` whose message names the first
line, column or word that differs, with white space made visible. The helpers that find and say
so serve the other checkers, grading, the report and add-case too: ``significant_lines``,
``visible``, ``quote``, and ``first_difference`` (the line and column a report marks).

The output is untrusted and may be tens of megabytes: every step here is linear in its size (the
search for the answer among extra lines too, ``find_lines``), so a hostile output costs the grader
no more than reading it.
"""

from __future__ import annotations

from typing import Optional

from grader.model import CheckOutcome, Difference, Verdict

ACCEPTED = CheckOutcome(Verdict.ACCEPTED)
# The ASCII characters str.split() takes for white space.
_ASCII_SPACE = b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


def significant_lines(text: str, keep_spaces: bool = False) -> list:
    """The lines of ``text`` with trailing white space (``\\r`` included) and blank tail removed.

    With ``keep_spaces`` only the line ends (``\\r``) are removed from each line.
    """
    lines = [line.rstrip("\r") if keep_spaces else line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def visible(text: str, spaces: bool = False) -> str:
    """White space a student cannot see, made visible: tabs as →, CR as \\r, and spaces as ·
    (every space with ``spaces=True``, else only those at the end of the line)."""
    text = text.replace("\t", "→").replace("\r", "\\r")
    if spaces:
        return text.replace(" ", "·")
    stripped = text.rstrip(" ")
    return stripped + "·" * (len(text) - len(stripped))


def quote(text: str, limit: int = 80, spaces: bool = False) -> str:
    """``text`` in double quotes for a message, white space made visible, shortened when long."""
    if len(text) > limit:
        half = limit // 2 - 2
        text = text[:half] + " ... " + text[-half:]
    return '"' + visible(text, spaces) + '"'


def first_column(mine: str, theirs: str) -> int:
    """The 1-based column where two lines first differ (one past the shorter when one begins the other)."""
    for index, (a, b) in enumerate(zip(mine, theirs)):
        if a != b:
            return index + 1
    return min(len(mine), len(theirs)) + 1


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
        return Difference(line=number + 1, column=first_column(mine, theirs))
    return None


def find_lines(lines: list, wanted: list) -> int:
    """Where ``wanted`` (a non-empty list of lines) first appears whole in ``lines``: its index, or -1.

    Knuth-Morris-Pratt over the lines' numbers (equal lines get the same one): each line is hashed
    once and the search makes at most 2 * (len(lines) + len(wanted)) comparisons of small integers,
    where comparing at every start would cost len(lines) * len(wanted).
    """
    numbers: dict = {}
    pattern = [numbers.setdefault(line, len(numbers)) for line in wanted]
    # fallback[i]: the length of the longest proper prefix of pattern[: i + 1] that is also its suffix
    fallback = [0] * len(pattern)
    matched = 0
    for index in range(1, len(pattern)):
        while matched and pattern[index] != pattern[matched]:
            matched = fallback[matched - 1]
        if pattern[index] == pattern[matched]:
            matched += 1
        fallback[index] = matched
    matched = 0
    for index, line in enumerate(lines):
        number = numbers.get(line, -1)  # -1: a line the answer does not have
        while matched and number != pattern[matched]:
            matched = fallback[matched - 1]
        if number == pattern[matched]:
            matched += 1
            if matched == len(pattern):
                return index - matched + 1
    return -1


def extra_lines_message(actual: list, expected: list) -> Optional[str]:
    """When the expected lines appear whole inside the actual ones, name the extra lines."""
    if not expected or len(actual) <= len(expected):
        return None
    start = find_lines(actual, expected)
    if start < 0:
        return None
    before, after = start, len(actual) - start - len(expected)
    parts = []
    if before:
        parts.append(f"{before} line{'s' if before > 1 else ''} before the answer")
    if after:
        parts.append(f"{after} line{'s' if after > 1 else ''} after it")
    first_extra = actual[0] if before else actual[start + len(expected)]
    return (
        f"The answer is right, but your program printed {' and '.join(parts)} "
        f"(the first is {quote(first_extra)}): leftover debug prints? "
        "Print only the answer."
    )


def check_text(actual: str, expected: str, case_input: str, *, trailing_space: bool = False) -> CheckOutcome:
    """Line by line; trailing white space on a line and trailing blank lines do not matter.

    Output equal to the expected one except for other white space is a presentation error. With
    ``trailing_space=True`` spaces at the end of a line count too (as a presentation error), for
    a task whose format forbids them.
    """
    if actual == expected:
        return ACCEPTED  # the common case, decided without splitting outputs of megabytes into lines
    got, want = significant_lines(actual), significant_lines(expected)
    if got == want:
        if trailing_space:
            exact_got = significant_lines(actual, keep_spaces=True)
            exact_want = significant_lines(expected, keep_spaces=True)
            if exact_got != exact_want:
                return CheckOutcome(Verdict.PRESENTATION_ERROR, _spacing_message(exact_got, exact_want))
        return ACCEPTED
    if same_but_spacing(actual, expected):
        return CheckOutcome(Verdict.PRESENTATION_ERROR, _spacing_message(got, want))
    extra = extra_lines_message(got, want)
    if extra:
        return CheckOutcome(Verdict.WRONG_ANSWER, extra, answer_found=True)
    return CheckOutcome(Verdict.WRONG_ANSWER, _first_line_message(got, want))


def same_but_spacing(actual: str, expected: str) -> bool:
    """Are the two texts the same once all white space is taken out?"""
    if actual.isascii() and expected.isascii():  # the usual case, without a list of every word
        mine, theirs = (text.encode("ascii").translate(None, _ASCII_SPACE) for text in (actual, expected))
        return mine == theirs
    return "".join(actual.split()) == "".join(expected.split())


def _spacing_message(got: list, want: list) -> str:
    for number, (mine, theirs) in enumerate(zip(got, want), start=1):
        if mine != theirs:
            return (
                f"The words are right but the spacing differs on line {number} from column "
                f"{first_column(mine, theirs)}: expected {quote(theirs, spaces=True)}, your program printed "
                f"{quote(mine, spaces=True)} (· is a space, → a tab). Check spaces and line breaks."
            )
    return (
        f"The words are right but they are split over {len(got)} lines instead of {len(want)}. Check your line breaks."
    )


def _first_line_message(got: list, want: list) -> str:
    for number, (mine, theirs) in enumerate(zip(got, want), start=1):
        if mine != theirs:
            return (
                f"Line {number} differs from column {first_column(mine, theirs)}: expected {quote(theirs)}, "
                f"your program printed {quote(mine)}."
            )
    if len(got) < len(want):
        return (
            f"Your output stops after {len(got)} line{'s' if len(got) != 1 else ''}; "
            f"{len(want)} were expected. The next expected line is {quote(want[len(got)])}."
        )
    return (
        f"Your output has {len(got) - len(want)} line(s) too many after the expected "
        f"{len(want)}; the first extra one is {quote(got[len(want)])}."
    )


def check_tokens(actual: str, expected: str, case_input: str, *, case_sensitive: bool = True) -> CheckOutcome:
    """The same words in the same order, however they are spaced or split across lines."""
    got, want = actual.split(), expected.split()
    if not case_sensitive:
        got, want = [w.lower() for w in got], [w.lower() for w in want]
    if got == want:
        return ACCEPTED
    return CheckOutcome(Verdict.WRONG_ANSWER, first_word_message(got, want))


def first_word_message(got: list, want: list) -> str:
    """Why two lists of words differ: the first word that does, or how many words are missing or extra."""
    for number, (mine, theirs) in enumerate(zip(got, want), start=1):
        if mine != theirs:
            return f"Word {number} differs: expected {quote(theirs)}, your program printed {quote(mine)}."
    if len(got) < len(want):
        return f"Your output has {len(got)} words; {len(want)} were expected."
    return f"Your output has {len(got) - len(want)} word(s) too many; the first is {quote(got[len(want)])}."
