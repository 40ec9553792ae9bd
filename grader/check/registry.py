"""The checker registry: checkers by name, and the check of a checker's options at load time.

A checker is ``function(actual, expected, case_input, *, option=default, ...) -> CheckOutcome``.
Its keyword-only parameters are its options; the loader rejects, at load time, an option a checker
does not take or a value of the wrong type, so a misspelt option in YAML never passes silently.
An interactive checker (``GameChecker``) is instead a factory ``function(*, option=default, ...)
-> Session`` whose session plays against the program; the registry hands out either kind
(``Checker``), and the grader tells them apart by their type. Checkers are chosen by name from a
``CheckerRegistry``; a course can register its own.
``generic_checkers()`` gives a fresh registry with the checkers any course may use.

A program's output is untrusted, so the registry hands out every checker guarded (``guard``): a
checker that cannot read an output, or an interactive session that cannot read a line, gives the
student a wrong answer with a sentence, never an exception out of grading.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

from grader.check.guard import GuardedChecker, GuardedSessions
from grader.check.structured import (
    check_float,
    check_json,
    check_regex,
    validate_float_options,
    validate_json,
    validate_regex,
    validate_regex_options,
)
from grader.check.text import check_text, check_tokens
from grader.model import CheckOutcome
from grader.run.streams import Session

CheckFunction = Callable[..., CheckOutcome]
ExpectedValidator = Callable[[str, Mapping[str, Any]], Optional[str]]
OptionsValidator = Callable[[Mapping[str, Any]], Optional[str]]
SessionFactory = Callable[..., Session]  # an interactive checker: function(**options) -> Session


@dataclass(frozen=True)
class OptionTaker:
    """A named function whose keyword-only parameters are options, checked at load time (a checker,
    or a case generator)."""

    name: str
    function: Callable[..., Any]
    validate_options: Optional[OptionsValidator] = None

    def option_defaults(self) -> Dict[str, Any]:
        """Option name → default value (``inspect.Parameter.empty`` when the option is required)."""
        return {
            p.name: p.default
            for p in inspect.signature(self.function).parameters.values()
            if p.kind is inspect.Parameter.KEYWORD_ONLY
        }

    def option_errors(self, options: Mapping[str, Any], complete: bool = True) -> List[str]:
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


@dataclass(frozen=True)
class OutputChecker(OptionTaker):
    """A checker of a program's finished output: ``function(actual, expected, case_input, **options)``.

    ``validate_expected`` may reject an expected text at load time; one that decides alone
    (``needs_expected=False``) makes ``expected`` optional.
    """

    validate_expected: Optional[ExpectedValidator] = None
    needs_expected: bool = True

    def __call__(self, actual: str, expected: str, case_input: str, options: Mapping[str, Any]) -> CheckOutcome:
        """Run the checker; returns its ``CheckOutcome``."""
        return self.function(actual, expected, case_input, **options)


@dataclass(frozen=True)
class GameChecker(OptionTaker):
    """An interactive checker: ``function(**options)`` makes a ``Session`` that plays against the
    program instead of reading its finished output; its cases need neither input nor expected."""

    def start(self, options: Mapping[str, Any]) -> Session:
        """A new session for one run, with the case's ``options``."""
        return self.function(**options)


# What a registry hands out: the case's checker, of either kind.
Checker = Union[OutputChecker, GameChecker]


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
        function: Callable[..., Any],
        *,
        validate_expected: Optional[ExpectedValidator] = None,
        validate_options: Optional[OptionsValidator] = None,
        needs_expected: bool = True,
        interactive: bool = False,
    ) -> None:
        """Add a checker under ``name``; a name already taken is a ``ValueError``.

        ``validate_options(options)`` and ``validate_expected(expected, options)`` return a
        sentence when what a YAML file gives is unusable, or None. A checker that decides alone
        (``needs_expected=False``) makes ``expected`` optional. With ``interactive``, ``function`` is a
        factory ``function(*, options) -> Session`` that plays against the program instead of
        reading its finished output (a ``GameChecker``, whose cases need neither ``input`` nor
        ``expected``); otherwise it is an ``OutputChecker``.

        ``function`` is kept guarded (``guard``): whatever it raises on a program's output becomes
        that student's wrong answer.
        """
        if name in self._checkers:
            raise ValueError(f"a checker named '{name}' is already registered")
        checker: Checker
        if interactive:
            checker = GameChecker(name, GuardedSessions(function), validate_options)
        else:
            checker = OutputChecker(name, GuardedChecker(function), validate_options, validate_expected, needs_expected)
        self._checkers[name] = checker

    def get(self, name: str) -> Optional[Checker]:
        """The checker called ``name``, or None."""
        return self._checkers.get(name)

    def __getitem__(self, name: str) -> Checker:
        """The checker called ``name`` (one a loaded case names); ``KeyError`` when there is none."""
        return self._checkers[name]

    def names(self) -> List[str]:
        """All registered names, sorted."""
        return sorted(self._checkers)


def generic_checkers() -> CheckerRegistry:
    """A fresh registry with the checkers any course may use: text, tokens, json, float, regex."""
    registry = CheckerRegistry()
    registry.register("text", check_text)
    registry.register("tokens", check_tokens)
    registry.register("json", check_json, validate_expected=validate_json)
    registry.register("float", check_float, validate_options=validate_float_options)
    registry.register("regex", check_regex, validate_expected=validate_regex, validate_options=validate_regex_options)
    return registry
