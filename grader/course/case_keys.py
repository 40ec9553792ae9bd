"""The keys a test case file may hold, where, with the types their values must have.

Each table maps a key to ``(accepted Python types, words for a message)``, for the top of the file
(``TASK_KEYS``), a case (``CASE_KEYS``), a known mistake, an entry of a case's ``hints`` and its
``when``, a ``generate:`` entry and a rule.
``kind_of`` gives the words for the type of a value that does not fit. Tables only: the checks that
use them are in ``case_validation`` and ``task_validation``.
"""

from __future__ import annotations

from typing import Any

TEXT = ((str,), "text (in quotes)")
NUMBER = ((int, float), "a number")
BOOL = ((bool,), "true or false")
MAPPING = ((dict,), "a mapping (key: value lines)")
LIST = ((list,), "a list")
WHOLE_NUMBER = ((int,), "a whole number")

# the keys a task sets for all its cases and a case may set again for itself
SHARED_KEYS = {
    "checker": TEXT,
    "checker_options": MAPPING,
    "time_limit": NUMBER,
    "memory_limit": NUMBER,
    "output_limit": NUMBER,
}
TASK_KEYS = {
    "task": TEXT,
    "title": TEXT,
    "rules": LIST,
    "uses_files": LIST,
    "total": NUMBER,
    "mistakes": LIST,
    "generate": LIST,
    "cases": LIST,
    **SHARED_KEYS,
}
CASE_KEYS = {
    "name": TEXT,
    "input": TEXT,
    "input_file": TEXT,
    "expected": ((str, list), "text, or a list of texts"),
    "expected_file": TEXT,
    "hidden": BOOL,
    "hint": TEXT,
    "points": NUMBER,
    "repeat": WHOLE_NUMBER,
    "min_distinct": WHOLE_NUMBER,
    "mistakes": LIST,
    "hints": LIST,
    **SHARED_KEYS,
}
TEXTS = ((str, list), "text, or a list of texts")
MISTAKE_KEYS = {"output": TEXT, "pattern": TEXT, "hint": TEXT, "accepted": TEXTS}
# an entry of a case's ``hints``, and its ``when``: the failures the hint explains
HINT_KEYS = {"when": MAPPING, "text": TEXT}
WHEN_KEYS = {
    "verdict": TEXTS,
    "output": TEXT,
    "pattern": TEXT,
    "exception": TEXT,
    "exception_text": TEXT,
    "accepted": TEXTS,
    "time_out": TEXTS,
}
GENERATE_KEYS = {
    "generator": TEXT,
    "seed": WHOLE_NUMBER,
    "count": WHOLE_NUMBER,
    "options": MAPPING,
    "format": TEXT,
    "name": TEXT,
    "hidden": BOOL,
    "hint": TEXT,
    "hints": LIST,
}
RULE_KINDS = ("operator", "name", "import", "format_spec")
RULE_KEYS = {**{kind: TEXT for kind in RULE_KINDS}, "instead": TEXT, "min_args": NUMBER}


def kind_of(value: Any) -> str:
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
