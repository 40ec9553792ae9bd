"""Test case files (``testcases/<task>.yaml``) → ``Task`` values, validated.

Everything is checked before anything is graded: unknown keys, wrong types, a missing
``expected``, an unknown checker or option, duplicate names, bad rules. Each problem is raised as a
``CaseFileError`` naming the file, the line and the key.
"""

from __future__ import annotations

import difflib
import importlib.util
import json
import math
import re
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

from grader.check.random_answers import repeat_needed
from grader.check.registry import Checker, CheckerRegistry
from grader.course.files import MAX_DATA_BYTES, CourseFileLimit, inside, read_text, read_yaml
from grader.course.files import LineMapping as _Mapping
from grader.errors import CaseFileError
from grader.model import Case, Generated, Limits, Mistake, Rule, Task
from grader.nim.lab import lab_checkers
from grader.submission.rules import OPERATORS

DEFAULT_LIMITS = Limits()

# key → (accepted Python types, words for a message)
_TEXT = ((str,), "text (in quotes)")
_NUMBER = ((int, float), "a number")
_BOOL = ((bool,), "true or false")
_MAPPING = ((dict,), "a mapping (key: value lines)")
_LIST = ((list,), "a list")

_SHARED_KEYS = {
    "checker": _TEXT,
    "checker_options": _MAPPING,
    "time_limit": _NUMBER,
    "memory_limit": _NUMBER,
    "output_limit": _NUMBER,
}
TASK_KEYS = {
    "task": _TEXT,
    "title": _TEXT,
    "rules": _LIST,
    "uses_files": _LIST,
    "total": _NUMBER,
    "mistakes": _LIST,
    "generate": _LIST,
    "cases": _LIST,
    **_SHARED_KEYS,
}
CASE_KEYS = {
    "name": _TEXT,
    "input": _TEXT,
    "input_file": _TEXT,
    "expected": ((str, list), "text, or a list of texts"),
    "expected_file": _TEXT,
    "hidden": _BOOL,
    "hint": _TEXT,
    "points": _NUMBER,
    "repeat": ((int,), "a whole number"),
    "min_distinct": ((int,), "a whole number"),
    "mistakes": _LIST,
    **_SHARED_KEYS,
}
MISTAKE_KEYS = {"output": _TEXT, "pattern": _TEXT, "hint": _TEXT}
GENERATE_KEYS = {
    "generator": _TEXT,
    "seed": ((int,), "a whole number"),
    "count": ((int,), "a whole number"),
    "options": _MAPPING,
    "format": _TEXT,
    "name": _TEXT,
    "hidden": _BOOL,
    "hint": _TEXT,
}
RULE_KINDS = ("operator", "name", "import", "format_spec")
RULE_KEYS = {**{kind: _TEXT for kind in RULE_KINDS}, "instead": _TEXT, "min_args": _NUMBER}


def _kind_of(value: Any) -> str:
    """Words for the type of a YAML value: ``a number``, ``a list``, ..."""
    if value is None:
        return "nothing"
    if isinstance(value, (int, float)):
        return f"a number ({value!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


