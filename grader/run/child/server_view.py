"""The fork server's own view of the file system: made where no bubblewrap made it, then read into
memory whole. Used in the fork server (never in a run); imports only the standard library and
``run_mounts``, sent beside it (the grader sends both as modules: ``forkserver``).
"""

import os

from run_mounts import (
    _LIBC,
    _MNT_DETACH,
    _MS_BIND,
    _MS_NODEV,
    _MS_NOEXEC,
    _MS_NOSUID,
    _MS_PRIVATE,
    _MS_RDONLY,
    _MS_REC,
    _MS_REMOUNT,
    FILES,
    PROGRAM_FOLDER,
    _check,
    _mount,
)

_CLONE_NEWNS, _CLONE_NEWNET = 0x00020000, 0x40000000


# Not walked by ``keep_resident``: file systems of the kernel's and of the runs' own.
_NOT_KEPT = ("/proc", "/sys", "/dev", PROGRAM_FOLDER)


def keep_resident(runs):
    """Read every file of this process's view once (but the runs' folder ``runs`` and ``_NOT_KEPT``),
    so that all of it is in the page cache before any run starts: what a run reads then changes
    nothing there for a later run to see, and what it could learn of it (how fast a read is, its
    page faults) is the same on every run. The pages are charged to this process's memory cgroup,
    not a run's, so no run's own limit can push them out. Returns (files, bytes) read."""
    import mmap

    skip = {os.path.realpath(p) for p in (*_NOT_KEPT, runs)}
    # (mapped here, not taken from malloc: freeing a megabyte would raise the C library's threshold
    # for mapping allocations in this process, and so in every program forked from it)
    buffer = mmap.mmap(-1, 1 << 20)
    files = total = 0
    stack = ["/"]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.path in skip:
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                    try:
                        while True:
                            count = os.readv(fd, [buffer])
                            total += count
                            if count < len(buffer):
                                break
                    finally:
                        os.close(fd)
                    files += 1
            except OSError:
                continue
    buffer.close()
    return files, total


_CLONE_NEWUSER = 0x10000000
_DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
# statvfs flags a read-only remount must keep (a user namespace may not drop them): ST_* → MS_*
_KEPT_FLAGS = ((2, _MS_NOSUID), (4, _MS_NODEV), (8, _MS_NOEXEC), (1024, 1024), (2048, 2048), (4096, 1 << 21))


def make_view(view, work_root):
    """The fork server's view: entered where the grader asked for one (``view``, where there is no
    bubblewrap), then every file of it, ours or bubblewrap's, read into memory (``keep_resident``).
    Returns ("made", or why it could not be made, or "" when none was asked; whether it was read)."""
    said = ""
    if view is not None:
        try:
            enter_view(view, os.path.join(work_root, ".view"))
            said = "made"
        except (OSError, ValueError, KeyError, TypeError) as error:
            said = str(error) or type(error).__name__
    resident = said == "made" or (view is None and os.path.isdir(PROGRAM_FOLDER))
    if resident:
        keep_resident(work_root)  # every file of it in memory before any run
    return said, resident


def enter_view(view, mountpoint):
    """Make this process's file system ``view`` (``file_view.View`` as a dict) in namespaces of its
    own, with no network: what bubblewrap would make, for a machine without it. ``mountpoint`` is an
    empty folder of ours in the runs' folder, where the new root is built. OSError when refused.

    The grader's user keeps its id (in a user namespace of its own, mapped to itself, when it is not
    root). Every bound path is read-only but the runs' folder.
    """
    uid, gid = os.getuid(), os.getgid()
    if uid == 0:
        _check(_LIBC.unshare(_CLONE_NEWNS | _CLONE_NEWNET), "unshare")
    else:
        _check(_LIBC.unshare(_CLONE_NEWUSER | _CLONE_NEWNS | _CLONE_NEWNET), "unshare")
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"), ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w") as handle:
                handle.write(text)
    _mount("none", "/", None, _MS_REC | _MS_PRIVATE, None)
    root = mountpoint.rstrip("/")
    _mount("tmpfs", root, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755,size=1m")
    # /tmp and /var/tmp first: an interpreter (a virtual environment) may live there, and a tmpfs
    # mounted after its bind would hide it
    for private in ("/tmp", "/var/tmp"):
        os.makedirs(root + private, exist_ok=True)
        _mount("tmpfs", root + private, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=1777," + FILES)
    for path in view["read_only"]:
        _bind(path, root + path, read_only=True)
    for target, path in view["links"]:
        os.makedirs(os.path.dirname(root + path), exist_ok=True)
        os.symlink(target, root + path)
    _devices(root)
    os.makedirs(root + PROGRAM_FOLDER, mode=0o755, exist_ok=True)
    os.makedirs(root + "/proc", exist_ok=True)
    if uid == 0:
        _mount("proc", root + "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None)
    else:  # a new /proc needs a process namespace of our own: each run has one (``fresh_proc``)
        _mount("/proc", root + "/proc", None, _MS_BIND | _MS_REC, None)
    _bind(view["work_root"], root + view["work_root"], read_only=False, recursive=False)
    for path in view["hidden"]:
        if os.path.isdir(root + path):
            _mount("tmpfs", root + path, "tmpfs", _MS_NOSUID | _MS_NODEV | _MS_RDONLY, "size=4k,nr_inodes=4")
    os.chdir(root)
    _check(_LIBC.syscall(_pivot_root_number(), b".", b"."), "pivot_root")
    _check(_LIBC.umount2(b".", _MNT_DETACH), "umount the old root")
    os.chdir("/")


def _bind(source, target, read_only, recursive=True):
    """Bind ``source`` at ``target`` (made as an empty folder or file first), read-only if asked,
    with the mounts below it if ``recursive``."""
    os.makedirs(os.path.dirname(target), exist_ok=True)
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))
    _mount(source, target, None, _MS_BIND | (_MS_REC if recursive else 0), None)
    if read_only:
        kept = os.statvfs(source).f_flag
        flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID
        flags |= sum(ms for st, ms in _KEPT_FLAGS if kept & st)
        _mount("none", target, None, flags, None)


def _devices(root):
    """A /dev with the few devices a program may use, and its usual links."""
    os.makedirs(root + "/dev", exist_ok=True)
    _mount("tmpfs", root + "/dev", "tmpfs", _MS_NOSUID, "mode=0755,size=64k")
    for name in _DEVICES:
        if os.path.exists("/dev/" + name):
            _bind("/dev/" + name, f"{root}/dev/{name}", read_only=False)
    os.mkdir(root + "/dev/shm", 0o1777)
    os.chmod(root + "/dev/shm", 0o1777)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):  # fmt: skip
        os.symlink(target, f"{root}/dev/{name}")


def _pivot_root_number():
    import syscall_filter  # sent beside this module: its tables hold the numbers

    table = syscall_filter._TABLES.get(os.uname().machine)
    if table is None:
        raise OSError(0, f"no system call table for {os.uname().machine}")
    return table[2]["pivot_root"]
