"""The settings a task starts from, the limits of a case: what a limit in YAML may be, and the ``Limits`` value.

In: the ``time_limit``, ``memory_limit`` and ``output_limit`` a task or case sets (seconds, MiB,
bytes). Out: a sentence when one is unusable, or the ``Limits`` a case is run under.
"""

from __future__ import annotations

import math
from typing import Optional

from grader.model import Limits

DEFAULT_LIMITS = Limits()
LIMIT_KEYS = ("time_limit", "memory_limit", "output_limit")


def limit_problem(key: str, value: float) -> Optional[str]:
    """Why ``value`` cannot be the limit ``key``, or None.

    Limits are finite and positive; memory (MiB) and output (bytes) are whole numbers.
    """
    if not 0 < value < math.inf:
        return f"'{key}' must be a number more than 0, not {value!r}"
    if key != "time_limit" and value != int(value):
        unit = "MiB" if key == "memory_limit" else "bytes"
        return f"'{key}' must be a whole number of {unit}, not {value!r}"
    return None


def default_settings() -> dict:
    """What a task sets when its file says nothing: the text checker, no options, the default limits."""
    return {
        "checker": "text",
        "checker_options": {},
        "time_limit": DEFAULT_LIMITS.time_s,
        "memory_limit": DEFAULT_LIMITS.memory_mib,
        "output_limit": DEFAULT_LIMITS.output_bytes,
    }


def case_limits(settings: dict) -> Limits:
    """The limits of a case from its settings (the task's, with the case's overrides)."""
    return Limits(
        time_s=float(settings["time_limit"]),
        memory_mib=int(settings["memory_limit"]),
        output_bytes=int(settings["output_limit"]),
    )
