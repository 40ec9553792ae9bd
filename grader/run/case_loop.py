"""The program's side of a shared process: case after case of one submission, in one process.

Like ``child_program``, this runs in the program's own process (the fork server's child), never
imported by the grader: it imports only the standard library and the modules sent beside it.

The fork server's child runs the first case on the standard streams and report channel it was
given, as any run. Then, instead of ending, it tells the grader how the case ended on the control
socket (a SOCK_SEQPACKET the grader holds the other end of) and waits there for the next case: a
message ``{"seed": S, "fork": BOOL, "unbuffered": BOOL}`` with the case's standard input, output, error and report
channel attached (SCM_RIGHTS). A case with ``fork`` (each run of a repeated case: state kept
between its runs could fake randomness; and a game played with the grader, its output unbuffered)
runs in a child of this process, forked before any case
ran here, so it starts as fresh as a run of its own; the others run here, and each gets:
  - those four descriptors in place of the last case's (the last case's are closed first, so the
    grader sees the end of its output), and standard streams made afresh on them;
  - its randomness from its own seed (``seeded_randomness``);
  - a fresh ``__main__``, and the student's own modules (files of the run folder) imported afresh.
After each case this process answers ``{"status": EXIT, "clean": BOOL}``. ``clean`` is False when
the case left anything a later case could see: a different working directory, signal handlers,
built-ins, recursion limit, module search path or environment; a thread or child process still
there; a file made, changed or removed in its folder or its temporary folders; or an exit status
other than 0 (for a forked case: only a file or a process left behind). This process then ends,
and the grader runs what is left one process per case. A
case that ends the process (a rule broken, ``os._exit``, a crash of the interpreter) or that the
grader stops (a time-out, a flood) ends the shared process too; no answer comes, the socket closes.
"""

import array
import builtins
import io
import json
import os
import signal
import socket
import sys

import child_program
import seeded_randomness

_TEMPORARY = ("/tmp", "/var/tmp", "/dev/shm")
_MAX_ENTRIES = 2000  # a folder listed past this many entries counts as changed


def _receive(control):
    """The next case: (its seed, whether to fork it, whether its output is unbuffered, its four
    descriptors), or None when the grader has closed the socket."""
    fds = array.array("i")
    data, ancillary, _, _ = control.recvmsg(4096, socket.CMSG_SPACE(8 * fds.itemsize))
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - (len(payload) % fds.itemsize)])
    if not data:
        for fd in fds:
            os.close(fd)
        return None
    fds = list(fds)
    if len(fds) != 4:
        raise ValueError("a case needs four descriptors")
    message = json.loads(data)
    return str(message["seed"]), message.get("fork") is True, message.get("unbuffered") is True, fds


def _streams(unbuffered=False):
    """Standard streams made afresh on fds 0, 1 and 2 (nothing read ahead or left in a buffer);
    ``unbuffered`` for a case played as a session (each prompt must reach the grader at once)."""
    raw_out = io.FileIO(1, "wb", closefd=False)
    return (
        io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "rb", closefd=False)), encoding="utf-8"),
        io.TextIOWrapper(
            raw_out if unbuffered else io.BufferedWriter(raw_out), encoding="utf-8", write_through=unbuffered
        ),
        io.TextIOWrapper(
            io.FileIO(2, "wb", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True
        ),
    )


def _listing(path):
    """Every entry below ``path`` with its size and modification time (None past ``_MAX_ENTRIES``)."""
    found = []
    for top, folders, files in os.walk(path):
        for name in folders + files:
            try:
                info = os.lstat(os.path.join(top, name))
            except OSError:
                info = None
            found.append((top, name, info and (info.st_size, info.st_mtime_ns, info.st_mode)))
            if len(found) > _MAX_ENTRIES:
                return None
    return sorted(found, key=repr)


def _process_facts():
    """How many threads this process has and which children (from /proc; () where it cannot say)."""
    facts = []
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as handle:
            facts += [line for line in handle if line.startswith("Threads:")]
        with open(f"/proc/self/task/{os.getpid()}/children", encoding="ascii") as handle:
            facts.append(handle.read())
    except OSError:
        pass
    return tuple(facts)


