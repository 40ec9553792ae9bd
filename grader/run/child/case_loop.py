"""The program's side of a shared process: case after case of one submission, each in a fork of it.

Like ``child_program``, this runs in the program's own process (the fork server's child), never
imported by the grader: it imports only the standard library and the modules sent beside it.

The fork server's child is set up once, as for any run (namespaces, user, limits, filter), and then
stays the loop: it never runs the student's code itself. For each case it forks a process of its
own that runs the file as ``__main__`` on the case's standard streams and report channel (fds 0-3),
as any run, and ends; then the loop tells the grader how the case ended on the control socket
(``CONTROL``, a SOCK_SEQPACKET the grader holds the other end of) and waits there for the next
case: a message ``{"seed": S, "cpu": N, "unbuffered": BOOL}`` with the case's standard input,
output, error and report channel attached (SCM_RIGHTS; ``unbuffered`` for a game played with the
grader, which reads each prompt as it comes). The first case runs on the descriptors the server was given. Each
case's process has the processor time of its own case (RLIMIT_CPU, ``N`` seconds), as alone; the
loop's own limit is that of all the cases together.

Why a fork per case: whatever a program changes in its own process (a library module, an object the
collector has not freed, a descriptor left open, the umask, a profile function, this loop's own
code or the control socket, which it could answer on in the loop's name) would otherwise meet the
next case, and could carry one case's work into the next: a case accepted there that fails alone.
Each case's process is a fresh copy of the loop, which holds nothing of any case, and never has
the control socket. So each case gets a fresh ``__main__``, its own modules, its own randomness
from its own seed (``seeded_randomness``, and the run's random devices rewritten with that seed's
bytes, as alone: ``run_mounts.DEVICES``), and nothing an earlier case did to its process.

What outlives a case's process is looked for: after each case the loop answers
``{"status": EXIT, "clean": BOOL}``, where ``clean`` is False when the case left a file made,
changed or removed in its folder or its temporary folders, a process still there, a System V
object, a change to this loop's own limits or scheduling (a process of the same user may change
those of another), or an exit status other than 0. The loop then ends, and the grader runs what is
left one process per case. A case's process ended by a signal (a crash of the interpreter, the
kernel's memory limit) ends the loop without an answer; so does a case the grader stops (a
time-out, a flood): it kills the whole process group, the loop with it. Linux only: elsewhere the
loop cannot see what a case leaves (no subreaper, no /proc), ends at once, and every case runs alone.
"""

import array
import ctypes
import io
import json
import os
import socket
import sys

try:
    import resource
except ImportError:  # not POSIX (this module is loaded there too, never run)
    resource = None  # type: ignore[assignment]  # (never run where there is none)

import child_program
import run_mounts
import seeded_randomness

_TEMPORARY = ("/tmp", "/var/tmp", "/dev/shm")
_MAX_ENTRIES = 2000  # a folder listed past this many entries counts as changed
_PR_SET_DUMPABLE, _PR_SET_CHILD_SUBREAPER = 4, 36
# System V objects in use (the run's IPC namespace is the loop's, shared by its cases): the call,
# its *_INFO command, and which ints of the answer count the objects (shm_info, seminfo, msginfo)
_IPC_COUNTS = (("shmctl", 14, (0,)), ("semctl", 19, (7,)), ("msgctl", 12, (0,)))
# ioprio_get and sched_getattr, by machine: this process's I/O priority and scheduling (its clamps
# too), which ``os`` does not read
_SCHEDULING_CALLS = {"x86_64": (252, 315), "aarch64": (31, 275)}


def _receive(control):
    """The next case: (its seed, its processor seconds, whether its output is unbuffered, its four
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
    case = json.loads(data)
    return str(case["seed"]), int(case["cpu"]), case.get("unbuffered") is True, fds


def _streams(unbuffered=False):
    """Standard streams made afresh on fds 0, 1 and 2 (nothing read ahead or left in a buffer);
    ``unbuffered`` for a game played with the grader (each prompt must reach it at once)."""
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
    """Every entry below ``path`` (and ``path`` itself) with its size, times, mode and inode. The
    change time too: a program can put a file's modification time back after rewriting it, never
    its change time. A folder mounted there (the interpreter or the run's folder, kept in view
    read-only) is not gone into; past ``_MAX_ENTRIES`` entries, what it returns equals nothing
    (not even itself), so that a listing it cannot finish never counts as unchanged."""
    found = []
    for top, folders, files in os.walk(path):
        folders[:] = [name for name in folders if not os.path.ismount(os.path.join(top, name))]
        for name in ["", *folders, *files] if top == path else folders + files:
            try:
                info = os.lstat(os.path.join(top, name))
            except OSError:
                info = None
            facts = info and (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_mode, info.st_ino)
            found.append((top, name, facts))
            if len(found) > _MAX_ENTRIES:
                return object()
    return sorted(found, key=repr)


def _read(path):
    try:
        with open(path, encoding="ascii", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def _ipc_objects(libc):
    """How many System V shared memory segments, semaphore sets and message queues exist."""
    counts = []
    for call, command, fields in _IPC_COUNTS:
        answer = (ctypes.c_int * 128)()  # room for any of the answers
        arguments = (0, 0, command, answer) if call == "semctl" else (0, command, answer)
        counts.append(tuple(answer[i] for i in fields) if getattr(libc, call)(*arguments) >= 0 else None)
    return tuple(counts)


def _scheduling(libc):
    """How this process is scheduled: what a case's process, of the same user, may change in it."""
    calls = _SCHEDULING_CALLS.get(os.uname().machine)
    attributes = ctypes.create_string_buffer(64)
    if calls is not None:
        calls = (libc.syscall(calls[0], 1, 0), libc.syscall(calls[1], 0, attributes, 56, 0), attributes.raw)
    return calls, os.getpriority(os.PRIO_PROCESS, 0), os.sched_getscheduler(0), os.sched_getparam(0)


