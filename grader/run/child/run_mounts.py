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
_MNT_DETACH = 2
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


def what_private_folders_hold(runs):
    """What /tmp, /var/tmp and /dev/shm hold that a run needs again over its own empty ones: for
    each that exists, (path, the paths of the mounts below it but the runs' folder ``runs``, the
    links below it (target, path), only in a view). Found once, in the fork server, before any run:
    the same for every run."""
    in_view = os.path.isdir(PROGRAM_FOLDER)
    found = []
    for private in PRIVATE_FOLDERS:
        if os.path.isdir(private):
            # the interpreter's, in a view that has it there; (only a view's folders are walked)
            found.append((private, _mounts_below(private, runs), _links_below(private) if in_view else []))
    return runs, tuple(found)


def own_folders(folder, owner, held=None):
    """Empty, capped /tmp, /var/tmp and /dev/shm; the run's folder on a capped file system of its own
    with copies of the files of ``folder`` (owned by user ``owner``, or by whoever we are when None),
    at ``PROGRAM_FOLDER`` where the view has it (else at ``folder``); the other runs' folders out of
    view. ``held``: ``what_private_folders_hold``'s for the runs' folder (found now if not given).
    Leaves this process in the run's folder, and returns its path."""
    keep = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)  # the grader's copies, read below
    runs = os.path.dirname(folder.rstrip("/"))
    place = PROGRAM_FOLDER if os.path.isdir(PROGRAM_FOLDER) else folder
    try:
        if held is None or held[0] != runs:
            held = what_private_folders_hold(runs)
        # Gone from the run's mount table where it may (root): its name says nothing to the program.
        gone = place != folder and _LIBC.umount2(runs.encode(), _MNT_DETACH) == 0
        for private, below, links in held[1]:
            kept = _opened(below)  # (in the run's own namespace: a mount is bound from there only)
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
    """The path of each mount strictly below ``folder`` but the runs' folder ``runs`` and what is
    under it: in a view, the parts of an interpreter that lives in /tmp (a virtual environment), to
    be bound again over the run's own /tmp."""
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
        found.append(path)
    return found


def _opened(paths):
    """(path, an O_PATH descriptor) of each of ``paths`` that can be opened."""
    opened = []
    for path in paths:
        try:
            opened.append((path, os.open(path, os.O_PATH | os.O_NOFOLLOW)))
        except OSError:
            pass
    return opened


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


def _kernel():
    try:
        return tuple(int(part) for part in os.uname().release.split("-")[0].split(".")[:2])
    except ValueError:
        return (0, 0)
