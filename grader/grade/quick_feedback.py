"""Quick feedback, on every path (``check``, ``grade``, the portal): once a program has run out of
time on two cases of a task, the task's remaining cases are ``not_run`` (``grader-cli.md``), so a
student with an endless loop hears about it after two time limits instead of one per case, and the
same file gets the same marks wherever it is graded (``--all`` and ``verify`` run every case).

Which cases are ``not_run`` depends only on the results in the task's case order: every case after
the second ``time_limit_exceeded`` one. Cases run in parallel may finish in any order, so a case
that started before that was known still runs to its end, and its result is then replaced; a case
is not started once two earlier cases are known to have timed out, and waits while one earlier
case has timed out and another earlier one is still running. The result is the same on every run.
"""

from __future__ import annotations

import threading
from typing import Callable, Dict, Iterable, Mapping, Optional, Sequence, Set

from grader.model import Case, CaseResult, Verdict

# Time-outs in one task after which its remaining cases are not run.
TIMEOUTS_BEFORE_NOT_RUN = 2


class TimeoutGate:
    """For the cases of one task (one ``grade_submission`` call): which still run, and which are not_run.

    ``cases`` are the task's cases in order; ``known`` results already known (they count in their
    place); ``active`` False (``verify``, ``--all``) lets every case run. ``run`` is called
    from the threads that grade the cases; ``kept`` and ``not_run`` once they are done.
    """

    def __init__(self, cases: Sequence[Case], known: Mapping[str, CaseResult], active: bool, advice: str = "") -> None:
        self._active = active
        self._advice = advice
        self._names = [case.name for case in cases]
        self._order = {name: index for index, name in enumerate(self._names)}
        self._timed_out = {self._order[n] for n, r in known.items() if n in self._order and _timed_out(r)}
        self._running: Set[int] = set()
        self._changed = threading.Condition()

    def run(self, case: Case, grade: Callable[[], CaseResult]) -> Optional[CaseResult]:
        """``grade()``'s result for ``case``, or None when the case is not to run."""
        if not self._active:
            return grade()
        index = self._order[case.name]
        with self._changed:
            while True:
                before = sorted(i for i in self._timed_out if i < index)
                if len(before) >= TIMEOUTS_BEFORE_NOT_RUN:
                    return None
                # With one time-out before it, an earlier case still running may be the second:
                # wait for it rather than start a run that would likely be thrown away.
                if not before or not any(i < index for i in self._running):
                    break
                self._changed.wait()
            self._running.add(index)
        timed_out = False
        try:
            result = grade()
            timed_out = _timed_out(result)
            return result
        finally:
            with self._changed:
                self._running.discard(index)
                if timed_out:
                    self._timed_out.add(index)
                self._changed.notify_all()

    def kept(self, cases: Iterable[Case], results: Iterable[Optional[CaseResult]]) -> Dict[str, CaseResult]:
        """The results that count, by case name: those of cases up to the second time-out in case
        order (all of them when the gate is not active)."""
        pairs = list(zip(cases, results))  # every result first: the cut depends on all of them
        cut = self._cut_index()
        return {
            case.name: result
            for case, result in pairs
            if result is not None and (cut is None or self._order[case.name] <= cut)
        }

    def not_run(self, case: Case) -> CaseResult:
        """The ``not_run`` result of ``case``, a case after the second time-out."""
        first, second = (self._names[i] for i in sorted(self._timed_out)[:TIMEOUTS_BEFORE_NOT_RUN])
        return CaseResult(case=case, verdict=Verdict.NOT_RUN, message=not_run_message(first, second, self._advice))

    def _cut_index(self) -> Optional[int]:
        if not self._active or len(self._timed_out) < TIMEOUTS_BEFORE_NOT_RUN:
            return None
        return sorted(self._timed_out)[TIMEOUTS_BEFORE_NOT_RUN - 1]


def _timed_out(result: CaseResult) -> bool:
    return result.verdict is Verdict.TIME_LIMIT_EXCEEDED


# What a not_run case advises after ``check``; the portal says its own (``GradingContext``).
CHECK_ADVICE = "then check again; 'python -m grader check --all' runs every case."
# What it advises in a class run's report (``grade``): the student reads it after the marks are in.
GRADE_ADVICE = "then run check on your file; 'python -m grader check --all' runs every case."


def not_run_message(first: str, second: str, advice: str = "") -> str:
    """What a ``not_run`` case says, naming the two cases that ran out of time; ``advice`` ends it
    (default: what to do after ``check``)."""
    return (
        f"Not run: your program ran out of time on '{first}' and on '{second}', so the rest of this task's "
        "cases were left out to give you feedback sooner. Make it finish in time first (the messages of those two "
        f"cases say where it was stopped), {advice or CHECK_ADVICE}"
    )
