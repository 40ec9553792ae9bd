"""A system call filter (seccomp) for the process that becomes a student's program.

Like ``zygote_isolation``, this runs in the program's own process, never imported by the grader: it
imports only the standard library. Installed last, just before the student's code runs, it is
inherited by every process the program starts and cannot be lifted.

Refused (EPERM): sockets of any kind but local ones (AF_UNIX): a run has no network, and the
state a TCP connection leaves (TIME_WAIT, a port taken) would outlive the run for a later one to
read; new namespaces of any kind (``unshare``, ``setns``, ``clone`` with a namespace
flag: a program with a user namespace of its own could mount file systems the run's limits do not
count), mounts and the mount API, ``ptrace`` and reading other processes' memory, kernel keyrings
(shared by every run of one user), BPF, performance counters, userfaultfd and io_uring (which does
its work outside system calls). ``getrandom`` and ``clone3`` answer ENOSYS, as on an old kernel:
randomness then comes from /dev/urandom, which the run's own view seeds; the C library falls back
to ``clone``, whose flags the filter can read. Calls of another architecture's table end the process.

What a run could learn of earlier runs, or of the machine, through the kernel's shared state is
refused as a class (no run can observe an earlier run, docs/security.md):
- the page cache, which every run shares: whether a page of a file is in memory (``mincore``,
  ``cachestat``, a read or write that must not wait: ``preadv2``/``pwritev2`` with RWF_NOWAIT, and
  Linux's own asynchronous I/O, whose requests take the same flag), and changing it on purpose
  (``readahead``, ``fadvise64`` of any advice, ``madvise`` but the advice memory allocators use:
  NORMAL, DONTNEED, FREE, REMOVE and the fork, dump, huge page and guard markers, which concern a
  process's own memory, never which pages of a file stay cached). What a program reads it may
  still bring in: the fork server keeps every file of the view in memory (``preload``);
- the machine's state: ``sysinfo`` (uptime, load, free memory, the number of processes: ENOSYS,
  as the C library then reports nothing), the kernel's log (``syslog``);
- numbers the kernel draws from counters of the whole machine, where a program could move the
  counter for a later run to read: process file descriptors (``pidfd_open``, ``clone`` with
  CLONE_PIDFD), whose inode numbers count every process the machine has started (and
  ``process_madvise`` through them); a new session (``setsid``: each gets the next scheduling
  group, which /proc/self/autogroup names); a socket's cookie (``getsockopt`` SO_COOKIE).
"""

import ctypes
import errno
import os
import platform
import struct

_PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 38, 22, 2
_RET_ALLOW, _RET_ERRNO, _RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
_LD_ABS_W, _JEQ, _JSET, _JGE, _RET = 0x20, 0x15, 0x45, 0x35, 0x06
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (the low word of args[0], little-endian)
_ARG2, _ARG5 = 16 + 2 * 8, 16 + 5 * 8  # the low words of args[2] and args[5]
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET (clone's low byte is its signal)
_AF_UNIX = 1
_CLONE_NEW_ANY = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000

# By machine: the audit architecture, the x32 bit to refuse (or 0), and the numbers of the calls.
_TABLES = {
    "x86_64": (
        0xC000003E,
        0x40000000,
        {
            "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
            "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
            "fspick": 433, "mount_setattr": 442, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
            "keyctl": 250, "add_key": 248, "request_key": 249, "ptrace": 101, "process_vm_readv": 310,
            "process_vm_writev": 311, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
            "getrandom": 318, "clone": 56, "clone3": 435, "socket": 41,
            "mincore": 27, "cachestat": 451, "readahead": 187, "fadvise64": 221, "madvise": 28,
            "preadv2": 327, "pwritev2": 328, "io_setup": 206, "io_submit": 209, "sysinfo": 99,
            "syslog": 103, "pidfd_open": 434, "pidfd_getfd": 438, "process_madvise": 440, "setsid": 112,
            "getsockopt": 55,
        },
    ),
    "aarch64": (
        0xC00000B7,
        0,
        {
            "unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51,
            "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
            "fspick": 433, "mount_setattr": 442, "bpf": 280, "perf_event_open": 241, "userfaultfd": 282,
            "keyctl": 219, "add_key": 217, "request_key": 218, "ptrace": 117, "process_vm_readv": 270,
            "process_vm_writev": 271, "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
            "getrandom": 278, "clone": 220, "clone3": 435, "socket": 198,
            "mincore": 232, "cachestat": 451, "readahead": 213, "fadvise64": 223, "madvise": 233,
            "preadv2": 286, "pwritev2": 287, "io_setup": 0, "io_submit": 2, "sysinfo": 179,
            "syslog": 116, "pidfd_open": 434, "pidfd_getfd": 438, "process_madvise": 440, "setsid": 157,
            "getsockopt": 209,
        },
    ),
}  # fmt: skip
_NOT_THERE = ("getrandom", "clone3", "cachestat", "sysinfo", "io_setup")  # ENOSYS: as on an old kernel
# madvise's advice that concerns only the process's own memory (what allocators and the C library
# use): NORMAL, DONTNEED, FREE, REMOVE, DONTFORK, DOFORK, HUGEPAGE, NOHUGEPAGE, DONTDUMP, DODUMP,
# WIPEONFORK, KEEPONFORK, DONTNEED_LOCKED, GUARD_INSTALL, GUARD_REMOVE. Refused: what reads ahead,
# drops, ages or pages out a file's cached pages (RANDOM, SEQUENTIAL, WILLNEED, COLD, PAGEOUT,
# POPULATE_*, COLLAPSE), merges pages across processes (MERGEABLE) or needs privilege.
_OWN_MEMORY_ADVICE = (0, 4, 8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 24, 102, 103)
_RWF_NOWAIT = 0x8
_SO_COOKIE = 57
_CLONE_PIDFD = 0x1000


def _op(code, k, jt=0, jf=0):
    return struct.pack("HBBI", code, jt, jf, k)


def program(machine=None):
    """The filter for ``machine`` (default: this one) as BPF instructions (bytes), or None when the
    machine's system call table is not known here."""
    table = _TABLES.get(machine or platform.machine())
    if table is None:
        return None
    arch, x32, numbers = table
    ops = [_op(_LD_ABS_W, _ARCH), _op(_JEQ, arch, 1, 0), _op(_RET, _RET_KILL_PROCESS), _op(_LD_ABS_W, _NR)]
    if x32:
        ops += [_op(_JGE, x32, 0, 1), _op(_RET, _RET_KILL_PROCESS)]
    for name, number in numbers.items():
        ops += _rule(name, number)
    ops.append(_op(_RET, _RET_ALLOW))
    return b"".join(ops)


def _rule(name, number):
    """The instructions that decide call ``number`` (``name``); any other call falls through."""
    refuse = _op(_RET, _RET_ERRNO | errno.EPERM)
    allow = _op(_RET, _RET_ALLOW)
    if name == "socket":  # of the local (AF_UNIX) kind only
        body = [_op(_LD_ABS_W, _ARG0), _op(_JEQ, _AF_UNIX, 0, 1), allow, refuse]
    elif name == "clone":  # never with a namespace flag, nor for a process file descriptor
        body = [_op(_LD_ABS_W, _ARG0), _op(_JSET, _CLONE_NEW_ANY | _CLONE_PIDFD, 0, 1), refuse, allow]
    elif name == "getsockopt":  # never a socket's cookie (drawn from a counter of the machine's)
        body = [_op(_LD_ABS_W, _ARG2), _op(_JEQ, _SO_COOKIE, 0, 1), refuse, allow]
    elif name in ("preadv2", "pwritev2"):  # never without waiting (RWF_NOWAIT tells what is cached)
        body = [_op(_LD_ABS_W, _ARG5), _op(_JSET, _RWF_NOWAIT, 0, 1), refuse, allow]
    elif name == "madvise":  # the advice that concerns the process's own memory only
        body = [_op(_LD_ABS_W, _ARG2)]
        for index, advice in enumerate(_OWN_MEMORY_ADVICE):
            body.append(_op(_JEQ, advice, len(_OWN_MEMORY_ADVICE) - index, 0))
        body += [refuse, allow]
    else:
        body = [_op(_RET, _RET_ERRNO | (errno.ENOSYS if name in _NOT_THERE else errno.EPERM))]
    return [_op(_JEQ, number, 0, len(body))] + body


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def prepared():
    """The filter ready to install, made once (in the fork server, so that each run only installs
    it): (the kernel's program structure, the buffer it points into), or None where the machine's
    system call table is not known here."""
    code = program()
    if code is None:
        return None
    buffer = ctypes.create_string_buffer(code, len(code))
    return _Program(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p)), buffer


def install(ready=None):
    """Install the filter (``ready``: ``prepared()``'s, made now if not given) in this process and
    all it will start; OSError when the kernel refuses, LookupError on a machine whose table is not
    known here."""
    ready = ready or prepared()
    if ready is None:
        raise LookupError(f"no system call table for {platform.machine()}")
    libc = ctypes.CDLL(None, use_errno=True)
    fprog = ctypes.addressof(ready[0])
    steps = ((_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), (_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, fprog, 0, 0))
    for args in steps:
        if libc.prctl(*(ctypes.c_ulong(a) for a in args)) != 0:
            number = ctypes.get_errno()
            raise OSError(number, f"prctl: {os.strerror(number)}")
