"""The file system programs see: the system's programs and libraries, the parts of the interpreter
it needs, the runs' folder; nothing else (no course, no class folder, no portal data, no grader).

In: the interpreter, the runs' work root, and the folders that must never be seen (``private``: the
course, a class folder, the portal's data). Out: a ``View``: what is bound read-only, the links,
the runs' folder (the only place bound writable), and the private folders that lie inside a
bound one, covered by an empty folder. Bubblewrap builds it from ``bwrap_command``; without
bubblewrap the fork server builds the same view itself (``run_mounts.enter_view``).

Of the interpreter only its ``bin``, ``lib`` and ``lib64`` folders (and a virtual environment's
``pyvenv.cfg``) are bound: a course kept in the folder of a virtual environment stays out of view.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

# Where each run's folder is mounted, in its own mount namespace, as the program sees it: the same
# path on every run (``run_mounts.PROGRAM_FOLDER``, which must say the same).
PROGRAM_FOLDER = "/run/program"
_SYSTEM_TOPS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_ETC_FILES = ("ld.so.cache", "localtime", "passwd", "group", "nsswitch.conf")
_PREFIX_PARTS = ("bin", "lib", "lib64", "pyvenv.cfg")
_PROBE = (
    "import json, os, sys, sysconfig\n"
    "paths = sysconfig.get_paths()\n"
    "print(json.dumps({'prefixes': [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix],"
    " 'executable': os.path.realpath(sys.executable), 'libdir': sysconfig.get_config_var('LIBDIR') or '',"
    " 'stdlib': [paths.get(k, '') for k in ('stdlib', 'platstdlib', 'purelib', 'platlib')]}))\n"
)


@dataclass(frozen=True)
class View:
    """What a program's file system holds, each path at its own place."""

    read_only: Tuple[str, ...]  # folders and files bound read-only
    links: Tuple[Tuple[str, str], ...]  # (target, path): /bin → usr/bin and the like
    work_root: str  # the runs' folder, the only one bound writable
    hidden: Tuple[str, ...]  # private folders inside a read-only one: covered by an empty folder

    def to_json(self) -> str:
        return json.dumps(asdict(self))


def interpreter_parts(python: str) -> List[str]:
    """The folders and files of ``python`` that it needs to run (outside /usr), real paths first."""
    try:
        # with site (-I only): a virtual environment's own prefix is known only once site has run
        done = subprocess.run([python, "-I", "-c", _PROBE], capture_output=True, text=True, timeout=30)
        found = json.loads(done.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return []
    called = os.path.dirname(os.path.abspath(python)) if os.sep in python else ""  # the path it is run by
    candidates: List[str] = [called, os.path.dirname(found["executable"]), found["libdir"], *found["stdlib"]]
    for prefix in found["prefixes"]:
        candidates += [os.path.join(prefix, part) for part in _PREFIX_PARTS]
    parts: List[str] = []
    for candidate in candidates:
        for path in (candidate, os.path.realpath(candidate)) if candidate else ():
            if os.path.lexists(path) and not os.path.islink(path) and path not in parts:
                parts.append(path)
    return parts


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def view_of(python: str, work_root: str, private: Sequence[str] = ()) -> View:
    """The view for programs of ``python`` whose runs are in ``work_root``."""
    read_only: List[str] = ["/usr"]
    links: List[Tuple[str, str]] = []
    for top in _SYSTEM_TOPS:
        path = Path("/") / top
        if path.is_symlink():
            links.append((os.readlink(path), str(path)))
        elif path.is_dir():
            read_only.append(str(path))
    read_only += [f"/etc/{name}" for name in _ETC_FILES if os.path.exists(f"/etc/{name}")]
    for part in interpreter_parts(python):
        if not any(_inside(part, bound) for bound in read_only):
            read_only.append(part)
    hidden = []
    for folder in private:
        real = os.path.realpath(folder)
        if any(_inside(real, bound) and real != bound for bound in read_only) and real not in hidden:
            hidden.append(real)
    return View(tuple(read_only), tuple(links), work_root, tuple(hidden))


def bwrap_command(bwrap: str, view: View) -> List[str]:
    """The bubblewrap command line (before the program's) that makes ``view``, with no network and
    IPC and host name of its own."""
    # No --die-with-parent: it follows the thread that started bwrap, and a grading thread ends
    # long before the grader does. The server ends by itself when the grader's socket closes.
    command = [bwrap, "--unshare-net", "--unshare-ipc", "--unshare-uts"]
    # The private /tmp first: an interpreter (a virtual environment) may live under /tmp, and a
    # tmpfs mounted after its bind would hide it.
    command += ["--perms", "1777", "--tmpfs", "/tmp"]
    made = {"/", "/tmp"}
    for path in view.read_only:
        command += _parents(path, made) + ["--ro-bind", path, path]
    for target, path in view.links:
        command += ["--symlink", target, path]
    command += ["--proc", "/proc", "--dev", "/dev"]
    command += _parents(PROGRAM_FOLDER, made) + ["--perms", "0755", "--dir", PROGRAM_FOLDER]
    command += _parents(view.work_root, made) + ["--bind", view.work_root, view.work_root]
    # started in / (its PWD, which every program can read in /proc/self/environ, names no work root);
    # each run enters its own folder itself
    command += ["--chdir", "/"]
    for path in view.hidden:
        command += ["--tmpfs", path, "--remount-ro", path]
    return command


def _parents(folder: str, made: set) -> List[str]:
    """bwrap makes the folders above a bind private (0700, like /root); the programs' user must be
    able to pass through them, so make them 0755 first."""
    options = []
    for parent in reversed(list(Path(folder).parents)[:-1]):
        if str(parent) not in made:
            made.add(str(parent))
            options += ["--perms", "0755", "--dir", str(parent)]
    return options


def server_view(view: Optional[View]) -> str:
    """The view as the fork server takes it (an argument; "" for none: bubblewrap made it)."""
    return view.to_json() if view is not None else ""
