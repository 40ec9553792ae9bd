"""Reading a student's files safely: regular files inside their own folder, never through a link.

A class folder may come from an LMS zip or a tar file, and the grader runs as root: a submission
named ``ui.py`` may be a symbolic link to the course's test cases, to a file only root may read or
to another student's work, a hard link to any of those (the same file under a second name, which
nothing in the folder tells from the student's own), or a FIFO that would block whoever opens it.
So every file of a submission is opened relative to its folder's descriptor with ``O_NOFOLLOW`` (a
symbolic link is refused, never followed) and ``O_NONBLOCK``, after ``lstat`` has shown a regular
file (a FIFO or a device is never opened), and must still be a regular file once open, with no
other name (``fstat`` on the descriptor read from: a file with more than one link is refused, with
no moment between the look and the read). One rule for every reader: ``grade``'s class folders,
``check``, ``submit`` and the kit's course files alike. What cannot be used is a ``FileRead`` that
says why in a sentence for the student, never an exception.

``staged`` writes the bytes read to a private folder, so the runner only ever copies the grader's
own regular files into a run's folder.
"""

from __future__ import annotations

import contextlib
import enum
import errno
import os
import shutil
import stat
import tempfile

try:
    import fcntl
except ImportError:  # not POSIX: nothing to lock against
    fcntl = None  # type: ignore[assignment]  # (checked for None before any use)
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Mapping, Optional

# A submission file larger than this is not read (a student's answer is a few kB).
MAX_SOURCE_BYTES = 1024 * 1024

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
# Where open() cannot work relative to a folder's descriptor (Windows), names are joined to its path.
_AT_SUPPORTED = os.open in os.supports_dir_fd and os.stat in os.supports_dir_fd


class Kind(enum.Enum):
    """What reading one file of a submission found."""

    READ = "read"  # a regular file, its bytes read
    MISSING = "missing"  # nothing by that name
    TOO_LARGE = "too_large"  # a regular file larger than MAX_SOURCE_BYTES, not read
    REFUSED = "refused"  # something else (a link, a hard link, a FIFO, a folder, unreadable): ``reason`` says what


@dataclass(frozen=True)
class FileRead:
    """One file of a submission: its name, what was found, its bytes (when read) and, if it was not
    read, a sentence for the student that says why and what to do."""

    name: str
    kind: Kind
    data: bytes = b""
    reason: str = ""


def _what_it_is(mode: int) -> str:
    for test, words in (
        (stat.S_ISLNK, "a symbolic link"),
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a named pipe (FIFO)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    ):
        if test(mode):
            return words
    return "not a regular file"


def _refused(name: str, mode: int) -> FileRead:
    what = _what_it_is(mode)
    if what == "a symbolic link":
        advice = "hand in the file itself, not a link to it (the grader does not follow links)"
    else:
        advice = "hand in the exercise file itself, as a plain file"
    return FileRead(name, Kind.REFUSED, reason=f"{name} is {what}: {advice}.")


def _hard_link(name: str, links: int) -> FileRead:
    others = "another name" if links == 2 else f"{links - 1} other names"
    return FileRead(
        name,
        Kind.REFUSED,
        reason=(
            f"{name} is a hard link (the same file also has {others}, which may be someone else's file "
            "or one you may not read), so the grader did not read it: hand in a copy, not a link."
        ),
    )


def _unreadable(name: str, error: OSError) -> FileRead:
    return FileRead(
        name,
        Kind.REFUSED,
        reason=f"{name} could not be read ({error.strerror or error}): hand it in again as a plain file.",
    )