class _Validator:
    """Checks one parsed file and builds the ``Task``; ``fail`` raises with file and line."""

    def __init__(self, path: Path, shown: str, checkers: CheckerRegistry, course: Path) -> None:
        self.path = path
        self.shown = shown
        self.checkers = checkers
        self.course = course  # the folder the files that cases name must be in

    def fail(self, line: Optional[int], what: str) -> None:
        raise CaseFileError(self.shown, line, what)

    def check_keys(self, mapping: _Mapping, allowed: Mapping, where: str) -> None:
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
                self.fail(line, f"'{key}' {where} must be {words}, not {_kind_of(value)}")

    def task(self, data: Any) -> Task:
        if not isinstance(data, _Mapping):
            self.fail(None, "the file must be a mapping with the keys task, cases, ...")
        self.check_keys(data, TASK_KEYS, "at the top of the file")
        task_id = self.path.stem
        if "task" in data and data["task"] != task_id:
            self.fail(
                data.key_lines["task"],
                f"'task' is '{data['task']}' but the file is named {self.path.name}; they must agree (task: {task_id})",
            )
        if "cases" not in data:
            self.fail(data.line, "the key 'cases' is missing: a task needs at least one case")
        if not data["cases"]:
            self.fail(data.key_lines["cases"], "'cases' is empty: a task needs at least one case")
        defaults = self.settings(data, None)
        defaults["mistakes"] = self.mistakes(data, "in the task's mistakes")
        rules = tuple(self.rule(item, data.key_lines.get("rules")) for item in data.get("rules", []))
        cases = []
        seen: Dict[str, int] = {}
        items = [(item, None) for item in data["cases"]]
        for spec in data.get("generate", []):
            items += self.generated(spec, defaults, data.key_lines.get("generate", data.line))
        for item, made in items:
            case = made or self.case(item, defaults, data.key_lines["cases"])
            if case.name in seen:
                self.fail(
                    case.line,
                    f"a case named '{case.name}' already exists (line {seen[case.name]}); names must be unique",
                )
            seen[case.name] = case.line
            cases.append(case)
        return Task(
            id=task_id,
            title=data.get("title", task_id),
            cases=tuple(cases),
            rules=rules,
            source=self.shown,
            uses_files=self.uses_files(data, task_id),
            total=self.total(data, cases),
        )

    def total(self, data: _Mapping, cases: list) -> Optional[float]:
        """The task's ``total``: more than 0, with cases that carry points to share it out."""
        if "total" not in data:
            return None
        total, line = data["total"], data.key_lines["total"]
        if not 0 < total < math.inf:
            self.fail(line, f"'total' must be a number more than 0, not {total!r}")
        if not sum(case.points for case in cases):
            self.fail(line, "'total' is shared out by the cases' points, but every case has 0 points")
        return float(total)

    def uses_files(self, data: _Mapping, task_id: str) -> tuple:
        names = data.get("uses_files", [])
        line = data.key_lines.get("uses_files", data.line)
        for name in names:
            if not isinstance(name, str) or not name.isidentifier():
                self.fail(line, f"'uses_files' lists task ids such as make_move (file names without .py), not {name!r}")
            if name == task_id:
                self.fail(line, f"'uses_files' cannot list the task itself ({task_id})")
        return tuple(names)

    def settings(self, data: _Mapping, inherited: Optional[dict]) -> dict:
        """Checker, options and limits of a task (inherited None) or of a case."""
        base = inherited or {
            "checker": "text",
            "checker_options": {},
            "time_limit": DEFAULT_LIMITS.time_s,
            "memory_limit": DEFAULT_LIMITS.memory_mib,
            "output_limit": DEFAULT_LIMITS.output_bytes,
        }
        result = dict(base)
        for key in _SHARED_KEYS:
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
        for key in ("time_limit", "memory_limit", "output_limit"):
            if key in data:
                self.check_limit(key, data[key], data.key_lines[key])
        return result

    def points(self, item: _Mapping) -> float:
        """A case's ``points``: 0 or more (0: the case is shown but does not count)."""
        points = item.get("points", 1)
        if not 0 <= points < math.inf:
            self.fail(item.key_lines.get("points", item.line), f"'points' must be 0 or more, not {points!r}")
        return points

    def check_limit(self, key: str, value: float, line: int) -> None:
        """Limits are finite and positive; memory (MiB) and output (bytes) are whole numbers."""
        if not 0 < value < math.inf:
            self.fail(line, f"'{key}' must be a number more than 0, not {value!r}")
        if key != "time_limit" and value != int(value):
            unit = "MiB" if key == "memory_limit" else "bytes"
            self.fail(line, f"'{key}' must be a whole number of {unit}, not {value!r}")

    def rule(self, item: Any, line: Optional[int]) -> Rule:
        if not isinstance(item, _Mapping):
            self.fail(line, 'each rule must be a mapping such as  - operator: "^"')
        self.check_keys(item, RULE_KEYS, "in a rule")
        kinds = [kind for kind in RULE_KINDS if kind in item]
        if len(kinds) != 1:
            self.fail(
                item.line, f"a rule needs exactly one of {', '.join(RULE_KINDS)}; this one has {len(kinds) or 'none'}"
            )
        kind = kinds[0]
        target = item[kind]
        if kind == "operator" and target not in OPERATORS:
            self.fail(item.key_lines[kind], f"unknown operator '{target}'; known: {' '.join(OPERATORS)}")
        if kind == "format_spec" and not (len(target) == 1 and target.isalpha()):
            self.fail(
                item.key_lines[kind], f"'format_spec' is one type letter such as b (as in {{n:08b}}), not '{target}'"
            )
        if "min_args" in item and kind != "name":
            self.fail(item.key_lines["min_args"], "'min_args' goes only with a 'name' rule")
        return Rule(kind=kind, target=target, instead=item.get("instead", ""), min_args=int(item.get("min_args", 0)))

    def case(self, item: Any, defaults: dict, line: int) -> Case:
        if not isinstance(item, _Mapping):
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
        checker = self.checkers.get(settings["checker"])
        if checker.interactive:
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
        mistakes = self.mistakes(item, f"in the mistakes {label}") + defaults["mistakes"]
        return Case(
            name=item["name"].strip(),
            input=case_input,
            expected=expected,
            checker=settings["checker"],
            checker_options=dict(settings["checker_options"]),
            limits=_limits(settings),
            hidden=item.get("hidden", False),
            hint=item.get("hint", ""),
            points=self.points(item),
            line=item.line,
            repeat=repeat,
            min_distinct=min_distinct,
            mistakes=mistakes,
        )

    def generated(self, spec: Any, defaults: dict, line: int) -> list:
        """The cases one ``generate:`` entry makes: (None, Case) pairs, expected answers to come."""
        from grader.course.generators import GENERATORS, Fields, generate, render

        if not isinstance(spec, _Mapping):
            self.fail(line, "each 'generate' entry must be a mapping with generator, seed, count and format")
        self.check_keys(spec, GENERATE_KEYS, "in a generate entry")
        for key in ("generator", "seed", "count", "format"):
            if key not in spec:
                self.fail(spec.line, f"the generate entry needs '{key}'")
        name = spec["generator"]
        if name not in GENERATORS:
            close = difflib.get_close_matches(name, list(GENERATORS), n=1)
            guess = f" (did you mean '{close[0]}'?)" if close else ""
            self.fail(spec.key_lines["generator"], f"unknown generator '{name}'{guess}; known: {', '.join(GENERATORS)}")
        if spec["count"] < 1:
            self.fail(spec.key_lines["count"], "'count' must be 1 or more")
        options = spec.get("options", {})
        checker_like = Checker(name, GENERATORS[name].make)
        for error in checker_like.option_errors(options):
            self.fail(spec.key_lines.get("options", spec.line), error.replace("checker", "generator"))
        pattern = spec.get("name", f"{name} {{index}} (seed {spec['seed']})")
        made = []
        field_sets: List[Fields] = generate(name, spec["seed"], spec["count"], options)
        for index, fields in enumerate(field_sets, start=1):
            case_input = render(spec["format"], fields)
            made.append(
                (
                    None,
                    Case(
                        name=render(pattern, {"index": index, **fields}),
                        input=case_input if case_input.endswith("\n") else case_input + "\n",
                        expected=(),
                        checker=defaults["checker"],
                        checker_options=dict(defaults["checker_options"]),
                        limits=_limits(defaults),
                        hidden=spec.get("hidden", False),
                        hint=spec.get("hint", ""),
                        line=spec.line,
                        mistakes=defaults["mistakes"],
                        generated=Generated(name, json.dumps(fields), spec["format"]),
                    ),
                )
            )
        return made

    def mistakes(self, data: _Mapping, label: str) -> tuple:
        """Known wrong answers: each an exact ``output`` or a regex ``pattern``, with a ``hint``."""
        found = []
        for item in data.get("mistakes", []):
            line = getattr(item, "line", data.key_lines.get("mistakes", data.line))
            if not isinstance(item, _Mapping):
                self.fail(line, f"each mistake {label} must be a mapping with output (or pattern) and hint")
            self.check_keys(item, MISTAKE_KEYS, label)
            if ("output" in item) == ("pattern" in item):
                self.fail(item.line, f"a mistake {label} needs exactly one of 'output' and 'pattern'")
            if "hint" not in item:
                self.fail(item.line, f"a mistake {label} needs a 'hint': what to tell a student whose output matches")
            if "pattern" in item:
                try:
                    re.compile(item["pattern"])
                except re.error as error:
                    what = f"'pattern' {label} is not a valid regular expression: {error}"
                    self.fail(item.key_lines["pattern"], what)
            found.append(Mistake(hint=item["hint"], output=item.get("output"), pattern=item.get("pattern")))
        return tuple(found)

    def repetition(self, item: _Mapping, label: str) -> tuple:
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

    def text_or_file(self, item: _Mapping, key: str, label: str) -> str:
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

    def expected(self, item: _Mapping, label: str) -> tuple:
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


