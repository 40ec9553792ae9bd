"""A file's cases run one after another in one shared process, before any runs alone.

In: the cases still to run, the staged program, the grading context (its runner and checkers).
Out: the result of each case that was accepted in the shared process (by case name); every other
case is run alone afterwards, as if there had been no shared process, and that result counts. So
sharing can never cost a student a mark, and a failing case's report is the one it gets alone.

Which cases share: those with one run (the repeats of a randomised case each need a fresh process:
state kept between them could fake randomness), with a checker that reads the output once it is
complete (not an interactive session), and with the same limits as most of them but for time (the
process's limits are set once). Visible cases run first and hidden ones last, so nothing a hidden
case leaves in the process can reach a case whose output a student sees. Each case runs in a fork
of the shared process, which never runs the student's code itself: a fresh ``__main__`` and
modules, nothing an earlier case did to its own process, its own input and output, seed and time
limit (``run/case_loop.py``, ``run/shared_process.py``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Dict, Sequence

from grader.grade.submitted_program import run_seed
from grader.grade.verdicts import run_result
from grader.model import Case, CaseResult
from grader.run.execute import Program


def _limits_but_time(case: Case) -> tuple:
    limits = case.limits
    return (limits.memory_mib, limits.file_bytes, limits.processes, limits.open_files)


def sharing(cases: Sequence[Case], context) -> list:
    """The cases that share one process, in the order they run there (visible, then hidden)."""
    checkers = {c.checker: context.checkers.get(c.checker) for c in cases}
    eligible = [c for c in cases if c.repeat <= 1 and checkers[c.checker] and not checkers[c.checker].interactive]
    if len(eligible) < 2:
        return []
    common, _ = Counter(_limits_but_time(c) for c in eligible).most_common(1)[0]
    chosen = [c for c in eligible if _limits_but_time(c) == common]
    return [c for c in chosen if not c.hidden] + [c for c in chosen if c.hidden]


def accepted_together(cases: Sequence[Case], program: Program, context, shown: str) -> Dict[str, CaseResult]:
    """Run ``sharing(cases)`` in one process of ``context.runner`` (when it has them); the results
    of those accepted there, by case name."""
    together = getattr(context.runner, "run_together", None)
    chosen = sharing(cases, context) if together is not None else []
    if not chosen:
        return {}
    programs = [replace(program, seed=run_seed(program.seed, case, 0)) for case in chosen]
    runs = [(case.input.encode("utf-8"), case.limits, each.seed) for case, each in zip(chosen, programs)]
    accepted = {}
    for case, each, run in zip(chosen, programs, together(program, runs)):
        if run is None or run.exit_code != 0 or run.crash is not None:
            continue
        checker = context.checkers.get(case.checker)
        result = run_result(case, checker, run, None, each, context.task_ids, shown)
        if result.accepted:
            accepted[case.name] = result
    return accepted