def _read_one(folder_fd: Optional[int], folder: Path, name: str) -> FileRead:
    """Read ``name`` in the folder open as ``folder_fd`` (or, without descriptor support, at ``folder``)."""
    if not name or name in (".", "..") or "/" in name or os.sep in name or (os.altsep and os.altsep in name):
        raise ValueError(f"{name!r} is not the name of a file in a folder")
    where = {"dir_fd": folder_fd} if folder_fd is not None else {}
    target = name if folder_fd is not None else str(folder / name)
    try:
        info = os.stat(target, follow_symlinks=False, **where)
    except FileNotFoundError:
        return FileRead(name, Kind.MISSING)
    except OSError as error:
        return _unreadable(name, error)
    if not stat.S_ISREG(info.st_mode):
        return _refused(name, info.st_mode)  # never opened: opening a FIFO or a device can block or act
    try:
        handle = os.open(target, _OPEN_FLAGS, **where)
    except FileNotFoundError:
        return FileRead(name, Kind.MISSING)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.EMLINK):  # swapped for a link since lstat (EMLINK on BSD)
            return _refused(name, stat.S_IFLNK)
        return _unreadable(name, error)
    try:
        opened = os.fstat(handle)
        if not stat.S_ISREG(opened.st_mode):
            return _refused(name, opened.st_mode)
        if opened.st_nlink > 1:  # the very file open here: a name added or removed later changes nothing read
            return _hard_link(name, opened.st_nlink)
        chunks, size = [], 0
        while size <= MAX_SOURCE_BYTES:
            chunk = os.read(handle, MAX_SOURCE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        return _unreadable(name, error)
    finally:
        os.close(handle)
    if size > MAX_SOURCE_BYTES:
        return FileRead(name, Kind.TOO_LARGE, reason=f"{name} is larger than {MAX_SOURCE_BYTES // 1024 // 1024} MiB.")
    return FileRead(name, Kind.READ, data=b"".join(chunks))


def read_files(folder: Path, names: Iterable[str], *, follow_folder: bool, shown: str = "") -> Dict[str, FileRead]:
    """Each of ``names`` in ``folder``, read as a regular file of that very folder, by name.

    ``follow_folder`` False: ``folder`` itself must not be a link either (a student's folder in a
    class); True for a folder the person running the grader named. ``shown`` is the folder's name
    for messages. When the folder cannot be opened, every name is REFUSED with the reason.
    """
    names = list(dict.fromkeys(names))
    shown = shown or str(folder)
    if not _AT_SUPPORTED:
        if not follow_folder and folder.is_symlink():
            return _all_refused(names, _folder_reason(shown, errno.ELOOP, ""))
        return {name: _read_one(None, folder, name) for name in names}
    flags = _FOLDER_FLAGS | (0 if follow_folder else getattr(os, "O_NOFOLLOW", 0))
    try:
        folder_fd = os.open(str(folder), flags)
    except OSError as error:
        number = error.errno
        if number == errno.ENOTDIR and folder.is_symlink():  # Linux says ENOTDIR for O_DIRECTORY on a link
            number = errno.ELOOP
        return _all_refused(names, _folder_reason(shown, number, error.strerror or str(error)))
    try:
        return {name: _read_one(folder_fd, folder, name) for name in names}
    finally:
        os.close(folder_fd)


def _all_refused(names: Iterable[str], reason: str) -> Dict[str, FileRead]:
    return {name: FileRead(name, Kind.REFUSED, reason=reason) for name in names}


def _folder_reason(shown: str, number: Optional[int], words: str) -> str:
    if number in (errno.ELOOP, errno.EMLINK):
        return (
            f"The folder {shown} is a symbolic link: the grader does not follow links, so none of its files "
            "were read. Hand in a folder that holds the exercise files themselves."
        )
    if number == errno.ENOTDIR:
        return f"{shown} is not a folder, so no exercise file could be read from it: hand in a folder of files."
    return f"The folder {shown} could not be read ({words}): hand it in again as a plain folder of files."


def is_regular_file(path: Path) -> bool:
    """True when ``path`` is a regular file itself (a link to one is not)."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


STAGED_PREFIX = "nim-grader-staged-"


@contextlib.contextmanager
def staged(files: Mapping[str, bytes]) -> Iterator[Path]:
    """A private folder (mode 0700) holding ``files`` (name → bytes, each 0600); removed afterwards.

    Locked from the moment it is made until it is removed, as the runners' folders are
    (``run_folders.owned_folder``): a grader that starts removes those of graders that are gone
    (``run_folders.remove_stale_roots``), never one in use.
    """
    locks: List[int] = []
    if fcntl is None:  # no flock here: nothing to lock against either (no other grader cleans up without it)
        folder = Path(tempfile.mkdtemp(prefix=STAGED_PREFIX))
    else:
        from grader.run.run_folders import owned_folder  # the run stage's rule for a folder in use

        made, locks = owned_folder(STAGED_PREFIX)
        folder = Path(made)
    try:
        for name, data in files.items():
            handle = os.open(
                str(folder / name), os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600
            )
            with os.fdopen(handle, "wb") as out:
                out.write(data)
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # before its locks go: no sweep meets it half removed
        for lock in locks:
            os.close(lock)
