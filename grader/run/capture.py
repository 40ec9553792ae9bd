"""What a running program leaves: its two outputs captured within limits, and the facts of its end.

Shared by the loops that talk to a program (``streams``): ``captures`` makes the two ``Capture``
buffers of a run (what was written past a limit is counted, and its last bytes kept), ``Watch``
waits on the program's outputs and its exit, ``over_limit`` says when it wrote too much, and
``finish`` stops what is left of it (``kill_group``) and reports the facts as a ``RunResult``.
``ask_for_stack`` has a program that ran out of time write where it was before it is killed.
"""

from __future__ import annotations

import os
import select
import selectors
import signal
import subprocess
import time
from typing import Optional, Tuple

from grader.model import Limits
from grader.run.child_records import read_records
from grader.run.run_clock import RunClock, tree_seconds
from grader.run.run_facts import RunResult

# Bytes read (or written) at a time.
CHUNK = 65536
# What is kept of a run's report channel (records and the stack at the time limit): a few KiB in use.
REPORT_BYTES = 256 * 1024


class Capture:
    """Keeps the first ``limit`` bytes of a stream and, past that, its last ``tail`` bytes."""

    def __init__(self, limit: int, tail: int = 0) -> None:
        self.limit = limit
        self.tail_size = tail
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        """Take ``data``, the next bytes of the stream: counted, and kept if they fit."""
        self.total += len(data)
        room = self.limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data and self.tail_size:
            self.tail += data
            del self.tail[: max(0, len(self.tail) - self.tail_size)]

    def value(self) -> bytes:
        """What was kept: the start, then (when bytes were left out) a line saying how many, and the end."""
        if not self.tail:
            return bytes(self.head)
        skipped = self.total - len(self.head) - len(self.tail)
        marker = f"\n[... {skipped} bytes left out ...]\n".encode() if skipped else b""
        return bytes(self.head) + marker + bytes(self.tail)


