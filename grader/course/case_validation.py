"""One case of a test case file: its mapping → ``Case``, every value checked first.

``CaseValidator`` holds what checking any part of one file needs: ``fail`` (a ``CaseFileError``
naming the file, the line and the key), the keys and their types, a checker and its options, and
the limits. With them it builds a case: its input and expected answers (given, or read from a file
in the course folder), points, repetition (a ``min_distinct`` no program can meet is refused,
``right_answers``), known mistakes and hints tied to the failures they explain (``hints``).
``task_validation`` builds on it for the top of the file.
"""

from __future__ import annotations

import difflib
import math
from pathlib import Path
from typing import Any, Dict, Mapping, NoReturn, Optional, Tuple

from grader.check import patterns
from grader.check.random_answers import repeat_needed
from grader.check.registry import CheckerRegistry, GameChecker
from grader.course.case_keys import CASE_KEYS, HINT_KEYS, MISTAKE_KEYS, SHARED_KEYS, WHEN_KEYS, kind_of
from grader.course.files import MAX_DATA_BYTES, CourseFileLimit, LineMapping, inside, read_text
from grader.course.limits import LIMIT_KEYS, case_limits, default_settings, limit_problem
from grader.course.right_answers import min_distinct_problem
from grader.errors import CaseFileError
from grader.model import HINT_VERDICTS, TIME_OUT_KINDS, Case, Hint, Mistake, Verdict, When

# Why a hint cannot be tied to a verdict: the grader's own sentence is the whole story there.
_NO_HINT: Dict[Optional[Verdict], str] = {
    Verdict.ACCEPTED: "which shows no hint: the case passed",
    Verdict.SYNTAX_ERROR: "after which no case runs: the grader says what to fix in the file",
    Verdict.RULE_VIOLATION: "after which no case runs: the grader says which rule the file breaks",
    Verdict.NO_OUTPUT: "after which the grader says what to check (the main block, return rather than print)",
    Verdict.NOT_RUN: "which is a case not run: there is nothing to explain",
}


