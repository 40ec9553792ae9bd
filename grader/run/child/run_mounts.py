"""Each run's own mounts, made in its own mount namespace: used in the process that becomes the program.

Like ``zygote_isolation``, this runs in the program's process, never imported by the grader: it
imports only the standard library. Linux only, and only with the privilege to mount (root, or in
a user namespace of the run's own); ``zygote_isolation.isolate`` calls it.

What a run sees, and why:
- its folder on a file system of its own, size-capped (``FILES``: bytes and files), holding copies
  of the program's files: what it writes is bounded, and goes with the mount namespace when the
  run ends (the grader never has to remove it, however deep or odd the tree); at one path for every
  run (``PROGRAM_FOLDER``, where the view has it), so that its working folder, ``__file__``, its
  tracebacks and its mount table are the same on every run;
- empty /tmp, /var/tmp and /dev/shm, capped the same way, and no other run's folder: the runs'
  folder is unmounted where the run may (as root), else covered;
- a /proc of its own process namespace that lists its own processes only, and none of the
  machine's other files there (``subset=pid``: no uptime, load, memory or boot id to vary on);
- a cgroup namespace rooted at its own cgroup, and a host name of its own (``HOST_NAME``);
- /dev/urandom and /dev/random that give bytes from the run's seed, so that a program reading
  them directly gets the same marks every time;
- a network namespace of its own: local sockets with an abstract name (no file) belong to one,
  and two runs at once (a hidden and a visible case, two students) must not meet on one.
"""

import ctypes
import os

try:
    _LIBC = ctypes.CDLL(None, use_errno=True)
except (OSError, TypeError):  # not POSIX: nothing here is used there
    _LIBC = None  # type: ignore[assignment]  # (never used where there is no C library)
_CLONE_NEWNS, _CLONE_NEWIPC, _CLONE_NEWNET = 0x00020000, 0x08000000, 0x40000000
_CLONE_NEWCGROUP, _CLONE_NEWUTS = 0x02000000, 0x04000000
# Where every run's folder is, in a view that has it (``file_view.PROGRAM_FOLDER``, made there).
PROGRAM_FOLDER = "/run/program"
HOST_NAME = b"nim-grader"
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 1 << 14, 1 << 18
PRIVATE_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")
# Each of the run's four file systems (its folder, /tmp, /var/tmp, /dev/shm) holds at most this.
FILES = "size=32m,nr_inodes=4096"
_SEED_FILE = "/dev/shm/.nim-grader-random"
_RANDOM_DEVICES = ("/dev/urandom", "/dev/random")


def _check(result, what):
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def _mount(source, target, kind, flags, options):
    encoded = options.encode() if options else None
    result = _LIBC.mount(source.encode(), target.encode(), kind.encode() if kind else None, flags, encoded)
    _check(result, "mount " + target)


def new_namespace():
    """New mount, IPC, network, cgroup and host name namespaces, whose mounts (and abstract sockets)
    are this run's alone; its cgroup (joined before) is the root of what it sees of cgroups, and its
    host name is ``HOST_NAME``, whatever the machine's."""
    flags = _CLONE_NEWNS | _CLONE_NEWIPC | _CLONE_NEWNET | _CLONE_NEWCGROUP | _CLONE_NEWUTS
    _check(_LIBC.unshare(flags), "unshare")
    _mount("none", "/", None, _MS_REC | _MS_PRIVATE, None)
    _check(_LIBC.sethostname(HOST_NAME, len(HOST_NAME)), "sethostname")


