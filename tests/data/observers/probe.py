"""A counter probe: prints, as JSON, everything this run can observe of the machine and of earlier
runs (tests/sandbox/test_what_a_run_observes.py runs it before and after ``disturber.py``)."""

import ctypes
import errno
import hashlib
import json
import mmap
import os
import resource
import sys

libc = ctypes.CDLL(None, use_errno=True)
seen = {}


def read(path):
    try:
        with open(path, "rb") as handle:
            return handle.read(1 << 16)
    except OSError as error:
        return (f"error {errno.errorcode.get(error.errno, error.errno)}").encode()


def digest(data):
    return hashlib.sha256(data).hexdigest()[:16]


seen["ids"] = [os.getpid(), os.getppid(), os.getuid(), os.geteuid(), os.getgid(), os.getegid(), os.getgroups()]
seen["sid, pgrp"] = [os.getsid(0), os.getpgrp()]
seen["cwd"], seen["file"], seen["argv"] = os.getcwd(), __file__, sys.argv
seen["environ"] = dict(os.environ)
seen["uname"] = list(os.uname())
seen["executable"], seen["path"] = sys.executable, sys.path
for name in ("mountinfo", "cgroup", "cmdline", "environ", "uid_map", "gid_map", "limits", "maps"):
    seen["/proc/self/" + name] = read("/proc/self/" + name).decode("utf-8", "replace")


def walk(top, depth=0):
    """Every file under ``top`` that can be read: its content's hash."""
    found = {}
    try:
        entries = sorted(os.scandir(top), key=lambda e: e.name)
    except OSError as error:
        return {top: f"error {errno.errorcode.get(error.errno, error.errno)}"}
    for entry in entries:
        if entry.name in ("self", "thread-self") or depth > 4:
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                found.update(walk(entry.path, depth + 1))
            elif entry.is_symlink():
                found[entry.path] = "-> " + os.readlink(entry.path)
            else:
                data = read(entry.path)  # text as it is (the test leaves out what may differ), else its hash
                text = data.decode("utf-8", "replace")
                found[entry.path] = text if len(data) <= 16384 and "\0" not in text else digest(data)
        except OSError as error:
            found[entry.path] = f"error {errno.errorcode.get(error.errno, error.errno)}"
    return found


seen["files of /proc"] = walk("/proc")
seen["files of /sys"] = walk("/sys")


class SysInfo(ctypes.Structure):
    _fields_ = [
        ("uptime", ctypes.c_long),
        ("loads", ctypes.c_ulong * 3),
        ("totalram", ctypes.c_ulong),
        ("freeram", ctypes.c_ulong),
        ("sharedram", ctypes.c_ulong),
        ("bufferram", ctypes.c_ulong),
        ("totalswap", ctypes.c_ulong),
        ("freeswap", ctypes.c_ulong),
        ("procs", ctypes.c_ushort),
        ("pad", ctypes.c_char * 22),
    ]


info = SysInfo()
result = libc.sysinfo(ctypes.byref(info))
seen["sysinfo"] = [result, ctypes.get_errno()] + (
    [info.uptime, list(info.loads), info.totalram, info.freeram, info.procs] if result == 0 else []
)
for folder in (".", "/tmp", "/var/tmp", "/dev/shm"):
    try:
        stats = os.statvfs(folder)
        seen["statvfs " + folder] = [stats.f_blocks, stats.f_bfree, stats.f_files, stats.f_ffree]
    except OSError as error:
        seen["statvfs " + folder] = str(error)
for folder in (".", "/tmp", "/dev/shm"):
    try:
        with open(os.path.join(folder, "probe-new"), "w") as handle:
            seen["new file's inode in " + folder] = os.fstat(handle.fileno()).st_ino
        os.unlink(os.path.join(folder, "probe-new"))
        fd = os.open(folder, os.O_TMPFILE | os.O_RDWR, 0o600)
        seen["O_TMPFILE's inode in " + folder] = os.fstat(fd).st_ino
        os.close(fd)
    except OSError as error:
        seen["inodes in " + folder] = str(error)
child = os.fork()
if child == 0:
    os._exit(0)
os.waitpid(child, 0)
seen["next pid"] = child


def view_files():
    """The regular files this run can read outside its own folders and the kernel's, largest first."""
    found = []
    stack = ["/"]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.path in ("/proc", "/sys", "/dev", "/tmp", "/var/tmp", os.getcwd()):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False) and os.access(entry.path, os.R_OK):
                    found.append((entry.stat(follow_symlinks=False).st_size, entry.path))
            except OSError:
                pass
    return [path for size, path in sorted(found, reverse=True) if size >= mmap.PAGESIZE]


def residency(path):
    """What this run can tell of ``path``'s pages in the page cache: mincore, reads that must not
    wait, and the major page faults of touching every page."""
    told = {}
    fd = os.open(path, os.O_RDONLY)
    try:
        size = min(os.fstat(fd).st_size, 8 << 20)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
        libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        at = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        vector = ctypes.create_string_buffer((size + mmap.PAGESIZE - 1) // mmap.PAGESIZE)
        code = libc.mincore(at, size, vector)
        told["mincore"] = digest(vector.raw) if code == 0 else "error " + errno.errorcode.get(ctypes.get_errno(), "?")
        libc.munmap(at, size)
        chunks = []
        for offset in range(0, size, 1 << 16):
            try:
                chunks.append(str(os.preadv(fd, [bytearray(1)], offset, os.RWF_NOWAIT)))
            except OSError as error:
                chunks.append(errno.errorcode.get(error.errno, str(error.errno)))
                if error.errno != errno.EAGAIN:
                    break
        told["preadv2 RWF_NOWAIT"] = digest(" ".join(chunks).encode())
        mapped = mmap.mmap(fd, size, prot=mmap.PROT_READ)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
        for offset in range(0, size, mmap.PAGESIZE):
            mapped[offset]
        told["major faults touching every page"] = resource.getrusage(resource.RUSAGE_SELF).ru_majflt - before
        mapped.close()
    finally:
        os.close(fd)
    return told


files = view_files()
seen["files in view"] = len(files)
sample = files[:40]
seen["residency"] = {path: residency(path) for path in sample}
fd = os.open(sample[0], os.O_RDONLY)
for name, call in (
    ("fadvise WILLNEED", lambda: os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_WILLNEED)),
    ("readahead", lambda: libc.readahead(fd, ctypes.c_long(0), ctypes.c_size_t(1 << 20))),
):
    try:
        told = call()
        seen[name] = [told, ctypes.get_errno()] if told else "ok"
    except OSError as error:
        seen[name] = errno.errorcode.get(error.errno, str(error.errno))
print(json.dumps(seen, sort_keys=True, indent=1))
