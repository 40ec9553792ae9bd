"""A control group per run: the memory, the processes and the processor time of a run bounded as a whole.

The resource limits (``rlimits``) bound each process of a run, and a run may start 64 of them;
a cgroup bounds them together, and counts the files the run keeps in memory (its tmpfs) too. In:
the machine's cgroup file systems (v2, or v1's ``memory`` and ``pids`` hierarchies) and a run's
limits. Out: for each run a ``RunGroup`` whose ``cgroup.procs`` files the program's process joins
as it starts (their descriptors travel with the run's pipes, so a sandbox's view of the file
system does not matter), and afterwards whether the kernel stopped it for memory. Where the
grader may make no cgroup (a normal user without a delegated one, a container without them)
``RunCgroups.find`` says why, and the report's header says the bound is missing.
"""

from __future__ import annotations

import itertools
import os
import signal
import threading
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from grader.model import Limits

# Beyond its memory limit (per process, counted from what the interpreter has mapped), a run as a
# whole may keep its files (4 file systems of 32 MiB, in memory) and its interpreters' own pages.
MEMORY_SLACK_MIB = 160
_RMDIR_TRIES = 10
# A run's processes together get at most one processor's time: however many a program starts, the
# runs beside it keep theirs.
_CPU_PERIOD_US = 100_000
# The v1 hierarchies a run's cgroup is made in: memory and pids always; cpu (one processor) and
# cpuacct (the processor time its time limit counts) where the machine has them.
_V1_KINDS = ("memory", "pids", "cpu", "cpuacct")


def _mounts() -> Dict[str, str]:
    """The cgroup file systems: "2" → the v2 mount point; "memory"/"pids" → the v1 hierarchy's."""
    found: Dict[str, str] = {}
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return found
    for line in lines:
        fields = line.split(" - ")
        if len(fields) != 2:
            continue
        point, kind = fields[0].split()[4], fields[1].split()
        if kind[0] == "cgroup2":
            found.setdefault("2", point)
        elif kind[0] == "cgroup" and len(kind) > 2:
            for option in kind[2].split(","):
                if option in _V1_KINDS:
                    found.setdefault(option, point)
    return found


def _own_paths() -> Dict[str, str]:
    """This process's cgroup in each hierarchy: "2" → its v2 path; "memory"/"pids" → its v1 paths."""
    paths: Dict[str, str] = {}
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return paths
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        if parts[0] == "0" and parts[1] == "":
            paths["2"] = parts[2]
        for name in parts[1].split(","):
            if name in _V1_KINDS:
                paths[name] = parts[2]
    return paths


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="ascii") as handle:
        handle.write(text)


def _read(path: str) -> str:
    try:
        with open(path, encoding="ascii") as handle:
            return handle.read()
    except OSError:
        return ""


