"""Checkers: small pure functions that compare a program's output with the expected answer.

A checker is ``function(actual, expected, case_input, *, option=default, ...) -> CheckOutcome``.
Its keyword-only parameters are its options; the loader rejects, at load time, an option a checker
does not take or a value of the wrong type, so a misspelt option in YAML never passes silently.
Checkers are chosen by name from a ``CheckerRegistry``; a course can register its own.
"""

from __future__ import annotations

import inspect
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional

from grader.model import CheckOutcome, Verdict

CheckFunction = Callable[..., CheckOutcome]
ExpectedValidator = Callable[[str, Mapping[str, Any]], Optional[str]]
OptionsValidator = Callable[[Mapping[str, Any]], Optional[str]]

ACCEPTED = CheckOutcome(Verdict.ACCEPTED)


@dataclass(frozen=True)
class Checker:
    """A named checker; its validators may reject options or an expected text at load time."""

    name: str
    function: CheckFunction
    validate_expected: Optional[ExpectedValidator] = None
    validate_options: Optional[OptionsValidator] = None
    needs_expected: bool = True
    interactive: bool = False

    def option_defaults(self) -> Dict[str, Any]:
        """Option name → default value (``inspect.Parameter.empty`` when the option is required)."""
        return {
            p.name: p.default
            for p in inspect.signature(self.function).parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY
        }

    def option_errors(self, options: Mapping[str, Any], complete: bool = True) -> list:
        """Sentences saying what is wrong with ``options`` for this checker (empty when fine).

        With ``complete=False`` (a task's defaults, which cases may complete) missing required
        options are allowed; the checker's own validator then runs only when none is missing.
        """
        defaults = self.option_defaults()
        errors = []
        missing = [k for k, d in defaults.items() if d is inspect.Parameter.empty and k not in options]
        for key, value in options.items():
            if key not in defaults:
                known = ", ".join(sorted(defaults)) or "none"
                errors.append(f"checker '{self.name}' has no option '{key}' (its options: {known})")
                continue
            default = defaults[key]
            if default is not inspect.Parameter.empty and not _same_kind(value, default):
                errors.append(
                    f"option '{key}' of checker '{self.name}' must be {_kind_name(default)}, not {_kind_name(value)}"
                )
        if complete:
            errors.extend(f"checker '{self.name}' needs the option '{key}'" for key in missing)
        if not errors and not missing and self.validate_options is not None:
            error = self.validate_options(options)
            if error:
                errors.append(error)
        return errors

    def __call__(self, actual: str, expected: str, case_input: str, options: Mapping[str, Any]):
        """Run the checker; returns its ``CheckOutcome``."""
        return self.function(actual, expected, case_input, **options)


