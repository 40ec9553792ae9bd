"""Folders and files only the portal's user may read: made so, or refused with a sentence.

In: a path the portal keeps its state in (the data folder, its logs folder, the database, the
secret key, a log file). Out: the path made private (a folder 0700, a file 0600), or a
``UsageError`` that says what is wrong and what to do. The portal often runs as root, so a folder
or file planted before its first start by someone else (owned by another user, or a symbolic link
pointing elsewhere: ``logs -> /etc``) must never be adopted: root would change the modes of, or
write into, whatever it points at. Every check is made on the open descriptor (``O_NOFOLLOW``,
``fstat``, ``fchmod``), so nothing can be swapped between the check and the change.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from grader.errors import UsageError

_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)


def _refuse(path: Path, problem: str) -> UsageError:
    return UsageError(
        f"{path} {problem}: the portal keeps its secret key, database and logs there, so it takes only "
        "folders and files of its own user. Remove it (or chown it to that user), or choose another --data folder."
    )


def _owned(path: Path, descriptor: int) -> os.stat_result:
    found = os.fstat(descriptor)
    if found.st_uid != os.geteuid():
        os.close(descriptor)
        raise _refuse(path, f"belongs to user id {found.st_uid}, not to the user the portal runs as ({os.geteuid()})")
    return found


def private_folder(path: Path, top: bool = False) -> None:
    """``path`` made a folder of this user's, 0700 (created when missing, parents too when ``top``).
    A link is refused, except for the top folder itself (``--data`` may name a link to a folder of
    this user's); a folder of another user is refused."""
    try:
        if top:
            path.mkdir(parents=True, exist_ok=True, mode=0o700)
        else:
            path.mkdir(mode=0o700, exist_ok=True)
    except FileExistsError:
        raise _refuse(path, "is not a folder") from None
    except OSError as error:
        raise _refuse(path, f"cannot be made ({error.strerror or error})") from None
    flags = _FOLDER_FLAGS | (0 if top else os.O_NOFOLLOW)
    try:
        descriptor = os.open(str(path), flags)
    except OSError as error:
        problem = f"cannot be opened ({error})" if top else "is a symbolic link or not a folder"
        raise _refuse(path, problem) from None
    _owned(path, descriptor)
    try:
        os.fchmod(descriptor, 0o700)
    finally:
        os.close(descriptor)


def private_file(path: Path, create: bool = False) -> bool:
    """An existing ``path`` (or a new empty one when ``create``) checked to be a plain file of this
    user's, not a link, and made 0600; False when it does not exist and is not to be made."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | (os.O_CREAT if create else 0)
    try:
        descriptor = os.open(str(path), flags, 0o600)
    except FileNotFoundError:
        return False
    except OSError as error:
        raise _refuse(path, "is a symbolic link" if os.path.islink(path) else f"cannot be opened ({error})") from None
    found = _owned(path, descriptor)
    try:
        if not stat.S_ISREG(found.st_mode):
            raise _refuse(path, "is not a plain file")
        os.fchmod(descriptor, 0o600)
    finally:
        os.close(descriptor)
    return True
