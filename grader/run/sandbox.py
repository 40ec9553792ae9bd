"""Which protections this machine can give a student program, and how a runner gives them.

Programs see a view of the file system (``file_view``) holding only the system's programs, the
parts of the interpreter it needs and the folder the runs happen in (no course, no class folder,
no portal data), with no network: made by bubblewrap (``bwrap``) where it is installed and works,
else by the fork server itself in namespaces of its own. When the grader is root,
each run gets an unprivileged user id of its own (``uid_pool``), and the interpreter's library must
be readable to that user: ``plan`` checks it by running the interpreter as such a user, and refuses
(``GraderError``) rather than let programs fail on imports that are the grader's fault. What cannot
be had here is left out, and ``Protections.describe()`` says what was active, for the report header.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path
from typing import List, Optional, Sequence

from grader.errors import GraderError
from grader.run.file_view import View, bwrap_command, view_of
from grader.run.uid_pool import UidPool

# Modules the probe imports as the programs' user: the standard library's own folder, its compiled
# extensions and a pure-Python module the fork server has not loaded (so they are read afresh).
_PROBE_IMPORTS = "import fractions, decimal, dataclasses, typing, datetime, heapq, statistics, __future__"
# Installs the system call filter (``syscall_filter``), as a new interpreter's bootstrap does.
_FILTER_PROBE = (
    f"exec(compile({(Path(__file__).parent / 'child' / 'syscall_filter.py').read_text(encoding='utf-8')!r}, "
    "'syscall_filter.py', 'exec')); install()"
)


@dataclass(frozen=True)
class Protections:
    """What is active for the programs a runner starts."""

    fork_server: bool = False
    limits: bool = False  # CPU, memory, file size, processes, open files (resource limits)
    separate_user: bool = False
    no_network: bool = False
    files_hidden: bool = False  # a read-only view of the system and interpreter only: no course, no class folder
    private_tmp: bool = False  # its own /tmp, /var/tmp, /dev/shm and IPC namespace, gone with the run
    files_capped: bool = False  # its folder and temporary folders on capped file systems of its own
    run_bounded: bool = False  # memory and processes of the run as a whole (a cgroup per run)
    own_processes: bool = False  # no other process in reach: a user id or a process namespace of its own
    processes_hidden: bool = False  # its /proc shows its own processes only
    syscall_filter: bool = False  # no new namespaces, mounts, kernel keys (seccomp)
    # nothing of an earlier run in sight: each run's own namespaces, one view for every run with its
    # files kept in memory, the page cache's state and the machine's refused (docs/security.md)
    earlier_runs_unseen: bool = False
    strays_killed: bool = False  # processes left behind are found and killed (subreaper)
    note: str = ""  # why the runner gives less than it could (e.g. the fork server did not start)

    _NAMES = {
        "limits": "resource limits",
        "separate_user": "an unprivileged user for each run",
        "no_network": "no network",
        "files_hidden": "course files and other work out of view",
        "private_tmp": "private temporary folders and IPC for each run",
        "files_capped": "a run's files capped",
        "run_bounded": "memory and processes capped for a run as a whole",
        "own_processes": "no other process in reach",
        "processes_hidden": "no other process in sight",
        "syscall_filter": "no new namespaces or mounts",
        "earlier_runs_unseen": "nothing of earlier runs in sight",
        "strays_killed": "left-over processes killed",
    }

    @property
    def grader_in_reach(self) -> bool:
        """Could a program signal the grader's own processes (same user, same process namespace)?"""
        return not (self.separate_user or self.own_processes)

    def missing(self) -> List[str]:
        """The protections not active, in words."""
        return [words for key, words in self._NAMES.items() if not getattr(self, key)]

    def describe(self) -> str:
        """One line for a report: what is on, and what this machine could not give."""
        on = [words for key, words in self._NAMES.items() if getattr(self, key)]
        text = "protections: " + (", ".join(on) if on else "time limit only")
        if self.missing():
            text += " (not available here: " + ", ".join(self.missing()) + ")"
        if self.note:
            text += f"; {self.note}"
        return text


@dataclass(frozen=True)
class Plan:
    """How a runner starts programs for one interpreter: the bwrap prefix (or None), the pool of
    user ids (or None: programs run as the grader's user), what that gives, and the view of the
    file system the fork server makes itself when there is no bubblewrap (or None)."""

    prefix: Optional[List[str]]
    uids: Optional[UidPool]
    protections: Protections
    view: Optional[View] = None


