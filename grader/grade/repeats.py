"""Repeated runs of one case (``repeat``, ``min_distinct``): when to stop, and how many runs are enough.

A case whose right answer is chosen at random (``optimal_move``) runs the program up to ``repeat``
times. Every run's answer is checked, and a run that is not accepted ends the case at once. Once
``min_distinct`` different right answers have appeared, the program has shown that it chooses at
random, and the case stops there: further runs could only find a wrong answer that these did not.
A program that keeps giving fewer different answers runs all ``repeat`` runs and is then rejected.

The bound: a correct solution that picks uniformly among k >= m right answers (m = ``min_distinct``)
shows fewer than m different ones over n runs with probability at most m * (1 - 1/m)**n. With k = m,
that is the chance that some one of the m answers never comes up (a union over the m answers, each
missing with probability (1 - 1/m)**n); with more right answers each run is likelier to bring a new
one, so the chance is smaller. For m = 2 it is 2 * 2**-n, the chance of the same answer n times in a
row. ``repeat_needed`` gives the fewest runs that keep it at most 2**-20 (21 for m = 2), and the
loader refuses a case with fewer (docs/testcases.md, "Random answers").
"""

from __future__ import annotations

import math
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Callable, Dict, List, Set

from grader.check.checkers import answer_key
from grader.model import Case, CaseResult

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


class _Tally:
    """What the runs so far decide: a run not accepted, or enough different right answers."""

    def __init__(self, enough: int) -> None:
        self.enough = enough  # different answers that end the case early; 0: never early
        self.answers: Set[str] = set()
        self.decided = False

    def add(self, result: CaseResult) -> None:
        if not result.accepted:
            self.decided = True
            return
        if self.enough:
            self.answers.add(answer_key(result.actual))
            self.decided = self.decided or len(self.answers) >= self.enough


def run_repeats(
    one: Callable[[int], CaseResult], case: Case, parallel_runs: int = 1, stop_when_random: bool = True
) -> List[CaseResult]:
    """The results of runs 0, 1, ... of ``case`` (``one(index)`` runs one), in run order.

    Runs stop once a run is not accepted or, with ``stop_when_random`` and ``min_distinct`` >= 2,
    once that many different right answers have appeared; otherwise all ``repeat`` run. With
    ``parallel_runs`` > 1 that many run at once and, once decided, no new run starts (runs already
    started finish and are included). The returned runs are always runs 0 to len - 1.
    """
    tally = _Tally(case.min_distinct if stop_when_random and case.min_distinct >= 2 else 0)
    width = min(max(1, parallel_runs), case.repeat)
    if width == 1:
        results = []
        for index in range(case.repeat):
            results.append(one(index))
            tally.add(results[-1])
            if tally.decided:
                break
        return results
    done: Dict[int, CaseResult] = {}
    with ThreadPoolExecutor(max_workers=width) as pool:
        running = {pool.submit(one, index): index for index in range(width)}
        started = width
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                index = running.pop(future)
                done[index] = future.result()
                tally.add(done[index])
            while not tally.decided and started < case.repeat and len(running) < width:
                running[pool.submit(one, started)] = started
                started += 1
    return [done[index] for index in sorted(done)]