def _limits(settings: dict) -> Limits:
    """The limits of a case from its settings (the task's, with the case's overrides)."""
    return Limits(
        time_s=float(settings["time_limit"]),
        memory_mib=int(settings["memory_limit"]),
        output_bytes=int(settings["output_limit"]),
    )


def load_task(
    path: Path, checkers: CheckerRegistry, shown: Optional[str] = None, course: Optional[Path] = None
) -> Task:
    """Load and validate one ``testcases/<task>.yaml``; raises ``CaseFileError``.

    ``course`` is the folder the files that cases name must be in (default: the folder that holds
    ``testcases/``, or the YAML file's own folder when that is not named testcases).
    """
    shown = shown or str(path)
    if course is None:
        course = path.parent.parent if path.parent.name == "testcases" else path.parent
    return _Validator(path, shown, checkers, course).task(read_yaml(path, shown))


def course_checkers(course: Path) -> CheckerRegistry:
    """The Nim lab's checkers (``nim.lab``) plus those a course registers in ``<course>/checkers.py``.

    That file defines ``register(registry)``, which calls ``registry.register(name, function)``.
    """
    registry = lab_checkers()
    extra = course / "checkers.py"
    if not extra.is_file():
        return registry
    spec = importlib.util.spec_from_file_location("course_checkers", extra)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
        module.register(registry)
    except Exception as error:  # an instructor's file: report it as theirs, not as our crash
        raise CaseFileError(
            str(extra), None, f"could not register the course's checkers: {type(error).__name__}: {error}"
        ) from None
    return registry


def load_course(course: Path) -> Dict[str, Task]:
    """Every task of a course folder (``<course>/testcases/*.yaml``), by task id."""
    folder = course / "testcases"
    checkers = course_checkers(course)
    tasks = {}
    for path in sorted(folder.glob("*.yaml")):
        shown = str(path.relative_to(course)) if path.is_relative_to(course) else str(path)
        tasks[path.stem] = load_task(path, checkers, shown, course)
    return tasks
