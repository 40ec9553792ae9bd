"""Which protections this machine can give a student program, and the command that gives them.

The fork server (``forkserver``) runs inside bubblewrap (``bwrap``) where it works: a file system
view holding only the system's programs, the interpreter and the folder the runs happen in (the
course's test cases and reference solutions are not in it), no network, its own IPC and host
name. Under it each program runs as an unprivileged user of its own when the grader is root. What cannot be
had here is left out, and ``Protections.describe()`` says what was active, for the report header.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

# When the grader is root, each run gets a user id of its own from this range (ids no account
# uses): a program cannot signal, or read the folder of, another program running at the same time,
# and the process limit counts each run's processes alone.
SANDBOX_UIDS = range(900_000, 900_064)


@dataclass(frozen=True)
class Protections:
    """What is active for the programs a runner starts."""

    fork_server: bool = False
    limits: bool = False  # CPU, memory, file size, processes, open files (resource limits)
    separate_user: bool = False
    no_network: bool = False
    files_hidden: bool = False  # test cases and reference solutions out of the program's view
    strays_killed: bool = False  # processes left behind are found and killed (subreaper)

    def describe(self) -> str:
        """One line for a report: what is on, and what this machine could not give."""
        names = {
            "limits": "resource limits",
            "separate_user": "an unprivileged user for each run",
            "no_network": "no network",
            "files_hidden": "course files hidden",
            "strays_killed": "left-over processes killed",
        }
        on = [words for key, words in names.items() if getattr(self, key)]
        off = [words for key, words in names.items() if not getattr(self, key)]
        text = "protections: " + (", ".join(on) if on else "time limit only")
        if off:
            text += " (not available here: " + ", ".join(off) + ")"
        return text


def interpreter_folders(python: str) -> List[str]:
    """The folders an interpreter needs to run: its prefix, base prefix and executable's home."""
    probe = (
        "import json, os, sys; home = os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))); "
        "print(json.dumps([sys.prefix, sys.base_prefix, home]))"
    )
    try:
        done = subprocess.run([python, "-I", "-c", probe], capture_output=True, text=True, timeout=30)
        folders = json.loads(done.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return []
    unique = []
    for folder in folders:
        real = os.path.realpath(folder)
        for path in (folder, real):
            if path not in unique:
                unique.append(path)
    return unique


def bwrap_command(python: str, work_root: str, separate_user: bool) -> Optional[List[str]]:
    """The bubblewrap prefix for the fork server, or None when bwrap is missing or does not work."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None
    # No --die-with-parent: it follows the thread that started bwrap, and a grading thread ends
    # long before the grader does. The server ends by itself when the grader's socket closes.
    command = [bwrap, "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    command += ["--ro-bind", "/usr", "/usr"]
    for top in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / top
        if path.is_symlink():
            command += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            command += ["--ro-bind", str(path), str(path)]
    for name in ("ld.so.cache", "localtime", "passwd", "group", "nsswitch.conf"):
        if (Path("/etc") / name).exists():
            command += ["--ro-bind", f"/etc/{name}", f"/etc/{name}"]
    made: set = set()
    for folder in interpreter_folders(python):
        if folder.startswith("/usr/") or folder == "/usr":
            continue
        command += _traversable_parents(folder, made) + ["--ro-bind", folder, folder]
    command += ["--proc", "/proc", "--dev", "/dev"]
    if not separate_user:
        command += ["--tmpfs", "/tmp"]
    command += _traversable_parents(work_root, made) + ["--bind", work_root, work_root, "--chdir", work_root]
    if not _works(command, python):
        return None
    return command


def _traversable_parents(folder: str, made: set) -> List[str]:
    """bwrap makes the folders above a bind private (0700, like /root); the programs' user must be
    able to pass through them, so make them 0755 first."""
    options = []
    for parent in reversed(list(Path(folder).parents)[:-1]):
        if str(parent) not in made:
            made.add(str(parent))
            options += ["--perms", "0755", "--dir", str(parent)]
    return options


def _works(prefix: Sequence[str], python: str) -> bool:
    """Does the sandbox start, with the interpreter inside it?"""
    try:
        done = subprocess.run([*prefix, python, "-I", "-c", "pass"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


Plan = Tuple[Optional[List[str]], Optional[range], Protections]


def plan(python: str, work_root: str, use_sandbox: bool = True) -> Plan:
    """(bwrap prefix or None, the user ids for the programs or None, the protections that gives)."""
    posix = os.name == "posix"
    root = posix and os.geteuid() == 0
    uid = SANDBOX_UIDS if root else None
    prefix = bwrap_command(python, work_root, separate_user=root) if (posix and use_sandbox) else None
    protections = Protections(
        fork_server=posix,
        limits=posix,
        separate_user=uid is not None,
        no_network=prefix is not None,
        files_hidden=prefix is not None,
        strays_killed=Path("/proc/self/task").is_dir(),
    )
    return prefix, uid, protections
