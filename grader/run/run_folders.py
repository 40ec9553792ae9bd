"""The folders programs run in: one work root per runner, one folder per run, and their removal.

In: a program's files, the pool of user ids (or None). Out: a fresh run folder holding them (owned by
the run's own user id where there is one), removed afterwards whatever the program left in it, the
id always given back. ``remove_tree`` never raises and never recurses: a program may leave a tree
thousands of levels deep (``shutil.rmtree`` raises RecursionError there, and paths outgrow
PATH_MAX), folders it made unreadable, links to anything.

Several graders share the temporary folder (two courses, a portal and a student's ``check``, CI
jobs), and each removes what graders that are gone (killed) left there. One rule decides, with no
clock in it: a folder is its grader's while it holds the folder's own lock (``flock`` on the folder),
from the moment it is made (``locked_folder``) until it is removed, so **a folder whose lock can be
taken is one whose grader is gone**, and ``remove_stale_roots`` removes it holding that lock (a
folder of an older grader, which has no such lock, is judged as that grader judges: ``_OWNER``).
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
from typing import List, Optional, Tuple

from grader.errors import GraderError
from grader.run.cgroups import remove_left

ROOT_PREFIX = "nim-grader-runs-"
# Folders the grader locks while it uses them: the runners' roots, and submissions staged to run
# (``submission.files.staged``, which holds students' files).
_LOCKED_PREFIXES = (ROOT_PREFIX, "nim-grader-staged-")
# Graders before the folder's own lock locked an owner file inside it, and still look for one: a
# folder without it, untouched for ``_UNOWNED_GRACE_S``, is theirs to remove. So a folder keeps a
# locked owner file too, and one of theirs is left alone while its owner file is locked, or while it
# has none and is young (an older grader in the moment before it locks).
_OWNER = ".owner"
_UNOWNED_GRACE_S = 600
# A folder made is taken before we lock it only by a sweep that meets it in that instant; each try
# makes a new one, and more than a few in a row means something else is at work.
_MAKE_TRIES = 20
_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


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
    """The descriptor of ``folder``'s owner file, locked (``flock``) until it is closed: what graders
    before the folder's own lock look for (see ``_OWNER``).

    The file is made and locked under another name, then renamed: such a grader's cleanup sees no
    owner file (a young folder, left alone) or a locked one, never one not locked yet.
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


def locked_folder(prefix: str, base: Optional[str] = None) -> Tuple[str, int]:
    """A new folder (mode 0700) named ``prefix`` and a random part in ``base`` (default: the temporary
    folder), and the descriptor holding its lock until it is closed: made and locked as one step.

    Between ``mkdtemp`` and our lock, another grader's sweep may take the new folder's lock (and
    remove it, holding the lock): we then leave that folder to it and make another, never waiting on
    another grader. Once we hold the lock and the folder is still there (not removed, nor another at
    its path), no sweep can take it. ``GraderError`` when the temporary folder has no locks (``flock``).
    """
    for _ in range(_MAKE_TRIES):
        path = tempfile.mkdtemp(prefix=prefix, dir=base)
        try:
            descriptor = os.open(path, _DIRECTORY)
        except FileNotFoundError:
            continue  # swept already
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)  # a sweep holds it this instant: it removes it, or a later one does
            continue
        except OSError as error:
            os.close(descriptor)
            raise GraderError(
                f"the grader cannot lock its folders in {os.path.dirname(path)} ({error.strerror}), so graders "
                "beside it could not tell them from left-overs: set TMPDIR to a folder on a local disk."
            ) from None
        if _same_folder(path, descriptor):
            return path, descriptor
        os.close(descriptor)
    raise GraderError(
        f"the grader's folders in {base or tempfile.gettempdir()} were taken {_MAKE_TRIES} times as they were "
        "made: something other than a grader is removing them; find it, or set TMPDIR to a folder of the "
        "grader's own."
    )


