"""The grader's side of a shared process: one process runs a submission's cases one after another.

In: a running fork server, the run folder (with its cgroup), the program and the process's limits
(``session_limits``); then, one by one, its runs (standard input, limits, seed, and for a game the
session that plays it: ``SharedProcess.run``). Out: a ``RunResult`` for each run the shared process
finished, and None for each it did not. The shared process runs each case in a fork of its own
(``case_loop``). The first run that times out, floods its output, is ended by a signal (a crash of
the interpreter), ends the shared process or its answer (a message that is not ours), exits with a
status other than 0 (an exception, a rule broken) or leaves something behind is the last run
there: that run gets None when it did not end normally (its result is a time-out or a flood alone,
never a shared process's), its own result when it ended but left the process unclean, and every
run after it gets None. The caller runs each None alone, as any run.

Each case has its own pipes (the first case's go with the request, the next ones through the
control socket), its own output captures and time limit, read by the same loops as any run
(``streams.pump``, ``capture.finish``), and its own seed. The process's own limits are those of
its cases together (``session_limits``); a case that needs more than its share of them fails here
and runs again alone.
"""

from __future__ import annotations

import array
import json
import os
import select
import socket
import subprocess
import time
from dataclasses import replace
from typing import Any, Optional, Sequence, Tuple

from grader.model import Limits
from grader.run.capture import REPORT_BYTES, Capture, captures, finish
from grader.run.fork_child import first_child
from grader.run.run_facts import RunResult
from grader.run.streams import converse, pump

Run = Tuple[bytes, Limits, str]  # standard input, limits, seed


def session_limits(runs: Sequence[Run]) -> Limits:
    """The limits of a process that runs all of ``runs``: the time of them all (the loop's own CPU
    backstop; each case's process gets its own case's, and its time limit on the wall clock), the
    largest of every other limit (the loop holds none of the descriptors a case may open)."""
    limits = [limits for _, limits, _ in runs]
    return Limits(
        time_s=sum(each.time_s for each in limits),
        memory_mib=max(each.memory_mib for each in limits),
        output_bytes=max(each.output_bytes for each in limits),
        stderr_bytes=max(each.stderr_bytes for each in limits),
        file_bytes=max(each.file_bytes for each in limits),
        processes=max(each.processes for each in limits),
        open_files=max(each.open_files for each in limits),
    )


