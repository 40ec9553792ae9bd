"""The fast runner: each case forked from a prepared interpreter instead of a new one.

``ForkServerRunner`` starts one fork server (``zygote.py``) per interpreter, inside the sandbox
``sandbox.plan`` finds, and asks it for one child per run. The grader keeps the child's standard
streams (it makes the pipes and hands the far ends over the socket), so the server never sees a
case's input or output, and each child reads and compiles its own file, so the server never holds
a submission. Reference solutions (``Program.trusted``) run in a server of their own. A server
that cannot start is reported (``protections``), and runs then start one interpreter each, with
the same plan; a server that dies is replaced, and a run it took with it is run again
(``execute.ProcessRunner``). Everything after the start is the same code as for
``SubprocessRunner``.
"""

from __future__ import annotations

import array
import itertools
import json
import os
import socket
import struct
import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple, Union

from grader.model import Limits
from grader.run.execute import (
    CHILD_FOLDER,
    FIXED_HASHING,
    ProcessRunner,
    Program,
    RunnerFailure,
    SubprocessRunner,
    child_modules_source,
    launch_subprocess,
    rlimits,
    rules_for_child,
    subprocess_protections,
)
from grader.run.file_view import server_view
from grader.run.fork_child import START_TIMEOUT_S, ForkChild
from grader.run.run_folders import RunFolder
from grader.run.sandbox import Protections, with_fork_server


def _zygote_source() -> str:
    """The fork server's source: the child's modules (``CHILD_MODULES``), then ``zygote`` itself
    (the server imports nothing from ``grader``)."""
    return child_modules_source() + (CHILD_FOLDER / "zygote.py").read_text(encoding="utf-8")


_ZYGOTE = _zygote_source()
# The server's whole command line (``-c``): it reads its source from the socket that is its standard
# input (its length, then the text in packets), and runs it. Every program can read the server's
# command line (/proc/self/cmdline): it is the same for every grader, and short (one argument may
# hold no more than 128 KiB).
_BOOT = (
    "import os, socket\n"
    "boot = socket.socket(fileno=os.dup(0))\n"
    "size, text = int(boot.recv(64)), b''\n"
    "while len(text) < size:\n"
    "    text += boot.recv(1 << 16) or exit(2)\n"
    "boot.close()\n"
    "del boot, size\n"
    "exec(compile(text.decode(), 'zygote', 'exec'))\n"
)
_PACKET = 1 << 15


class ServerGone(Exception):
    """The fork server stopped; the run is retried on a new one."""


_CREDENTIALS_SIZE = struct.calcsize("iII")


def _pid_of(message: dict, ancillary) -> int:
    """The pid of a started run as this process numbers it: the sender credentials the server
    attached (the kernel translates them into our process namespace), else the number it sent.
    0 when neither is a number (nothing is then signalled by pid)."""
    pid = message.get("pid")
    if message.get("as_credentials"):
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == getattr(socket, "SCM_CREDENTIALS", None):
                if len(payload) >= _CREDENTIALS_SIZE:
                    pid = struct.unpack("iII", payload[:_CREDENTIALS_SIZE])[0]
    return pid if isinstance(pid, int) and pid > 0 else 0


class ServerCannotStart(Exception):
    """The fork server did not say it was ready; ``str()`` says what was seen."""


