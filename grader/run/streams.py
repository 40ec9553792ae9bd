"""Talking to a running program: feeding its input and reading its output until it ends.

The loops every runner shares once a program has started, whatever started it: ``pump`` for a
case with a fixed input, ``converse`` for an interactive one (a ``Session`` types a line whenever
the program waits for input). Each returns how the program stopped (time-out, too much output);
the output itself is kept in the run's ``capture.Capture`` buffers, and ``capture.finish`` reports
the facts. A process here is anything with ``stdin``/``stdout``/``stderr`` pipes, ``pid``,
``poll()`` and ``wait()``; it may also offer ``exit_fd()`` and ``kill_tree()`` (the fork server's
children do). A session reads untrusted output: whatever goes wrong in ``converse``, the program is
stopped before the error goes on (``_SessionFailed``).
"""

from __future__ import annotations

import codecs
import os
import selectors
import subprocess
import time
from typing import Optional, Protocol, Tuple, Union

from grader.model import Limits, Verdict
from grader.run.capture import CHUNK, Capture, Watch, ask_for_stack, kill_group, over_limit, read_chunk
from grader.run.run_clock import RunClock
from grader.run.run_facts import RunResult

# How often an interactive run looks whether the program waits for input, in seconds: soon after
# the program last did something (a prompt is usually followed by a read within microseconds),
# then less and less often, up to _TICK, while it computes.
_FIRST_TICK = 0.0002
_TICK = 0.005
# Without /proc (not Linux), output this long quiet counts as waiting for input.
_QUIET_COUNTS_AS_WAITING = 0.05


class EndOfInput:
    """What a session returns to close the program's standard input."""


END_OF_INPUT = EndOfInput()


class Session(Protocol):
    """The grader's side of an interactive run (e.g. the player of a game)."""

    def output(self, text: str) -> None:
        """The program printed ``text`` (decoded; may end in the middle of a line)."""

    def waiting(self) -> Union[str, EndOfInput, None]:
        """The program waits for input: a line to type, ``END_OF_INPUT``, or None for nothing."""

    def done(self) -> bool:
        """True when the program should be stopped now (the session has seen enough)."""

    @property
    def transcript(self) -> str:
        """What the program and the session said to each other, as a terminal would have shown it."""

    def outcome(self, run: RunResult) -> Optional[SessionProblem]:
        """After the run: what went wrong in it as the session saw it, or None when all was right."""


class SessionProblem(Protocol):
    """What a session found wrong with a run: its verdict, a sentence, the transcript line (1-based)."""

    @property
    def verdict(self) -> Verdict: ...

    @property
    def message(self) -> str: ...

    @property
    def line(self) -> int: ...


class _SessionFailed(Exception):
    """The session raised ``error`` while ``converse`` talked to the program through it."""

    def __init__(self, error: Exception) -> None:
        super().__init__(error)
        self.error = error


def _ask(call, *args):
    """``call(*args)``, a method of the session; what it raises comes out as ``_SessionFailed``."""
    try:
        return call(*args)
    except Exception as error:
        raise _SessionFailed(error) from error


def pump(process, stdin: bytes, stdout: Capture, stderr: Capture, limits: Limits, clock: RunClock) -> Tuple[bool, bool]:
    """Feed stdin and drain both outputs until the program ends, runs out of time (``clock``) or floods.

    The program has ended when its main process exits, even if children it left behind still hold
    the pipes open (they are killed afterwards). Returns (timed_out, output_limit_hit).
    """
    watch = Watch(process, stdout, stderr)
    selector, streams, exit_fd = watch.selector, watch.streams, watch.exit_fd
    # Without a pidfd, look at the process now and then: pipes may outlive it.
    poll_every = None if exit_fd is not None else 0.05
    pending = memoryview(stdin)
    if pending:
        os.set_blocking(process.stdin.fileno(), False)
        selector.register(process.stdin.fileno(), selectors.EVENT_WRITE)
    else:
        process.stdin.close()
    open_outputs = len(streams)
    try:
        while open_outputs:
            if clock.out_of_time():
                ask_for_stack(process, stderr, 1 if clock.waited else 0)
                return True, False
            remaining = clock.wait_at_most()
            timeout = remaining if poll_every is None else min(remaining, poll_every)
            ready = selector.select(timeout=timeout)
            if exit_fd is None and not ready and process.poll() is not None:
                break
            for key, _ in ready:
                fd = key.fd
                if fd == exit_fd:
                    open_outputs = 0
                elif fd in streams:
                    data = read_chunk(fd)
                    if data is None:
                        continue
                    if not data:
                        selector.unregister(fd)
                        open_outputs -= 1
                        continue
                    streams[fd].add(data)
                    if over_limit(stdout, stderr, limits):
                        return False, True
                else:
                    pending = _write(process, selector, pending)
        watch.drain(limits)
        if over_limit(stdout, stderr, limits):
            return False, True
        if not _ended(process, watch, clock):  # its outputs closed, and it goes on computing
            ask_for_stack(process, stderr, 1 if clock.waited else 0)
            return True, False
        return False, False
    finally:
        watch.close()


