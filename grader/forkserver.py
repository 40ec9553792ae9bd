"""The fast runner: each case forked from a prepared interpreter instead of a new one.

``ForkServerRunner`` starts one fork server (``zygote.py``) per interpreter, inside the sandbox
``sandbox.plan`` finds, and asks it for one child per run. The grader keeps the child's standard
streams (it makes the pipes and hands the far ends over the socket), so the server never sees a
case's input or output. Everything after the start (time limit, output caps, the interactive
session, the verdict facts) is the same code as for ``SubprocessRunner``.
"""

from __future__ import annotations

import array
import itertools
import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, Optional

from grader.execute import ProcessRunner, Program, SubprocessRunner, _Workdir, rlimits
from grader.model import Limits
from grader.sandbox import Protections, plan

_ZYGOTE = (Path(__file__).parent / "zygote.py").read_text(encoding="utf-8")
_START_TIMEOUT_S = 20


class ServerGone(Exception):
    """The fork server stopped; the run is retried on a new one."""


class _Child:
    """A program the server forked: its pipes, its pid, and its exit status when it comes."""

    def __init__(self, server: _Server, ident: int, stdin_fd: int, stdout_fd: int, stderr_fd: int) -> None:
        self.server = server
        self.ident = ident
        self.stdin = os.fdopen(stdin_fd, "wb")
        self.stdout = os.fdopen(stdout_fd, "rb", buffering=0)
        self.stderr = os.fdopen(stderr_fd, "rb", buffering=0)
        self._pid = 0
        self.started = threading.Event()
        self.ended = threading.Event()
        self.status: Optional[int] = None
        self.error = ""
        self._done_read, self._done_write = os.pipe()
        # The reader thread writes to the done pipe while this thread may be releasing it: a closed
        # descriptor's number is soon another pipe's, so the two never overlap.
        self._done_lock = threading.Lock()
        self._released = False

    # called by the server's reader thread
    def _started(self, pid: int) -> None:
        self._pid = pid
        self.started.set()

    @property
    def pid(self) -> int:
        """The program's process id (known once the server has forked it; 0 if it never was)."""
        self.started.wait(_START_TIMEOUT_S)
        return self._pid

    def _ended(self, status: Optional[int], error: str = "") -> None:
        self.status, self.error = status, error
        with self._done_lock:
            if not self._released:
                os.write(self._done_write, b"x")
        self.ended.set()
        self.started.set()

    # the process interface the shared run loop uses
    @property
    def returncode(self) -> Optional[int]:
        if not self.ended.is_set():
            return None
        if self.status is None:
            return -signal.SIGKILL  # the server went away: the program was killed with it
        return os.waitstatus_to_exitcode(self.status)

    def poll(self) -> Optional[int]:
        return self.returncode

    def wait(self, timeout: Optional[float] = None) -> int:
        if not self.ended.wait(timeout):
            raise subprocess.TimeoutExpired("student program", timeout)
        return self.returncode

    def exit_fd(self) -> int:
        return os.dup(self._done_read)

    def kill_tree(self) -> None:
        """Kill the program's process group now (the server reaps it and kills what it left)."""
        if self.ended.is_set():
            return  # its pid may already be someone else's
        self.server.kill(self.ident)
        if self.pid > 0:
            try:
                os.killpg(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def release(self) -> None:
        with self._done_lock:
            if self._released:
                return
            self._released = True
            os.close(self._done_read)
            os.close(self._done_write)


class _Server:
    """One running fork server and the thread that reads its replies."""

    def __init__(self, python: str, prefix) -> None:
        # SOCK_SEQPACKET keeps each message (and the descriptors sent with it) apart.
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        command = [*(prefix or []), python, "-I", "-S", "-X", "utf8", "-c", _ZYGOTE, str(theirs.fileno())]
        self.process = subprocess.Popen(
            command,
            pass_fds=[theirs.fileno()],
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        theirs.close()
        self.sock = ours
        self.send_lock = threading.Lock()
        self.children: Dict[int, _Child] = {}
        self.ids = itertools.count(1)
        self.alive = True
        self.reader = threading.Thread(target=self._read, name="fork-server-reader", daemon=True)
        self.reader.start()

    def _read(self) -> None:
        try:
            while True:
                data = self.sock.recv(1 << 16)
                if not data:
                    raise ServerGone
                message = json.loads(data)
                child = self.children.get(message["id"])
                if child is None:
                    continue
                if "pid" in message:
                    child._started(message["pid"])
                elif "status" in message:
                    self.children.pop(message["id"], None)
                    child._ended(message["status"])
                else:
                    self.children.pop(message["id"], None)
                    child._ended(None, message.get("error", "the fork server failed"))
        except (ServerGone, OSError, ValueError):
            self.alive = False
            for child in list(self.children.values()):
                child._ended(None, "the fork server stopped")
            self.children.clear()

    def _send(self, message: dict, fds=()) -> None:
        data = json.dumps(message).encode()
        ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
        with self.send_lock:
            self.sock.sendmsg([data], ancillary)

    def spawn(self, workdir: str, script: str, limits: Limits, unbuffered: bool, uid: Optional[int]) -> _Child:
        """Ask for one program; returns at once (its pid comes when the server has forked it).

        Raises ``ServerGone`` when the server has stopped, so the caller can start another.
        """
        if not self.alive:
            raise ServerGone
        stdin_read, stdin_write = os.pipe()
        stdout_read, stdout_write = os.pipe()
        stderr_read, stderr_write = os.pipe()
        ident = next(self.ids)
        child = _Child(self, ident, stdin_write, stdout_read, stderr_read)
        self.children[ident] = child
        request = {
            "op": "run",
            "id": ident,
            "folder": workdir,
            "script": script,
            "limits": [list(item) for item in rlimits(limits)],
            "unbuffered": unbuffered,
            "uid": uid,
        }
        try:
            self._send(request, [stdin_read, stdout_write, stderr_write])
        except OSError:
            self.alive = False
            raise ServerGone from None
        finally:
            for fd in (stdin_read, stdout_write, stderr_write):
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


class _OwnedWorkdir(_Workdir):
    """A run's folder inside the runner's work root, owned by the user id the run gets (if any)."""

    def __init__(self, program: Program, runner: ForkServerRunner) -> None:
        super().__init__(program)
        self.runner = runner
        self.uid: Optional[int] = None

    def __enter__(self):
        self.folder = tempfile.mkdtemp(prefix="run-", dir=self.runner.root)
        self.uid = self.runner._take_uid(self.program.python, self.folder)
        for companion in self.program.companions:
            shutil.copyfile(companion, Path(self.folder) / companion.name)
        script = Path(self.folder) / self.program.run_name
        shutil.copyfile(self.program.script, script)
        if self.uid is not None:
            for path in [self.folder, *(str(p) for p in Path(self.folder).iterdir())]:
                os.chown(path, self.uid, self.uid)
        return self.folder, str(script)

    def __exit__(self, *exc_info) -> None:
        super().__exit__(*exc_info)
        self.runner._give_uid(self.folder, self.uid)


class ForkServerRunner(ProcessRunner):
    """Runs each case as a child of a prepared, sandboxed interpreter (see the module docstring).

    Use it as a context manager, or call ``close()``: that stops the servers and removes the
    work folder. Where fork is unavailable, use ``SubprocessRunner`` (``best_runner`` chooses).
    """

    def __init__(self, use_sandbox: bool = True) -> None:
        self.root = tempfile.mkdtemp(prefix="nim-grader-runs-")
        os.chmod(self.root, 0o755)
        self.use_sandbox = use_sandbox
        self._servers: Dict[str, _Server] = {}
        self._plans: Dict[str, tuple] = {}
        self._lock = threading.Lock()
        self._fallback = SubprocessRunner()
        self._free_uids: Optional[queue.SimpleQueue] = None
        self._uid_of: Dict[str, int] = {}  # run folder → the user id its program runs as

    def protections(self, python: str) -> Protections:
        """What is active for programs run by ``python``."""
        return self._plan(python)[2]

    def _plan(self, python: str) -> tuple:
        with self._lock:
            if python not in self._plans:
                self._plans[python] = plan(python, self.root, self.use_sandbox)
            return self._plans[python]

    def _server(self, python: str) -> _Server:
        prefix, _, _ = self._plan(python)
        with self._lock:
            server = self._servers.get(python)
            if server is None or not server.alive:
                if server is not None:
                    server.stop()
                server = self._servers[python] = _Server(python, prefix)
            return server

    def _take_uid(self, python: str, folder: str) -> Optional[int]:
        """A user id no other run is using (waits for one if all are), or None without the pool."""
        uids = self._plan(python)[1]
        if uids is None:
            return None
        with self._lock:
            if self._free_uids is None:
                self._free_uids = queue.SimpleQueue()
                for uid in uids:
                    self._free_uids.put(uid)
        uid = self._free_uids.get()
        with self._lock:
            self._uid_of[folder] = uid
        return uid

    def _give_uid(self, folder: str, uid: Optional[int]) -> None:
        if uid is None:
            return
        with self._lock:
            self._uid_of.pop(folder, None)
        self._free_uids.put(uid)

    def _folder(self, program: Program) -> _Workdir:
        return _OwnedWorkdir(program, self)

    def _launch(self, python: str, workdir: str, script: str, limits: Limits, unbuffered: bool):
        uid = self._uid_of.get(workdir)
        for _ in range(2):  # a server that died is replaced once
            start = time.monotonic()
            try:
                return self._server(python).spawn(workdir, script, limits, unbuffered, uid), start
            except ServerGone:
                continue
        return self._fallback._launch(python, workdir, script, limits, unbuffered)

    def close(self) -> None:
        with self._lock:
            servers, self._servers = list(self._servers.values()), {}
        for server in servers:
            server.stop()
        shutil.rmtree(self.root, ignore_errors=True)


def best_runner(use_sandbox: bool = True) -> ProcessRunner:
    """The fork server where the system has ``fork`` (POSIX), else one new process per run."""
    if hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(os, "waitstatus_to_exitcode"):
        return ForkServerRunner(use_sandbox)
    return SubprocessRunner()
