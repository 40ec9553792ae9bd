"""A test case file's top level → ``Task``: its keys, rules, generated cases, total and cases.

``TaskValidator`` is a ``CaseValidator`` (file and line in every error, the cases themselves) that
also reads what only the top of a file holds: the task's own settings, which its cases inherit, the
rules on the source, ``uses_files``, the ``generate:`` entries (their cases' expected answers come
later, from the reference solution) and the ``total`` the cases' points share out.
"""

from __future__ import annotations

import difflib
import json
import math
from dataclasses import replace
from typing import Any, Dict, List, Optional

from grader.check.registry import OptionTaker
from grader.course.case_keys import GENERATE_KEYS, RULE_KEYS, RULE_KINDS, TASK_KEYS
from grader.course.case_validation import CaseValidator
from grader.course.files import LineMapping
from grader.course.generators import GENERATORS, Fields, generate, render
from grader.course.limits import case_limits
from grader.model import Case, Generated, Rule, Task
from grader.rules.rule_data import OPERATORS


class TaskValidator(CaseValidator):
    """Checks one parsed file and builds the ``Task``; ``fail`` raises with file and line."""

    def task(self, data: Any) -> Task:
        """The ``Task`` a parsed file describes (``data``: what ``read_yaml`` gave), or fail."""
        if not isinstance(data, LineMapping):
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
        seen: Dict[str, Case] = {}
        items = [(item, None) for item in data["cases"]]
        for spec in data.get("generate", []):
            items += self.generated(spec, defaults, data.key_lines.get("generate", data.line))
        for item, made in items:
            case = self.case(item, defaults, data.key_lines["cases"], seen) if made is None else made
            if made is not None and "hints" in item:  # its hints may wait for any case written in the file
                case = replace(
                    case, hints=self.hints(item, f"in the generate entry at line {item.line}", seen, case.hidden)
                )
            if case.name in seen:
                self.fail(
                    case.line,
                    f"a case named '{case.name}' already exists (line {seen[case.name].line}); names must be unique",
                )
            seen[case.name] = case
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

    def total(self, data: LineMapping, cases: list) -> Optional[float]:
        """The task's ``total``: more than 0, with cases that carry points to share it out."""
        if "total" not in data:
            return None
        total, line = data["total"], data.key_lines["total"]
        if not 0 < total < math.inf:
            self.fail(line, f"'total' must be a number more than 0, not {total!r}")
        if not sum(case.points for case in cases):
            self.fail(line, "'total' is shared out by the cases' points, but every case has 0 points")
        return float(total)

    def uses_files(self, data: LineMapping, task_id: str) -> tuple:
        """The task ids whose files the task's program imports (``uses_files``)."""
        names = data.get("uses_files", [])
        line = data.key_lines.get("uses_files", data.line)
        for name in names:
            if not isinstance(name, str) or not name.isidentifier():
                self.fail(line, f"'uses_files' lists task ids such as make_move (file names without .py), not {name!r}")
            if name == task_id:
                self.fail(line, f"'uses_files' cannot list the task itself ({task_id})")
        return tuple(names)

    def rule(self, item: Any, line: Optional[int]) -> Rule:
        """One ``rules:`` entry → ``Rule``: exactly one kind (operator, name, ...) and its target."""
        if not isinstance(item, LineMapping):
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

    def generated(self, spec: Any, defaults: dict, line: int) -> list:
        """The cases one ``generate:`` entry makes: (the entry, Case) pairs, their ``hints`` and
        expected answers to come."""
        if not isinstance(spec, LineMapping):
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
        checker_like = OptionTaker(name, GENERATORS[name].make)
        for error in checker_like.option_errors(options):
            self.fail(spec.key_lines.get("options", spec.line), error.replace("checker", "generator"))
        pattern = spec.get("name", f"{name} {{index}} (seed {spec['seed']})")
        made = []
        field_sets: List[Fields] = generate(name, spec["seed"], spec["count"], options)
        for index, fields in enumerate(field_sets, start=1):
            case_input = render(spec["format"], fields)
            made.append(
                (
                    spec,
                    Case(
                        name=render(pattern, {"index": index, **fields}),
                        input=case_input if case_input.endswith("\n") else case_input + "\n",
                        expected=(),
                        checker=defaults["checker"],
                        checker_options=dict(defaults["checker_options"]),
                        limits=case_limits(defaults),
                        hidden=spec.get("hidden", False),
                        hint=spec.get("hint", ""),
                        line=spec.line,
                        mistakes=defaults["mistakes"],
                        generated=Generated(name, json.dumps(fields), spec["format"]),
                    ),
                )
            )
        return made
