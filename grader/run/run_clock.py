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
there has ``waited`` (it used well under its processor time: ``WAITED_SHARE``). A run that was
computing all along, but waiting for a processor on a busy machine (``ready_seconds``), is not
stopped there: it runs on to its processor time, within ``STARVED_FACTOR`` backstops.
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
# A run stopped by the wall-clock backstop "waited" (slept, or waited for input) only if it used
# less than this share of its processor time: one that used more was computing, starved of a processor.
WAITED_SHARE = 0.9
# A run that computes on a machine too busy to give it a processor reaches the backstop with processor
# time left: its backstop moves on, up to this many times the first one.
STARVED_FACTOR = 3
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


def ready_seconds(pid: int) -> Optional[float]:
    """Seconds ``pid`` and the live processes below it spent ready to run, waiting for a processor
    (``/proc/PID/schedstat``); None where it cannot be read."""
    total, todo, seen = 0.0, [pid], set()
    while todo:
        each = todo.pop()
        if each in seen:
            continue
        seen.add(each)
        try:
            with open(f"/proc/{each}/schedstat", "rb") as handle:
                total += int(handle.read().split()[1]) / 1e9
        except (OSError, IndexError, ValueError):
            if each == pid:
                return None
        todo.extend(_children(each))
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
        self._process = process

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
            if self._starved(used, now) and now < self.start + STARVED_FACTOR * wall_backstop(self.limit):
                # computing, on a machine too busy to give it a processor: its limit is processor time
                self.backstop = now + wall_backstop(self.limit)
            else:
                # it waited, unless it used nearly all its processor time (``WAITED_SHARE``)
                self.waited = used < WAITED_SHARE * self.limit and not self._starved(used, now)
                return True
        # a run held to one processor spends its time no faster than the clock
        self._next_look = now + min(self.limit - used, self.backstop - now, LOOK_EVERY_S)
        return False

    def _starved(self, used: float, now: float) -> bool:
        """Did the run spend most of its time on the clock computing or ready to compute (waiting for
        a processor: ``ready_seconds``), rather than asleep or waiting for input?"""
        pid = getattr(self._process, "pid", None)  # (read now: a forked program's comes when it starts)
        ready = ready_seconds(pid) if pid else None
        return ready is not None and used + ready >= 0.5 * (now - self.start)

    def wait_at_most(self) -> float:
        """How long a loop may wait before it asks ``out_of_time`` again."""
        return max(0.001, self._next_look - time.monotonic())
