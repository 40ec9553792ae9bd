"""Running one program on one input under limits, reporting facts (never verdicts).

``SubprocessRunner.run(program, stdin, limits)`` starts a fresh interpreter per run in isolated mode
(``-I``: no user site, no environment variables) in a new temporary working folder, feeds standard
input, caps what it captures, kills the whole process group at the time limit, and removes the
folder. ``interact(program, session, limits)`` does the same for an interactive program: a
``Session`` sees the output as it comes and types a line whenever the program waits for input.
Anything that can replace the runner (a sandbox, a fork server) implements the same methods.
"""

from __future__ import annotations

import codecs
import os
import select
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, Protocol, Tuple, Union

from grader.model import Limits, RunResult

# Runs in the child before the student's code: apply the limits, put the working folder first on
# sys.path (so a file may import the exercise files copied beside it), run the file as __main__.
# Limits are set here rather than in preexec_fn, which is unsafe when the grader runs threads.
_BOOTSTRAP = """\
import sys
try:
    import resource
except ImportError:
    resource = None
if resource is not None:
    for _name, _value in {limits!r}:
        _kind = getattr(resource, _name, None)
        if _kind is not None:
            try:
                resource.setrlimit(_kind, (_value, _value))
            except (ValueError, OSError):
                pass
import faulthandler
import runpy
import signal
# At the time limit the grader sends SIGUSR1: the program writes where it is (its stack) to stderr.
if hasattr(signal, "SIGUSR1"):
    faulthandler.register(signal.SIGUSR1, all_threads=True)
sys.argv = [{script!r}]
sys.path.insert(0, {folder!r})
del sys, resource
runpy.run_path({script!r}, run_name="__main__")
"""

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


@dataclass(frozen=True)
class Program:
    """What to run: ``script`` copied into the working folder as ``run_name``, run by ``python``.

    ``companions`` are other files copied beside it under their own names (exercise files that
    the program imports); ``own_modules`` names every such file it may import, present or not,
    so that messages can tell a missing one from a module that does not exist.
    """

    python: str
    script: Path
    run_name: str
    companions: Tuple[Path, ...] = ()
    own_modules: Tuple[str, ...] = ()


class Session(Protocol):
    """The grader's side of an interactive run (e.g. the player of a game)."""

    def output(self, text: str) -> None:
        """The program printed ``text`` (decoded; may end in the middle of a line)."""

    def waiting(self) -> Union[str, EndOfInput, None]:
        """The program waits for input: a line to type, ``END_OF_INPUT``, or None for nothing."""

    def done(self) -> bool:
        """True when the program should be stopped now (the session has seen enough)."""


class Runner(Protocol):
    """Runs one program; implementations differ in isolation and speed."""

    def run(self, program: Program, stdin: bytes, limits: Limits) -> RunResult:
        """Run ``program`` with ``stdin`` under ``limits`` and report what happened."""

    def interact(self, program: Program, session: Session, limits: Limits) -> RunResult:
        """Run ``program`` with ``session`` typing its input, under ``limits``."""


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


class ProcessRunner:
    """``run`` and ``interact`` around two steps a runner provides: a folder to run in
    (``_folder``) and a way to start the program there (``_launch``)."""

    def run(self, program: Program, stdin: bytes, limits: Limits) -> RunResult:
        with self._folder(program) as (workdir, script):
            process, start = self._launch(program.python, workdir, script, limits, unbuffered=False)
            stdout, stderr = _captures(limits)
            try:
                timed_out, flooded = _pump(process, stdin, stdout, stderr, limits, start)
                return _finish(process, start, stdout, stderr, timed_out, flooded, workdir, limits)
            finally:
                _release(process)

    def interact(self, program: Program, session: Session, limits: Limits) -> RunResult:
        with self._folder(program) as (workdir, script):
            process, start = self._launch(program.python, workdir, script, limits, unbuffered=True)
            stdout, stderr = _captures(limits)
            try:
                timed_out, flooded, waiting = _converse(process, session, stdout, stderr, limits, start)
                result = _finish(process, start, stdout, stderr, timed_out, flooded, workdir, limits)
            finally:
                _release(process)
            return _with_waiting(result, waiting)

    def _folder(self, program: Program) -> _Workdir:
        return _Workdir(program)

    def _launch(self, python: str, workdir: str, script: str, limits: Limits, unbuffered: bool):
        raise NotImplementedError

    def protections(self, python: str):
        """What is active for the programs this runner starts (see ``sandbox.Protections``)."""
        from grader.sandbox import Protections

        return Protections(limits=os.name == "posix")

    def close(self) -> None:
        """Free what the runner holds (servers, folders); the plain runner holds nothing."""

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class SubprocessRunner(ProcessRunner):
    """One new interpreter process per run; POSIX limits via ``resource`` where available.

    The fallback where a fork server cannot run (no ``fork``), and the baseline it is measured by.
    """

    def _launch(self, python: str, workdir: str, script: str, limits: Limits, unbuffered: bool):
        return _start(python, workdir, script, limits, unbuffered)


