"""A file's cases run one after another in one shared process, before any runs alone.

In: the cases still to run, the staged program, the grading context (its runner and checkers).
Out: the result of each case that was accepted in the shared process (by case name); every other
case is run alone afterwards, as if there had been no shared process, and that result counts. So
sharing can never cost a student a mark, and a failing case's report is the one it gets alone.

Which cases share: those with the same limits as most of them but for time (the process's limits
are set once), every run of a repeated case and every game played with the grader included. Each
case, and each run of a repeated case, runs in a fork of the shared process, which never runs the
student's code itself: a fresh ``__main__`` and modules, nothing an earlier run did to its own
process (state kept between runs could fake randomness), its own input and output, seed and time
limit (``run/case_loop.py``, ``run/shared_process.py``). Visible cases run first and hidden ones
last, so that nothing a hidden case leaves behind (which ends the shared process anyway) can reach
a case whose output a student sees. A repeated case is decided as alone (``repeats``: the same
runs, the same early stop), and any of its runs that did not end normally in the shared process
sends the whole case to run alone.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Dict, Optional, Sequence

from grader.check.registry import GameChecker
from grader.grade.repeats import run_repeats
from grader.grade.submitted_program import run_seed
from grader.grade.verdicts import repeats_result, run_result
from grader.model import Case, CaseResult, Verdict
from grader.run.execute import Program
from grader.run.shared_process import session_limits


def _limits_but_time(case: Case) -> tuple:
    limits = case.limits
    return (limits.memory_mib, limits.file_bytes, limits.processes, limits.open_files)


def sharing(cases: Sequence[Case], context) -> list:
    """The cases that share one process, in the order they run there (see the module's docstring)."""
    # Runs of a repeated case made several at once decide it as they come: the same runs, one
    # after another here, could stop at another run. Those cases run alone, as before.
    parallel = context.repeat_jobs > 1
    eligible = [c for c in cases if context.checkers.get(c.checker) is not None and not (parallel and c.repeat > 1)]
    if not eligible or (len(eligible) < 2 and eligible[0].repeat <= 1):
        return []
    common, _ = Counter(_limits_but_time(c) for c in eligible).most_common(1)[0]
    chosen = [c for c in eligible if _limits_but_time(c) == common]
    return [c for c in chosen if not c.hidden] + [c for c in chosen if c.hidden]


def _in_session(session, case: Case, program: Program, context, shown: str) -> Optional[CaseResult]:
    """``case`` decided from its runs in ``session``, as ``grading.grade_case`` decides it alone;
    None when a run did not end normally there."""
    checker = context.checkers.get(case.checker)
    lost = []

    def one(index: int) -> CaseResult:
        each = replace(program, seed=run_seed(program.seed, case, index))
        game = checker.start(case.checker_options) if isinstance(checker, GameChecker) else None
        run = session.run(case.input.encode("utf-8"), case.limits, each.seed, game)
        if run is None or run.exit_code != 0 or run.crash is not None:
            lost.append(index)
            return CaseResult(case, Verdict.RUNTIME_ERROR, "")  # stops the runs; never kept
        return run_result(case, checker, run, game, each, context.task_ids, shown)

    results = run_repeats(one, case, 1, context.stop_when_random)
    return None if lost else repeats_result(case, results)


def accepted_together(cases: Sequence[Case], program: Program, context, shown: str) -> Dict[str, CaseResult]:
    """Run ``sharing(cases)`` in one process of ``context.runner`` (when it has them); the results
    of those accepted there, by case name."""
    shared = getattr(context.runner, "shared", None)
    chosen = sharing(cases, context) if shared is not None else []
    if shared is None or not chosen:
        return {}
    limits = session_limits([(b"", case.limits, "") for case in chosen for _ in range(max(1, case.repeat))])
    accepted = {}
    with shared(program, limits) as session:
        for case in chosen:
            if session is None or not session.alive:
                break
            result = _in_session(session, case, program, context, shown)
            if result is not None and result.accepted:
                accepted[case.name] = result
    return accepted
