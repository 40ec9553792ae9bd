"""Cases with several right answers chosen at random (``repeat``, ``min_distinct``): how many runs
are enough, and when two answers are the same.

The bound: a correct solution that picks uniformly among k >= m right answers (m = ``min_distinct``)
shows fewer than m different ones over n runs with probability at most m * (1 - 1/m)**n. With k = m,
that is the chance that some one of the m answers never comes up (a union over the m answers, each
missing with probability (1 - 1/m)**n); with more right answers each run is likelier to bring a new
one, so the chance is smaller. For m = 2 it is 2 * 2**-n, the chance of the same answer n times in a
row. ``repeat_needed`` gives the fewest runs that keep it at most 2**-20 (21 for m = 2): the course
loader refuses a case with fewer, and grading stops a case's runs once m answers have appeared
(``grade.repeats``; docs/testcases.md, "Random answers").
"""

from __future__ import annotations

import json
import math

# A correct random solution may fail a case at most once in 2**FAILURE_BITS gradings.
FAILURE_BITS = 20
# Room for rounding in the floating-point bound (m = 2, n = 21 is exactly 2**-20).
_ROUNDING = 1e-9


def log2_chance_too_few(repeat: int, min_distinct: int) -> float:
    """log2 of the bound on the chance that ``repeat`` runs of a correct random solution show fewer
    than ``min_distinct`` different answers (module docstring); minus infinity when ``min_distinct``
    is below 2, which any one accepted run satisfies."""
    if min_distinct < 2:
        return -math.inf
    return math.log2(min_distinct) + repeat * math.log1p(-1 / min_distinct) / math.log(2)


def repeat_needed(min_distinct: int) -> int:
    """The fewest runs that keep a correct random solution's chance of failing a case with this
    ``min_distinct`` at most 2**-20 (21 for 2, 37 for 3, 54 for 4); 1 when ``min_distinct`` < 2."""
    if min_distinct < 2:
        return 1
    per_run = -math.log1p(-1 / min_distinct) / math.log(2)
    runs = max(1, math.ceil((FAILURE_BITS + math.log2(min_distinct)) / per_run - _ROUNDING))
    while log2_chance_too_few(runs, min_distinct) > -FAILURE_BITS + _ROUNDING:  # never off by one
        runs += 1
    return runs


def answer_key(actual: str) -> str:
    """An output in a canonical form (JSON re-dumped, or words), to count distinct answers.

    Never raises: an output Python will not read as JSON (a number of 5,000 digits, brackets nested
    too deeply) is counted by its words.
    """
    try:
        return json.dumps(json.loads(actual))
    except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
        return " ".join(actual.split())
