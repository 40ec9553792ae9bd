"""User ids for student programs, unique on the whole machine while in use.

When the grader runs as root, each run gets an unprivileged user id of its own: a program cannot
signal, or read the folder of, another program running at the same time. Several graders may run
on one machine at once (two courses, two CI jobs, a Dask worker's threads), so a per-process pool
is not enough: an id is taken by locking a file named after it under ``LOCK_FOLDER`` (``flock``,
which the kernel releases when the holder dies, however abruptly). Two pools, in one process or in
two, never hand out the same id at the same time.
"""

from __future__ import annotations

import errno
import fcntl
import os
import random
import stat
import threading
import time
from typing import Dict, Optional

from grader.errors import GraderError

# Ids no account uses (far above what useradd hands out); 1,024 runs may be going on at once.
FIRST_UID = 900_000
POOL_SIZE = 1024
LOCK_FOLDER = "/run/nim-grader/uids"
_POLL_S = 0.01
# How long a run waits for a free id: far longer than runs take (their time limits are seconds).
WAIT_S = 120.0


class UidPool:
    """Takes and gives back user ids for runs; ``take()`` waits (within a bound) while every id is in use."""

    def __init__(self, first: int = FIRST_UID, size: int = POOL_SIZE, folder: str = LOCK_FOLDER) -> None:
        self.first, self.size, self.folder = first, size, folder
        self._held: Dict[int, int] = {}  # uid → the descriptor of its lock file
        self._lock = threading.Lock()
        _make_folder(folder)

    def take(self, wait_s: float = WAIT_S) -> int:
        """An id that no run on this machine is using now; it is this pool's until ``give``.

        Waits while every id is in use, at most ``wait_s`` seconds: then ``GraderError`` says so.
        """
        deadline = time.monotonic() + wait_s
        while True:
            # Start at a random place: pools started at the same time then rarely try the same ids.
            start = random.randrange(self.size)
            for offset in range(self.size):
                uid = self.first + (start + offset) % self.size
                if self._try(uid):
                    return uid
            if time.monotonic() >= deadline:
                raise GraderError(
                    f"every one of the {self.size:,} user ids for student programs ({self.first} to "
                    f"{self.first + self.size - 1}) has been in use for {wait_s:g} s by graders on this machine: "
                    "grade again when fewer are running (locks of graders that ended are freed by the system)."
                )
            time.sleep(_POLL_S)

    def lock_of(self, uid: int) -> Optional[int]:
        """The descriptor of ``uid``'s lock while this pool holds the id, else None. A process given a
        copy (the fork server, for each run) holds the id with it: it is free again only once both
        have closed theirs, so it is never another grader's while that process may still run as it."""
        with self._lock:
            return self._held.get(uid)

    def give(self, uid: int) -> None:
        """Give ``uid`` back (its lock is released)."""
        with self._lock:
            fd = self._held.pop(uid, None)
        if fd is not None:
            os.close(fd)

    def close(self) -> None:
        """Give back every id still held."""
        with self._lock:
            held, self._held = list(self._held.values()), {}
        for fd in held:
            os.close(fd)

    def _try(self, uid: int) -> bool:
        with self._lock:
            if uid in self._held:
                return False
        path = os.path.join(self.folder, str(uid))
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(fd)
            if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                return False
            raise
        with self._lock:
            self._held[uid] = fd
        return True


def _make_folder(folder: str) -> None:
    """Create the lock folder (root's alone: nobody else may create or hold a lock in it)."""
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.lstat(folder)
    except OSError as error:
        raise GraderError(
            f"the grader runs as root but cannot keep its user-id locks in {folder} ({error.strerror}): "
            "make that folder writable for root."
        ) from None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
        raise GraderError(
            f"{folder} must be a folder owned by root that nobody else can write to; remove it and run again."
        )
