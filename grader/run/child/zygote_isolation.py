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
# The user id (and group id) a program of a root grader has in its run, whatever id of the pool
# (``uid_pool``) it really runs as: the same on every run.
PROGRAM_UID = 1000


def _check(result, what):
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def isolate(mode, folder, owner=None, random_bytes=b""):
    """Give this run namespaces of its own, and return in the process that becomes the program: the
    path its folder has there (``run_mounts.PROGRAM_FOLDER`` where the view has it, else ``folder``).

    Every run gets its own process, mount, IPC, network, cgroup and host name namespaces
    (``run_mounts``): its ``folder`` on a capped file system of its own holding copies of its files
    (owned by user ``owner``), at a path that is the same for every run; empty capped /tmp,
    /var/tmp and /dev/shm, no other run's folder, a /proc of its own processes, and /dev/urandom
    giving ``random_bytes``: shared memory, files, abstract sockets and process ids cannot carry
    anything into another run, nor outlive it, and what it can see of itself is the same on every
    run.

    The program runs as the second process of its process namespace, below an init of its own (pid
    1), with a /proc that lists the namespace's processes only: it cannot name, signal or trace any
    process outside it (the grader, the fork server, a classmate's run), its process ids are the
    same on every run, and when its init ends every process left in it is killed. The program is
    not the init itself: an init ignores the signals it has no handler for, even SIGKILL sent to
    itself. This process and the init never return: the init reaps, and this one ends as the program
    did (same exit code or signal) as soon as it ends, so whoever waits for this process sees the
    program's own end. The namespaces belong to the init, whose end (the kernel's slow part: it waits
    for readers of the mount table) comes after this process has reported the program's end.

    ``mode`` "root": the server has the privilege, and each run a user id of its own (``owner``),
    which keeps every other process out of its reach; the program has it as ``PROGRAM_UID``, in user
    namespaces of its own (``_as_fixed_user``), so that it sees the same id on every run. With no
    ``owner`` it stays root (the caller drops it). "userns": the grader is not root
    and the program runs as its user, so a user namespace of our own gives the privilege (the user
    id maps to itself, and the privilege is dropped again before the program runs). Raises OSError
    when the namespaces cannot be made.
    """
    if mode == "root":
        _check(_LIBC.unshare(_CLONE_NEWPID), "unshare")
    else:
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
        place = run_mounts.own_folders(folder, owner if mode == "root" else None)
        run_mounts.fresh_proc()
        run_mounts.seeded_devices(random_bytes)
        if mode != "root":
            _drop_capabilities(_LIBC)
        mapped = os.pipe() if mode == "root" and owner is not None else None  # (the program's way to wait)
        asked = os.pipe() if mapped else None
        program = os.fork()
        if program != 0 and mapped:
            _map_user(program, owner, asked, mapped)
    except BaseException as error:  # said on the program's stderr, as any failure to start it
        os.write(2, f"nim-grader: the program could not be started: {error!r}\n".encode())
        os._exit(1)
    if program == 0:
        os.close(status_write)
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)  # the program's process answers it (child_program)
        if mapped:
            _as_fixed_user(asked, mapped)
        return place
    _quiet()
    while True:  # reap every process of the namespace until the program ends; then end it
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(127)
        if pid == program:
            os.write(status_write, struct.pack("i", status))
            os._exit(0)


def _map_user(program, owner, asked, mapped):
    """In the init (root, outside the program's user namespace): once ``program`` has its user
    namespace, map ``PROGRAM_UID`` there to ``owner``, its real id (only a process of the parent
    namespace with the privilege may map another id than its own)."""
    os.close(asked[1])
    os.close(mapped[0])
    if os.read(asked[0], 1) != b"u":
        raise OSError(0, "the program's user namespace was not made")
    for name in ("uid_map", "gid_map"):
        with open(f"/proc/{program}/{name}", "w") as handle:
            handle.write(f"{PROGRAM_UID} {owner} 1")
    os.write(mapped[1], b"m")
    os.close(asked[0])
    os.close(mapped[1])


def _as_fixed_user(asked, mapped):
    """In the program's process (root): become ``PROGRAM_UID`` of a user namespace whose id maps to
    the run's own (``_map_user``), then of a second one mapping that id to itself, so that no file of
    /proc (its own ``uid_map`` shows the parent namespace's ids) names the real one. Undumpable,
    without capabilities, in no group but its own."""
    os.close(asked[0])
    os.close(mapped[1])
    _check(_LIBC.unshare(_CLONE_NEWUSER), "unshare")
    os.write(asked[1], b"u")
    if os.read(mapped[0], 1) != b"m":
        raise OSError(0, "the program's user id was not mapped")
    os.close(asked[1])
    os.close(mapped[0])
    os.setgroups([])
    os.setresgid(PROGRAM_UID, PROGRAM_UID, PROGRAM_UID)
    os.setresuid(PROGRAM_UID, PROGRAM_UID, PROGRAM_UID)
    _check(_LIBC.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0), "prctl")  # (its /proc files its own, to map)
    _check(_LIBC.unshare(_CLONE_NEWUSER), "unshare")
    ids = f"{PROGRAM_UID} {PROGRAM_UID} 1"
    for name, text in (("setgroups", "deny"), ("uid_map", ids), ("gid_map", ids)):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)
    _drop_capabilities(_LIBC)
    undumpable()


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
    "userns" (or None: no way) and whether a run's /proc shows its own processes only ("own").

    ``work_root`` is the folder the run folders are made in (it must stay in view).
    """
    for mode in ("root", "userns") if os.getuid() == 0 else ("userns",):
        pid = os.fork()
        if pid == 0:
            try:
                probe = os.path.join(work_root, ".view")  # an empty folder of the work root's own
                place = isolate(mode, probe if os.path.isdir(probe) else work_root)  # returns in the would-be program
                os.listdir(place)
                # pid 2 of its own namespace, and only its own in /proc
                seen = {name for name in os.listdir("/proc") if name.isdigit()}
                os._exit(0 if os.getpid() == 2 and seen <= {"1", "2"} else 1)
            except BaseException:
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) == 0:
            return mode, "own"
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