def _same_kind(value: Any, default: Any) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(value, bool) and isinstance(default, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    if default is None:
        return True
    if isinstance(default, (tuple, list)):
        return isinstance(value, (tuple, list))
    return isinstance(value, type(default))


def _kind_name(value: Any) -> str:
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


class CheckerRegistry:
    """Checkers by name. Made fresh per course (``generic_checkers``, ``nim.lab.lab_checkers``), never global."""

    def __init__(self) -> None:
        self._checkers: Dict[str, Checker] = {}

    def register(
        self,
        name: str,
        function: CheckFunction,
        *,
        validate_expected: Optional[ExpectedValidator] = None,
        validate_options: Optional[OptionsValidator] = None,
        needs_expected: bool = True,
        interactive: bool = False,
    ) -> None:
        """Add a checker under ``name``; a name already taken is a ``ValueError``.

        ``validate_options(options)`` and ``validate_expected(expected, options)`` return a
        sentence when what a YAML file gives is unusable, or None. A checker that decides alone
        (``needs_expected=False``) makes ``expected`` optional. An ``interactive`` checker is a
        factory ``function(*, options) -> Session`` that plays against the program instead of
        reading its finished output; its cases need neither ``input`` nor ``expected``.
        """
        if name in self._checkers:
            raise ValueError(f"a checker named '{name}' is already registered")
        self._checkers[name] = Checker(
            name, function, validate_expected, validate_options, needs_expected and not interactive, interactive
        )

    def get(self, name: str) -> Optional[Checker]:
        """The checker called ``name``, or None."""
        return self._checkers.get(name)

    def names(self) -> list:
        """All registered names, sorted."""
        return sorted(self._checkers)


# -- text ---------------------------------------------------------------------------------------


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


def _first_column(mine: str, theirs: str) -> int:
    """The 1-based column where two lines first differ."""
    for index, (a, b) in enumerate(zip(mine, theirs)):
        if a != b:
            return index + 1
    return min(len(mine), len(theirs)) + 1


def _extra_lines_message(actual: list, expected: list) -> Optional[str]:
    """When the expected lines appear whole inside the actual ones, name the extra lines."""
    if not expected or len(actual) <= len(expected):
        return None
    for start in range(len(actual) - len(expected) + 1):
        if actual[start : start + len(expected)] == expected:
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
    return None


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
    if "".join(actual.split()) == "".join(expected.split()):
        return CheckOutcome(Verdict.PRESENTATION_ERROR, _spacing_message(got, want))
    extra = _extra_lines_message(got, want)
    if extra:
        return CheckOutcome(Verdict.WRONG_ANSWER, extra, answer_found=True)
    return CheckOutcome(Verdict.WRONG_ANSWER, _first_line_message(got, want))


def _spacing_message(got: list, want: list) -> str:
    for number, (mine, theirs) in enumerate(zip(got, want), start=1):
        if mine != theirs:
            return (
                f"The words are right but the spacing differs on line {number} from column "
                f"{_first_column(mine, theirs)}: expected {quote(theirs, spaces=True)}, your program printed "
                f"{quote(mine, spaces=True)} (· is a space, → a tab). Check spaces and line breaks."
            )
    return (
        f"The words are right but they are split over {len(got)} lines instead of {len(want)}. Check your line breaks."
    )


def _first_line_message(got: list, want: list) -> str:
    for number, (mine, theirs) in enumerate(zip(got, want), start=1):
        if mine != theirs:
            return (
                f"Line {number} differs from column {_first_column(mine, theirs)}: expected {quote(theirs)}, "
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


# -- tokens -------------------------------------------------------------------------------------


def check_tokens(actual: str, expected: str, case_input: str, *, case_sensitive: bool = True) -> CheckOutcome:
    """The same words in the same order, however they are spaced or split across lines."""
    got, want = actual.split(), expected.split()
    if not case_sensitive:
        got, want = [w.lower() for w in got], [w.lower() for w in want]
    if got == want:
        return ACCEPTED
    return CheckOutcome(Verdict.WRONG_ANSWER, _first_word_message(got, want))


def _first_word_message(got: list, want: list) -> str:
    for number, (mine, theirs) in enumerate(zip(got, want), start=1):
        if mine != theirs:
            return f"Word {number} differs: expected {quote(theirs)}, your program printed {quote(mine)}."
    if len(got) < len(want):
        return f"Your output has {len(got)} words; {len(want)} were expected."
    return f"Your output has {len(got) - len(want)} word(s) too many; the first is {quote(got[len(want)])}."


# -- float --------------------------------------------------------------------------------------


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
        return CheckOutcome(Verdict.WRONG_ANSWER, _first_word_message(got, want))
    return ACCEPTED


# -- regex --------------------------------------------------------------------------------------

_REGEX_FLAGS = {"IGNORECASE": re.IGNORECASE, "MULTILINE": re.MULTILINE, "DOTALL": re.DOTALL}


def _regex_flags(flags) -> int:
    value = 0
    for name in flags:
        value |= _REGEX_FLAGS[name]
    return value


def check_regex(actual: str, expected: str, case_input: str, *, flags: list = ()) -> CheckOutcome:
    """The whole output matches ``expected`` as a regular expression.

    Lines are compared as the text checker reads them: trailing white space (and Windows line
    ends) and trailing blank lines do not matter.
    """
    if re.fullmatch(expected, "\n".join(significant_lines(actual)), _regex_flags(flags)):
        return ACCEPTED
    return CheckOutcome(
        Verdict.WRONG_ANSWER,
        f"Your output {quote(actual.strip())} does not have the expected form.",
    )


def _validate_regex_options(options: Mapping[str, Any]) -> Optional[str]:
    for flag in options.get("flags", ()):
        if not isinstance(flag, str) or flag not in _REGEX_FLAGS:
            return f"unknown regex flag {flag!r} (known: {', '.join(_REGEX_FLAGS)})"
    return None


def _validate_regex(expected: str, options: Mapping[str, Any]) -> Optional[str]:
    try:
        re.compile(expected)
    except re.error as error:
        return f"expected is not a valid regular expression: {error}"
    return None


# -- json ---------------------------------------------------------------------------------------


def check_json(actual: str, expected: str, case_input: str) -> CheckOutcome:
    """The same JSON value: numbers by value, ``true`` never equal to ``1``, key order free."""
    want = json.loads(expected)
    try:
        got = json.loads(actual)
    except json.JSONDecodeError as error:
        lines = significant_lines(actual)
        answer_lines = [i for i, line in enumerate(lines) if _is_json_of(line, want)]
        if answer_lines:
            extra = _extra_lines_message(lines, [lines[answer_lines[0]]])
            return CheckOutcome(Verdict.WRONG_ANSWER, extra, answer_found=True)
        return CheckOutcome(Verdict.WRONG_ANSWER, _not_json_message(actual, error))
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
    try:
        return _json_difference(json.loads(line), want, "") is None
    except json.JSONDecodeError:
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


def _validate_json(expected: str, options: Mapping[str, Any]) -> Optional[str]:
    try:
        json.loads(expected)
    except json.JSONDecodeError as error:
        return f"expected is not valid JSON ({error.msg}, column {error.colno}): {quote(expected)}"
    return None


def _validate_float_options(options: Mapping[str, Any]) -> Optional[str]:
    for key in ("abs_tol", "rel_tol"):
        value = options.get(key, 0.0)
        if not 0 <= value < math.inf:
            return f"option '{key}' of checker 'float' must be a number of 0 or more, not {value!r}"
    return None


def generic_checkers() -> CheckerRegistry:
    """A fresh registry with the checkers any course may use: text, tokens, json, float, regex."""
    registry = CheckerRegistry()
    registry.register("text", check_text)
    registry.register("tokens", check_tokens)
    registry.register("json", check_json, validate_expected=_validate_json)
    registry.register("float", check_float, validate_options=_validate_float_options)
    registry.register("regex", check_regex, validate_expected=_validate_regex, validate_options=_validate_regex_options)
    return registry
