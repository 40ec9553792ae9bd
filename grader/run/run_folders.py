"""The folders programs run in: one work root per runner, one folder per run, and their removal.

In: a program's files, the pool of user ids (or None). Out: a fresh run folder holding them (owned by
the run's own user id where there is one), removed afterwards whatever the program left in it, the
id always given back. ``remove_tree`` never raises and never recurses: a program may leave a tree
thousands of levels deep (``shutil.rmtree`` raises RecursionError there, and paths outgrow
PATH_MAX), folders it made unreadable, links to anything. A work root is locked by the grader that
made it; ``remove_stale_roots`` removes those of graders that are gone (killed, say).
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import stat
import tempfile
import time
from pathlib import Path
from typing import List, Optional

from grader.run.cgroups import remove_left

ROOT_PREFIX = "nim-grader-runs-"
# Folders the grader locks while it uses them: the runners' roots, and submissions staged to run
# (``submission.files.staged``, which holds students' files).
_LOCKED_PREFIXES = (ROOT_PREFIX, "nim-grader-staged-")
_OWNER = ".owner"
# A work root without an owner file (made by an older grader, or in the moment before its lock is
# taken) counts as stale only once it has not changed for this long.
_UNOWNED_GRACE_S = 600


def _usable(path: str) -> None:
    """Let us list, enter and change a folder a program may have made unreadable (we own it, or are root)."""
    try:
        mode = os.lstat(path).st_mode
        if stat.S_ISDIR(mode) and mode & stat.S_IRWXU != stat.S_IRWXU:
            os.chmod(path, stat.S_IMODE(mode) | stat.S_IRWXU)
    except OSError:
        pass


def remove_tree(folder: str) -> bool:
    """Remove ``folder`` and everything in it; True when it is gone. Never raises.

    Without recursion: every folder found below the top level is first moved up to it (a rename,
    so paths stay short however deep the tree was), then emptied; links are removed, never followed.
    """
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return _quietly(os.unlink, folder)
    token = secrets.token_hex(4)
    moved = 0
    pending, emptied = [folder], []
    while pending:
        current = pending.pop()
        _usable(current)
        try:
            entries = os.scandir(current)
        except OSError:
            emptied.append(current)
            continue
        with entries:
            for entry in entries:
                try:
                    is_folder = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_folder = False
                if not is_folder:
                    _quietly(os.unlink, entry.path)
                elif current == folder:
                    pending.append(entry.path)
                else:
                    moved += 1
                    target = os.path.join(folder, f".gone-{token}-{moved}")
                    _usable(current)
                    pending.append(target if _quietly(os.rename, entry.path, target) else entry.path)
        emptied.append(current)
    for path in reversed(emptied):
        _quietly(os.rmdir, path)
    return not os.path.lexists(folder)


def _quietly(operation, *paths: str) -> bool:
    try:
        operation(*paths)
        return True
    except OSError:
        return False


def locked_owner(folder: str) -> int:
    """The descriptor of ``folder``'s owner file, locked (``flock``) until it is closed.

    The file is made and locked under another name, then renamed: another grader's
    ``remove_stale_roots`` sees no owner file (a young folder, left alone) or a locked one, never
    one not locked yet, which it would take for a grader that is gone and remove under our feet.
    """
    taking = os.path.join(folder, _OWNER + "-taking")
    descriptor = os.open(taking, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        os.rename(taking, os.path.join(folder, _OWNER))
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


class WorkRoot:
    """A runner's folder of run folders, locked (``flock`` on its owner file) while the runner lives,
    so that another grader can tell it from one whose grader is gone."""

    def __init__(self) -> None:
        self.path = tempfile.mkdtemp(prefix=ROOT_PREFIX)
        # Others may pass through (a run's user reaches its own folder) but not list the runs.
        os.chmod(self.path, 0o711)
        self._owner: Optional[int] = locked_owner(self.path)
        # where a fork server without bubblewrap builds its view of the file system (``run_mounts``)
        os.mkdir(os.path.join(self.path, ".view"), 0o700)

    def close(self) -> None:
        """Remove the root and what is in it, and let go of its lock."""
        remove_tree(self.path)
        if self._owner is not None:
            os.close(self._owner)
            self._owner = None


def remove_stale_roots(folder: Optional[str] = None) -> List[str]:
    """Remove the work roots in ``folder`` (default: the temporary folder) left by graders that are
    gone: ours (same owner), not locked, or without an owner file and untouched for a while. Returns
    the paths removed. Never raises."""
    removed: List[str] = []
    base = folder or tempfile.gettempdir()
    try:
        names = [name for name in os.listdir(base) if name.startswith(_LOCKED_PREFIXES)]
    except OSError:
        return removed
    for name in names:
        path = os.path.join(base, name)
        if _is_stale(path):
            remove_left(name)  # its runs' cgroups, and what still runs in them
            if remove_tree(path):
                removed.append(path)
    return removed


def _is_stale(path: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
        return False  # never through a link, never another user's
    try:
        fd = os.open(os.path.join(path, _OWNER), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return time.time() - info.st_mtime > _UNOWNED_GRACE_S
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True  # its grader no longer holds the lock: it is gone
    except OSError:
        return False
    finally:
        os.close(fd)


class RunFolder:
    """A fresh folder in the runner's root holding the program (and its companions), owned by the
    run's own user id when there is a pool of them; removed, and the id given back, on exit, even
    when the removal fails or the folder could not be filled."""

    def __init__(self, program, root: str, uids) -> None:
        self.program, self.root, self.uids = program, root, uids
        self.path = self.script = ""
        self.uid: Optional[int] = None
        self.cgroup = None  # the run's cgroups (``cgroups.RunGroup``), where the runner makes them

    def __enter__(self) -> RunFolder:
        self.path = tempfile.mkdtemp(prefix="run-", dir=self.root)
        try:
            if self.uids is not None:
                self.uid = self.uids.take()
            for companion in self.program.companions:
                shutil.copyfile(companion, Path(self.path) / companion.name)
            self.script = str(Path(self.path) / self.program.run_name)
            shutil.copyfile(self.program.script, self.script)
            if self.uid is not None:
                for path in [self.path, *(str(p) for p in Path(self.path).iterdir())]:
                    os.chown(path, self.uid, self.uid)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        try:
            remove_tree(self.path)
        finally:
            if self.uid is not None:
                uid, self.uid = self.uid, None
                self.uids.give(uid)