def _probe(prefix: Sequence[str], python: str, uids: Optional[UidPool], code: str = _PROBE_IMPORTS) -> str:
    """Run ``code`` in the interpreter as the programs will (in the sandbox, as a pool user): "" when
    it works (by default: imports of the standard library), else what went wrong (its last line of
    error output)."""
    drop = ""
    uid = uids.take() if uids is not None else None
    if uid is not None:
        drop = f"import os; os.setgroups([]); os.setgid({uid}); os.setuid({uid}); "
    try:
        done = subprocess.run(
            [*prefix, python, "-I", "-S", "-c", drop + code], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    finally:
        if uids is not None and uid is not None:
            uids.give(uid)
    if done.returncode == 0:
        return ""
    lines = done.stderr.strip().splitlines()
    return lines[-1] if lines else f"exit status {done.returncode}"


def plan(python: str, work_root: str, use_sandbox: bool = True, private: Sequence[str] = ()) -> Plan:
    """How to run programs of ``python`` here, the best this machine allows: in bubblewrap where it
    is installed and works (and ``use_sandbox``), else in the view the fork server makes itself.
    ``private`` are folders no program may see (the course, a class folder, the portal's data).

    Raises ``GraderError`` when the grader is root and the programs' user cannot run the
    interpreter (its library in a folder only root may read, and no bubblewrap to open a view).
    """
    posix = os.name == "posix"
    root = posix and os.geteuid() == 0
    uids = UidPool() if root else None
    view = view_of(python, work_root, private) if posix else None
    bwrap = shutil.which("bwrap") if (posix and use_sandbox) else None
    prefix = bwrap_command(bwrap, view) if bwrap and view is not None else None
    note = ""
    trouble = _probe(prefix, python, uids) if prefix is not None else ""
    if trouble:  # bwrap is there but does not work here (e.g. no namespaces in a container): say why
        prefix, note = None, f"bubblewrap is installed but could not run {python} ({trouble})"
    if prefix is None and uids is not None:
        trouble = _probe([], python, uids)
        if trouble:
            raise GraderError(
                f"the grader runs as root, so student programs run as an unprivileged user, but that user "
                f"cannot run {python} ({trouble}): its library is in a folder only root may read. Install "
                "bubblewrap (Debian: apt-get install bubblewrap), or grade with an interpreter under /usr or "
                "/opt, or make the interpreter's folders readable to everyone (chmod o+rx on each)."
            )
    protections = Protections(
        fork_server=False,
        limits=posix,
        separate_user=uids is not None,
        no_network=prefix is not None,
        files_hidden=prefix is not None,
        processes_hidden=prefix is not None,  # a bwrap per run has a process namespace of its own
        syscall_filter=posix and _probe(prefix or [], python, None, _FILTER_PROBE) == "",
        strays_killed=False,
        note=note,
    )
    return Plan(prefix=prefix, uids=uids, protections=protections, view=None if prefix else view)


def with_fork_server(protections: Protections, hello: dict) -> Protections:
    """What the fork server adds, from what it said when it was ready (``hello``): its speed, per-run
    isolation where it found a way, its own /proc, capped files, the system call filter, strays killed."""
    isolation = hello.get("isolation")
    isolated = isolation is not None
    view = hello.get("view")  # "made" where the server made its own view (no bubblewrap), or why it could not
    if view == "made":
        protections = replace(protections, files_hidden=True, no_network=True)
    elif view:
        said = f"the fork server could not make its view of the file system ({view})"
        protections = replace(protections, note="; ".join(filter(None, [protections.note, said])))
    return replace(
        protections,
        fork_server=True,
        private_tmp=isolated,
        files_capped=isolated,
        # out of reach by a user id of its own (root), and by a process namespace of its own
        own_processes=protections.separate_user or isolated,
        processes_hidden=isolated and hello.get("proc") == "own",
        # a program of the grader's own user (no user id of its own) sees the runs' folder unless
        # each run has its own view of it
        files_hidden=protections.files_hidden and (isolated or protections.separate_user),
        syscall_filter=bool(hello.get("filter")),
        earlier_runs_unseen=isolated and bool(hello.get("filter")) and bool(hello.get("resident")),
        strays_killed=isolated or Path("/proc/self/task").is_dir(),
    )