def _ended(process, watch: Watch, clock: RunClock) -> bool:
    """Wait for the program to end, its time still counted; False when it ran out of time first
    (a program that closed its outputs and computes on is stopped at its limit, as any other)."""
    while process.poll() is None:
        if clock.out_of_time():
            return False
        if watch.exit_fd is not None:
            watch.selector.select(timeout=clock.wait_at_most())
        else:
            time.sleep(min(clock.wait_at_most(), 0.01))
    return True


def converse(process, session: Session, stdout: Capture, stderr: Capture, limits: Limits, clock: RunClock):
    """Let ``session`` read the output and type input until the program ends, runs out of time
    (``clock``) or floods.

    Returns (timed_out, output_limit_hit, waiting_for_input_when_stopped). The session is asked for
    a line only when the program is blocked reading its (empty) standard input. When the session
    raises, the program's process group is killed at once; a session that offers ``failed(error)``
    is told (its outcome is then the student's) and the run ends as if it were ``done``, any other
    session's error goes on. Any other exception also kills the program before it goes on.
    """
    watch = Watch(process, stdout, stderr)
    selector, streams, exit_fd = watch.selector, watch.streams, watch.exit_fd
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    stdout_fd = process.stdout.fileno()
    stdin = process.stdin
    last_output = time.monotonic()
    open_outputs = len(streams)
    exited = False
    tick = _FIRST_TICK
    try:
        while True:
            if clock.out_of_time():
                waiting = stdin is not None and _waits_for_input(_program_pid(process), stdin, 0.0)
                ask_for_stack(
                    process, stderr, 1 if clock.waited else 0
                )  # where it was, for the verdict (``grade/mistakes/time_outs.py``)
                return True, False, waiting
            got_output = False
            for key, _ in selector.select(timeout=min(clock.wait_at_most(), tick)):
                if key.fd == exit_fd:
                    exited = True
                    continue
                data = read_chunk(key.fd)
                if data is None:
                    continue
                if not data:
                    selector.unregister(key.fd)
                    open_outputs -= 1
                    continue
                streams[key.fd].add(data)
                if key.fd == stdout_fd:
                    got_output = True
                    _ask(session.output, decoder.decode(data))
                if over_limit(stdout, stderr, limits):
                    return False, True, False
            if _ask(session.done):  # the session has seen enough: the program is stopped now, not waited for
                kill_group(process)
                return False, False, False
            if exited or open_outputs == 0:
                watch.drain(limits, on_stdout=lambda data: _ask(session.output, decoder.decode(data)))
                _ask(session.output, decoder.decode(b"", final=True))
                if not _ended(process, watch, clock):
                    return True, False, False
                return False, over_limit(stdout, stderr, limits), False
            if got_output:
                last_output = time.monotonic()
                tick = _FIRST_TICK
                continue
            if stdin is not None and _waits_for_input(_program_pid(process), stdin, time.monotonic() - last_output):
                stdin = _type(stdin, _ask(session.waiting))
                tick = _FIRST_TICK
            else:
                tick = min(2 * tick, _TICK)
    except subprocess.TimeoutExpired:
        return True, False, False
    except _SessionFailed as failure:
        kill_group(process)  # the session can no longer judge the program: it must not outlive this
        failed = getattr(session, "failed", None)
        if failed is None:
            raise failure.error from None
        failed(failure.error)
        return False, False, False
    except BaseException:
        kill_group(process)  # whatever failed here, the program does not outlive it
        raise
    finally:
        watch.close()


def _type(stdin, reply):
    """Send the session's reply; returns the pipe, or None once it is closed."""
    if reply is None:
        return stdin
    try:
        if isinstance(reply, EndOfInput):
            stdin.close()
            return None
        stdin.write(reply.encode("utf-8") + b"\n")
        stdin.flush()
        return stdin
    except (BrokenPipeError, OSError):
        return None


def _program_pid(process) -> int:
    """Where the program's own code runs (a runner may start it below a process of its own)."""
    return getattr(process, "program_pid", process.pid)


def _waits_for_input(pid: int, stdin, quiet_for: float) -> bool:
    """Is the program blocked reading standard input, with nothing left unread in the pipe?

    On Linux the kernel says where a process sleeps (``/proc/PID/wchan``); elsewhere a program
    that has been quiet for a while is taken to be waiting.
    """
    if _unread_bytes(stdin) > 0:
        return False
    try:
        with open(f"/proc/{pid}/wchan", encoding="ascii") as handle:
            where = handle.read()
    except OSError:
        return quiet_for >= _QUIET_COUNTS_AS_WAITING
    return "pipe_read" in where or "pipe_wait" in where


def _unread_bytes(stdin) -> int:
    try:
        import array
        import fcntl
        import termios

        count = array.array("i", [0])
        fcntl.ioctl(stdin.fileno(), termios.FIONREAD, count)
        return count[0]
    except (ImportError, OSError, ValueError):
        return 0


def _write(process, selector, pending: memoryview) -> memoryview:
    """Write what the pipe takes; close stdin when all is written or the program stopped reading."""
    fd = process.stdin.fileno()
    try:
        written = os.write(fd, pending[:CHUNK])
        pending = pending[written:]
    except BlockingIOError:
        return pending
    except (BrokenPipeError, OSError):
        pending = pending[:0]
    if not pending:
        selector.unregister(fd)
        process.stdin.close()
    return pending
