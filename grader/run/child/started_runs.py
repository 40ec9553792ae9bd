"""The fork server's side of the runs it started: it tells the grader that a run started (its pid
as the grader numbers it) and how its program ended, and cleans up after it (what its user id left
running, the lock of that id, strays). Runs in the fork server only, imports only the standard
library and ``zygote_isolation``, sent beside it (``forkserver``).
"""

import json
import os
import signal
import socket
import struct

import zygote_isolation as isolation


def send(sock, message):
    sock.send(json.dumps(message).encode())


def send_started(sock, ident, pid):
    """Tell the grader that request ``ident`` runs as ``pid``, as the grader's /proc numbers it: the
    number travels as the message's sender credentials, which the kernel translates into the
    receiver's process namespace ("userns" makes this server the first process of one of its own;
    we may name our own children there). Where the kernel refuses, the number as we see it."""
    data = json.dumps({"id": ident, "pid": pid, "as_credentials": True}).encode()
    try:
        credentials = struct.pack("iII", pid, os.getuid(), os.getgid())
        sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_CREDENTIALS, credentials)])
    except (OSError, AttributeError):  # (no SCM_CREDENTIALS: not Linux, where our numbers are the grader's)
        send(sock, {"id": ident, "pid": pid})


def kill_strays(active):
    """Kill our children that are not a running program we started: orphans of finished ones (of a
    run with no process namespace of its own: an isolated run's stay in its namespace). Only where
    this /proc numbers processes as we do (not for a server first in a process namespace of its own)."""
    try:
        if int(os.readlink("/proc/self")) != os.getpid():
            return
        with open("/proc/thread-self/children") as handle:  # (our pid as this /proc numbers it)
            pids = [int(p) for p in handle.read().split()]
    except (OSError, ValueError):
        return
    for pid in pids:
        if pid not in active:
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass


def kill(pid):
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def program_ended(sock, runs, pid):
    """The init of run ``pid`` sent its program's end (or closed its socket, ending before it could):
    say the end now, before the namespaces' teardown; the init is reaped later."""
    run = runs[pid]
    try:
        said = run[1].recv(16)
    except OSError:
        said = b""
    run[1].close()
    run[1] = None
    if len(said) == 4 and not run[2]:
        run[2] = True
        send(sock, {"id": run[0], "status": struct.unpack("i", said)[0]})


def reap(sock, runs, uids, locks, spares):
    """Reap every child that ended: a run's end is said now if its init did not say it; a spare that
    ended is forgotten."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if pid not in runs:
            spares[:] = [(p, s) for p, s in spares if p != pid]
            continue
        if runs[pid][1] is not None:  # its init may have said the end after we last looked
            program_ended(sock, runs, pid)
        ident, _, said = runs.pop(pid)
        try:
            os.killpg(pid, signal.SIGKILL)  # what it left running in its group goes too
        except (ProcessLookupError, PermissionError):
            pass
        let_go(uids.pop(ident, None), locks.pop(ident, None))
        if not said:
            send(sock, {"id": ident, "status": status})


def let_go(uid, lock):
    """End what ``uid`` still runs (as root), then close our copy of its ``lock``: only then may the
    id be another run's, of this grader or another (``uid_pool``), even when its grader is gone."""
    if uid is not None and os.getuid() == 0:
        isolation.end_leftovers(uid)
    if lock is not None:
        os.close(lock)