def _same_folder(path: str, descriptor: int) -> bool:
    """Is the folder open on ``descriptor`` still there, at ``path``?"""
    try:
        opened, named = os.fstat(descriptor), os.lstat(path)
    except OSError:
        return False
    return opened.st_nlink > 0 and (opened.st_dev, opened.st_ino) == (named.st_dev, named.st_ino)


def owned_folder(prefix: str, base: Optional[str] = None) -> Tuple[str, List[int]]:
    """A new folder locked as one step (``locked_folder``), with its owner file made and locked too
    (``locked_owner``, for graders before the folder's own lock), and the descriptors holding both."""
    path, lock = locked_folder(prefix, base)
    try:
        return path, [lock, locked_owner(path)]
    except BaseException:
        remove_tree(path)
        os.close(lock)
        raise


class WorkRoot:
    """A runner's folder of run folders, locked while the runner lives (``owned_folder``), so that
    another grader can tell it from one whose grader is gone."""

    def __init__(self) -> None:
        self.path, self._locks = owned_folder(ROOT_PREFIX)
        try:
            # Others may pass through (a run's user reaches its own folder) but not list the runs.
            os.chmod(self.path, 0o711)
            # where a fork server without bubblewrap builds its view of the file system (``run_mounts``)
            os.mkdir(os.path.join(self.path, ".view"), 0o700)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Remove the root and what is in it, then let go of its locks (no sweep meets it half removed)."""
        if self._locks:
            remove_tree(self.path)
        locks, self._locks = self._locks, []
        for lock in locks:
            os.close(lock)


def remove_stale_roots(folder: Optional[str] = None) -> List[str]:
    """Remove the work roots and staged submissions in ``folder`` (default: the temporary folder) of
    graders that are gone: ours (same owner), whose lock we can take. Each is removed holding its
    lock, with its runs' cgroups and what still runs in them. Returns the paths removed. Never raises."""
    removed: List[str] = []
    base = folder or tempfile.gettempdir()
    try:
        names = [name for name in os.listdir(base) if name.startswith(_LOCKED_PREFIXES)]
    except OSError:
        return removed
    for name in names:
        path = os.path.join(base, name)
        try:
            locks = [os.open(path, _DIRECTORY)]  # never through a link
        except OSError:
            continue
        try:
            if _gone(path, locks):
                remove_left(name)  # its runs' cgroups, and what still runs in them
                if remove_tree(path):
                    removed.append(path)
        finally:
            for lock in locks:
                os.close(lock)
    return removed


def _gone(path: str, locks: List[int]) -> bool:
    """Is the folder open on ``locks[0]`` (at ``path``) ours, and its grader gone? When so, its
    locks are taken: its own, and its owner file's (added to ``locks``) where it has one."""
    folder = locks[0]
    try:
        if os.fstat(folder).st_uid != os.geteuid():
            return False  # never another user's
        fcntl.flock(folder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if not _same_folder(path, folder):
            return False  # removed as we opened it
        try:
            owner = os.open(_OWNER, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
        except FileNotFoundError:
            # an older grader's in the moment before its owner lock, or one given up on as it was
            # made: removed once untouched for a while (ours in use have been locked all along)
            return time.time() - os.fstat(folder).st_mtime > _UNOWNED_GRACE_S
        locks.append(owner)
        fcntl.flock(owner, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False  # a lock held: its grader lives


class RunFolder:
    """A fresh folder in the runner's root holding the program (and its companions), owned by the
    run's own user id when there is a pool of them; removed, and the id given back, on exit, even
    when the removal fails or the folder could not be filled."""

    def __init__(self, program, root: str, uids) -> None:
        self.program, self.root, self.uids = program, root, uids
        self.path = self.script = ""
        self.uid: Optional[int] = None
        self.cgroup = None  # the run's cgroups (``cgroups.RunGroup``), where the runner makes them

    def uid_lock(self) -> Optional[int]:
        """The lock that holds the run's user id (``UidPool.lock_of``), None without one."""
        return self.uids.lock_of(self.uid) if self.uid is not None else None

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