def rlimits(limits: Limits) -> Tuple[Tuple[str, int], ...]:
    """The ``resource`` limits of a run, by name: memory, CPU seconds, file size, core dumps,
    processes and open files."""
    return (
        ("RLIMIT_AS", limits.memory_mib * 1024 * 1024),
        ("RLIMIT_CPU", int(limits.time_s) + 1),
        ("RLIMIT_FSIZE", limits.file_bytes),
        ("RLIMIT_CORE", 0),
        ("RLIMIT_NPROC", limits.processes),
        ("RLIMIT_NOFILE", limits.open_files),
    )


def _ask_for_stack(process, stderr: _Capture) -> None:
    """Before killing a program that ran out of time, have it write its stack to stderr.

    The program's faulthandler answers SIGUSR1 (set up when it starts); this waits a moment for
    the lines, so that the verdict can say which line it was on.
    """
    if not hasattr(signal, "SIGUSR1"):
        return
    try:
        os.kill(process.pid, signal.SIGUSR1)
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


def _release(process) -> None:
    """Let a process handle free what it holds beyond its pipes (the fork server's children do)."""
    release = getattr(process, "release", None)
    if release is not None:
        release()


def _with_waiting(result: RunResult, waiting: bool) -> RunResult:
    return replace(result, waiting_for_input=waiting)


class _Workdir:
    """A fresh temporary folder holding the program (and its companions); removed on exit."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.folder = ""

    def __enter__(self) -> Tuple[str, str]:
        self.folder = tempfile.mkdtemp(prefix="nim-grader-")
        for companion in self.program.companions:
            shutil.copyfile(companion, Path(self.folder) / companion.name)
        script = Path(self.folder) / self.program.run_name
        shutil.copyfile(self.program.script, script)
        return self.folder, str(script)

    def __exit__(self, *exc_info) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _captures(limits: Limits) -> Tuple[_Capture, _Capture]:
    # Output past the limit stops the program; its last bytes are kept to show how the flood ended.
    return _Capture(limits.output_bytes, tail=2048), _Capture(limits.stderr_bytes // 2, tail=limits.stderr_bytes // 2)


def _start(python: str, workdir: str, script: str, limits: Limits, unbuffered: bool):
    """Start the interpreter on ``script`` in ``workdir``; returns (process, start time)."""
    # RLIMIT_NPROC counts every process of the user: only where the grader does not run as root
    # (root is not limited by it) would it bound the program, and there it could starve the grader.
    limited = tuple(item for item in rlimits(limits) if item[0] != "RLIMIT_NPROC")
    bootstrap = _BOOTSTRAP.format(limits=limited, script=script, folder=workdir)
    flags = ["-I", "-X", "utf8"] + (["-u"] if unbuffered else [])
    env = {"PATH": os.environ.get("PATH", ""), "HOME": workdir, "LANG": "C.UTF-8", "TMPDIR": workdir}
    if os.name == "nt":
        env["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", "")
    start = time.monotonic()
    process = subprocess.Popen(
        [python, *flags, "-c", bootstrap],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=workdir,
        env=env,
        start_new_session=(os.name == "posix"),
    )
    return process, start


def _over(stdout: _Capture, stderr: _Capture, limits: Limits) -> bool:
    """Has the program written more than its limit to standard output, or to standard error?"""
    return stdout.total > limits.output_bytes or stderr.total > limits.stderr_bytes


def _finish(
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


def _pump(process, stdin: bytes, stdout: _Capture, stderr: _Capture, limits: Limits, start: float) -> Tuple[bool, bool]:
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


def _converse(process, session: Session, stdout: _Capture, stderr: _Capture, limits: Limits, start: float):
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
                return True, False, stdin is not None and _waits_for_input(process.pid, stdin, 0.0)
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
            if stdin is not None and _waits_for_input(process.pid, stdin, time.monotonic() - last_output):
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


def python_version(python: str) -> Optional[str]:
    """``3.11.7`` for an interpreter, or None when it cannot be run."""
    try:
        done = subprocess.run(
            [python, "-I", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None
