"""A program the fork server forked, as the grader holds it: its pipes, its pid, its end.

In: the server that forked it (``forkserver._Server``, for ``kill``), the request's number and the
grader's ends of its pipes. Out: the process interface the run loops use (``streams``): ``poll``,
``wait``, ``returncode``, ``exit_fd`` and ``kill_tree``, with the exit status the server reports
(or, when the server went away while it ran, ``lost``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from typing import Optional, Tuple

from grader.run.capture import REPORT_BYTES, Capture

START_TIMEOUT_S = 20  # how long a server may take to start, or to fork a program


def first_child(pid: int) -> int:
    """The first child of ``pid`` as /proc lists it, or 0."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as handle:
            children = handle.read().split()
    except OSError:
        return 0
    return int(children[0]) if children else 0


class ForkChild:
    """A program the server forked: its pipes, its pid, and its exit status when it comes."""

    def __init__(
        self,
        server,
        ident: int,
        pipes: Tuple[int, int, int, int],
        below_an_init: bool = False,
    ) -> None:
        self.server = server
        self._below_an_init = below_an_init
        self._program_pid = 0
        self.workdir = ""  # the run's folder as the program sees it ("": its own path)
        self.ident = ident
        stdin_fd, stdout_fd, stderr_fd, report_fd = pipes
        self.stdin = os.fdopen(stdin_fd, "wb")
        self.stdout = os.fdopen(stdout_fd, "rb", buffering=0)
        self.stderr = os.fdopen(stderr_fd, "rb", buffering=0)
        self.report = os.fdopen(report_fd, "rb", buffering=0)
        self.report_capture = Capture(REPORT_BYTES)
        self._pid = 0
        self.started = threading.Event()
        self.ended = threading.Event()
        self.status: Optional[int] = None
        self.error = ""
        self._done_read, self._done_write = os.pipe()
        # The reader thread writes to the done pipe while this thread may be releasing it: a closed
        # descriptor's number is soon another pipe's, so the two never overlap.
        self._done_lock = threading.Lock()
        self._released = False

    # called by the server's reader thread
    def _started(self, pid: int) -> None:
        self._pid = pid
        self.started.set()

    @property
    def pid(self) -> int:
        """The program's process id (known once the server has forked it; 0 if it never was)."""
        self.started.wait(START_TIMEOUT_S)
        return self._pid

    @property
    def program_pid(self) -> int:
        """The pid of the process running the program's code (where it waits for input).

        With a process namespace of its own, the server's child is the namespace's init, whose
        first child is the program: found through /proc once it exists (0 until then).
        """
        if not self._below_an_init:
            return self.pid
        if not self._program_pid and self.pid > 0:
            self._program_pid = first_child(self.pid)
        return self._program_pid

    def _ended(self, status: Optional[int], error: str = "") -> None:
        self.status, self.error = status, error
        with self._done_lock:
            if not self._released:
                os.write(self._done_write, b"x")
        self.ended.set()
        self.started.set()

    @property
    def lost(self) -> bool:
        """True when the server went away while the program ran (not the program's doing)."""
        return self.ended.is_set() and self.status is None

    # the process interface the shared run loop uses
    @property
    def returncode(self) -> Optional[int]:
        if not self.ended.is_set():
            return None
        if self.status is None:
            return -signal.SIGKILL  # the server went away: the program was killed with it
        return os.waitstatus_to_exitcode(self.status)

    def poll(self) -> Optional[int]:
        return self.returncode

    def wait(self, timeout: Optional[float] = None) -> Optional[int]:
        if not self.ended.wait(timeout):
            raise subprocess.TimeoutExpired("student program", timeout or 0.0)
        return self.returncode

    def exit_fd(self) -> int:
        return os.dup(self._done_read)

    def kill_tree(self) -> None:
        """Kill the program's process group now (the server reaps it and kills what it left)."""
        if self.ended.is_set():
            return  # its pid may already be someone else's
        self.server.kill(self.ident)
        if self.pid > 0:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def release(self) -> None:
        with self._done_lock:
            if self._released:
                return
            self._released = True
            os.close(self._done_read)
            os.close(self._done_write)
            self.report.close()
