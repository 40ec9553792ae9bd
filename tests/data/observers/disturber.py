"""A disturber: does what could leave a mark for a later run to read (processes, files, inodes,
sessions, pipes, sockets, the page cache of the files in its view, memory), as a hidden case might."""

import ctypes
import mmap
import os
import socket

libc = ctypes.CDLL(None, use_errno=True)
for _ in range(200):  # processes: the next process id
    child = os.fork()
    if child == 0:
        os._exit(0)
    os.waitpid(child, 0)
for folder in (".", "/tmp", "/var/tmp", "/dev/shm"):  # files and inodes, named or not
    for n in range(300):
        try:
            with open(os.path.join(folder, f"mark-{n}"), "w") as handle:
                handle.write("x" * n)
            if n % 2:
                os.unlink(os.path.join(folder, f"mark-{n}"))
            os.close(os.open(folder, os.O_TMPFILE | os.O_RDWR, 0o600))
        except OSError:
            pass
for _ in range(50):  # sessions, pipes, sockets and their cookies
    try:
        os.setsid()
    except OSError:
        pass
    reading, writing = os.pipe()
    os.close(reading)
    os.close(writing)
    one, other = socket.socketpair()
    try:
        one.getsockopt(socket.SOL_SOCKET, 57)
    except OSError:
        pass
    one.close()
    other.close()
found = []  # the page cache: every file in view read, advised, mapped and paged out
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
            elif entry.is_file(follow_symlinks=False) and entry.stat().st_size >= mmap.PAGESIZE:
                found.append((entry.stat().st_size, entry.path))
        except OSError:
            pass
for index, (size, path) in enumerate(sorted(found, reverse=True)[:400]):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        continue
    try:
        advice = os.POSIX_FADV_DONTNEED if index % 2 else os.POSIX_FADV_WILLNEED
        try:
            os.posix_fadvise(fd, 0, 0, advice)
            libc.readahead(fd, ctypes.c_long(0), ctypes.c_size_t(1 << 20))
        except OSError:
            pass
        mapped = mmap.mmap(fd, min(size, 8 << 20), prot=mmap.PROT_READ)
        for advice in (mmap.MADV_WILLNEED, getattr(mmap, "MADV_PAGEOUT", 21), getattr(mmap, "MADV_COLD", 20)):
            try:
                mapped.madvise(advice)
            except OSError:
                pass
        if index % 3 == 0:
            os.read(fd, 8 << 20)
        mapped.close()
    finally:
        os.close(fd)
memory = bytearray(200 << 20)  # memory: what is free after it
for offset in range(0, len(memory), mmap.PAGESIZE):
    memory[offset] = 1
print("disturbed")