class CaseValidator:
    """Checks the cases of one parsed file and builds each ``Case``; ``fail`` raises with file and line."""

    def __init__(self, path: Path, shown: str, checkers: CheckerRegistry, course: Path) -> None:
        self.path = path
        self.shown = shown
        self.checkers = checkers
        self.course = course  # the folder the files that cases name must be in

    def fail(self, line: Optional[int], what: str) -> NoReturn:
        """Raise the ``CaseFileError`` saying ``what`` is wrong at ``line`` of this file."""
        raise CaseFileError(self.shown, line, what)

    def check_keys(self, mapping: LineMapping, allowed: Mapping, where: str) -> None:
        """Fail on the first key of ``mapping`` not in the table ``allowed`` or of the wrong type."""
        for key, value in mapping.items():
            line = mapping.key_lines.get(key, mapping.line)
            if key not in allowed:
                close = difflib.get_close_matches(key, list(allowed), n=1)
                guess = f" (did you mean '{close[0]}'?)" if close else ""
                known = ", ".join(allowed)
                self.fail(line, f"unknown key '{key}' {where}{guess}; known keys: {known}")
            types, words = allowed[key]
            if isinstance(value, bool) and bool not in types:
                self.fail(line, f"'{key}' {where} must be {words}, not true/false")
            if not isinstance(value, types):
                self.fail(line, f"'{key}' {where} must be {words}, not {kind_of(value)}")

    def settings(self, data: LineMapping, inherited: Optional[dict]) -> dict:
        """Checker, options and limits of a task (inherited None) or of a case."""
        base = inherited or default_settings()
        result = dict(base)
        for key in SHARED_KEYS:
            if key in data:
                result[key] = data[key]
        if "checker" in data and "checker_options" not in data:
            result["checker_options"] = {}
        elif inherited is not None and "checker_options" in data and "checker" not in data:
            # a case's options complete the task's (e.g. the task sets a tolerance, the case a board)
            result["checker_options"] = {**inherited["checker_options"], **data["checker_options"]}
        name = result["checker"]
        line = data.key_lines.get("checker", data.line)
        checker = self.checkers.get(name)
        if checker is None:
            close = difflib.get_close_matches(name, self.checkers.names(), n=1)
            guess = f" (did you mean '{close[0]}'?)" if close else ""
            self.fail(line, f"unknown checker '{name}'{guess}; known checkers: {', '.join(self.checkers.names())}")
        for error in checker.option_errors(result["checker_options"], complete=inherited is not None):
            self.fail(data.key_lines.get("checker_options", line), error)
        for key in LIMIT_KEYS:
            problem = limit_problem(key, data[key]) if key in data else None
            if problem:
                self.fail(data.key_lines[key], problem)
        return result

    def points(self, item: LineMapping) -> float:
        """A case's ``points``: 0 or more (0: the case is shown but does not count)."""
        points = item.get("points", 1)
        if not 0 <= points < math.inf:
            self.fail(item.key_lines.get("points", item.line), f"'points' must be 0 or more, not {points!r}")
        return points

    def case(self, item: Any, defaults: dict, line: int, earlier: Optional[Mapping[str, Case]] = None) -> Case:
        """The ``Case`` a YAML case mapping describes, on the task's ``defaults`` (settings, mistakes).

        ``earlier`` holds the cases written before it in the file, by name: those its hints may ask
        to have been accepted.
        """
        earlier = earlier or {}
        if not isinstance(item, LineMapping):
            self.fail(line, "each case must be a mapping with name, input and expected")
        label = f"in case '{item['name']}'" if isinstance(item.get("name"), str) else "in a case"
        self.check_keys(item, CASE_KEYS, label)
        if "name" not in item or not item["name"].strip():
            self.fail(item.line, "this case has no 'name': give it one that says what it checks")
        if ";" in item["name"]:
            self.fail(
                item.key_lines["name"],
                f"the case name '{item['name']}' contains ';', which separates case names in a known-wrong "
                "solution's caught-by line: use ':' or ',' instead",
            )
        settings = self.settings(item, defaults)
        checker = self.checkers[settings["checker"]]
        expected: Tuple[str, ...]
        if isinstance(checker, GameChecker):
            for key in ("input", "input_file", "expected", "expected_file"):
                if key in item:
                    self.fail(
                        item.key_lines[key],
                        f"'{key}' is not used {label}: the checker '{checker.name}' plays against the program "
                        "and takes everything from checker_options",
                    )
            case_input, expected = "", ()
        else:
            case_input = self.text_or_file(item, "input", label)
            if checker.needs_expected or "expected" in item or "expected_file" in item:
                expected = self.expected(item, label)
            else:
                expected = ()
            if checker.validate_expected:
                for text in expected:
                    error = checker.validate_expected(text, settings["checker_options"])
                    if error:
                        self.fail(item.key_lines.get("expected", item.line), f"{error} {label}")
        if case_input and not case_input.endswith("\n"):
            case_input += "\n"
        repeat, min_distinct = self.repetition(item, label)
        if "min_distinct" in item:
            problem = min_distinct_problem(checker, case_input, min_distinct)
            if problem:
                self.fail(item.key_lines["min_distinct"], f"'min_distinct' {label} {problem}")
        hidden = item.get("hidden", False)
        mistakes = self.mistakes(item, f"in the mistakes {label}", (earlier, hidden)) + defaults["mistakes"]
        hints = self.hints(item, label, earlier, hidden)
        return Case(
            name=item["name"].strip(),
            input=case_input,
            expected=expected,
            checker=settings["checker"],
            checker_options=dict(settings["checker_options"]),
            limits=case_limits(settings),
            hidden=hidden,
            hint=item.get("hint", ""),
            points=self.points(item),
            line=item.line,
            repeat=repeat,
            min_distinct=min_distinct,
            mistakes=mistakes,
            hints=hints,
        )

    def mistakes(self, data: LineMapping, label: str, case: Optional[tuple] = None) -> tuple:
        """Known wrong answers: each an exact ``output`` or a regex ``pattern``, with a ``hint``.

        ``case`` is (the cases written before it, whether it is hidden) for a case's own mistakes,
        None for the task's: only a case's own may name cases to have been ``accepted``.
        """
        found = []
        for item in data.get("mistakes", []):
            line = getattr(item, "line", data.key_lines.get("mistakes", data.line))
            if not isinstance(item, LineMapping):
                self.fail(line, f"each mistake {label} must be a mapping with output (or pattern) and hint")
            self.check_keys(item, MISTAKE_KEYS, label)
            if ("output" in item) == ("pattern" in item):
                self.fail(item.line, f"a mistake {label} needs exactly one of 'output' and 'pattern'")
            if "hint" not in item:
                self.fail(item.line, f"a mistake {label} needs a 'hint': what to tell a student whose output matches")
            if "pattern" in item:
                self.check_pattern(item, f"'pattern' {label}")
            accepted: tuple = ()
            if "accepted" in item:
                if case is None:
                    self.fail(
                        item.key_lines["accepted"],
                        f"'accepted' {label} goes only with a case's own mistakes and hints: it names cases "
                        "written before that case",
                    )
                accepted = self.accepted(item, f"'accepted' {label}", *case)
            found.append(
                Mistake(hint=item["hint"], output=item.get("output"), pattern=item.get("pattern"), accepted=accepted)
            )
        return tuple(found)

    def hints(self, item: LineMapping, label: str, earlier: Mapping[str, Case], hidden: bool) -> tuple:
        """A case's ``hints``: each a ``text`` and the failures it explains (``when``, see ``When``)."""
        found = []
        for number, entry in enumerate(item.get("hints", []), start=1):
            where = f"in hint {number} {label}"
            if not isinstance(entry, LineMapping):
                self.fail(
                    getattr(entry, "line", item.key_lines["hints"]),
                    f"each entry of 'hints' {label} must be a mapping with 'when' and 'text', such as "
                    "- when: {verdict: runtime_error, exception: TypeError}",
                )
            self.check_keys(entry, HINT_KEYS, where)
            if not entry.get("text", "").strip():
                self.fail(
                    entry.key_lines.get("text", entry.line),
                    f"hint {number} {label} needs a 'text': what to tell a student whose failure it explains",
                )
            when = entry.get("when")
            if when is None:  # no conditions: a plain hint, after a wrong answer
                when = LineMapping()
                when.line, when.key_lines = entry.line, {}
            found.append(
                Hint(entry["text"], self.when(when, f"in the 'when' of hint {number} {label}", earlier, hidden))
            )
        return tuple(found)

    def when(self, when: LineMapping, where: str, earlier: Mapping[str, Case], hidden: bool) -> When:
        """A hint's ``when``: its verdicts, output or pattern, exception (its class, its message) and the
        cases to have been accepted."""
        self.check_keys(when, WHEN_KEYS, where)
        if "output" in when and "pattern" in when:
            self.fail(when.key_lines["pattern"], f"give either 'output' or 'pattern' {where}, not both")
        if "pattern" in when:
            self.check_pattern(when, f"'pattern' {where}")
        if "exception_text" in when:
            self.check_pattern(when, f"'exception_text' {where}", key="exception_text")
        exception = when.get("exception")
        if exception is not None and not exception.isidentifier():
            self.fail(
                when.key_lines["exception"],
                f"'exception' {where} is the class name of an exception, such as TypeError or JSONDecodeError "
                f"(without its module), not {exception!r}",
            )
        crash_keys = [key for key in ("exception", "exception_text") if key in when]
        default = (Verdict.RUNTIME_ERROR,) if crash_keys else (Verdict.WRONG_ANSWER,)
        default = (Verdict.TIME_LIMIT_EXCEEDED,) if "time_out" in when else default
        verdicts = self.verdicts(when, where) if "verdict" in when else default
        if crash_keys and Verdict.RUNTIME_ERROR not in verdicts:
            self.fail(
                when.key_lines[crash_keys[0]],
                f"'{crash_keys[0]}' {where} needs the verdict runtime_error (a crash) among its verdicts",
            )
        accepted = self.accepted(when, f"'accepted' {where}", earlier, hidden) if "accepted" in when else ()
        time_out = self.time_out(when, where, verdicts) if "time_out" in when else ()
        return When(
            verdicts, when.get("output"), when.get("pattern"), exception, accepted, when.get("exception_text"), time_out
        )

    def time_out(self, when: LineMapping, where: str, verdicts: tuple) -> tuple:
        """The time-out kinds a ``when`` names (``grade/mistakes/time_outs.py``), one or a list."""
        names = when["time_out"] if isinstance(when["time_out"], list) else [when["time_out"]]
        line = when.key_lines["time_out"]
        if not names or any(name not in TIME_OUT_KINDS for name in names):
            self.fail(
                line, f"'time_out' {where} names {names!r}; it takes one or a list of: {', '.join(TIME_OUT_KINDS)}"
            )
        if Verdict.TIME_LIMIT_EXCEEDED not in verdicts:
            self.fail(line, f"'time_out' {where} needs the verdict time_limit_exceeded among its verdicts")
        return tuple(names)

    def verdicts(self, when: LineMapping, where: str) -> tuple:
        """The verdicts a ``when`` names: one name or a list, each one a hint can be tied to."""
        names = when["verdict"] if isinstance(when["verdict"], list) else [when["verdict"]]
        line = when.key_lines["verdict"]
        if not names:
            self.fail(line, f"'verdict' {where} is an empty list: name the verdicts the hint explains")
        allowed = ", ".join(verdict.value for verdict in HINT_VERDICTS)
        found = []
        for name in names:
            verdict = next((v for v in Verdict if v.value == name), None)
            if verdict not in HINT_VERDICTS:
                why = _NO_HINT.get(verdict, "which is not a verdict") if isinstance(name, str) else "which is not text"
                self.fail(line, f"'verdict' {where} names {name!r}, {why}; a hint can be tied to: {allowed}")
            found.append(verdict)
        return tuple(found)

    def accepted(self, data: LineMapping, label: str, earlier: Mapping[str, Case], hidden: bool) -> tuple:
        """The cases an ``accepted`` key names: each written before this case, and visible when it is."""
        names = data["accepted"] if isinstance(data["accepted"], list) else [data["accepted"]]
        line = data.key_lines["accepted"]
        if not names:
            self.fail(line, f"{label} is an empty list: name the cases that must have been accepted")
        for name in names:
            if not isinstance(name, str):
                self.fail(line, f"{label} lists case names as text, not {kind_of(name)}")
            if name not in earlier:
                close = difflib.get_close_matches(name, list(earlier), n=1)
                guess = f" (did you mean '{close[0]}'?)" if close else ""
                self.fail(
                    line,
                    f"{label} names the case '{name}'{guess}, which is not a case written before this one in the "
                    "file: a hint can wait for the cases before it, which are graded first",
                )
            if earlier[name].hidden and not hidden:
                self.fail(
                    line,
                    f"{label} names the hidden case '{name}': a visible case's hint cannot wait for a hidden one "
                    "(the student kit holds the visible cases only)",
                )
        return tuple(names)

    def check_pattern(self, data: LineMapping, label: str, key: str = "pattern") -> None:
        """Fail when ``data``'s ``key`` (its ``pattern``) is not a regular expression the grader can use."""
        problem = patterns.problem(data[key])
        if problem:
            self.fail(data.key_lines[key], f"{label} is not a valid regular expression: {problem}")

    def repetition(self, item: LineMapping, label: str) -> tuple:
        """(repeat, min_distinct): run the case that many times; need that many different answers."""
        repeat = item.get("repeat", 1)
        if repeat < 1:
            self.fail(item.key_lines["repeat"], f"'repeat' {label} must be 1 or more")
        min_distinct = item.get("min_distinct", 0)
        if "min_distinct" in item and not 1 <= min_distinct <= repeat:
            self.fail(
                item.key_lines["min_distinct"],
                f"'min_distinct' {label} must be between 1 and 'repeat' ({repeat}): the runs are where "
                "different answers can appear",
            )
        needed = repeat_needed(min_distinct)
        if repeat < needed:
            self.fail(
                item.key_lines.get("repeat", item.line),
                f"'repeat' {label} must be at least {needed} with 'min_distinct' {min_distinct}: in {repeat} "
                f"run{'s' if repeat != 1 else ''}, a correct solution that picks its answer at random shows fewer "
                f"than {min_distinct} different answers, and fails, more often than once in 2**20 gradings (see "
                "'Random answers' in docs/testcases.md)",
            )
        return repeat, min_distinct

    def text_or_file(self, item: LineMapping, key: str, label: str) -> str:
        """The text ``key`` gives, or that of the file ``<key>_file`` names (one of them, not both)."""
        file_key = f"{key}_file"
        if key in item and file_key in item:
            self.fail(item.key_lines[file_key], f"give either '{key}' or '{file_key}' {label}, not both")
        if file_key in item:
            return self.read_data_file(item[file_key], item.key_lines[file_key], f"'{file_key}' {label}")
        if key not in item:
            self.fail(item.line, f"the key '{key}' is missing {label}")
        return item[key]

    def read_data_file(self, name: str, line: int, label: str) -> str:
        """The text of the file ``name`` (relative to the YAML file) that ``label`` (the key) names.

        It must be in the course folder, with links followed, and at most ``MAX_DATA_BYTES``.
        """
        target = self.path.parent / name
        if not inside(target, self.course):
            self.fail(
                line,
                f"{label} names '{name}', which is outside the course folder ({self.course}): a case's files "
                "must be in the course folder, named relative to the YAML file",
            )
        try:
            return read_text(target, MAX_DATA_BYTES)
        except FileNotFoundError:
            self.fail(line, f"the file '{name}' named by {label} does not exist (looked for {target})")
        except CourseFileLimit as error:
            self.fail(line, f"the file '{name}' named by {label} is not read: {error}")
        except (OSError, UnicodeDecodeError) as error:
            self.fail(line, f"cannot read '{name}' named by {label}: {error}")
        raise AssertionError("unreachable")

    def expected(self, item: LineMapping, label: str) -> tuple:
        """The acceptable answers of a case: one text, a list of texts, or a file's text."""
        if "expected" in item and isinstance(item["expected"], list):
            answers = item["expected"]
            line = item.key_lines["expected"]
            if not answers:
                self.fail(line, f"'expected' {label} is an empty list: give at least one answer")
            for answer in answers:
                if not isinstance(answer, str):
                    self.fail(
                        line,
                        f"'expected' {label} is a list, so each item must be an acceptable answer "
                        f"as text in quotes; {answer!r} is not text (for a JSON answer, quote the "
                        f"whole JSON: expected: '[1, 2]')",
                    )
            if "expected_file" in item:
                self.fail(
                    item.key_lines["expected_file"], f"give either 'expected' or 'expected_file' {label}, not both"
                )
            return tuple(answers)
        return (self.text_or_file(item, "expected", label),)
