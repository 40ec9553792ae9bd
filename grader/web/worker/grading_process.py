"""``serve``'s grading in a process of its own: ``python -m grader dispatch`` for the same portal.

In: the ``server.Plan`` of ``serve`` (its data folder, course, database, Dask scheduler, workers).
Out: a context in which the dispatcher runs as a child process, started again when it ends on its
own, and stopped when the context ends. Why apart: the web process answers any student's request
(a large upload, a page of a long history) and shares its interpreter's lock and memory with
whatever runs in it; grading there would stall while a request holds the lock, and a process
grown by one student's requests would slow or end everyone's grading. Apart, no request can
change another student's marks or their time.

The child watches its parent (``--parent-pid``): if ``serve`` is killed, its grading ends with it.
What the child prints goes to ``serve``'s output; its logs are its own (``logs``, "dispatch").
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import sys
import threading
from typing import Iterator, List, Optional

from grader.errors import UsageError

log = logging.getLogger("grader.web.server")

READY = "Ctrl-C stops."  # the end of the line ``dispatch`` prints once it grades (``server.run``)
STOP_WAIT_S = 30  # how long a stopping dispatcher may take to finish the runs it holds
RESTART_WAIT_S = (2, 5, 15, 60)  # the pauses before each restart in a row (then the last, again)


def command(plan) -> List[str]:
    """The command line of the ``dispatch`` that grades for ``plan`` (its database password, if any,
    comes through the environment, never on a command line)."""
    line = [sys.executable, "-m", "grader", "dispatch", "--data", str(plan.data), "--course", str(plan.course)]
    line += ["--parent-pid", str(os.getpid())]
    if plan.db_url:
        line += ["--db", plan.db_url]
    if plan.dask:
        line += ["--dask", plan.dask]
    if plan.workers:
        line += ["--workers", str(plan.workers)]
    if plan.allow_unprotected:
        line.append("--allow-unprotected")
    return line


class _Child:
    """One ``dispatch`` process: started, read until ready, then its output passed on."""

    def __init__(self, line: List[str]) -> None:
        # a session of its own: Ctrl-C at serve's terminal stops serve, which then stops it
        self.process = subprocess.Popen(
            line,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        said: List[str] = []
        assert self.process.stdout is not None  # (piped above)
        for text in self.process.stdout:
            said.append(text.rstrip("\n"))
            if text.rstrip().endswith(READY):
                break
        else:
            self.process.wait()
            words = "\n".join(said[-20:]).strip() or f"it ended with exit status {self.process.returncode}"
            raise UsageError(f"the grading process could not start: {words}")
        self.ready = said[-1]
        threading.Thread(target=self._pass_on, name="grading-output", daemon=True).start()

    def _pass_on(self) -> None:
        assert self.process.stdout is not None
        for text in self.process.stdout:
            print(text, end="", flush=True)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # (it finishes what it holds, as on Ctrl-C)
            try:
                self.process.wait(STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@contextlib.contextmanager
def grading_apart(plan) -> Iterator[str]:
    """Grade for ``plan`` in a ``dispatch`` process while the block runs; yields what it said when
    ready. ``UsageError`` (its own sentence) when it cannot start; started again, after a pause and
    a line in the log, when it ends while the block runs."""
    line = command(plan)
    current = [_Child(line)]
    stopping = threading.Event()

    def watch() -> None:
        restarts = 0
        while not stopping.is_set():
            code = current[0].process.wait()
            if stopping.is_set():
                return
            pause = RESTART_WAIT_S[min(restarts, len(RESTART_WAIT_S) - 1)]
            log.error("the grading process ended (exit status %s); starting it again in %d s", code, pause)
            print(f"The grading process ended (exit status {code}); starting it again in {pause} s.", file=sys.stderr)
            if stopping.wait(pause):
                return
            try:
                current[0] = _Child(line)
                restarts = 0 if code == 0 else restarts + 1
            except (UsageError, OSError) as error:
                log.error("%s", error)
                restarts += 1

    watcher = threading.Thread(target=watch, name="grading-watch", daemon=True)
    watcher.start()
    try:
        yield current[0].ready
    finally:
        stopping.set()
        current[0].stop()
        watcher.join(5)


def parent_gone(parent: Optional[int]) -> bool:
    """Has the ``serve`` that started this ``dispatch`` (pid ``parent``) ended? (False when none did.)"""
    return parent is not None and os.getppid() != parent