class _Case:
    """One case of the shared process, as the run loops see a process: its pipes, its end (the
    process's answer on the control socket), and a kill that ends the whole shared process."""

    def __init__(self, child, control: socket.socket, pipes) -> None:
        self.child = child
        self.control = control
        self._program_pid = 0
        self.stdin, self.stdout, self.stderr, self.report = pipes
        self.report_capture = Capture(REPORT_BYTES)
        self.cgroup = None  # the shared process's cgroup is not the case's: its memory is not told apart
        self.answered = False  # the process said how the case ended
        self.status: Optional[int] = None
        self.clean = False
        self.ended = False  # answered, or the process is gone

    @property
    def pid(self) -> int:
        return self.child.pid

    @property
    def program_pid(self) -> int:
        """Where the case's program waits for input (``streams.converse``): the case's own process,
        the loop's child (0 until it is there)."""
        if not self._program_pid and self.child.program_pid > 0:
            self._program_pid = first_child(self.child.program_pid)
        return self._program_pid

    def exit_fd(self) -> int:
        """Readable when the case has ended: the process answered, or closed the socket by ending."""
        return os.dup(self.control.fileno())

    def _take(self) -> None:
        """Read the process's answer; anything but a well-formed one counts as the process's end."""
        try:
            data = self.control.recv(4096)
            answer = json.loads(data)  # nothing (the socket closed) is no JSON either
            status, clean = answer["status"], answer["clean"]
            if not (type(status) is int and 0 <= status <= 255 and type(clean) is bool):
                raise ValueError(answer)
            self.status, self.clean, self.answered = status, clean, True
        except (OSError, ValueError, TypeError, KeyError, RecursionError):
            self.status, self.clean = None, False
        self.ended = True

    def poll(self) -> Optional[int]:
        if not self.ended and select.select([self.control], [], [], 0)[0]:
            self._take()
        return self.returncode

    def wait(self, timeout: Optional[float] = None) -> Optional[int]:
        if not self.ended:
            if not select.select([self.control], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired("shared process", timeout or 0.0)
            self._take()
        return self.returncode

    @property
    def returncode(self) -> Optional[int]:
        if not self.ended:
            return None
        return self.status if self.status is not None else -9

    def kill_tree(self) -> None:
        """A case that was answered has nothing left running (the process checked: ``clean``, or
        it ends by itself); otherwise the whole shared process is killed."""
        if not self.answered:
            self.child.kill_tree()

    def run(self, stdin: bytes, limits: Limits, workdir: str, session=None) -> Optional[RunResult]:
        """The case's result (with ``session``, played with it as ``ProcessRunner.interact`` plays),
        or None when it did not end normally in the shared process."""
        start = time.monotonic()
        stdout, stderr = captures(limits)
        waiting = False
        try:
            if session is None:
                timed_out, flooded = pump(self, stdin, stdout, stderr, limits, start)
            else:
                timed_out, flooded, waiting = converse(self, session, stdout, stderr, limits, start)
            result = replace(
                finish(self, start, stdout, stderr, timed_out, flooded, workdir, limits), waiting_for_input=waiting
            )
        except BaseException:
            self.child.kill_tree()
            raise
        if timed_out or flooded or not self.answered:
            self.child.kill_tree()
            return None
        return result


def _next_case(control: socket.socket, seed: str, limits: Limits, unbuffered: bool) -> Optional[Tuple]:
    """Send the next case's seed, processor time, kind of output and far ends of its pipes; our
    ends (None when the process is gone)."""
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    stderr_read, stderr_write = os.pipe()
    report_read, report_write = os.pipe()
    theirs = [stdin_read, stdout_write, stderr_write, report_write]
    ours = [stdin_write, stdout_read, stderr_read, report_read]
    try:
        message = {"seed": seed, "cpu": limits.cpu_seconds, "unbuffered": unbuffered}
        control.sendmsg(
            [json.dumps(message).encode()], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", theirs))]
        )
    except OSError:
        for fd in ours:
            os.close(fd)
        return None
    finally:
        for fd in theirs:
            os.close(fd)
    return (
        os.fdopen(stdin_write, "wb"),
        os.fdopen(stdout_read, "rb", buffering=0),
        os.fdopen(stderr_read, "rb", buffering=0),
        os.fdopen(report_read, "rb", buffering=0),
    )


def _end(child, control: socket.socket) -> None:
    """Close the control socket (the process then ends by itself) and wait for its end; kill it
    when it does not end at once."""
    control.close()
    if child is None:
        return
    try:
        child.wait(timeout=2)
    except subprocess.TimeoutExpired:
        child.kill_tree()
        try:
            child.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
    child.release()


class SharedProcess:
    """One shared process of ``server`` for ``program`` (staged in ``folder``, under ``limits``,
    ``session_limits``'s), started with its first run; ``run`` runs one case there, ``alive`` says
    whether it may run another, ``close`` ends it."""

    def __init__(self, server, folder, program, limits: Limits) -> None:
        self.server, self.folder, self.program, self.limits = server, folder, program, limits
        self.control, self._theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.child: Any = None  # the server's child (``fork_child``), made with the first run
        self.alive = True

    def run(self, stdin: bytes, limits: Limits, seed: str, session=None) -> Optional[RunResult]:
        """One case (with ``session``, a game played with the grader): its result, or None when it
        did not end normally there (the process is then over)."""
        unbuffered = session is not None
        if not self.alive:
            return None
        pipes: Optional[Tuple[Any, ...]]
        if self.child is None:
            try:
                self.child = self.server.spawn(
                    self.folder,
                    self.limits,
                    unbuffered,
                    seed,
                    self.program.rules,
                    control=self._theirs.fileno(),
                    case_cpu=limits.cpu_seconds,
                )
            except Exception:  # the server went away: what is left runs alone
                self.alive = False
                return None
            finally:
                self._theirs.close()
            pipes = (self.child.stdin, self.child.stdout, self.child.stderr, self.child.report)
        else:
            pipes = _next_case(self.control, seed, limits, unbuffered)
            if pipes is None:
                self.alive = False
                return None
        case = _Case(self.child, self.control, pipes)
        # the folder as the program sees it (the same path on every run, where the server has one)
        result = case.run(stdin, limits, getattr(self.child, "workdir", "") or self.folder.path, session)
        if result is None or not case.clean:
            self.alive = False
        return result

    def close(self) -> None:
        self.alive = False
        self._theirs.close()
        _end(self.child, self.control)
