"""The prepared interpreter: a fork server that starts each student program in a few milliseconds.

This file runs on its own in the interpreter that grades submissions (``python -I -X utf8 -c``
with this source), never imported by the grader, so it imports nothing from ``grader``. It has
already imported the modules submissions commonly use; for each request it forks one child: with
isolation, the first process of a process namespace of its own (the run's init), which makes the
run's other namespaces and forks the program below it (``zygote_isolation.isolate``); without, the
program itself. The program gets a new session, the limits, a user id of its own where it can, the
standard streams the grader sent, its randomness from the run's seed, and the file run as ``__main__``.

It never sees test cases, and never reads a student's file: a request names a folder and a file,
never an input or an answer, and each child reads and compiles its own program. Children are forks
of this process, so whatever it held would be theirs to read: it holds nothing of any submission,
reference solution or case (the grader runs reference solutions in a server of their own).

Protocol on the socket that is its standard input (a SOCK_SEQPACKET socket: one JSON message per
packet). Nothing that differs from grader to grader is on its command line, which every program
it starts can read (/proc/self/cmdline):
  grader → server  {"work_root": ..., "view": ...}   first: where the grader makes the run folders,
                   and the view of the file system to make (``file_view.View`` as JSON; "" for none)
  server → grader  {"hello": {"isolation": "root" | "userns" | null, "proc": "own" | "all",
                   "filter": bool, "view": "made" | "" | why not, "folder": path or "",
                   "resident": bool}}   once, when it is ready: how each run gets its own
                   namespaces and file systems (null: it cannot), whether its
                   /proc shows its own processes only, whether the system call filter is installed
                   in each, whether it made the view of the file system it was given, where
                   each isolated run's folder is, as the program sees it ("": at its own path),
                   and whether it read every file of its view into memory (``server_view.keep_resident``)
  grader → server  {"op": "run", "id": N, "folder": ..., "script": ..., "limits": [[name, value]...],
                    "unbuffered": bool, "uid": int or null, "isolate": mode or null, "seed": str,
                    "rules": [...]}
                   with file descriptors attached (SCM_RIGHTS): stdin, stdout, stderr, the report
                   channel, then the cgroup.procs files of the run's cgroups (if any), then with
                   "uid_lock" the lock of its user id (``uid_pool``): held here until what runs as
                   that id has ended
  server → grader  {"id": N, "pid": P, "as_credentials": true}
                                                 the child started; with "as_credentials", its pid
                                                 as the grader numbers it is the message's sender
                                                 credentials (``started_runs.send_started``)
                   {"id": N, "status": S}        the program ended (its raw wait status: said by the
                                                 run's init, or the child's own when it was reaped)
                   {"id": N, "error": "..."}     it could not be started
  grader → server  {"op": "kill", "id": N}       kill its process group now
"""

import array

# What submissions commonly import, loaded once here so that children start with them ready.
import collections  # noqa: F401
import copy  # noqa: F401
import functools  # noqa: F401
import gc
import io
import itertools  # noqa: F401
import json
import math  # noqa: F401
import operator  # noqa: F401
import os
import random  # noqa: F401
import re  # noqa: F401
import select
import signal
import socket
import string  # noqa: F401
import sys
import time  # noqa: F401

# Sent ahead of this source by the grader (``forkserver``), as modules: the program run as
# __main__ and its report channel; per-run isolation and limits; each run's randomness from its seed.
import child_program
import run_mounts
import seeded_randomness
import server_view
import started_runs
import syscall_filter
import zygote_isolation as isolation


def _as_site_would():
    """What ``site`` gives a program run as ``python file.py``, without running its start-up hooks.

    The server starts with ``-S``: ``.pth`` files may import whole libraries at start-up (on some
    machines certifi, pathlib, zipfile...), and every page they leave in this process makes each
    fork dearer. Programs still find exit(), quit(), help() and the installed packages.
    """
    import site

    for name in ("setquit", "setcopyright", "sethelper"):
        getattr(site, name, lambda: None)()
    if hasattr(site, "venv"):
        site.venv(set())  # in a virtual environment: its prefix (and packages), as site would set it
    sys.path.extend(p for p in site.getsitepackages() if os.path.isdir(p) and p not in sys.path)


_as_site_would()
if sys.path and sys.path[0] == "":
    del sys.path[0]  # started with -c: each program finds its own folder first instead (see _child)


def _settings():
    """The socket to the grader (our standard input until now: /dev/null from here on) and its
    first message: where the runs' folders are, and the view to make where no bubblewrap made it."""
    sock = socket.socket(fileno=os.dup(0))
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    settings = json.loads(sock.recv(1 << 20) or b"{}")
    return sock, settings.get("work_root") or "/tmp", json.loads(settings["view"]) if settings.get("view") else None


SOCKET, WORK_ROOT, VIEW = _settings()


_PR_SET_CHILD_SUBREAPER = 36


