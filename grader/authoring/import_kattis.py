"""Importing a Kattis (ICPC) problem package as a ``testcases/<task>.yaml``.

In: a folder with ``problem.yaml`` (the legacy or the 2023-07 format) and ``data/``. Out: an
``ImportResult`` (see ``importing``) whose notes name what Kattis does and this grader cannot (a
custom or interactive validator, scoring, a time limit computed from the judges' solutions, ...).
The cases are read by ``kattis_data``; the default validator's flags become a checker in
``kattis_validator``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, Optional

from grader.authoring.imported_yaml import task_file_text
from grader.authoring.importing import (
    ImportResult,
    Notes,
    carried_memory_limit,
    files_in,
    listing,
    no_cases_error,
    package_folder,
    positive_limit,
    read_mapping,
    task_id_for,
)
from grader.authoring.kattis_data import KattisData, read_testdata
from grader.authoring.kattis_validator import flag_words, parse_flags, validator_checker
from grader.course.limits import DEFAULT_LIMITS
from grader.errors import UsageError
from grader.marks import plain_number

# problem.yaml keys of the legacy and 2023-07 formats. Metadata worth keeping goes into the header
# comment; ids and keywords are dropped as they mean nothing to a test case file.
_KATTIS_HEADER_KEYS = ("author", "source", "source_url", "license", "rights_owner", "credits")
_KATTIS_USED_KEYS = {
    "name",
    "type",
    "limits",
    "validation",
    "validator_flags",
    "grading",
    "problem_format_version",
    "uuid",
    "keywords",
    *_KATTIS_HEADER_KEYS,
}
_KATTIS_TIME_KEYS = {"time_limit", "time_multiplier", "time_safety_margin", "time_multipliers", "time_resolution"}


def import_kattis(folder: Path, task_id: Optional[str] = None) -> ImportResult:
    """Convert a Kattis/ICPC problem package (``problem.yaml``, ``data/sample``, ``data/secret``).

    Samples are visible cases, secret ones hidden; a case's name is its path under data/ without
    the extension (``sample/1``, ``secret/group1/01``) and a ``.hint`` file becomes its hint. The
    default output validator's flags become a checker (see ``validator_checker``); the output limit
    carries over, the memory limit only when it is above the grader's default (see
    ``carried_memory_limit``), and the time limit when ``limits.time_limit`` gives it.
    Raises ``UsageError`` (one sentence naming the file) when the folder cannot be read as a package.
    """
    folder = package_folder(folder, "Kattis problem package", "problem.yaml")
    conf_path = folder / "problem.yaml"
    conf = read_mapping(conf_path)
    task_id = task_id_for(folder, task_id)
    notes = Notes()

    task: Dict[str, Any] = {}
    name = conf.get("name")
    if isinstance(name, dict) and name:
        name = name.get("en", next(iter(name.values())))
    if name is not None:
        task["title"] = str(name)
    validation = _kattis_validation(folder, conf, conf_path, notes)
    problem_flags = flag_words(conf.get("validator_flags"), f"{conf_path}, validator_flags")
    root_testdata = folder / "data" / "testdata.yaml"
    root_settings = read_testdata(root_testdata, "data/testdata.yaml", notes)
    where = f"{root_testdata}, output_validator_flags"
    base_flags = problem_flags + flag_words(root_settings.get("output_validator_flags"), where)
    checker, options = validator_checker(parse_flags(base_flags, f"{conf_path}, validator_flags"), Notes())
    task["checker"] = checker
    if options:
        task["checker_options"] = options
    _kattis_limits(conf, conf_path, task, notes)

    walker = KattisData(folder, problem_flags, (checker, options), validation, notes)
    cases, found = walker.cases(root_settings)
    if not found:
        raise UsageError(f"{folder / 'data'}: no test cases (.in files) in data/sample/ or data/secret/.")
    if not cases:
        raise no_cases_error(folder / "data", found, notes)
    _kattis_other_notes(folder, conf, notes)
    header = [f"{key}: {conf[key]}" for key in _KATTIS_HEADER_KEYS if conf.get(key)]
    text = task_file_text(f"Kattis problem package {folder.resolve()}", task_id, task, cases, notes, header)
    return ImportResult(task_id=task_id, yaml_text=text, cases=len(cases), notes=tuple(notes.items))


def _kattis_validation(folder: Path, conf: Dict[str, Any], conf_path: Path, notes: Notes) -> str:
    """'default', 'custom' or 'interactive', with notes for what a custom validator does."""
    value = conf.get("validation", "default")
    if not isinstance(value, str) or not value.split() or value.split()[0] not in ("default", "custom"):
        raise UsageError(f"{conf_path}: 'validation' must be 'default' or 'custom ...', not {value!r}.")
    words = set(value.split())
    types = conf.get("type", "pass-fail")
    types = set(types.split()) if isinstance(types, str) else set(map(str, types or []))
    validators = files_in(folder / "output_validators") + files_in(folder / "output_validator")
    shown = f" ({listing(validators)})" if validators else ""
    if "interactive" in words or "interactive" in types or "multi-pass" in types:
        notes.add(
            f"This is an interactive problem: its output validator{shown} talks with the program as it runs, which "
            "was not carried over; the cases only feed each .in file to standard input and compare the output "
            "with the .ans file, so they will most likely need rewriting."
        )
        return "interactive"
    # In the 2023-07 format there is no 'validation' key: an output_validator/ folder means custom.
    modern = str(conf.get("problem_format_version", "legacy")) != "legacy"
    if "custom" in words or (modern and "validation" not in conf and validators):
        notes.add(
            f"The custom output validator{shown} was not carried over: the cases compare output as Kattis's "
            "default validator would with the same validator_flags, so answers it would accept in other forms "
            "are rejected."
        )
        return "custom"
    if validators:
        notes.add(
            f"The output validator{shown} was not imported; with validation default (problem.yaml) Kattis does not "
            "use it either."
        )
    return "default"


def _kattis_limits(conf: Dict[str, Any], conf_path: Path, task: Dict[str, Any], notes: Notes) -> None:
    limits = conf.get("limits") or {}
    if not isinstance(limits, dict):
        raise UsageError(f"{conf_path}: 'limits' must be a mapping such as {{memory: 1024}}, not {limits!r}.")
    if limits.get("time_limit") is not None:
        task["time_limit"] = plain_number(
            positive_limit(limits["time_limit"], conf_path, "limits.time_limit", "seconds")
        )
    else:
        given = ", ".join(f"{k} {limits[k]}" for k in sorted(_KATTIS_TIME_KEYS) if k in limits)
        given = given or "time_multiplier 5 by default"
        seconds = plain_number(DEFAULT_LIMITS.time_s)
        notes.add(
            f"Kattis computes the time limit from the judge solutions' running times ({given}); it was not "
            f"carried over, so the default of {seconds} seconds applies: set time_limit by hand."
        )
    if limits.get("memory") is not None:
        given_mib = positive_limit(limits["memory"], conf_path, "limits.memory", "MiB")
        meaning = "the memory of the whole process, interpreter included, as Kattis's judges count it"
        memory = carried_memory_limit(given_mib, "problem.yaml limits.memory", meaning, notes)
        if memory is not None:
            task["memory_limit"] = memory
    if limits.get("output") is not None:
        task["output_limit"] = math.ceil(
            positive_limit(limits["output"], conf_path, "limits.output", "MiB") * 1024 * 1024
        )
    left = sorted(k for k in limits if k not in _KATTIS_TIME_KEYS | {"memory", "output"})
    if left:
        notes.add(f"These limits have no counterpart here and were not carried over: {listing(left, 8)}.")


def _kattis_other_notes(folder: Path, conf: Dict[str, Any], notes: Notes) -> None:
    types = conf.get("type", "pass-fail")
    types = set(types.split()) if isinstance(types, str) else set(map(str, types or []))
    if "submit-answer" in types:
        notes.add(
            "This is a Kattis submit-answer problem (answers are files, not a program); here each case runs a program."
        )
    if "scoring" in types or conf.get("grading"):
        notes.add(
            "This is a Kattis scoring problem: its scores (grading, accept_score, custom graders) were not carried "
            "over; every case counts 1 point."
        )
    validators = files_in(folder / "input_validators") + files_in(folder / "input_format_validators")
    if validators:
        notes.add(
            f"The input validators ({listing(validators)}) were not carried over: they check the test data, and the "
            "imported inputs were not validated."
        )
    included = files_in(folder / "include")
    if included:
        notes.add(f"The code Kattis adds to every submission ({listing(included)}) was not carried over.")
    left = sorted(key for key in conf if key not in _KATTIS_USED_KEYS)
    if left:
        notes.add(f"These problem.yaml settings were not carried over: {listing(left, 8)}.")
    folders = [
        name + "/"
        for name in ("submissions", "problem_statement", "statement", "attachments", "generators")
        if (folder / name).is_dir()
    ]
    if folders:
        notes.add(
            f"The folders {', '.join(folders)} (judge solutions, statement, attachments) were not imported; an "
            "accepted Python solution can go to solutions/<task>.py for python -m grader verify."
        )
