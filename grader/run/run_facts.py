"""What one run of a program reported, as facts (``RunResult``): its exit, output, time, and the
records of the process that ran it (a crash, a rule broken, the stack at the time limit). No
verdict: ``grade/verdicts.py`` decides one from these. Frozen dataclasses; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass(frozen=True)
class Frame:
    """A place in the student's code: the file as named in the run folder, its 1-based line, the function."""

    file: str
    line: int
    function: str = ""


@dataclass(frozen=True)
class StackSample:
    """One look at where a program was, past its time limit: its frames in the student's files
    (innermost first) and, for each, a fingerprint of its variables ("" where it cannot be told, or
    where the look came from ``faulthandler`` alone)."""

    frames: Tuple[Frame, ...]
    states: Tuple[str, ...] = ()


@dataclass(frozen=True)
class ChildCrash:
    """How a program crashed, as the process running it reported (never read from its stderr).

    ``exception`` is the exception's class name, ``builtin`` True when it is Python's own class of
    that name; ``frames`` are those in the student's files, innermost last.
    """

    exception: str
    builtin: bool
    text: str = ""
    frames: Tuple[Frame, ...] = ()


@dataclass(frozen=True)
class RuleBreak:
    """A rule of the task (its index in ``Task.rules``) broken while the program ran, and where."""

    index: int
    file: str = ""
    line: int = 0


@dataclass(frozen=True)
class RunResult:
    """Facts about one run of a program; no verdict (that is decided by ``grading``).

    ``exit_code`` is None when the program was ended by a signal (``signal`` says which).
    ``stdout``/``stderr`` hold at most the captured limit; the ``*_bytes`` fields count everything
    the program wrote, so ``stdout_bytes > len(stdout)`` means output was cut.
    """

    exit_code: Optional[int]
    signal: Optional[int]
    stdout: bytes
    stderr: bytes
    stdout_bytes: int
    stderr_bytes: int
    time_s: float  # processor time of the run as a whole, where it can be read (``run_clock``)
    timed_out: bool = False
    waited: bool = False  # stopped by the wall-clock backstop, with processor time left (it slept or waited)
    output_limit_hit: bool = False
    stderr_limit_hit: bool = False
    workdir: str = ""
    waiting_for_input: bool = False
    crash: Optional[ChildCrash] = None  # reported by the process running the program
    rule_broken: Optional[RuleBreak] = None
    stack_at_stop: Tuple[Frame, ...] = ()  # at the time limit, innermost student frame first
    stack_samples: Tuple[StackSample, ...] = ()  # the looks at it past its time limit, in order (``time_outs``)
    memory_exceeded: bool = False  # the run's processes together went over its memory (cgroup)
