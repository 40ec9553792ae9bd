"""Talking to a running program: feeding its input, capturing its output, noticing its end.

The loops every runner shares once a program has started, whatever started it: ``pump`` for a
case with a fixed input, ``converse`` for an interactive one (a ``Session`` types a line whenever
the program waits for input), ``finish`` to stop what is left and report the facts as a
``RunResult``. A process here is anything with ``stdin``/``stdout``/``stderr`` pipes, ``pid``,
``poll()`` and ``wait()``; it may also offer ``exit_fd()`` and ``kill_tree()`` (the fork server's
children do).
"""

from __future__ import annotations

import codecs
import os
import select
import selectors
import signal
import subprocess
import time
from typing import Optional, Protocol, Tuple, Union

from grader.model import Limits, RunResult

_CHUNK = 65536
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


class _Capture:
    """Keeps the first ``limit`` bytes of a stream and, past that, its last ``tail`` bytes."""

    def __init__(self, limit: int, tail: int = 0) -> None:
        self.limit = limit
        self.tail_size = tail
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self.total += len(data)
        room = self.limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data and self.tail_size:
            self.tail += data
            del self.tail[: max(0, len(self.tail) - self.tail_size)]

    def value(self) -> bytes:
        if not self.tail:
            return bytes(self.head)
        skipped = self.total - len(self.head) - len(self.tail)
        marker = f"\n[... {skipped} bytes left out ...]\n".encode() if skipped else b""
        return bytes(self.head) + marker + bytes(self.tail)