def own_folders(folder, owner):
    """Empty, capped /tmp, /var/tmp and /dev/shm; the run's folder on a capped file system of its own
    with copies of the files of ``folder`` (owned by user ``owner``, or by whoever we are when None),
    at ``PROGRAM_FOLDER`` where the view has it (else at ``folder``); the other runs' folders out of
    view. Leaves this process in the run's folder, and returns its path."""
    keep = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)  # the grader's copies, read below
    runs = os.path.dirname(folder.rstrip("/"))
    place = PROGRAM_FOLDER if os.path.isdir(PROGRAM_FOLDER) else folder
    try:
        # Gone from the run's mount table where it may (root): its name says nothing to the program.
        gone = place != folder and _LIBC.umount2(runs.encode(), _MNT_DETACH) == 0
        for private in PRIVATE_FOLDERS:
            if os.path.isdir(private):
                kept = _mounts_below(private, runs)  # the interpreter's, in a view that has it there
                links = _links_below(private) if place != folder else []  # (only a view's folders are walked)
                _mount("tmpfs", private, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=1777," + FILES)
                _put_back(kept)
                _links_again(links)
        if not gone and not any(runs.startswith(private + "/") for private in PRIVATE_FOLDERS):
            _mount("tmpfs", runs, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0711,size=64k,nr_inodes=64")
        os.makedirs(place, mode=0o711, exist_ok=True)
        _mount("tmpfs", place, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0700," + FILES)
        if owner is not None:  # (not as a mount option: the mount table would show the run's user id)
            os.chown(place, owner, owner)
        _copy_files(keep, place, owner)
    finally:
        os.close(keep)
    os.chdir(place)
    return place


def _unescaped(field):
    """A path of the mount table, its octal escapes (``\\040`` is a space) undone. By hand: a codec
    looked up here (``unicode_escape``) would be imported from a file system that is being changed,
    which Python 3.13 fails with a SystemError."""
    parts = field.split("\\")
    text = parts[0]
    for part in parts[1:]:
        digits = part[:3]
        if len(digits) == 3 and all(c in "01234567" for c in digits):
            text += chr(int(digits, 8)) + part[3:]
        else:
            text += "\\" + part
    return text


def _mounts_below(folder, runs):
    """(path, descriptor) of each mount strictly below ``folder`` but the runs' folder ``runs`` and
    what is under it: in a view, the parts of an interpreter that lives in /tmp (a virtual
    environment), to be bound again over the run's own /tmp."""
    try:
        with open("/proc/self/mountinfo", "rb") as handle:
            lines = handle.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        fields = line.split(" ")
        if len(fields) < 5:
            continue
        path = _unescaped(fields[4])
        inside = path.startswith(folder.rstrip("/") + "/")
        if not inside or path == runs or path.startswith(runs + "/") or runs.startswith(path + "/"):
            continue
        try:
            found.append((path, os.open(path, os.O_PATH | os.O_NOFOLLOW)))
        except OSError:
            pass
    return found


def _links_below(folder, most=512):
    """(target, path) of each link below ``folder`` in a view: the links that lead to an
    interpreter kept there (a virtual environment's ``bin/python``), made again over the run's own
    folder. At most ``most`` entries are looked at (a view's folder holds only what it was given)."""
    found, seen = [], 0
    for root, folders, files in os.walk(folder):
        for name in folders + files:
            seen += 1
            path = os.path.join(root, name)
            if os.path.islink(path):
                found.append((os.readlink(path), path))
        if seen > most:
            break
    return found


def _links_again(links):
    """Make each (target, path) link again (its folders first)."""
    for target, path in links:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.symlink(target, path)
        except OSError:
            pass


def _put_back(kept):
    """Bind each kept mount again at its path (made in the new file system first)."""
    for path, fd in kept:
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if os.path.isdir(f"/proc/self/fd/{fd}"):
                os.makedirs(path, exist_ok=True)
            else:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))
            _mount(f"/proc/self/fd/{fd}", path, None, _MS_BIND | _MS_REC, None)
        finally:
            os.close(fd)


def _copy_files(source_fd, folder, owner):
    """Copy the regular files of the folder open as ``source_fd`` into ``folder`` (never through a link)."""
    for entry in os.scandir(source_fd):
        if not entry.is_file(follow_symlinks=False):
            continue
        read = os.open(entry.name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=source_fd)
        try:
            target = os.path.join(folder, entry.name)
            write = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            try:
                while True:
                    chunk = os.read(read, 1 << 20)
                    if not chunk:
                        break
                    while chunk:
                        chunk = chunk[os.write(write, chunk) :]
                if owner is not None:
                    os.fchown(write, owner, owner)
            finally:
                os.close(write)
        finally:
            os.close(read)


def fresh_proc():
    """/proc for the run's process namespace: its own processes only, and none of the machine's files
    where the kernel allows (5.8+: ``subset=pid``; before that the machine's files are there).
    Where that mount is refused (a sandbox's /proc partly covered), an empty one: a host's /proc
    would name the grader's processes and, for a program of the grader's own user, open their
    memory and files."""
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    if _kernel() >= (5, 8) and _LIBC.mount(b"proc", b"/proc", b"proc", flags, b"subset=pid") == 0:
        return
    if _LIBC.mount(b"proc", b"/proc", b"proc", flags, None) != 0:
        _mount("tmpfs", "/proc", "tmpfs", flags | _MS_RDONLY, "size=4k,nr_inodes=16")


def seeded_devices(data):
    """/dev/urandom and /dev/random read ``data`` (the run's seeded bytes), then end. In /dev/shm,
    which must be the run's own by now; the file is gone once bound."""
    with open(_SEED_FILE, "wb") as handle:
        handle.write(data)
    try:
        for device in _RANDOM_DEVICES:
            if os.path.exists(device):
                _mount(_SEED_FILE, device, None, _MS_BIND, None)
                _mount("none", device, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID, None)
    finally:
        os.unlink(_SEED_FILE)


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


def _kernel():
    try:
        return tuple(int(part) for part in os.uname().release.split("-")[0].split(".")[:2])
    except ValueError:
        return (0, 0)


_CLONE_NEWUSER = 0x10000000
_MNT_DETACH = 2
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