def state(folder, libc):
    """What a case's process could leave for the next one's (see the module's docstring)."""
    return (
        [_listing(path) for path in (folder, *_TEMPORARY)],
        _read(f"/proc/self/task/{os.getpid()}/children"),  # its own, and orphans of its processes
        _ipc_objects(libc),
        _read("/proc/self/limits"),
        _scheduling(libc),
        os.sched_getaffinity(0),
        _read("/proc/self/oom_score_adj"),
    )


def _run_case(control, quiet_fd, script, folder, rules, seed, cpu, unbuffered):
    """In a case's own process: run the program on fds 0-3 and end with its exit status. Never returns.

    The file is read and compiled here, in the case's time, as alone: compiled once for all the
    cases, a file that takes long to compile (a large table in it) would gain that time in each.
    """
    status = 1
    try:
        for fd in (control.detach(), quiet_fd, run_mounts.DEVICES):
            if fd is not None:  # the program never holds the loop's socket, nor its devices' file
                os.close(fd)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
        seeded_randomness.seed_everything(seed)  # here: ``random`` seeds itself afresh in a fork
        sys.stdin, sys.stdout, sys.stderr = _streams(unbuffered)
        status = child_program.run(script, folder, rules)
    finally:
        os._exit(status & 0xFF)


def _quiet(quiet_fd):
    """Put ``quiet_fd`` (/dev/null) on fds 0-3: the case's pipes are its process's alone, so the
    grader sees their end when that process (and what it started) ends."""
    for target in (0, 1, 2, child_program.REPORT_FD):
        os.dup2(quiet_fd, target, inheritable=target != child_program.REPORT_FD)


def serve(control_fd, script, folder, rules, seed, cpu, unbuffered=False):
    """Run case after case (the first on the descriptors in place now, with ``seed``, ``cpu``
    processor seconds and ``unbuffered`` output), each in a fork; never returns."""
    status = 1
    try:
        control = socket.socket(fileno=control_fd)
        quiet_fd = os.open(os.devnull, os.O_RDWR)
        libc = ctypes.CDLL(None, use_errno=True)
        # orphans of a case's processes come back here, to be seen; and no case may read or write
        # this process's memory (/proc/PID/mem), though it runs as the same user
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
        # POSIX message queues live in the IPC namespace the cases share, and cannot be listed
        # without mounting their file system: the cases may make none
        resource.setrlimit(resource.RLIMIT_MSGQUEUE, (0, 0))
        sys.dont_write_bytecode = True  # an import must not leave a file for the next case to see
        before = state(folder, libc)
        while True:
            if run_mounts.DEVICES is not None:  # the case's own bytes in /dev/urandom, as alone
                os.pwrite(run_mounts.DEVICES, seeded_randomness.device_bytes(seed), 0)
            pid = os.fork()
            if pid == 0:
                _run_case(control, quiet_fd, script, folder, rules, seed, cpu, unbuffered)
            _quiet(quiet_fd)
            _, ended = os.waitpid(pid, 0)
            if not os.WIFEXITED(ended):
                break  # stopped by a signal: no answer, the grader runs the case alone
            status = os.WEXITSTATUS(ended)
            clean = status == 0 and state(folder, libc) == before
            control.send(json.dumps({"status": status, "clean": clean}).encode())
            if not clean:
                break
            case = _receive(control)
            if case is None:
                status = 0
                break
            seed, cpu, unbuffered, fds = case
            for target, fd in zip((0, 1, 2, child_program.REPORT_FD), fds):
                os.dup2(fd, target, inheritable=target != child_program.REPORT_FD)
                os.close(fd)
    except BaseException:  # what this loop needs is gone: the shared process ends here
        status = 1
    os._exit(status & 0xFF)
