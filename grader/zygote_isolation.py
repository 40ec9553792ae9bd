"""Isolating one run of a student program, and its limits: used in the fork server's children.

Like ``zygote.py``, this runs in the interpreter that grades submissions, never imported by the
grader: the grader sends it to the fork server as a module (``forkserver``), so it imports nothing
from ``grader``. Linux only where it says so; elsewhere ``mode_here`` finds no isolation.
"""

import ctypes
import os
import signal

try:
    import resource
except ImportError:  # not POSIX
    resource = None

_LIBC = ctypes.CDLL(None, use_errno=True)  # the C library: unshare, mount, capset, prctl
_CLONE_NEWNS, _CLONE_NEWIPC, _CLONE_NEWUSER = 0x00020000, 0x08000000, 0x10000000
_MS_NOSUID, _MS_NODEV, _MS_BIND, _MS_REC, _MS_PRIVATE = 2, 4, 4096, 1 << 14, 1 << 18
_PR_SET_DUMPABLE = 4
# Each run's own temporary folders: small, and gone with the run.
_PRIVATE_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")
_TMPFS_OPTIONS = b"mode=1777,size=32m,nr_inodes=4096"


def _check(result, what):
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def isolate(mode, folder):
    """Give this process its own IPC namespace and empty private /tmp, /var/tmp and /dev/shm.

    ``mode`` "root": the server has the privilege; "userns": a user namespace of our own gives it
    (the user id maps to itself, and the privilege is dropped again before the program runs).
    The run's ``folder`` stays where it was (bound back into the new /tmp if it was under it), and
    it is the only run folder left in view. Raises OSError when it cannot be done.
    """
    libc = _LIBC
    uid, gid = os.getuid(), os.getgid()
    flags = _CLONE_NEWNS | _CLONE_NEWIPC | (_CLONE_NEWUSER if mode == "userns" else 0)
    _check(libc.unshare(flags), "unshare")
    if mode == "userns":
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as handle:
                handle.write(text)
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
    if mode == "userns":
        _drop_capabilities(libc)


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
                isolate(mode, work_root)
                os.listdir(work_root)
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


def become(uid):
    """Become ``uid`` for good (no groups), undumpable, and end whatever that id left running."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    undumpable()
    # The id is ours alone now (see uid_pool); a process it still runs is left from a run that
    # ended abruptly, and must not meet this one. kill(-1) reaches exactly this id's processes.
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass


def undumpable():
    """Other processes of the same user may not read this one's memory (/proc/PID/mem).

    Only for a run with a user id of its own: a grader that is not root could then no longer read
    where its program waits (/proc/PID/wchan), which interactive runs need.
    """
    _check(_LIBC.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl")
