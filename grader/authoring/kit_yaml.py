"""A task's public cases as the student kit's ``testcases/<task>.yaml``, graded as the portal grades them.

In: the task's public cases, resolved (defaults applied, files read, generated answers filled in), and
the top of its course file as read (its title, checker, limits, rules, mistakes, ``total``...). Out:
the file's text and the texts too long to sit in it, by their names beside it (``<task>/3-input.txt``).
Each case is written out whole: its input and answers as texts, and of its settings those that differ
from the task's, so that the file loads back as exactly these cases. A ``generate:`` entry is not
kept (its answers would need the reference solution), nor any comment of the course's file (one may
speak of a hidden case). Nothing here reads or writes a file.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Tuple

from grader.authoring.yaml_writer import comment, new_file
from grader.course.limits import case_limits, default_settings
from grader.marks import plain_number
from grader.model import Case, Mistake, Task, When

# An input or answer longer than this goes in a file of its own beside the YAML file, as the course's
# long ones do, so the file stays readable and well under the loader's 8 MiB.
INLINE_BYTES = 4 * 1024
# The top of a course file that the kit leaves out: its cases are written anew, its generated ones
# as ordinary cases.
LEFT_OUT = ("task", "cases", "generate")


def plain(value: Any) -> Any:
    """``value`` as plain dicts and lists (the loader's mappings know their lines; the writer
    would not know how to write them)."""
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def task_settings(top: Mapping[str, Any]) -> dict:
    """The settings the task's cases start from: the defaults, with what the top of its file sets."""
    settings = default_settings()
    settings.update({key: top[key] for key in settings if key in top})
    settings["checker_options"] = plain(settings["checker_options"])
    return settings


def public_case_file(task: Task, top: Mapping[str, Any], interactive: frozenset) -> Tuple[str, Dict[str, str]]:
    """The kit's case file for ``task`` (its public cases only, answers filled in) and the files it
    names, by their path relative to ``testcases/``.

    ``top`` is the top level of the course's file, as ``read_yaml`` gave it (validated already);
    ``interactive`` names the checkers that play against the program, whose cases have no input.
    """
    settings = task_settings(top)
    shared_mistakes = len(top.get("mistakes", []))
    document: Dict[str, Any] = {"task": task.id}
    document.update({key: plain(value) for key, value in top.items() if key not in LEFT_OUT})
    if "total" in document and not sum(case.points for case in task.cases):
        del document["total"]  # the public cases all have 0 points: there is nothing to share it out to
    files: Dict[str, str] = {}
    cases = []
    for number, case in enumerate(task.cases, start=1):
        written = _case(case, settings, shared_mistakes, case.checker in interactive)
        for key in ("input", "expected"):
            text = written.get(key)
            if isinstance(text, str) and _own_file(text):
                name = f"{task.id}/{number}-{key}.txt"
                files[name] = text
                del written[key]
                written[f"{key}_file"] = name
        cases.append(_ordered(written))
    document["cases"] = cases
    header = comment(
        f"The public cases of {task.id}, for checking your work with python -m grader check. The portal grades "
        "what you hand in on these and on hidden cases too, and your marks are the portal's.",
        "",
        "",
    )
    return new_file(document, header), files


def _own_file(text: str) -> bool:
    # A file of its own is read back with universal newlines, so a text with a carriage return
    # stays in the YAML file, where it is escaped.
    return len(text.encode("utf-8")) > INLINE_BYTES and "\r" not in text


def _case(case: Case, settings: dict, shared_mistakes: int, interactive: bool) -> Dict[str, Any]:
    """One case's keys: what it is, and the settings of its own."""
    written: Dict[str, Any] = {"name": case.name}
    if not interactive:
        written["input"] = _as_written(case.input)
    if len(case.expected) == 1:
        written["expected"] = case.expected[0]
    elif case.expected:
        written["expected"] = list(case.expected)
    options = plain(dict(case.checker_options))
    if case.checker != settings["checker"] or not set(settings["checker_options"]) <= set(options):
        # with the checker named, the options are read as they are instead of completing the task's
        written["checker"] = case.checker
        written["checker_options"] = options
    elif options != settings["checker_options"]:
        written["checker_options"] = options  # completing the task's, it gives every key its own value
    task_limits = case_limits(settings)
    for key, mine, theirs in (
        ("time_limit", case.limits.time_s, task_limits.time_s),
        ("memory_limit", case.limits.memory_mib, task_limits.memory_mib),
        ("output_limit", case.limits.output_bytes, task_limits.output_bytes),
    ):
        if mine != theirs:
            written[key] = plain_number(mine)
    if case.points != 1:
        written["points"] = plain_number(case.points)
    if case.repeat != 1:
        written["repeat"] = case.repeat
    if case.min_distinct:
        written["min_distinct"] = case.min_distinct
    if case.hint:
        written["hint"] = case.hint
    if case.hints:
        written["hints"] = [{"when": _when(hint.when), "text": hint.text} for hint in case.hints]
    # a case's mistakes are its own followed by the task's, which the top of the file keeps
    own = case.mistakes[: len(case.mistakes) - shared_mistakes]
    if own:
        written["mistakes"] = [_mistake(mistake) for mistake in own]
    return written


def _when(when: When) -> Dict[str, Any]:
    """A hint's ``when`` as the file writes it, its verdicts always named (their default depends
    on the other keys)."""
    written: Dict[str, Any] = {"verdict": [verdict.value for verdict in when.verdicts]}
    for key in ("output", "pattern", "exception", "exception_text"):
        if getattr(when, key) is not None:
            written[key] = getattr(when, key)
    if when.accepted:
        written["accepted"] = list(when.accepted)
    if when.time_out:
        written["time_out"] = list(when.time_out)
    return written


def _as_written(case_input: str) -> str:
    """The input as a file would give it: the final newline the loader adds left out (an input of
    one line then reads as one line)."""
    if case_input.endswith("\n") and case_input[:-1] and not case_input[:-1].endswith("\n"):
        return case_input[:-1]
    return case_input


def _mistake(mistake: Mistake) -> Dict[str, Any]:
    found: Dict[str, Any] = {"output": mistake.output} if mistake.output is not None else {"pattern": mistake.pattern}
    if mistake.accepted:
        found["accepted"] = list(mistake.accepted)
    return {**found, "hint": mistake.hint}


def _ordered(written: Dict[str, Any]) -> Dict[str, Any]:
    """The keys in the order the course's files use: name, input, expected, then the rest."""
    first = ("name", "input", "input_file", "expected", "expected_file")
    keys: List[str] = [key for key in first if key in written] + [key for key in written if key not in first]
    return {key: written[key] for key in keys}