@dataclass
class RunGroup:
    """One run's cgroup(s): one folder (v2) or one per v1 hierarchy (``kinds``, in order)."""

    folders: Tuple[str, ...]
    version: str
    fds: Tuple[int, ...] = ()
    kinds: Tuple[str, ...] = ()

    def folder(self, kind: str) -> Optional[str]:
        """The folder of the v1 hierarchy ``kind`` (v2: the one folder); None when there is none."""
        if self.version == "2":
            return self.folders[0]
        for names, folder in zip(self.kinds, self.folders):
            if kind in names.split(","):
                return folder
        return None

    def cpu_seconds(self) -> Optional[float]:
        """Processor seconds the run's processes have used together, or None where the machine
        does not count them (no v1 cpuacct, no v2 ``cpu.stat``)."""
        if self.version == "2":
            for line in _read(os.path.join(self.folders[0], "cpu.stat")).splitlines():
                name, _, value = line.partition(" ")
                if name == "usage_usec" and value.strip().isdigit():
                    return int(value) / 1e6
            return None
        folder = self.folder("cpuacct")
        text = _read(os.path.join(folder, "cpuacct.usage")).strip() if folder is not None else ""
        return int(text) / 1e9 if text.isdigit() else None

    def open_procs(self) -> Tuple[int, ...]:
        """Descriptors of the ``cgroup.procs`` files: writing "0" to each moves the writer in."""
        self.fds = tuple(os.open(os.path.join(f, "cgroup.procs"), os.O_WRONLY | os.O_CLOEXEC) for f in self.folders)
        return self.fds

    def close_fds(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds = ()

    def out_of_memory(self) -> bool:
        """Did the kernel kill a process of the run because the run went over its memory?"""
        memory = self.folders[0]
        if self.version == "2":
            text = _read(os.path.join(memory, "memory.events"))
        else:
            text = _read(os.path.join(memory, "memory.oom_control"))
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name == "oom_kill" and value.strip().isdigit():
                return int(value) > 0
        return False

    def end(self) -> bool:
        """Kill what is left in the run's cgroups and try once to remove them; True when they are
        gone. (A run's init reports the program's end before its namespaces are torn down: its
        cgroup empties a moment later, and is removed then, without the grader waiting.)"""
        self.close_fds()
        gone = True
        for folder in self.folders:
            gone = _remove(folder, tries=1) and gone
        return gone


def _remove(folder: str, tries: int = _RMDIR_TRIES) -> bool:
    """Kill the processes in cgroup ``folder`` and remove it, trying ``tries`` times (waiting a
    little more each time); True when it is gone."""
    for attempt in range(tries):
        if attempt == 0 and os.path.exists(os.path.join(folder, "cgroup.kill")):
            try:
                _write(os.path.join(folder, "cgroup.kill"), "1")
            except OSError:
                pass
        for pid in _read(os.path.join(folder, "cgroup.procs")).split():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (OSError, ValueError):
                pass
        try:
            os.rmdir(folder)
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if attempt + 1 < tries:
                time.sleep(0.002 * (attempt + 1))  # processes killed a moment ago are still leaving it
    return False


class RunCgroups:
    """The cgroups of one runner's runs, below folders of its own named ``name``."""

    def __init__(self, bases: Tuple[str, ...], version: str) -> None:
        self.bases, self.version = bases, version
        self.kinds: Tuple[str, ...] = ()  # v1: the hierarchies of ``bases``, in order ("cpu,cpuacct" for one of two)
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()
        self._left: List[str] = []  # run cgroups that could not be removed yet

    @classmethod
    def find(cls, name: str) -> Tuple[Optional[RunCgroups], str]:
        """Cgroups for runs below this process's own, in folders named ``name``; (None, why) when
        the machine gives none the grader may make and fill."""
        mounts, paths = _mounts(), _own_paths()
        if "memory" in mounts and "pids" in mounts and "memory" in paths and "pids" in paths:
            # one folder per hierarchy: cpu and cpuacct are often one (mounted "cpu,cpuacct")
            folders: Dict[str, List[str]] = {}
            for kind in _V1_KINDS:
                if kind in mounts and kind in paths:
                    folders.setdefault(os.path.join(mounts[kind] + paths[kind], name), []).append(kind)
            made, why = cls._made(tuple(folders), "1")
            if made is not None:
                made.kinds = tuple(",".join(kinds) for kinds in folders.values())
            return made, why
        if "2" in mounts and "2" in paths:
            parent = mounts["2"] + paths["2"]
            base = os.path.join(parent, name)
            made, why = cls._made((base,), "2")
            if made is None:
                return None, why
            wanted = "+memory +pids" + (
                " +cpu" if "cpu" in _read(os.path.join(parent, "cgroup.controllers")).split() else ""
            )
            try:  # the controllers, for the runs below: refused where this process's own cgroup holds processes
                _write(os.path.join(parent, "cgroup.subtree_control"), wanted)
                _write(os.path.join(base, "cgroup.subtree_control"), wanted)
            except OSError as error:
                made.close()
                return None, f"the memory and pids controllers cannot be had below {parent} ({error.strerror})"
            return made, ""
        return None, "this machine has no cgroup file system with the memory and pids controllers"

    @classmethod
    def _made(cls, bases: Tuple[str, ...], version: str) -> Tuple[Optional[RunCgroups], str]:
        made = []
        try:
            for base in bases:
                os.mkdir(base, 0o755)
                made.append(base)
        except OSError as error:
            for base in made:
                _remove(base)
            return None, f"cannot make a cgroup in {os.path.dirname(bases[0])} ({error.strerror})"
        return cls(bases, version), ""

    def make(self, limits: Limits) -> RunGroup:
        """A new run's cgroup(s) with ``limits``: memory (its limit plus ``MEMORY_SLACK_MIB``, swap
        included where the kernel counts it) and processes. ``OSError`` when the kernel refuses."""
        self._retry_left()
        name = f"run-{next(self._numbers)}"
        folders = tuple(os.path.join(base, name) for base in self.bases)
        memory = str((limits.memory_mib + MEMORY_SLACK_MIB) * 1024 * 1024)
        group = RunGroup(folders, self.version, kinds=self.kinds)
        for folder in folders:
            os.mkdir(folder, 0o755)
        try:
            if self.version == "2":
                _write(os.path.join(folders[0], "memory.max"), memory)
                if os.path.exists(os.path.join(folders[0], "memory.swap.max")):
                    _write(os.path.join(folders[0], "memory.swap.max"), "0")
                _write(os.path.join(folders[0], "pids.max"), str(limits.processes))
                if os.path.exists(os.path.join(folders[0], "cpu.max")):
                    _write(os.path.join(folders[0], "cpu.max"), f"{_CPU_PERIOD_US} {_CPU_PERIOD_US}")
            else:
                memory_folder, pids, cpu = group.folder("memory"), group.folder("pids"), group.folder("cpu")
                assert memory_folder is not None and pids is not None  # ``find`` makes none without them
                _write(os.path.join(memory_folder, "memory.limit_in_bytes"), memory)
                if os.path.exists(os.path.join(memory_folder, "memory.memsw.limit_in_bytes")):
                    _write(os.path.join(memory_folder, "memory.memsw.limit_in_bytes"), memory)
                _write(os.path.join(pids, "pids.max"), str(limits.processes))
                if cpu is not None:
                    _write(os.path.join(cpu, "cpu.cfs_period_us"), str(_CPU_PERIOD_US))
                    _write(os.path.join(cpu, "cpu.cfs_quota_us"), str(_CPU_PERIOD_US))
            group.open_procs()
        except OSError:
            self.finish(group)
            raise
        return group

    def finish(self, group: RunGroup) -> None:
        """End a run's cgroup (what is left in it is killed); one that will not go is tried again later."""
        if not group.end():
            with self._lock:
                self._left.extend(f for f in group.folders if os.path.exists(f))

    def _retry_left(self, tries: int = 1) -> None:
        """Try again to remove the run cgroups that were not empty yet (``tries`` times each)."""
        with self._lock:
            left, self._left = self._left, []
        for folder in left:
            if not _remove(folder, tries):
                with self._lock:
                    self._left.append(folder)

    def close(self) -> None:
        """Remove every cgroup of this runner (their processes killed)."""
        self._retry_left(_RMDIR_TRIES)
        for base in self.bases:
            try:
                children = [e.path for e in os.scandir(base) if e.is_dir(follow_symlinks=False)]
            except OSError:
                children = []
            for child in children:
                _remove(child)
            _remove(base)


def remove_left(name: str) -> None:
    """Remove the cgroups named ``name`` that a runner gone (killed) left below this process's own
    cgroups, killing what still runs in them (a program's process in a session of its own)."""
    mounts, paths = _mounts(), _own_paths()
    for key in (*_V1_KINDS, "2"):
        if key not in mounts or key not in paths:
            continue
        base = os.path.join(mounts[key] + paths[key], name)
        try:
            children = [e.path for e in os.scandir(base) if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        for child in children:
            _remove(child)
        _remove(base)