def captures(limits: Limits) -> Tuple[_Capture, _Capture]:
    # Output past the limit stops the program; its last bytes are kept to show how the flood ended.
    return _Capture(limits.output_bytes, tail=2048), _Capture(limits.stderr_bytes // 2, tail=limits.stderr_bytes // 2)


def _over(stdout: _Capture, stderr: _Capture, limits: Limits) -> bool:
    """Has the program written more than its limit to standard output, or to standard error?"""
    return stdout.total > limits.output_bytes or stderr.total > limits.stderr_bytes


def finish(
    process,
    start: float,
    stdout: _Capture,
    stderr: _Capture,
    timed_out: bool,
    flooded: bool,
    workdir: str,
    limits: Limits,
):
    """Stop what is left of the program and report the facts."""
    if timed_out or flooded:
        _kill_group(process)
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        _kill_group(process)
        process.wait()
    elapsed = time.monotonic() - start
    _kill_group(process)  # children left behind in the group go too
    code = process.returncode
    return RunResult(
        exit_code=code if code >= 0 else None,
        signal=-code if code < 0 else None,
        stdout=stdout.value(),
        stderr=stderr.value(),
        stdout_bytes=stdout.total,
        stderr_bytes=stderr.total,
        time_s=elapsed,
        timed_out=timed_out,
        output_limit_hit=flooded and stdout.total > limits.output_bytes,
        stderr_limit_hit=flooded and stderr.total > limits.stderr_bytes,
        workdir=workdir,
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


class _Watch:
    """What a run loop watches: the program's two outputs and (where it can) its exit."""

    def __init__(self, process, stdout: _Capture, stderr: _Capture) -> None:
        self.process = process
        self.selector = selectors.DefaultSelector()
        self.streams = {process.stdout.fileno(): stdout, process.stderr.fileno(): stderr}
        for fd in self.streams:
            os.set_blocking(fd, False)
            self.selector.register(fd, selectors.EVENT_READ)
        self.exit_fd = _exit_watch(process, self.selector)

    def drain(self, limits: Limits, on_stdout=None) -> None:
        """Take what is still in the pipes once the program has exited or closed its outputs.

        Bounded: a child left behind may keep writing until it is killed.
        """
        stdout_fd = self.process.stdout.fileno()
        for fd, capture in self.streams.items():
            for _ in range(limits.output_bytes // _CHUNK + 2):
                data = _read(fd)
                if not data:
                    break
                capture.add(data)
                if on_stdout is not None and fd == stdout_fd:
                    on_stdout(data)

    def close(self) -> None:
        """Close the selector, the exit watch and the program's pipes."""
        self.selector.close()
        if self.exit_fd is not None:
            os.close(self.exit_fd)
        for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                pipe.close()
            except OSError:
                pass


def pump(process, stdin: bytes, stdout: _Capture, stderr: _Capture, limits: Limits, start: float) -> Tuple[bool, bool]:
    """Feed stdin and drain both outputs until the program ends, times out or floods.

    The program has ended when its main process exits, even if children it left behind still hold
    the pipes open (they are killed afterwards). Returns (timed_out, output_limit_hit).
    """
    watch = _Watch(process, stdout, stderr)
    selector, streams, exit_fd = watch.selector, watch.streams, watch.exit_fd
    # Without a pidfd, look at the process now and then: pipes may outlive it.
    poll_every = None if exit_fd is not None else 0.05
    pending = memoryview(stdin)
    if pending:
        os.set_blocking(process.stdin.fileno(), False)
        selector.register(process.stdin.fileno(), selectors.EVENT_WRITE)
    else:
        process.stdin.close()
    deadline = start + limits.time_s
    open_outputs = len(streams)
    try:
        while open_outputs:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                _ask_for_stack(process, stderr)
                return True, False
            timeout = remaining if poll_every is None else min(remaining, poll_every)
            ready = selector.select(timeout=timeout)
            if exit_fd is None and not ready and process.poll() is not None:
                break
            for key, _ in ready:
                fd = key.fd
                if fd == exit_fd:
                    open_outputs = 0
                elif fd in streams:
                    data = _read(fd)
                    if data is None:
                        continue
                    if not data:
                        selector.unregister(fd)
                        open_outputs -= 1
                        continue
                    streams[fd].add(data)
                    if _over(stdout, stderr, limits):
                        return False, True
                else:
                    pending = _write(process, selector, pending)
        watch.drain(limits)
        if _over(stdout, stderr, limits):
            return False, True
        process.wait(timeout=max(deadline - time.monotonic(), 0.01))
        return False, False
    except subprocess.TimeoutExpired:
        _ask_for_stack(process, stderr)
        return True, False
    finally:
        watch.close()


def converse(process, session: Session, stdout: _Capture, stderr: _Capture, limits: Limits, start: float):
    """Let ``session`` read the output and type input until the program ends, times out or floods.

    Returns (timed_out, output_limit_hit, waiting_for_input_when_stopped). The session is asked for
    a line only when the program is blocked reading its (empty) standard input.
    """
    watch = _Watch(process, stdout, stderr)
    selector, streams, exit_fd = watch.selector, watch.streams, watch.exit_fd
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    stdout_fd = process.stdout.fileno()
    stdin = process.stdin
    deadline = start + limits.time_s
    last_output = time.monotonic()
    open_outputs = len(streams)
    exited = False
    tick = _FIRST_TICK
    try:
        while True:
            now = time.monotonic()
            if now >= deadline:
                return True, False, stdin is not None and _waits_for_input(_program_pid(process), stdin, 0.0)
            got_output = False
            for key, _ in selector.select(timeout=min(deadline - now, tick)):
                if key.fd == exit_fd:
                    exited = True
                    continue
                data = _read(key.fd)
                if data is None:
                    continue
                if not data:
                    selector.unregister(key.fd)
                    open_outputs -= 1
                    continue
                streams[key.fd].add(data)
                if key.fd == stdout_fd:
                    got_output = True
                    session.output(decoder.decode(data))
                if _over(stdout, stderr, limits):
                    return False, True, False
            if session.done():  # the session has seen enough: the program is stopped now, not waited for
                _kill_group(process)
                return False, False, False
            if exited or open_outputs == 0:
                watch.drain(limits, on_stdout=lambda data: session.output(decoder.decode(data)))
                session.output(decoder.decode(b"", final=True))
                process.wait(timeout=max(deadline - time.monotonic(), 0.01))
                return False, _over(stdout, stderr, limits), False
            if got_output:
                last_output = time.monotonic()
                tick = _FIRST_TICK
                continue
            if stdin is not None and _waits_for_input(_program_pid(process), stdin, time.monotonic() - last_output):
                stdin = _type(stdin, session.waiting())
                tick = _FIRST_TICK
            else:
                tick = min(2 * tick, _TICK)
    except subprocess.TimeoutExpired:
        return True, False, False
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


def _read(fd: int) -> Optional[bytes]:
    """Up to one chunk; b"" at end of stream; None when nothing is there yet."""
    try:
        return os.read(fd, _CHUNK)
    except BlockingIOError:
        return None
    except OSError:
        return b""


def _write(process, selector, pending: memoryview) -> memoryview:
    """Write what the pipe takes; close stdin when all is written or the program stopped reading."""
    fd = process.stdin.fileno()
    try:
        written = os.write(fd, pending[:_CHUNK])
        pending = pending[written:]
    except BlockingIOError:
        return pending
    except (BrokenPipeError, OSError):
        pending = pending[:0]
    if not pending:
        selector.unregister(fd)
        process.stdin.close()
    return pending


def _kill_group(process) -> None:
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


def _ask_for_stack(process, stderr: _Capture) -> None:
    """Before killing a program that ran out of time, have it write its stack to stderr.

    The program's faulthandler answers SIGUSR1 (set up when it starts); this waits a moment for
    the lines, so that the verdict can say which line it was on.
    """
    if not hasattr(signal, "SIGUSR1"):
        return
    try:
        # to the whole group: a program started through bwrap is bwrap's child, in its group
        (os.killpg if os.name == "posix" else os.kill)(process.pid, signal.SIGUSR1)
    except (ProcessLookupError, PermissionError, OSError):
        return
    fd = process.stderr.fileno()
    deadline = time.monotonic() + 0.1
    seen = b""
    while time.monotonic() < deadline and b"most recent call first" not in seen:
        ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0))
        if not ready:
            break
        data = _read(fd)
        if not data:
            break
        stderr.add(data)
        seen += data
    # the frames follow the header in the same write, give them a moment more
    time.sleep(0.01)
    data = _read(fd)
    if data:
        stderr.add(data)
