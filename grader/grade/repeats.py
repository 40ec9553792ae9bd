"""Repeated runs of one case (``repeat``, ``min_distinct``): when to stop.

A case whose right answer is chosen at random (``optimal_move``) runs the program up to ``repeat``
times. Every run's answer is checked, and a run that is not accepted ends the case at once. Once
``min_distinct`` different right answers have appeared, over at least ``MIN_RUNS`` runs, the program
has shown that it chooses at random, and the case stops there: further runs could only find a wrong
answer that these did not, and a mistake that shows on half of the runs or more has had six chances.
A program that keeps giving fewer different answers runs all ``repeat`` runs and is then rejected.
How many runs are enough is ``check.random_answers``'s arithmetic.
"""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Callable, Dict, List, Set

from grader.check.random_answers import answer_key
from grader.model import Case, CaseResult

# Runs a repeated case makes before it may stop early: a mistake that shows on half of the runs
# (a random row that may be empty, a random 0 taken) passes it at most one time in 2**6, however
# soon enough different right answers have come up.
MIN_RUNS = 6


class _Tally:
    """What the runs so far decide: a run not accepted, or enough different right answers over at
    least ``min_runs`` runs."""

    def __init__(self, enough: int, min_runs: int) -> None:
        self.enough = enough  # different answers that end the case early; 0: never early
        self.min_runs = min_runs
        self.runs = 0
        self.answers: Set[str] = set()
        self.decided = False

    def add(self, result: CaseResult) -> None:
        self.runs += 1
        if not result.accepted:
            self.decided = True
            return
        if self.enough:
            self.answers.add(answer_key(result.actual))
            self.decided = self.decided or (len(self.answers) >= self.enough and self.runs >= self.min_runs)


def run_repeats(
    one: Callable[[int], CaseResult], case: Case, parallel_runs: int = 1, stop_when_random: bool = True
) -> List[CaseResult]:
    """The results of runs 0, 1, ... of ``case`` (``one(index)`` runs one), in run order.

    Runs stop once a run is not accepted or, with ``stop_when_random`` and ``min_distinct`` >= 2,
    once that many different right answers have appeared over at least ``MIN_RUNS`` runs; otherwise
    all ``repeat`` run. With
    ``parallel_runs`` > 1 that many run at once and, once decided, no new run starts (runs already
    started finish and are included). The returned runs are always runs 0 to len - 1.
    """
    tally = _Tally(case.min_distinct if stop_when_random and case.min_distinct >= 2 else 0, min(MIN_RUNS, case.repeat))
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
