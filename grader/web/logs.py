"""The portal's logs: an access log and an error log in ``DATA/logs/``, through Python's logging.

In: the data folder and what kind of process this is (``setup``, called by ``serve``, ``dispatch``
and the WSGI module once Django is configured); each request (``AccessLog``, a middleware). Out:
- ``access.log``: one line per request: time (UTC), client address, user (``-`` when not known),
  method, path, status, bytes, seconds. Never the query string, headers, cookies or form fields,
  which may carry tokens and passwords.
- ``error.log``: each process's start and stop, the grader's own failures with their tracebacks
  (a submission it could not grade, a heartbeat that failed, a 500), a course that stopped
  loading, waitress's warnings (a full connection limit, a long queue).
- ``events.log``: one line per event an operator follows (``event``): a hand-in, a grading and how
  long it waited and took, a grading that failed, a regrade, a failed or held sign-in. Each line is
  the time, the event's name, then ``key=value`` fields in a fixed order; a value with a blank, a
  quote, ``=``, a backslash or a character that is not printable is written as a JSON string, so a
  line is one event whatever a username holds. Never a password, a token or a program's output.

The folder is 0700 and the files 0600, whatever existed. Each file is rotated at ``MAX_BYTES``
with ``BACKUPS`` old ones kept (``access.log.1`` is the newest old one). Several processes may
share a data folder (``serve --no-grading`` web processes and one ``dispatch``, gunicorn's
workers): every write holds an ``flock`` on ``logs/.lock``, so one rotation happens at a time,
and a process whose file was renamed by another's rotation (or by logrotate) opens the new one.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import time
from logging.handlers import RotatingFileHandler
from pathlib import Path
from urllib.parse import quote

from grader.web.private_files import private_file, private_folder

MAX_BYTES = 10 * 1024 * 1024
BACKUPS = 5
ACCESS = "grader.access"
EVENTS = "grader.events"
_LONGEST_VALUE = 200  # a field's characters at most (a typed username may be anything)
_OURS = "_nim_grader_log"  # marks the handlers ``setup`` added, so that a second call replaces them
_PATH_SAFE = "/@:+,;=-._~!$&'()*"  # what a path may show as it is; anything else (a newline) is %-escaped


class SharedRotatingFileHandler(RotatingFileHandler):
    """A rotating log file that several processes append to: each write holds an ``flock`` on a
    lock file beside it, and reopens the file when another process's rotation renamed it."""

    def __init__(self, path: Path, lock: Path) -> None:
        super().__init__(str(path), maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8", delay=True)
        self._lock_path = str(lock)
        self._lock_fd = -1

    def _open(self):
        # never through a link planted in the folder: root would append to whatever it names
        # (nor wait on a named pipe: O_NONBLOCK fails at once where no one reads one)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
        descriptor = os.open(self.baseFilename, flags, 0o600)
        return os.fdopen(descriptor, "a", encoding="utf-8", errors="backslashreplace")

    def _moved(self) -> bool:
        """Whether the open file is no longer the one at the path (rotated by another process)."""
        try:
            there = os.stat(self.baseFilename)
        except FileNotFoundError:
            return True
        if self.stream is None:  # nothing open, nothing moved
            return False
        here = os.fstat(self.stream.fileno())
        return (there.st_dev, there.st_ino) != (here.st_dev, here.st_ino)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            if self._lock_fd < 0:  # opened at the first write (and again after a close: a late record)
                self._lock_fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
        except OSError:
            self.handleError(record)
            return
        try:
            if self.stream is not None and self._moved():
                self.stream.close()
                self.stream = None  # the next write opens the file at the path
            super().emit(record)
        finally:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def close(self) -> None:
        super().close()
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1


def _formatter(pattern: str) -> logging.Formatter:
    formatter = logging.Formatter(pattern, datefmt="%Y-%m-%dT%H:%M:%SZ")
    formatter.converter = time.gmtime  # the portal's time zone is UTC
    return formatter


def private_logs(folder: Path) -> None:
    """``folder`` made (or kept) readable by the portal's user alone, with its log files; a link,
    another user's file, one others may write to, or a named pipe there is refused (``private_files``):
    root must not write through it, and a start-up must not wait on it."""
    private_folder(folder)
    for path in folder.iterdir():
        private_file(path)


def setup(data: Path, kind: str) -> Path:
    """Send this process's access and error records to ``DATA/logs/``; returns that folder. ``kind``
    names the process in its start line (``serve``, ``dispatch``, ...)."""
    folder = data / "logs"
    private_logs(folder)
    lock = folder / ".lock"
    access = SharedRotatingFileHandler(folder / "access.log", lock)
    access.setFormatter(_formatter("%(asctime)s %(message)s"))
    events = SharedRotatingFileHandler(folder / "events.log", lock)
    events.setFormatter(_formatter("%(asctime)s %(message)s"))
    errors = SharedRotatingFileHandler(folder / "error.log", lock)
    errors.setFormatter(_formatter("%(asctime)s %(levelname)s %(name)s [%(process)d %(threadName)s] %(message)s"))
    errors.setLevel(logging.INFO)
    for handler in (access, errors, events):
        setattr(handler, _OURS, True)
    for name, handler in ((ACCESS, access), (EVENTS, events)):
        own = logging.getLogger(name)
        own.propagate = False  # requests and events are not errors
        own.setLevel(logging.INFO)
        _replace(own, handler)
    root = logging.getLogger()
    root.setLevel(logging.WARNING)  # other libraries: their warnings and errors only
    _replace(root, errors)
    logging.getLogger("grader").setLevel(logging.INFO)
    logging.getLogger("django.request").setLevel(logging.ERROR)  # 4xx are in the access log; 5xx here
    # a request the client got wrong (a host the portal does not answer to, too many fields) is a
    # 400 in the access log; Django would also write its traceback here, a kilobyte that anyone
    # could ask for a thousand times a second until the rotation drops the grader's own failures
    logging.getLogger("django.security").setLevel(logging.CRITICAL)
    logging.getLogger("grader.web").info("%s started (pid %d); logs in %s", kind, os.getpid(), folder)
    return folder


def _replace(logger: logging.Logger, handler: logging.Handler) -> None:
    for old in [h for h in logger.handlers if getattr(h, _OURS, False)]:
        logger.removeHandler(old)
        old.close()
    logger.addHandler(handler)


def _value(value: object) -> str:
    """One field's value as the events log writes it: as it is when it is plain, else a JSON string."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    text = value if isinstance(value, str) else str(value)
    if len(text) > _LONGEST_VALUE:
        text = text[:_LONGEST_VALUE] + "..."
    plain = text and all(c.isprintable() and not c.isspace() and c not in '"=\\' for c in text)
    return text if plain else json.dumps(text)  # every control, format or non-ASCII character escaped


def event(name: str, **fields: object) -> None:
    """Write the event ``name`` with ``fields`` (in the order given) as one line of ``events.log``."""
    logger = logging.getLogger(EVENTS)
    if logger.isEnabledFor(logging.INFO):
        logger.info("%s", " ".join([name, *(f"{key}={_value(value)}" for key, value in fields.items())]))


def address(request) -> str:
    """The client's address as the access log names it (the student's, behind ``--proxy``)."""
    return request.META.get("REMOTE_ADDR") or "-"


def _user(request) -> str:
    """The user's name when the request already knew it (a session or a token), else ``-``; never a
    database query of its own."""
    from django.utils.functional import empty

    user = request.__dict__.get("user")
    if user is None or getattr(user, "_wrapped", None) is empty:
        return "-"
    return user.get_username() if user.is_authenticated else "-"


class AccessLog:
    """A middleware (the outermost) that writes one access line per request."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response
        self.log = logging.getLogger(ACCESS)

    def __call__(self, request):
        started = time.monotonic()
        response = self.get_response(request)
        if self.log.isEnabledFor(logging.INFO):
            size = response.get("Content-Length", "-") if response.streaming else len(response.content)
            self.log.info(
                "%s %s %s %s %d %s %.3f",
                # as the proxy said it (``--proxy``): %-escaped, so it is one field whatever it holds
                quote(request.META.get("REMOTE_ADDR") or "-", safe=":.[]")[:100],
                _user(request),
                quote(request.method or "-", safe="")[:16],
                quote(request.path, safe=_PATH_SAFE)[:500],
                response.status_code,
                size,
                time.monotonic() - started,
            )
        return response
