"""Isolating one run of a student program, and its limits: used in the fork server's children.

Like ``zygote.py``, this runs in the interpreter that grades submissions, never imported by the
grader: the grader sends it to the fork server as a module (``forkserver``), so it imports nothing
from ``grader``. Linux only where it says so; elsewhere ``mode_here`` finds no isolation.
"""

import ctypes
import os
import signal
import struct

import run_mounts  # sent beside this module (Linux only: imported where isolation is tried)

try:
    import resource
except ImportError:  # not POSIX
    resource = None  # type: ignore[assignment]  # (checked for None before any use)

try:
    _LIBC = ctypes.CDLL(None, use_errno=True)  # the C library: unshare, mount, capset, prctl
except (OSError, TypeError):  # not POSIX: only the limits below are used there
    _LIBC = None  # type: ignore[assignment]  # (never used where there is no C library)
_CLONE_NEWUSER, _CLONE_NEWPID = 0x10000000, 0x20000000
_PR_SET_DUMPABLE = 4


def _check(result, what):
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def isolate(mode, folder, owner=None, random_bytes=b""):
    """Give this run namespaces of its own, and return in the process that becomes the program.

    Every run gets its own mount, IPC and network namespaces (``run_mounts``): its ``folder`` on a
    capped file system of its own holding copies of its files (owned by user ``owner``), empty
    capped /tmp, /var/tmp and /dev/shm, no other run's folder, a /proc of its own processes, and
    /dev/urandom giving ``random_bytes``: shared memory, files and abstract sockets cannot carry
    anything into another run, nor outlive it.

    ``mode`` "root": the server has the privilege, and each run a user id of its own, which keeps
    every other process out of its reach (it cannot signal or trace them): the program is this
    process. "userns": the grader is not root and the program runs as its user, so a user
    namespace of our own gives the privilege (the user id maps to itself, and the privilege is
    dropped again before the program runs), and a process namespace keeps the other processes out
    of reach: the program runs as the second process of that namespace, below an init of its own
    (pid 1), with a /proc that lists the namespace's processes only. This process and the init then
    never return: the init reaps, and this one ends as the program did (same exit code or signal)
    as soon as it ends, so whoever waits for this process sees the program's own end. In a
    namespace of its own a program cannot name, signal or trace any process outside it (the
    grader, the fork server, a classmate's run), and when its init ends every process left in it is
    killed. The program is not the init itself: an init ignores the signals it has no handler for,
    even SIGKILL sent to itself. Its mount and IPC namespaces belong to the init, whose end (the
    kernel's slow part: it waits for readers of the mount table) comes after this process has
    reported the program's end. The two forks cost about a millisecond of CPU each, hence root's
    shorter way. Raises OSError when the namespaces cannot be made.
    """
    if mode == "root":
        run_mounts.new_namespace()
        run_mounts.own_folders(folder, owner)
        hidden = run_mounts.own_processes_only()
        run_mounts.seeded_devices(random_bytes)
        return hidden
    uid, gid = os.getuid(), os.getgid()
    _check(_LIBC.unshare(_CLONE_NEWPID | _CLONE_NEWUSER), "unshare")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)
    # The grader's "where are you" signal is for the program only (set up there).
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    status_read, status_write = os.pipe()
    init = os.fork()
    if init != 0:
        os.close(status_write)
        _relay(init, status_read)
    os.close(status_read)
    try:
        run_mounts.new_namespace()
        run_mounts.own_folders(folder, None)
        run_mounts.fresh_proc()
        run_mounts.seeded_devices(random_bytes)
        _drop_capabilities(_LIBC)
        program = os.fork()
    except BaseException as error:  # said on the program's stderr, as any failure to start it
        os.write(2, f"nim-grader: the program could not be started: {error!r}\n".encode())
        os._exit(1)
    if program == 0:
        os.close(status_write)
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)  # the program's process answers it (child_program)
        return
    _quiet()
    while True:  # reap every process of the namespace until the program ends; then end it
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(127)
        if pid == program:
            os.write(status_write, struct.pack("i", status))
            os._exit(0)


def _relay(init, status_read):
    """End as the program did (its status comes through the pipe) or, failing that, as the init did."""
    _quiet()
    received = b""
    while len(received) < 4:
        chunk = os.read(status_read, 4 - len(received))
        if not chunk:
            break
        received += chunk
    if len(received) == 4:
        status = struct.unpack("i", received)[0]  # the init ends by itself (the server reaps it)
    else:
        status = os.waitpid(init, 0)[1]  # the init ended before the program did: its end is the run's
    if os.WIFEXITED(status):
        os._exit(os.WEXITSTATUS(status))
    number = os.WTERMSIG(status) if os.WIFSIGNALED(status) else signal.SIGKILL
    try:
        if number != signal.SIGKILL:
            signal.signal(number, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
        os.kill(os.getpid(), number)
    finally:
        os._exit(128 + number)  # (not reached: the signal ends this process)


def _quiet():
    """Let go of the program's standard streams (its pipes end when the program's processes end).

    (Not of fd 3 by number: in the fork server's probe it may be the status pipe itself.)
    """
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    if null > 2:
        os.close(null)


def _drop_capabilities(libc):
    """Give up every capability the user namespace granted (a program could unmount its /tmp)."""
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()  # effective, permitted, inheritable (two words each): none
    _check(libc.capset(header, data), "capset")


def mode_here(work_root):
    """How runs can be isolated here, tried in a throw-away child: (mode, proc), the mode "root" or
    "userns" (or None: no way) and whether a run's /proc shows its own processes only ("own") or
    every process ("all").

    ``work_root`` is the folder the run folders are made in (it must stay in view).
    """
    for mode in ("root", "userns") if os.getuid() == 0 else ("userns",):
        pid = os.fork()
        if pid == 0:
            try:
                hidden = isolate(mode, work_root)  # returns in the would-be program
                os.listdir(work_root)
                if mode == "userns":  # pid 2 of its own namespace, and only its own in /proc
                    seen = {name for name in os.listdir("/proc") if name.isdigit()}
                    os._exit(0 if os.getpid() == 2 and seen <= {"1", "2"} else 1)
                os._exit(0 if hidden else 2)
            except BaseException:
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        if code in (0, 2):
            return mode, "own" if code == 0 else "all"
    return None, "all"


def address_space_now():
    """The bytes of address space this process has mapped (the memory limit comes on top)."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def apply_limits(limits):
    """The run's resource limits; the memory limit counts from what the interpreter has mapped."""
    if resource is None:
        return
    for name, value in limits:
        kind = getattr(resource, name, None)
        if kind is None:
            continue
        if name == "RLIMIT_AS":
            value += address_space_now()
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            pass


def end_leftovers(uid):
    """End whatever ``uid`` still runs (root only; this process stays root).

    The id is ours alone now (see uid_pool); a process it still runs is left from a run that ended
    abruptly, and must not meet this one. kill(-1) with real and effective id ``uid`` reaches
    exactly that id's processes (the saved id 0 lets us come back; no capability is effective).
    """
    os.setresuid(uid, uid, 0)
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
    finally:
        os.setresuid(0, 0, 0)


def become(uid):
    """Become ``uid`` for good (no groups) and undumpable."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    undumpable()


def undumpable():
    """Other processes of the same user may not read this one's memory (/proc/PID/mem).

    Only for a run with a user id of its own: a grader that is not root could then no longer read
    where its program waits (/proc/PID/wchan), which interactive runs need.
    """
    _check(_LIBC.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl")
