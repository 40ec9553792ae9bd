"""Isolating one run of a student program, and its limits: used in the fork server's children.

Like ``zygote.py``, this runs in the interpreter that grades submissions, never imported by the
grader: the grader sends it to the fork server as a module (``forkserver``), so it imports nothing
from ``grader``. Linux only where it says so; elsewhere ``mode_here`` finds no isolation.
"""

import ctypes
import os
import signal
import socket
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
_PR_SET_PDEATHSIG = 1
# The user id (and group id) a program of a root grader has in its run, whatever id of the pool
# (``uid_pool``) it really runs as: the same on every run.
PROGRAM_UID = 1000


def _check(result, what):
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def fork_run(mode, back):
    """Fork the process of one run, as ``os.fork`` does (0 in the child, its pid here). With ``mode``
    ("root" or "userns", see ``mode_here``) the child is pid 1 of a process namespace of its own: the
    run's init (``isolate``). ``back``: this process's own process namespace (a descriptor), where
    the children it forks later belong (the kernel makes one new namespace per unshare, and only
    from a process that is back in its own). With no mode, a plain fork."""
    if not mode:
        return os.fork()
    _check(_LIBC.unshare(_CLONE_NEWPID), "unshare")
    try:
        pid = os.fork()
    except BaseException:
        _check(_LIBC.setns(back, _CLONE_NEWPID), "setns")
        raise
    if pid != 0:
        _check(_LIBC.setns(back, _CLONE_NEWPID), "setns")
    return pid


def isolate(mode, folder, owner=None, random_bytes=b"", status=None, held=None):
    """In a run's init (``fork_run``): give the run the rest of its namespaces, fork the program, and
    return in the program's process the path its folder has there (``run_mounts.PROGRAM_FOLDER``
    where the view has it, else ``folder``). In the init this never returns: it reaps every process
    of the namespace until the program ends, sends the program's raw wait status through the socket
    ``status`` (to the fork server: the run's end, before the namespaces' slow teardown) and ends.
    ``held``: what the private folders hold (``run_mounts.what_private_folders_hold``; found now if None).

    Every run gets its own process, mount, IPC, network, cgroup and host name namespaces
    (``run_mounts``): its ``folder`` on a capped file system of its own holding copies of its files
    (owned by user ``owner``), at a path that is the same for every run; empty capped /tmp,
    /var/tmp and /dev/shm, no other run's folder, a /proc of its own processes, and /dev/urandom
    giving ``random_bytes``: shared memory, files, abstract sockets and process ids cannot carry
    anything into another run, nor outlive it, and what it can see of itself is the same on every
    run.

    The program runs as the second process of its process namespace, below the init (pid 1), with a
    /proc that lists the namespace's processes only: it cannot name, signal or trace any process
    outside it (the grader, the fork server, a classmate's run), its process ids are the same on
    every run, and when the init ends every process left in it is killed. The program is not the
    init itself: an init ignores the signals it has no handler for, even SIGKILL sent to itself.

    ``mode`` "root": the server has the privilege, and each run a user id of its own (``owner``),
    which keeps every other process out of its reach; the program has it as ``PROGRAM_UID``, in user
    namespaces of its own (``_as_fixed_user``), so that it sees the same id on every run. With no
    ``owner`` it stays root (the caller drops it). "userns": the grader is not root; the server has
    the privilege in a user namespace of its own (``mode_here``), and the program, which runs as the
    grader's user, gives it up before it runs. Raises OSError when the namespaces cannot be made.
    """
    # The grader's "where are you" signal is for the program only (set up there).
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    try:
        run_mounts.new_namespace()
        place = run_mounts.own_folders(folder, owner if mode == "root" else None, held)
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
        if status is not None:
            status.close()
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)  # the program's process answers it (child_program)
        if mapped:
            _as_fixed_user(asked, mapped)
        return place
    _quiet()
    while True:  # reap every process of the namespace until the program ends; then end it
        try:
            pid, ended = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(127)
        if pid == program:
            if status is not None:
                try:
                    status.send(struct.pack("i", ended))
                except OSError:
                    pass  # the server has gone: nobody waits for it
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
    """How runs can be isolated here: (mode, proc, back). ``mode`` "root" or "userns" (or None: no
    way), ``proc`` whether a run's /proc shows its own processes only ("own"), ``back`` the
    descriptor of this process's own process namespace (for ``fork_run``). Tried with a throw-away
    run whose folder is an empty one of the work root's (``work_root``: it must stay in view).

    For "userns" this process first becomes the first process of process and user namespaces of its
    own (``_own_spaces``): the process that started it stays behind, waiting, and ends as it does.
    """
    if os.getuid() == 0:
        back = os.open("/proc/self/ns/pid", os.O_RDONLY)
        if _run_works("root", work_root, back):
            return "root", "own", back
        os.close(back)
    try:
        _own_spaces()
    except OSError:
        return None, "all", None
    back = os.open("/proc/self/ns/pid", os.O_RDONLY)
    if _run_works("userns", work_root, back):
        return "userns", "own", back
    os.close(back)
    return None, "all", None


def _run_works(mode, work_root, back):
    """Does a throw-away run in ``mode`` start its program as pid 2, seeing its own processes only?"""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        pid = fork_run(mode, back)
    except OSError:
        ours.close()
        theirs.close()
        return False
    if pid == 0:
        try:
            ours.close()
            probe = os.path.join(work_root, ".view")  # an empty folder of the work root's own
            place = isolate(mode, probe if os.path.isdir(probe) else work_root, status=theirs)
            os.listdir(place)  # (returns in the would-be program)
            seen = {name for name in os.listdir("/proc") if name.isdigit()}
            os._exit(0 if os.getpid() == 2 and seen <= {"1", "2"} else 1)
        except BaseException:
            os._exit(1)
    theirs.close()
    try:
        said = ours.recv(16)
    except OSError:
        said = b""
    ours.close()
    os.waitpid(pid, 0)
    return len(said) == 4 and os.waitstatus_to_exitcode(struct.unpack("i", said)[0]) == 0


def _own_spaces():
    """Make this process the first of a process namespace of its own, in a user namespace of its own
    (mapping its ids to themselves) where it has not the privilege: only from there may a process
    that is not root make a process namespace for each run and come back to its own after. The
    process that was this one stays behind, holding nothing, and ends as the new one does."""
    if _LIBC.unshare(_CLONE_NEWPID) != 0:
        uid, gid = os.getuid(), os.getgid()
        _check(_LIBC.unshare(_CLONE_NEWPID | _CLONE_NEWUSER), "unshare")
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as handle:
                handle.write(text)
    pid = os.fork()
    if pid != 0:
        _stand_by(pid)
    _check(_LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl")  # (killed with the one left behind)


def _stand_by(pid):
    """In the process left behind: close everything (the grader sees the server's socket close when
    the server ends), wait for ``pid``, and end as it did. Never returns."""
    for name in os.listdir("/proc/self/fd"):
        if int(name) > 2:
            try:
                os.close(int(name))
            except OSError:
                pass
    while True:
        try:
            status = os.waitpid(pid, 0)[1]
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            os._exit(1)
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


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