class _Server:
    """One running fork server and the thread that reads its replies."""

    def __init__(self, python: str, prefix, work_root: str, view: str = "") -> None:
        # SOCK_SEQPACKET keeps each message (and the descriptors sent with it) apart.
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        if hasattr(socket, "SO_PASSCRED"):  # a run's pid comes as credentials, in our numbering (``_pid_of``)
            ours.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        # Not -I (it ignores PYTHONHASHSEED): the environment is ours alone, -s leaves out the user's
        # site folder, and the server drops the current folder from sys.path itself. The socket is
        # its standard input, and what differs from grader to grader (the work root, the view) comes
        # over it: every program can read the server's command line (/proc/self/cmdline).
        command = [*(prefix or []), python, "-s", "-S", "-X", "utf8", "-c", _BOOT]
        self.process = subprocess.Popen(
            command,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent", **FIXED_HASHING},
            stdin=theirs.fileno(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        source = _ZYGOTE.encode()
        try:
            ours.send(str(len(source)).encode())
            for start in range(0, len(source), _PACKET):
                ours.send(source[start : start + _PACKET])
            # the view of the file system the server makes itself ("": bubblewrap made it)
            ours.send(json.dumps({"work_root": work_root, "view": view}).encode())
        except OSError:
            pass  # it ended before it read them: it never says it is ready (``wait_ready``)
        theirs.close()
        self.sock = ours
        self.send_lock = threading.Lock()
        self.children: Dict[int, ForkChild] = {}
        self.ids = itertools.count(1)
        self.alive = True
        self.hello: Optional[dict] = None  # what the server said when it was ready
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._read, name="fork-server-reader", daemon=True)
        self.reader.start()

    def wait_ready(self) -> dict:
        """The server's hello (how it isolates runs); ``ServerCannotStart`` if it never comes."""
        if not self.ready.wait(START_TIMEOUT_S) or self.hello is None:
            code = self.process.poll()
            raise ServerCannotStart(
                f"it ended with exit status {code}" if code is not None else f"no answer in {START_TIMEOUT_S} s"
            )
        return self.hello

    def _read(self) -> None:
        try:
            while True:
                data, ancillary, _, _ = self.sock.recvmsg(1 << 16, socket.CMSG_SPACE(_CREDENTIALS_SIZE))
                if not data:
                    raise ServerGone
                message = json.loads(data)
                if "hello" in message:
                    self.hello = message["hello"]
                    self.ready.set()
                    continue
                child = self.children.get(message["id"])
                if child is None:
                    continue
                if "pid" in message:
                    child._started(_pid_of(message, ancillary))
                elif "status" in message:
                    self.children.pop(message["id"], None)
                    child._ended(message["status"])
                else:
                    self.children.pop(message["id"], None)
                    child._ended(None, message.get("error", "the fork server failed"))
        except (ServerGone, OSError, ValueError):
            self.alive = False
            self.ready.set()
            for child in list(self.children.values()):
                child._ended(None, "the fork server stopped")
            self.children.clear()

    def _send(self, message: dict, fds=()) -> None:
        data = json.dumps(message).encode()
        ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
        with self.send_lock:
            self.sock.sendmsg([data], ancillary)

    def spawn(
        self,
        folder: RunFolder,
        limits: Limits,
        unbuffered: bool,
        seed: str = "",
        rules=(),
    ) -> ForkChild:
        """Ask for one program, its randomness from ``seed``; returns at once (its pid comes when
        the server has forked it).

        Raises ``ServerGone`` when the server has stopped, so the caller can start another.
        """
        if not self.alive:
            raise ServerGone
        stdin_read, stdin_write = os.pipe()
        stdout_read, stdout_write = os.pipe()
        stderr_read, stderr_write = os.pipe()
        report_read, report_write = os.pipe()
        ident = next(self.ids)
        isolate = (self.hello or {}).get("isolation")
        pipes = (stdin_write, stdout_read, stderr_read, report_read)
        child = ForkChild(self, ident, pipes, below_an_init=isolate is not None)
        # where the program saw its folder: the same path for every run, where the server has it
        child.workdir = ((self.hello or {}).get("folder") if isolate else "") or folder.path
        self.children[ident] = child
        request = {
            "op": "run",
            "id": ident,
            "folder": folder.path,
            "script": folder.script,
            "limits": [list(item) for item in rlimits(limits)],
            "unbuffered": unbuffered,
            "uid": folder.uid,
            "isolate": isolate,
            "seed": seed,
            "rules": rules_for_child(rules),
        }
        joins = folder.cgroup.fds if folder.cgroup is not None else ()
        # the server holds the run's user id too, until it has ended what runs as it (``zygote``)
        uid_lock = folder.uid_lock()
        request["uid_lock"] = uid_lock is not None
        try:
            held = [uid_lock] if uid_lock is not None else []
            self._send(request, [stdin_read, stdout_write, stderr_write, report_write, *joins, *held])
        except OSError:
            self.alive = False
            raise ServerGone from None
        finally:
            for fd in (stdin_read, stdout_write, stderr_write, report_write):
                os.close(fd)
        return child

    def kill(self, ident: int) -> None:
        try:
            self._send({"op": "kill", "id": ident})
        except OSError:
            pass

    def stop(self) -> None:
        """Close the socket: the server kills what it still runs and ends."""
        try:
            # shutdown first: close alone would wait for the reader thread's recv, and the server
            # would never see the end of the conversation
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self.sock.close()
        finally:
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class ForkServerRunner(ProcessRunner):
    """Runs each case as a child of a prepared, sandboxed interpreter (see the module docstring).

    Use it as a context manager, or call ``close()``: that stops the servers and removes the
    work folder. Where fork is unavailable, use ``SubprocessRunner`` (``best_runner`` chooses).
    """

    def __init__(self, use_sandbox: bool = True, private: Sequence[Union[str, Path]] = ()) -> None:
        super().__init__(use_sandbox, private)
        self._servers: Dict[Tuple[str, bool], _Server] = {}
        self._cannot_start: Dict[str, str] = {}  # interpreter → why its server did not start
        self._server_lock = threading.Lock()

    def protections(self, python: str) -> Protections:
        """What is active for programs run by ``python`` (starts its server to find out)."""
        try:
            hello = self._server(python, trusted=False).wait_ready()
        except ServerCannotStart as error:
            # each program then starts an interpreter of its own, with the same plan: say so
            fallback = subprocess_protections(self, python)
            said = "; ".join(filter(None, [fallback.note, f"{error}: each run was a new interpreter"]))
            return replace(fallback, note=said)
        return self._bounded(with_fork_server(self.plan(python).protections, hello))

    def _server(self, python: str, trusted: bool) -> _Server:
        """The running server for ``python`` (students' or the course's own); ``ServerCannotStart``."""
        with self._server_lock:
            if python in self._cannot_start:
                raise ServerCannotStart(self._cannot_start[python])
            server = self._servers.get((python, trusted))
            if server is None or not server.alive:
                if server is not None:
                    server.stop()
                chosen = self.plan(python)
                server = self._servers[(python, trusted)] = _Server(
                    python, chosen.prefix, self.root, server_view(chosen.view)
                )
        # Every caller waits for the hello, not only the one that started the server: a run asked
        # for before it would get none of the isolation the hello announces.
        try:
            server.wait_ready()
        except ServerCannotStart as error:
            with self._server_lock:
                self._cannot_start[python] = f"the fork server could not start ({error})"
            server.stop()
            raise ServerCannotStart(self._cannot_start[python]) from None
        return server

    def _launch(self, program: Program, folder: RunFolder, limits: Limits, unbuffered: bool):
        for _ in range(2):  # a server that died is replaced once
            start = time.monotonic()
            try:
                server = self._server(program.python, program.trusted)
                return server.spawn(folder, limits, unbuffered, program.seed, program.rules), start
            except ServerCannotStart:
                # Said in the report's header (``protections``); the plan's protections still hold.
                return launch_subprocess(self, program, folder, limits, unbuffered)
            except ServerGone:
                continue
        raise RunnerFailure(
            "the grader's fork server stopped twice as a program was being started: grade again, and if it "
            "happens again, report it."
        )

    def close(self) -> None:
        with self._server_lock:
            servers, self._servers = list(self._servers.values()), {}
        for server in servers:
            server.stop()
        super().close()


def best_runner(use_sandbox: bool = True, private: Sequence[Union[str, Path]] = ()) -> ProcessRunner:
    """The fork server where the system has ``fork`` (POSIX), else one new process per run.

    ``private``: folders no program may see (the course, a class folder, the portal's data).
    """
    if hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(os, "waitstatus_to_exitcode"):
        return ForkServerRunner(use_sandbox, private)
    return SubprocessRunner(private=private)
