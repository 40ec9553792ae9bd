"""Folders and files only the portal's user may read: made so, or refused with a sentence.

In: a path the portal keeps its state in (the data folder, its logs folder, the database, the
secret key, a log file). Out: the path made private (a folder 0700, a file 0600), or a
``UsageError`` that names the path, says what is wrong and what to do. The portal often runs as
root, so nothing planted in the data folder before a start is adopted or waited on:
- a folder or file of another user, or one that others could write to (a folder or file with
  group or other write permission: whatever it holds, or holds now, anyone may have put or swapped
  there);
- a symbolic link (``logs -> /etc``): root would change the modes of, or write into, whatever it names;
- a named pipe (FIFO), socket or device where a file belongs: opening a FIFO to read waits for a
  writer that never comes, and a device is never opened at all. A file is looked at with ``lstat``
  before it is opened, and opened with ``O_NONBLOCK``, so a start-up never waits on one.
Every check that precedes a change is made on the open descriptor (``O_NOFOLLOW``, ``fstat``,
``fchmod``), so nothing can be swapped between the check and the change.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Optional

from grader.errors import UsageError

_OPEN = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_FOLDER_FLAGS = _OPEN | os.O_DIRECTORY
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


def _refuse(path: Path, problem: str, remedy: str = "Remove it (or chown it to that user)") -> UsageError:
    return UsageError(
        f"{path} {problem}: the portal keeps its secret key, database and logs there, so it takes only "
        f"folders and files of its own user, that no other may write to. {remedy}, or choose another --data folder."
    )


def _kind(mode: int) -> str:
    """What a path that is not a plain file is, in words."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a plain file"


def _what_is_at(path: Path) -> Optional[os.stat_result]:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _owned(path: Path, descriptor: int, kind: str) -> os.stat_result:
    """The descriptor's ``fstat``, checked: this user's, and writable by nobody else; closed if not."""
    found = os.fstat(descriptor)
    if found.st_uid != os.geteuid():
        os.close(descriptor)
        raise _refuse(path, f"belongs to user id {found.st_uid}, not to the user the portal runs as ({os.geteuid()})")
    if found.st_mode & _OTHERS_WRITE:  # (never made so here: the portal's own are 0700 and 0600)
        os.close(descriptor)
        held = "what it holds" if kind == "folder" else "what it says"
        octal = "700" if kind == "folder" else "600"
        raise _refuse(
            path,
            f"is a {kind} other users may write to ({stat.filemode(found.st_mode)})",
            f"Check that {held} is yours and nothing else, then chmod {octal} {path} and start again",
        )
    return found


def private_folder(path: Path, top: bool = False) -> None:
    """``path`` made a folder of this user's, 0700 (created when missing, parents too when ``top``).
    A link is refused, except for the top folder itself (``--data`` may name a link to a folder of
    this user's); a folder of another user, or one others may write to, is refused."""
    try:
        if top:
            path.mkdir(parents=True, exist_ok=True, mode=0o700)
        else:
            path.mkdir(mode=0o700, exist_ok=True)
    except FileExistsError:
        found = _what_is_at(path)
        raise _refuse(path, f"is {_kind(found.st_mode)}, not a folder" if found else "is not a folder") from None
    except OSError as error:
        raise _refuse(path, f"cannot be made ({error.strerror or error})") from None
    flags = _FOLDER_FLAGS | (0 if top else os.O_NOFOLLOW)
    try:
        descriptor = os.open(str(path), flags)
    except OSError as error:
        problem = f"cannot be opened ({error})" if top else "is a symbolic link or not a folder"
        raise _refuse(path, problem) from None
    _owned(path, descriptor, "folder")
    try:
        os.fchmod(descriptor, 0o700)
    finally:
        os.close(descriptor)


def private_file(path: Path, create: bool = False) -> bool:
    """An existing ``path`` (or a new empty one when ``create``) checked to be a plain file of this
    user's, not a link, written by nobody else, and made 0600; False when it does not exist and is
    not to be made. What is not a plain file is refused before it is opened."""
    found = _what_is_at(path)
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise _refuse(path, f"is {_kind(found.st_mode)}, not a plain file")
    flags = _OPEN | os.O_NOFOLLOW | (os.O_CREAT if create else 0)
    try:
        descriptor = os.open(str(path), flags, 0o600)
    except FileNotFoundError:
        return False
    except OSError as error:
        raise _refuse(path, "is a symbolic link" if os.path.islink(path) else f"cannot be opened ({error})") from None
    opened = _owned(path, descriptor, "file")
    try:
        if not stat.S_ISREG(opened.st_mode):  # (swapped since the lstat: the open did not wait, O_NONBLOCK)
            raise _refuse(path, f"is {_kind(opened.st_mode)}, not a plain file")
        os.fchmod(descriptor, 0o600)
    finally:
        os.close(descriptor)
    return True