def _ipc():
    """How much System V shared memory, how many message queues and semaphores this run's IPC
    namespace holds (the kernel's own counts: a run's /proc shows no /proc/sysvipc); () where the
    C library cannot say."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        found = []
        for call, command, extra in ((libc.shmctl, 14, ()), (libc.msgctl, 12, ()), (libc.semctl, 19, (0,))):
            buffer = ctypes.create_string_buffer(256)  # SHM_INFO, MSG_INFO, SEM_INFO: counts, not contents
            found.append((call(0, *extra, command, buffer), buffer.raw))
        return tuple(found)
    except (OSError, AttributeError, ImportError, ValueError):
        return ()


def state(folder):
    """What a case may not leave changed for the next (see the module's docstring)."""
    handlers = tuple(signal.getsignal(number) for number in sorted(signal.valid_signals()) if number < signal.NSIG)
    return (
        os.getcwd(),
        handlers,
        tuple((name, id(value)) for name, value in builtins.__dict__.items()),
        sys.getrecursionlimit(),
        tuple(sys.path),
        tuple(sorted(os.environ.items())),
        _process_facts(),
        _ipc(),
        [_listing(path) for path in (folder, *_TEMPORARY)],
    )


def _forget_own_modules(folder):
    """Drop the student's own modules (files of ``folder``), so that the next case imports them afresh."""
    prefix = folder.rstrip("/") + "/"
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.startswith(prefix):
            del sys.modules[name]


def _end_case(quiet_fd):
    """Flush the case's output, then put ``quiet_fd`` (/dev/null) on fds 0-3: the grader sees the
    end of the case's output, and nothing the program opens later takes those numbers."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    for target in (0, 1, 2, child_program.REPORT_FD):
        os.dup2(quiet_fd, target, inheritable=target != child_program.REPORT_FD)


def _become_subreaper():
    """What a forked run leaves running comes back to this process, where ``state`` sees it."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError, ImportError):
        pass


def _forked(code, script, folder, quiet_fd, seed, unbuffered, control_fd):
    """Run the case in a child of this process (which then never ran the student's code): its
    exit status, or minus the signal that ended it (as a run of its own reports it)."""
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.close(control_fd)  # the case's program never talks on the grader's socket
            os.close(quiet_fd)
            # again here: ``random`` reseeds itself in a new child (os.register_at_fork)
            seeded_randomness.seed_everything(seed)
            sys.stdin, sys.stdout, sys.stderr = _streams(unbuffered)
            status = child_program.execute(code, script, folder)
        finally:
            os._exit(status & 0xFF)
    _end_case(quiet_fd)  # this process's copies: the case's output ends when the child's does
    _, wait_status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(wait_status)


def serve(control_fd, script, folder, rules, fork_first=False, seed="", unbuffered=False):
    """Run case after case (the first on the descriptors in place now, with ``seed``, forked when
    ``fork_first``); never returns. A forked case runs in a child of this process, so that its
    process leaves this one as it was; it only ends the shared process when it leaves a file or a
    process behind."""
    status = 1
    try:
        control = socket.socket(fileno=control_fd)
        quiet_fd = os.open(os.devnull, os.O_RDWR)
        sys.dont_write_bytecode = True  # an import must not leave a file for the next case to see
        _become_subreaper()
        code = child_program.prepared(script, folder, rules)
        before = state(folder)
        fork = fork_first
        while True:
            if fork:
                status = _forked(code, script, folder, quiet_fd, seed, unbuffered, control_fd)
                clean = state(folder) == before
            else:
                sys.stdin, sys.stdout, sys.stderr = _streams()
                status = child_program.execute(code, script, folder)
                _end_case(quiet_fd)
                _forget_own_modules(folder)
                clean = status == 0 and state(folder) == before
            control.send(json.dumps({"status": status, "clean": clean}).encode())
            if not clean:
                break
            case = _receive(control)
            if case is None:
                status = 0
                break
            seed, fork, unbuffered, fds = case
            for target, fd in zip((0, 1, 2, child_program.REPORT_FD), fds):
                os.dup2(fd, target, inheritable=target != child_program.REPORT_FD)
                os.close(fd)
            seeded_randomness.seed_everything(seed)
    except BaseException:  # the program broke what this loop needs: the shared process ends here
        status = 1
    os._exit(max(status, 0) & 0xFF)
