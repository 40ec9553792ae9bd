"""The data folder is the portal's alone (docs/portal.md, "What holds against a hostile class", 8):
whatever is planted where the portal keeps its state before a start (a named pipe, a socket, a
device, a link, a folder where a file belongs, another user's file or folder, one that others may
write to) is refused by the start-up check with a sentence naming the path, never adopted (its
mode is left as it was) and never waited on. The check is the one every start-up makes:
``settings.private_data`` (``serve``, ``dispatch``, the WSGI module, ``users``), then
``logs.private_logs`` (the processes that keep logs). One end-to-end ``serve`` is in
tests/live/test_portal_hostile.py."""

from __future__ import annotations

import os
import shutil
import stat
import threading
from pathlib import Path

import pytest

from grader.errors import UsageError
from grader.web.logs import private_logs
from grader.web.settings import private_data

NOBODY = 65534  # the uid of Debian's nobody
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user or make a device")
FILES = ["portal.sqlite3", "portal.sqlite3-wal", "portal.sqlite3-shm", "secret_key", "logs/access.log", "logs/.lock"]
FOLDERS = [".", "logs"]


def start_up(data: Path) -> None:
    """What a start-up does to the data folder before it opens anything in it."""
    private_data(data, None)
    private_logs(data / "logs")


class Watch:
    """Whether anyone opened the named pipe at ``path`` to read it while the block ran: a writer's
    open without waiting succeeds only then. A reader found waiting is let go (the writer closes, it
    reads the end), so a start-up that waits on the pipe fails this test instead of hanging it."""

    def __init__(self, path: Path) -> None:
        self.path, self.done, self.waited = path, threading.Event(), False
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self.done.wait(0.02):
            try:
                os.close(os.open(self.path, os.O_WRONLY | os.O_NONBLOCK))
                self.waited = True
            except OSError:  # ENXIO: nobody reads it
                pass

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.done.set()
        if self.thread.is_alive():
            self.thread.join()


def _ready(tmp_path: Path) -> Path:
    """A data folder as the portal leaves it: started once, with its logs folder."""
    data = tmp_path / "data"
    start_up(data)
    for name in ("secret_key", "logs/access.log"):
        (data / name).write_text("x" * 60 + "\n")
    return data


def _refused(data: Path, path: Path, said: str, watch=None) -> str:
    with pytest.raises(UsageError) as refused:
        start_up(data)
    if watch is not None:  # (said first: what the sentence says matters less than the wait)
        watch.__exit__()
        assert not watch.waited, "the start-up opened the pipe to read it (and waited for a writer)"
    sentence = str(refused.value)
    assert sentence.startswith(f"{path} {said}") and "--data" in sentence, sentence
    return sentence


def _place(data: Path, where: str) -> Path:
    path = data / where
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    return path


@pytest.mark.parametrize("where", FILES + ["logs"])
def test_a_named_pipe_where_a_file_or_folder_belongs_is_refused_and_never_waited_on(tmp_path, where):
    data = _ready(tmp_path)
    path = _place(data, where)
    os.mkfifo(path, 0o600)
    with Watch(path) as watch:
        sentence = _refused(data, path, "is a named pipe (FIFO), not a", watch)
    assert "Remove it" in sentence and stat.S_ISFIFO(os.lstat(path).st_mode)


def test_a_named_pipe_as_the_data_folder_is_refused_and_never_waited_on(tmp_path):
    data = tmp_path / "data"
    os.mkfifo(data, 0o600)
    with Watch(data) as watch:
        _refused(data, data, "is a named pipe (FIFO), not a folder", watch)


@pytest.mark.parametrize("where", FILES)
def test_a_socket_or_a_folder_where_a_file_belongs_is_refused_unopened(tmp_path, where):
    data = _ready(tmp_path)
    path = _place(data, where)
    os.mknod(path, 0o600 | stat.S_IFSOCK)
    _refused(data, path, "is a socket, not a plain file")
    path.unlink()
    path.mkdir(mode=0o700)
    _refused(data, path, "is a folder, not a plain file")


@ROOT_ONLY
@pytest.mark.parametrize("where", FILES)
def test_a_device_where_a_file_belongs_is_refused_unopened(tmp_path, where):
    data = _ready(tmp_path)
    path = _place(data, where)
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
    except PermissionError:
        pytest.skip("this container may not make devices")
    _refused(data, path, "is a device, not a plain file")


@pytest.mark.parametrize("where", FILES + ["logs"])
def test_a_link_where_a_file_or_folder_belongs_is_refused(tmp_path, where):
    data = _ready(tmp_path)
    path = _place(data, where)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o755)
    (elsewhere / "target").write_text("keep me\n")
    path.symlink_to(elsewhere if where == "logs" else elsewhere / "target")
    _refused(data, path, "is a symbolic link")
    assert oct(elsewhere.stat().st_mode & 0o777) == "0o755" and (elsewhere / "target").read_text() == "keep me\n"


@pytest.mark.parametrize("where", FILES + FOLDERS)
@pytest.mark.parametrize("mode", [0o002, 0o020], ids=["world-writable", "group-writable"])
def test_a_file_or_folder_others_may_write_to_is_refused_and_left_as_it_was(tmp_path, where, mode):
    data = _ready(tmp_path)
    path = data / where
    if not path.exists():
        path.write_text("")
    planted = (0o700 if path.is_dir() else 0o600) | mode | (0o044 if mode == 0o002 else 0o040)
    path.chmod(planted)
    sentence = _refused(data, path, "is a ")
    assert "other users may write to" in sentence and ("chmod 700" if path.is_dir() else "chmod 600") in sentence
    assert path.stat().st_mode & 0o777 == planted  # not adopted: the person decides


@ROOT_ONLY
@pytest.mark.parametrize("where", FILES + FOLDERS)
def test_a_file_or_folder_of_another_user_is_refused(tmp_path, where):
    data = _ready(tmp_path)
    path = data / where
    if not path.exists():
        path.write_text("")
    os.chown(path, NOBODY, NOBODY)
    _refused(data, path, f"belongs to user id {NOBODY}")
    assert path.stat().st_uid == NOBODY


def test_a_data_folder_as_the_portal_leaves_it_starts_again_private(tmp_path):
    data = _ready(tmp_path)
    (data / "logs" / "access.log").chmod(0o644)  # readable by others is tightened, not refused
    data.chmod(0o755)
    start_up(data)
    assert data.stat().st_mode & 0o777 == 0o700 and (data / "logs" / "access.log").stat().st_mode & 0o777 == 0o600
    link = tmp_path / "data-link"
    link.symlink_to(data)  # --data may name a link to a folder of the portal's user
    start_up(link)