def _become_subreaper():
    """Orphans of our children come back to us (not to init), so strays can be found and killed."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _receive(sock):
    """One message (one packet: the socket keeps message boundaries) and its file descriptors.

    Returns (None, []) when the grader has gone.
    """
    fds = array.array("i")
    data, ancillary, _, _ = sock.recvmsg(1 << 16, socket.CMSG_SPACE(16 * fds.itemsize))
    if not data:
        return None, []
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - (len(payload) % fds.itemsize)])
    return json.loads(data), list(fds)


def _streams(unbuffered):
    """Standard streams on fds 0, 1 and 2, made once in the server (each child's fds 0-2 are its
    own pipes by then, and nothing was ever read or written through these objects)."""
    raw_out = io.FileIO(1, "wb", closefd=False)
    return (
        io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "rb", closefd=False)), encoding="utf-8"),
        io.TextIOWrapper(
            raw_out if unbuffered else io.BufferedWriter(raw_out),
            encoding="utf-8",
            errors="strict",
            write_through=unbuffered,
        ),
        io.TextIOWrapper(
            io.FileIO(2, "wb", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True
        ),
    )


STREAMS = {False: _streams(False), True: _streams(True)}


def _child(request, fds, status, mode, held):
    """In the forked child (the run's init, when runs are isolated): become the student's program, or
    start it and wait for it (``isolation.isolate``). Never returns.

    ``fds``: its standard input, output and error, its report channel (``child_program``), then the
    ``cgroup.procs`` files of the run's cgroups, if any. ``status``: the socket to the server that
    the init sends the program's end through. ``mode``: how runs are isolated here (``isolation.mode_here``);
    ``held``: what the private folders hold (``run_mounts.what_private_folders_hold``).
    """
    exit_code = 1
    started = False
    try:
        for fd in fds[4:]:  # the run's cgroups: everything from here on counts in them
            os.write(fd, b"0")
            os.close(fd)
        os.setsid()
        for target, fd in enumerate(fds[:3]):
            os.dup2(fd, target)
        for fd in fds[:3]:
            if fd > 2 and fd not in fds[3:]:
                os.close(fd)
        child_program.take_channel(fds[3])
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        folder = request["folder"]
        os.chdir(folder)
        isolation.apply_limits(request["limits"])
        uid = request.get("uid")
        seed = request.get("seed") or ""  # the run's own, from the grader
        if mode:  # from here on, this is the program's process
            owner = uid if os.getuid() == 0 else None
            devices = seeded_randomness.device_bytes(seed)
            # the folder as the program sees it: the same path on every run
            folder = isolation.isolate(mode, folder, owner, devices, status, held)
        if uid is not None and os.getuid() == 0:
            isolation.become(uid)
        child_program.watch_for_stack()
        os.environ["HOME"] = os.environ["TMPDIR"] = folder  # the rest was set when the server started
        unbuffered = request.get("unbuffered", False)
        sys.stdin, sys.stdout, sys.stderr = STREAMS[bool(unbuffered)]
        seeded_randomness.seed_everything(seed)
        script = os.path.join(folder, os.path.basename(request["script"]))
        sys.argv = [script]
        sys.path.insert(0, folder)
        if FILTER:
            syscall_filter.install(FILTER)  # last: nothing of ours needs what it refuses
        started = True
        exit_code = child_program.run(script, folder, request.get("rules") or ())
    except BaseException as error:  # our own set-up failed: say so on the program's stderr
        if not started:
            os.write(2, f"nim-grader: the program could not be started: {error!r}\n".encode())
    finally:
        os._exit(exit_code & 0xFF)


SPARES = 1  # runs forked ahead of demand (in idle time), each waiting for its request


def _spare(mode, back, held):
    """Fork a run (``isolation.fork_run``) that waits for its request on a socket of its own, which
    then carries the program's end back (an isolated run's init sends it there); returns (pid, our
    end). It keeps no descriptor of ours (``_close_all_but``). ``mode`` and ``back``: how runs are
    isolated here, and our own process namespace (``isolation.mode_here``); ``held``: what each
    run's private folders get back (``run_mounts.what_private_folders_hold``)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = isolation.fork_run(mode, back)
    if pid == 0:
        try:
            ours.close()
            _close_all_but(theirs.fileno())
            request, fds = _receive(theirs)
        except BaseException:
            os._exit(1)
        if request is None:
            os._exit(0)
        if not mode:  # the program itself: its end is its own (the server reaps it)
            theirs.close()
            theirs = None
        _child(request, fds, theirs, mode, held)
    theirs.close()
    return pid, ours


