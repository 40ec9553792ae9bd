"""Isolating one run of a student program, and its limits: used in the fork server's children.

Like ``zygote.py``, this runs in the interpreter that grades submissions, never imported by the
grader: the grader sends it to the fork server as a module (``forkserver``), so it imports nothing
from ``grader``. Linux only where it says so; elsewhere ``mode_here`` finds no isolation.
"""

import ctypes
import faulthandler
import os
import signal
import struct

try:
    import resource
except ImportError:  # not POSIX
    resource = None

_LIBC = ctypes.CDLL(None, use_errno=True)  # the C library: unshare, mount, capset, prctl
_CLONE_NEWNS, _CLONE_NEWIPC, _CLONE_NEWUSER, _CLONE_NEWPID = 0x00020000, 0x08000000, 0x10000000, 0x20000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_BIND, _MS_REC, _MS_PRIVATE = 4096, 1 << 14, 1 << 18
_PR_SET_DUMPABLE = 4
# Each run's own temporary folders: small, and gone with the run.
_PRIVATE_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")
_TMPFS_OPTIONS = b"mode=1777,size=32m,nr_inodes=4096"


def _check(result, what):
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def isolate(mode, folder):
    """Give this run namespaces of its own, and return in the process that becomes the program.

    Every run gets its own mount and IPC namespaces: empty private /tmp, /var/tmp and /dev/shm, and
    the run's ``folder`` where it was (bound back into the new /tmp if it was under it, the only run
    folder left in view), so shared memory and files in /tmp cannot carry anything into a later run.

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
        _private_folders(folder)
        return
    uid, gid = os.getuid(), os.getgid()
    _check(_LIBC.unshare(_CLONE_NEWPID | _CLONE_NEWUSER), "unshare")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as handle:
            handle.write(text)
    # The grader's "where are you" signal is for the program only (restored there).
    faulthandler.unregister(signal.SIGUSR1)
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    status_read, status_write = os.pipe()
    init = os.fork()
    if init != 0:
        os.close(status_write)
        _relay(init, status_read)
    os.close(status_read)
    try:
        _private_folders(folder)
        _fresh_proc()
        _drop_capabilities(_LIBC)
        program = os.fork()
    except BaseException as error:  # said on the program's stderr, as any failure to start it
        os.write(2, f"nim-grader: the program could not be started: {error!r}\n".encode())
        os._exit(1)
    if program == 0:
        os.close(status_write)
        faulthandler.register(signal.SIGUSR1, all_threads=True)
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


def _private_folders(folder):
    """New mount and IPC namespaces with empty /tmp, /var/tmp and /dev/shm, ``folder`` kept in view."""
    libc = _LIBC
    _check(libc.unshare(_CLONE_NEWNS | _CLONE_NEWIPC), "unshare")
    _check(libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate /")
    # opened in the new namespace (a bind from a mount of the old one is refused), before /tmp is covered
    keep = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    for private in _PRIVATE_FOLDERS:
        if os.path.isdir(private):
            target = private.encode()
            _check(libc.mount(b"tmpfs", target, b"tmpfs", _MS_NOSUID | _MS_NODEV, _TMPFS_OPTIONS), "mount " + private)
            if folder.startswith(private + "/"):
                os.makedirs(folder, mode=0o711)
                source = f"/proc/self/fd/{keep}".encode()
                _check(libc.mount(source, folder.encode(), None, _MS_BIND | _MS_REC, None), "mount --bind " + folder)
    os.close(keep)


def _fresh_proc():
    """/proc for the new namespace: its own processes only. Where that mount is refused (a
    sandbox's /proc partly covered), an empty one: a host's /proc would name the grader's processes
    and, for a program of the grader's own user, open their memory and files."""
    libc = _LIBC
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    if libc.mount(b"proc", b"/proc", b"proc", flags, None) != 0:
        _check(libc.mount(b"tmpfs", b"/proc", b"tmpfs", flags | _MS_RDONLY, b"size=4k,nr_inodes=16"), "mount /proc")


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
    """Let go of the program's standard streams (its pipes end when the program's processes end)."""
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
    """How runs can be isolated here ("root", "userns"), tried in a throw-away child; or None.

    ``work_root`` is the folder the run folders are made in (it must stay in view).
    """
    for mode in ("root", "userns") if os.getuid() == 0 else ("userns",):
        pid = os.fork()
        if pid == 0:
            try:
                isolate(mode, work_root)  # returns in the would-be program
                os.listdir(work_root)
                if mode == "userns":  # pid 2 of its own namespace, and only its own in /proc
                    seen = {name for name in os.listdir("/proc") if name.isdigit()}
                    os._exit(0 if os.getpid() == 2 and seen <= {"1", "2"} else 1)
                os._exit(0)
            except BaseException:
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) == 0:
            return mode
    return None


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
