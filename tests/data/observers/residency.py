"""A residency probe: hides a secret in the page cache, or reads one back. Standard input "mark
BITS" evicts the i-th largest file of the view for a 1 (fadvise DONTNEED, madvise PAGEOUT and COLD)
and reads it whole for a 0, as a hidden case could; "read" prints what this run can tell of each of
those files' pages (mincore, reads that must not wait, major faults when touching every page)."""

import ctypes
import errno
import mmap
import os
import resource
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
LIMIT = 8 << 20  # of each file, the first 8 MiB


def view_files():
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
                    found.append((-entry.stat().st_size, entry.path))
            except OSError:
                pass
    return [path for _, path in sorted(found)[:32]]


def told(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        size = min(os.fstat(fd).st_size, LIMIT)
        pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
        at = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        vector = ctypes.create_string_buffer(pages)
        if libc.mincore(at, size, vector) == 0:
            core = sum(byte & 1 for byte in vector.raw)
        else:
            core = errno.errorcode.get(ctypes.get_errno(), "?")
        libc.munmap(at, size)
        waitless = 0
        for offset in range(0, size, 1 << 16):
            try:
                waitless += os.preadv(fd, [bytearray(1)], offset, os.RWF_NOWAIT)
            except OSError as error:
                if error.errno != errno.EAGAIN:
                    waitless = errno.errorcode.get(error.errno, "?")
                    break
        mapped = mmap.mmap(fd, size, prot=mmap.PROT_READ)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
        for offset in range(0, size, mmap.PAGESIZE):
            mapped[offset]
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_majflt - before
        mapped.close()
        return f"{path} mincore={core} nowait={waitless} faults={faults}"
    finally:
        os.close(fd)


def mark(path, bit):
    fd = os.open(path, os.O_RDONLY)
    try:
        if bit == "0":
            while os.read(fd, 1 << 20):
                pass
            return
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        except OSError:
            pass
        size = min(os.fstat(fd).st_size, LIMIT)
        mapped = mmap.mmap(fd, size, prot=mmap.PROT_READ)
        for advice in (getattr(mmap, "MADV_PAGEOUT", 21), getattr(mmap, "MADV_COLD", 20)):
            try:
                mapped.madvise(advice)
            except OSError:
                pass
        mapped.close()
    finally:
        os.close(fd)


order = sys.stdin.read().split()
files = view_files()
if order[0] == "mark":
    for path, bit in zip(files, order[1]):
        mark(path, bit)
    print("marked")
else:
    print("\n".join(told(path) for path in files))
