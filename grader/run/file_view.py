"""The file system programs see: what the interpreter and its standard library need, the runs'
folder; nothing else (no course, no class folder, no portal data, no grader, no other program).

In: the interpreter, the runs' work root, and the folders that must never be seen (``private``: the
course, a class folder, the portal's data). Out: a ``View``: what is bound read-only, the links,
the runs' folder (the only place bound writable), and the folders covered by an empty one (private
folders inside a bound one, the standard library's own tests and installed packages). Bubblewrap
builds it from ``bwrap_command``; without bubblewrap the fork server builds the same view itself
(``server_view.enter_view``).

What a program needs, found rather than listed: the interpreter's executable (and the links that
lead to it), its standard library (the folder of ``os`` and that of its extension modules, but its
``test`` package and the packages installed beside it: a program runs on the standard library
alone), a virtual environment's ``pyvenv.cfg``, and every shared library the executable and the
standard library's extension modules load, as the dynamic loader finds them (``ldd``), each a file
of its own with the links that name it; a few files of /etc. The view is that small so that the
fork server can keep every file of it in memory (``server_view.keep_resident``): no run can then
change or see which pages of which files are cached, so no run reads what an earlier one did there
(docs/security.md). Where ``ldd`` cannot tell (another C library, no ``ldd``), the system's library folders are bound
whole instead.
"""

from __future__ import annotations

import functools
import glob
import json
import os
import re
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

# Where each run's folder is mounted, in its own mount namespace, as the program sees it: the same
# path on every run (``run_mounts.PROGRAM_FOLDER``, which must say the same).
PROGRAM_FOLDER = "/run/program"
_SYSTEM_TOPS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_ETC_FILES = ("ld.so.cache", "localtime", "passwd", "group", "nsswitch.conf")
# Inside the standard library's folder, left out of view (covered): its own tests (a fifth of a
# gigabyte), installed packages, and what building C extensions needs (config-3.X-...: a static
# library of the interpreter).
_NOT_STDLIB = ("test", "site-packages", "dist-packages", "config-")
_PROBE = (
    "import json, os, sys, sysconfig\n"
    "print(json.dumps({'prefixes': [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix],"
    " 'executable': sys.executable, 'libdir': sysconfig.get_config_var('LIBDIR') or '',"
    " 'dynload': sysconfig.get_config_var('DESTSHARED') or '',"
    " 'stdlib': [os.path.dirname(os.__file__), sysconfig.get_config_var('DESTSHARED') or '']}))\n"
)
_LDD_PATH = re.compile(r"(?:=>\s*|^\s*)(/\S+)\s+\(0x", re.MULTILINE)


@dataclass(frozen=True)
class View:
    """What a program's file system holds, each path at its own place."""

    read_only: Tuple[str, ...]  # folders and files bound read-only
    links: Tuple[Tuple[str, str], ...]  # (target, path): /bin → usr/bin and the like
    work_root: str  # the runs' folder, the only one bound writable
    hidden: Tuple[str, ...]  # private folders inside a read-only one: covered by an empty folder

    def to_json(self) -> str:
        return json.dumps(asdict(self))


@dataclass(frozen=True)
class Parts:
    """What an interpreter needs to run its standard library: files and folders bound at their own
    path, links (target, path) that lead to them, folders inside them covered by an empty one."""

    bound: Tuple[str, ...] = ()
    links: Tuple[Tuple[str, str], ...] = ()
    covered: Tuple[str, ...] = ()


def _chain(path: str, bound: List[str], links: List[Tuple[str, str]]) -> None:
    """``path`` in view as the program names it: each link on the way (folders' links resolved)
    kept as a link, the file it ends at bound."""
    for _ in range(40):  # (a loop of links ends somewhere)
        here = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
        if not os.path.islink(here):
            if os.path.exists(here) and here not in bound:
                bound.append(here)
            return
        target = os.readlink(here)
        if (target, here) not in links:
            links.append((target, here))
        path = os.path.join(os.path.dirname(here), target)


def _libraries(files: Sequence[str]) -> Optional[List[str]]:
    """The shared libraries ``files`` load (the loader included), as ``ldd`` finds them; None when
    it cannot tell."""
    try:
        done = subprocess.run(["ldd", *files], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = sorted(set(_LDD_PATH.findall(done.stdout)))
    return found or None


@functools.cache
def interpreter_parts(python: str) -> Parts:
    """What ``python`` needs in view to run a program on its standard library (see the module note)."""
    try:
        # with site (-I only): a virtual environment's own prefix is known only once site has run
        done = subprocess.run([python, "-I", "-c", _PROBE], capture_output=True, text=True, timeout=30)
        found = json.loads(done.stdout)
    except (OSError, subprocess.TimeoutExpired, ValueError):
        return Parts()
    bound: List[str] = []
    links: List[Tuple[str, str]] = []
    called = os.path.abspath(python) if os.sep in python else ""  # the path it is run by
    for path in (called, found["executable"]):
        if path:
            _chain(path, bound, links)
    for prefix in found["prefixes"]:
        if os.path.isfile(os.path.join(prefix, "pyvenv.cfg")):
            _chain(os.path.join(prefix, "pyvenv.cfg"), bound, links)
    covered: List[str] = []
    for folder in {os.path.realpath(p) for p in found["stdlib"] if p and os.path.isdir(p)}:
        bound.append(folder)
        for entry in os.scandir(folder):
            if entry.is_dir(follow_symlinks=False) and entry.name.startswith(_NOT_STDLIB):
                covered.append(entry.path)
    dynload = found["dynload"] if os.path.isdir(found["dynload"]) else ""
    loaded = [os.path.realpath(found["executable"]), *glob.glob(os.path.join(dynload, "*.so"))]
    loaded += glob.glob(os.path.join(found["libdir"], "libpython*.so*")) if found["libdir"] else []
    libraries = _libraries(loaded)
    if libraries is None:  # the loader's folders, whole
        tops = [f"/{top}" for top in _SYSTEM_TOPS] + ["/usr/lib", "/usr/lib64", "/usr/lib32"]
        bound += [top for top in tops if os.path.isdir(top) and not os.path.islink(top)]
        libraries = []
    for library in libraries:
        _chain(library, bound, links)
    return Parts(tuple(sorted(set(bound))), tuple(links), tuple(sorted(covered)))


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def view_of(python: str, work_root: str, private: Sequence[str] = ()) -> View:
    """The view for programs of ``python`` whose runs are in ``work_root``."""
    parts = interpreter_parts(python)
    links: List[Tuple[str, str]] = []
    for top in _SYSTEM_TOPS:  # /lib → usr/lib and the like, as the loader's paths name them
        path = Path("/") / top
        if path.is_symlink():
            links.append((os.readlink(path), str(path)))
    read_only = [f"/etc/{name}" for name in _ETC_FILES if os.path.exists(f"/etc/{name}")]
    for part in parts.bound:
        if not any(_inside(part, bound) for bound in read_only):
            read_only.append(part)
    links += [link for link in parts.links if link not in links]
    hidden = list(parts.covered)
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
        command += _parents(path, made) + ["--symlink", target, path]
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