def _close_all_but(kept):
    """Close every descriptor of this process but the standard ones and ``kept``: a run holds nothing
    of the server's (its socket to the grader, other runs' sockets, their user ids' locks, the
    descriptors of a request being started), whenever it was forked."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2 and fd != kept:
            try:
                os.close(fd)
            except OSError:
                pass  # (the listing's own, closed by now)


def _filter_works():
    """Can a child install the system call filter (``syscall_filter``)? Tried in a throw-away child."""
    pid = os.fork()
    if pid == 0:
        try:
            syscall_filter.install(FILTER_READY)
            os._exit(0)
        except BaseException:
            os._exit(1)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


FILTER_READY = syscall_filter.prepared()
FILTER = FILTER_READY if _filter_works() else None  # (ready to install in each run, or None)


def serve():
    view, resident = server_view.make_view(VIEW, WORK_ROOT)  # first: everything after happens in it
    # (before the spares: "userns" makes this process the first of namespaces of its own)
    mode, proc, back = isolation.mode_here(WORK_ROOT)
    held = run_mounts.what_private_folders_hold(WORK_ROOT.rstrip("/")) if mode else None
    sock = SOCKET
    _become_subreaper()
    # Everything loaded so far is shared with every child: keep the collector off it, so that
    # children do not copy those pages by touching them (copy-on-write).
    gc.freeze()
    folder = run_mounts.PROGRAM_FOLDER if mode and os.path.isdir(run_mounts.PROGRAM_FOLDER) else ""
    filtered = FILTER is not None
    hello = {"isolation": mode, "proc": proc, "filter": filtered, "view": view, "folder": folder, "resident": resident}
    started_runs.send(sock, {"hello": hello})
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    runs = {}  # pid → the run's request id, its socket (its end comes there), and whether that end was said
    uids = {}  # request id → the user id its program runs as (root only)
    locks = {}  # request id → our copy of the lock of that user id (no child ever keeps one)
    spares = []  # (pid, socket) of runs forked ahead, waiting for a request
    while True:
        # Fork spares only when nothing is waiting: the fork's cost then falls in idle time.
        idle = 0.05 if len(spares) >= SPARES else 0
        channels = {run[1]: pid for pid, run in runs.items() if run[1] is not None}
        ready, _, _ = select.select([sock, wake_read, *channels], [], [], idle)
        if not ready and len(spares) < SPARES:
            try:
                spares.append(_spare(mode, back, held))
            except OSError:
                pass  # (no run can be forked now: a request then says why, ``_start``)
            continue
        if wake_read in ready:
            os.read(wake_read, 4096)
        for channel in (c for c in ready if c in channels):  # a program ended (its init says so)
            started_runs.program_ended(sock, runs, channels[channel])
        started_runs.reap(sock, runs, uids, locks, spares)
        started_runs.kill_strays(set(runs) | {p for p, _ in spares})
        if sock not in ready:
            continue
        request, fds = _receive(sock)
        if request is None:
            break  # the grader has gone: stop, and take the children with us
        lock = fds.pop() if request.get("uid_lock") and fds else None
        if request.get("op") == "run" and len(fds) < 4:
            for fd in fds:
                os.close(fd)
            started_runs.let_go(None, lock)
            started_runs.send(sock, {"id": request.get("id"), "error": "a run needs four file descriptors"})
            continue
        if request["op"] == "kill":
            pid = next((p for p, run in runs.items() if run[0] == request["id"]), None)
            if pid is not None:
                started_runs.kill(pid)
            continue
        if request.get("uid") is not None and os.getuid() == 0:
            isolation.end_leftovers(request["uid"])  # (from here: a run's own kill reaches its namespace only)
        pid, channel = _start(request, fds, spares, (mode, back, held))
        for fd in fds:
            os.close(fd)
        if pid is None:
            started_runs.let_go(None, lock)
            started_runs.send(sock, {"id": request["id"], "error": channel})
            continue
        runs[pid] = [request["id"], channel, False]
        if request.get("uid") is not None:
            uids[request["id"]] = request["uid"]
        if lock is not None:
            locks[request["id"]] = lock
        started_runs.send_started(sock, request["id"], pid)
    for pid in list(runs) + [p for p, _ in spares]:
        started_runs.kill(pid)
    for ident in set(uids) | set(locks):  # what a program started in a session of its own ends with it too
        started_runs.let_go(uids.get(ident), locks.get(ident))


def _start(request, fds, spares, isolated):
    """Hand ``request`` and its ``fds`` to a spare (forked now if none is left; ``isolated``: how,
    as ``_spare`` takes it): (pid, its socket), or (None, why) when no run could be forked."""
    why = "the run could not be handed its request"
    for _ in range(2):  # a spare that has ended, then one forked now
        if not spares:
            try:
                spares.append(_spare(*isolated))
            except OSError as error:
                return None, str(error)
        pid, channel = spares.pop(0)
        try:
            channel.sendmsg(
                [json.dumps(request).encode()], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))]
            )
        except OSError as error:
            started_runs.kill(pid)
            channel.close()
            why = str(error)
            continue
        if not isolated[0]:  # a plain fork: its end is its own, when it is reaped
            channel.close()
            channel = None
        return pid, channel
    return None, why


if __name__ == "__main__":
    serve()
