"""The grader's side of a shared process: one process runs a submission's cases one after another.

In: a running fork server, the run folder (with its cgroup), the program and its runs (standard
input, limits, seed), in the order to run them. Out: a ``RunResult`` for each run the shared
process finished, and None for each it did not. The shared process runs each case in a fork of
its own (``case_loop``). The first run that times out, floods its output, is ended by a signal (a
crash of the interpreter), ends the shared process or its answer (a message that is not ours),
exits with a status other than 0 (an exception, a rule broken) or leaves something behind is the
last run there: that run gets None when it did not end normally (its result is a time-out or a
flood alone, never a shared process's), its own result when it ended but left the process
unclean, and every run after it gets None. The caller runs each None alone, as any run.

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
from typing import List, Optional, Sequence, Tuple

from grader.model import Limits
from grader.run.capture import REPORT_BYTES, Capture, captures, finish
from grader.run.run_facts import RunResult
from grader.run.streams import pump

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

    def exit_fd(self) -> int:
        """Readable when the case has ended: the process answered, or closed the socket by ending."""
        return os.dup(self.control.fileno())

    def _take(self) -> None:
        """Read the process's answer; anything but a well-formed one counts as the process's end."""
        try:
            data = self.control.recv(4096)
            answer = json.loads(data) if data else None
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

    def wait(self, timeout: Optional[float] = None) -> int:
        if not self.ended:
            if not select.select([self.control], [], [], timeout)[0]:
                raise subprocess.TimeoutExpired("shared process", timeout)
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

    def run(self, stdin: bytes, limits: Limits, workdir: str) -> Optional[RunResult]:
        """The case's result, or None when it did not end normally in the shared process."""
        start = time.monotonic()
        stdout, stderr = captures(limits)
        try:
            timed_out, flooded = pump(self, stdin, stdout, stderr, limits, start)
            result = finish(self, start, stdout, stderr, timed_out, flooded, workdir, limits)
        except BaseException:
            self.child.kill_tree()
            raise
        if timed_out or flooded or not self.answered:
            self.child.kill_tree()
            return None
        return result


def _next_case(control: socket.socket, seed: str, limits: Limits) -> Optional[Tuple]:
    """Send the next case's seed, processor time and far ends of its pipes; our ends (None when the
    process is gone)."""
    stdin_read, stdin_write = os.pipe()
    stdout_read, stdout_write = os.pipe()
    stderr_read, stderr_write = os.pipe()
    report_read, report_write = os.pipe()
    theirs = [stdin_read, stdout_write, stderr_write, report_write]
    ours = [stdin_write, stdout_read, stderr_read, report_read]
    try:
        control.sendmsg(
            [json.dumps({"seed": seed, "cpu": limits.cpu_seconds}).encode()],
            [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", theirs))],
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


def run_shared(server, folder, program, runs: Sequence[Run]) -> List[Optional[RunResult]]:
    """Run ``program`` (staged in ``folder``) on ``runs`` in one shared process of ``server``; see
    the module's docstring for what each run gets."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    results: List[Optional[RunResult]] = []
    child = None
    sent = False
    try:
        for stdin, limits, seed in runs:
            if child is None:
                try:
                    child = server.spawn(
                        folder,
                        session_limits(runs),
                        False,
                        seed,
                        program.rules,
                        control=theirs.fileno(),
                        case_cpu=limits.cpu_seconds,
                    )
                except Exception:  # the server went away: every run is run alone
                    break
                finally:
                    theirs.close()
                    sent = True
                pipes = (child.stdin, child.stdout, child.stderr, child.report)
            else:
                pipes = _next_case(ours, seed, limits)
                if pipes is None:
                    break
            case = _Case(child, ours, pipes)
            result = case.run(stdin, limits, folder.path)
            results.append(result)
            if result is None or not case.clean:
                break
    finally:
        if not sent:  # no run was asked for
            theirs.close()
        _end(child, ours)
    return results + [None] * (len(runs) - len(results))
