"""How much of its time limit a run has used: processor time of the run as a whole, not the clock.

In: a run's limits, its process (with the run's cgroup, if it has one) and when it started. Out: a
``RunClock`` the loops that talk to a program (``streams``) ask how long they may wait before they
look again, and whether the run is out of time.

The time limit is processor time (user and system) of every process of the run together, read from
its cgroup (v2 ``cpu.stat``, v1 ``cpuacct.usage``), so a program gets the same verdict on a loaded
machine as on a quiet one: waiting for a processor is not spent time. Without a cgroup it is the
time of the tree of processes below the one the runner started (``/proc/PID/stat`` of each: a
process that leaves the tree is bounded by its own ``RLIMIT_CPU`` only); where neither can be read
(no ``/proc``), the clock. The wall clock is only a backstop, for a program that sleeps
or waits on something that never comes (``WALL_FACTOR``, ``WALL_EXTRA_S``): one that is stopped
there has ``waited`` (it used less processor time than its limit).
"""

from __future__ import annotations

import os
import time
from typing import Callable, List, Optional

from grader.model import Limits

# The wall-clock backstop: this many times the time limit, plus this many seconds. A run with a
# processor of its own ends long before; a loaded machine (three runs to a processor) still does.
WALL_FACTOR = 3
WALL_EXTRA_S = 2.0
# The longest the loops wait between two looks at the processor time (a run's processes may use
# more than one processor where no cgroup holds them to one).
LOOK_EVERY_S = 0.05
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def wall_backstop(time_s: float) -> float:
    """The wall-clock seconds after which a run with a time limit of ``time_s`` is stopped anyway."""
    return WALL_FACTOR * time_s + WALL_EXTRA_S


def _process_seconds(pid: int) -> Optional[float]:
    """Processor seconds of process ``pid`` and its children that ended (``/proc/PID/stat``), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return sum(int(value) for value in fields[11:15]) / _TICKS  # utime, stime, cutime, cstime
    except (OSError, IndexError, ValueError):
        return None


def _children(pid: int) -> List[int]:
    """The live children of every thread of ``pid`` (none when it is gone)."""
    found: List[int] = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/children", "rb") as handle:
                found.extend(int(child) for child in handle.read().split())
        except (OSError, ValueError):
            pass
    return found


def tree_seconds(pid: int) -> Optional[float]:
    """Processor seconds of ``pid`` and every process below it, live or ended (a live child's
    time is its own until its parent reaps it, then its parent's): None when ``pid`` is gone."""
    total = _process_seconds(pid)
    if total is None:
        return None
    todo, seen = _children(pid), {pid}
    while todo:
        child = todo.pop()
        if child in seen:
            continue
        seen.add(child)
        total += _process_seconds(child) or 0.0
        todo.extend(_children(child))
    return total


def processor_reader(process) -> Optional[Callable[[], Optional[float]]]:
    """What reads a run's processor seconds: its cgroup's, else those of the tree of processes
    below the one the runner started (a sandbox's own processes, the program and what it started
    and has not left); None where neither can be read here."""
    cgroup = getattr(process, "cgroup", None)
    if cgroup is not None and cgroup.cpu_seconds() is not None:
        return cgroup.cpu_seconds
    pid = getattr(process, "pid", None)
    if pid and tree_seconds(pid) is not None:
        return lambda: tree_seconds(pid)
    return None


class RunClock:
    """The time of one run against its limit (see the module's docstring)."""

    def __init__(self, limits: Limits, process, start: float) -> None:
        self.limit = limits.time_s
        self.start = start
        self.backstop = start + wall_backstop(limits.time_s)
        self._read = processor_reader(process)
        self._last = 0.0
        self._next_look = start
        self.waited = False  # stopped by the wall clock, with processor time left

    def used(self) -> float:
        """Seconds of the limit used so far: processor time (the clock where it cannot be read)."""
        if self._read is None:
            return time.monotonic() - self.start
        seconds = self._read()
        if seconds is not None:
            self._last = max(self._last, seconds)
        return self._last

    def out_of_time(self) -> bool:
        """Has the run used its time limit (or reached the wall-clock backstop)? Looked at no more
        often than ``wait_at_most`` says, so a program that prints line by line costs no more."""
        now = time.monotonic()
        if now < self._next_look:
            return False
        used = self.used()
        if used >= self.limit:
            return True
        if now >= self.backstop:
            self.waited = True
            return True
        # a run held to one processor spends its time no faster than the clock
        self._next_look = now + min(self.limit - used, self.backstop - now, LOOK_EVERY_S)
        return False

    def wait_at_most(self) -> float:
        """How long a loop may wait before it asks ``out_of_time`` again."""
        return max(0.001, self._next_look - time.monotonic())