def captures(limits: Limits) -> Tuple[Capture, Capture]:
    """The (stdout, stderr) captures of one run under ``limits``."""
    # Output past the limit stops the program; its last bytes are kept to show how the flood ended.
    return Capture(limits.output_bytes, tail=2048), Capture(limits.stderr_bytes // 2, tail=limits.stderr_bytes // 2)


def over_limit(stdout: Capture, stderr: Capture, limits: Limits) -> bool:
    """Has the program written more than its limit to standard output, or to standard error?"""
    return stdout.total > limits.output_bytes or stderr.total > limits.stderr_bytes


def finish(
    process,
    clock: RunClock,
    stdout: Capture,
    stderr: Capture,
    timed_out: bool,
    flooded: bool,
    workdir: str,
    limits: Limits,
) -> RunResult:
    """Stop what is left of the program and report the facts: exit status or signal, what was
    captured, the time it used (``clock``: processor time of the run as a whole, where it can be
    read), which limit it hit."""
    if timed_out or flooded:
        kill_group(process)
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        kill_group(process)
        process.wait()
    kill_group(process)  # children left behind in the group go too
    used = clock.used()  # before the run's cgroup goes: its processes have ended
    code = process.returncode
    report = getattr(process, "report_capture", None)
    records = read_records(report.value() if report is not None else b"", workdir)
    cgroup = getattr(process, "cgroup", None)
    return RunResult(
        exit_code=code if code >= 0 else None,
        signal=-code if code < 0 else None,
        stdout=stdout.value(),
        stderr=stderr.value(),
        stdout_bytes=stdout.total,
        stderr_bytes=stderr.total,
        time_s=used,
        timed_out=timed_out,
        waited=timed_out and clock.waited,
        output_limit_hit=flooded and stdout.total > limits.output_bytes,
        stderr_limit_hit=flooded and stderr.total > limits.stderr_bytes,
        workdir=workdir,
        crash=records.crash,
        rule_broken=records.rule,
        stack_at_stop=records.stack,
        stack_samples=records.samples,
        memory_exceeded=cgroup is not None and cgroup.out_of_memory(),
    )


def _exit_watch(process, selector) -> Optional[int]:
    """Register an fd that becomes readable when the program exits; the fd (to close), or None.

    A process that offers ``exit_fd()`` gives its own; otherwise a pidfd (Linux 5.3+).
    """
    own = getattr(process, "exit_fd", None)
    if own is not None:
        fd = own()
    else:
        opener = getattr(os, "pidfd_open", None)
        if opener is None:
            return None
        try:
            fd = opener(process.pid)
        except OSError:
            return None
    selector.register(fd, selectors.EVENT_READ)
    return fd


class Watch:
    """What a run loop watches: the program's two outputs and, where it can, its exit. The report
    channel is read when the program has ended and at the time limit (a record is a few hundred
    bytes; a program that fills the pipe only blocks itself), its end never waited for."""

    def __init__(self, process, stdout: Capture, stderr: Capture) -> None:
        self.process = process
        self.selector = selectors.DefaultSelector()
        self.streams = {process.stdout.fileno(): stdout, process.stderr.fileno(): stderr}
        for fd in self.streams:
            os.set_blocking(fd, False)
            self.selector.register(fd, selectors.EVENT_READ)
        self.exit_fd = _exit_watch(process, self.selector)
        report = getattr(process, "report", None)
        if report is not None:
            os.set_blocking(report.fileno(), False)  # read when the run ends (``close``), never waited on

    def drain(self, limits: Limits, on_stdout=None) -> None:
        """Take what is still in the pipes once the program has exited or closed its outputs.

        Bounded: a child left behind may keep writing until it is killed.
        """
        stdout_fd = self.process.stdout.fileno()
        for fd, capture in self.streams.items():
            for _ in range(limits.output_bytes // CHUNK + 2):
                data = read_chunk(fd)
                if not data:
                    break
                capture.add(data)
                if on_stdout is not None and fd == stdout_fd:
                    on_stdout(data)

    def close(self) -> None:
        """Close the selector, the exit watch and the program's pipes (what is on the report channel
        is read first)."""
        take_report(self.process)
        self.selector.close()
        if self.exit_fd is not None:
            os.close(self.exit_fd)
        for pipe in (
            self.process.stdin,
            self.process.stdout,
            self.process.stderr,
            getattr(self.process, "report", None),
        ):
            if pipe is None:
                continue
            try:
                pipe.close()
            except OSError:
                pass


def take_report(process) -> None:
    """Read what is on ``process``'s report channel now, if it has one, up to ``REPORT_BYTES`` in all."""
    report = getattr(process, "report", None)
    if report is None or report.closed:
        return
    capture = process.report_capture
    while capture.total < REPORT_BYTES:
        data = read_chunk(report.fileno())
        if not data:
            return
        capture.add(data)


def read_chunk(fd: int) -> Optional[bytes]:
    """Up to one chunk; b"" at end of stream; None when nothing is there yet."""
    try:
        return os.read(fd, CHUNK)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def kill_group(process) -> None:
    """SIGKILL the program's whole process group (POSIX), or the process itself elsewhere.

    A process that offers ``kill_tree()`` is killed that way (the fork server knows its strays).
    """
    kill_tree = getattr(process, "kill_tree", None)
    if kill_tree is not None:
        kill_tree()
        return
    if os.name == "posix":
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    elif process.poll() is None:
        process.kill()


def ask_for_stack(process, stderr: Capture, looks: int = 0) -> None:
    """Before killing a program that ran out of time, have it say where it is, ``looks`` times
    (default ``LOOKS``), ``LOOK_GAP_S`` apart: its stack and the state of its frames, on its report
    channel (``child_program``).

    Two looks are what tells a loop that never ends (the same line with the same state each time)
    from slow work (it moved on), at the cost of a fraction of a second per time-out (``time_outs``);
    a program stopped by the clock rather than its processor time gets one (it waited: the verdict
    says so, and the processor time it reports is not to grow while it is looked at). (``stderr`` is
    no longer where the stack goes; kept for the callers' sake.)
    """
    report = getattr(process, "report", None)
    if not hasattr(signal, "SIGUSR1") or report is None or report.closed:
        return
    for look in range(looks or LOOKS):
        if look and not _ran_on(process.pid):
            break  # not given a processor meanwhile: a second look would prove nothing (one look says less)
        if not _look(process, report.fileno(), process.report_capture):
            return
    take_report(process)


# The looks at a program that ran out of time, and the processor seconds it runs between them.
LOOKS = 2
LOOK_GAP_S = 0.2
# The longest wait, in wall-clock seconds, for those processor seconds (a loaded machine gives a
# program a share of a processor; one that waits, for input or in sleep, gets none)
LOOK_WAIT_S = 2.0


def _ran_on(pid: int) -> bool:
    """Wait until the program has had ``LOOK_GAP_S`` more processor seconds (at most ``LOOK_WAIT_S``
    of wall clock): True when it had. Why processor time, not a pause: on a busy machine a program
    may get no processor for a fifth of a second, and a second look that finds it on the same line
    with the same values would then call slow work a loop that never ends."""
    start = tree_seconds(pid)
    if start is None:  # its processor time cannot be read here: a pause, as good as it gets
        time.sleep(LOOK_GAP_S)
        return True
    until = time.monotonic() + LOOK_WAIT_S
    while time.monotonic() < until:
        time.sleep(0.02)
        used = tree_seconds(pid)
        if used is None:
            return False
        if used - start >= LOOK_GAP_S:
            return True
    return False


def _look(process, fd: int, capture: Capture) -> bool:
    """Ask the program where it is (SIGUSR1) and read its answer for up to 0.1 s: the stack dump,
    then the state record its own code writes when it runs next. False when it cannot be asked."""
    try:
        # to the whole group: a program started through bwrap is bwrap's child, in its group
        (os.killpg if os.name == "posix" else os.kill)(process.pid, signal.SIGUSR1)
    except (ProcessLookupError, PermissionError, OSError):
        return False
    deadline = time.monotonic() + 0.1
    seen = b""
    while time.monotonic() < deadline and b'{"state"' not in seen and capture.total < REPORT_BYTES:
        ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0))
        if not ready:
            break
        data = read_chunk(fd)
        if not data:
            return False
        capture.add(data)
        seen += data
    # the frames follow the header in the same write, give them a moment more
    time.sleep(0.01)
    take_report(process)
    return True
