"""Cleanup that a program cannot break: what it leaves is removed, its user id given back, and what
graders that are gone left behind is removed by the next one.

A run folder may hold a tree thousands of levels deep (``shutil.rmtree`` raises RecursionError on it,
and its paths outgrow PATH_MAX), folders made unreadable, links pointing anywhere.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support import PROJECT

from grader.errors import GraderError
from grader.run.run_folders import ROOT_PREFIX, remove_stale_roots, remove_tree
from grader.run.uid_pool import UidPool

DEEP = 1500


def _deep_tree(base: Path, depth: int = DEEP) -> None:
    """A chain of ``depth`` folders with a file in each, made through file descriptors (as a program
    would: its paths are far longer than PATH_MAX)."""
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        os.close(os.open("f", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd))
        following = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = following
    os.close(fd)


def test_a_tree_thousands_of_levels_deep_is_removed(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    _deep_tree(folder)
    assert remove_tree(str(folder)) is True
    assert not folder.exists()


def test_unreadable_folders_and_links_are_removed_and_links_never_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    folder = tmp_path / "run"
    (folder / "a" / "b").mkdir(parents=True)
    (folder / "a" / "b" / "x").write_text("x")
    (folder / "a" / "link").symlink_to(outside)
    (folder / "link-to-file").symlink_to(outside / "keep.txt")
    (folder / "a" / "b").chmod(0)
    (folder / "a").chmod(0o500)
    assert remove_tree(str(folder)) is True
    assert not folder.exists() and (outside / "keep.txt").read_text() == "mine"


def test_removing_something_that_cannot_be_removed_says_so_and_does_not_raise(tmp_path):
    assert remove_tree(str(tmp_path / "never-made")) is True
    file = tmp_path / "file"
    file.write_text("x")
    assert remove_tree(str(file)) is True and not file.exists()


def test_a_program_that_leaves_a_deep_tree_gets_its_marks_and_leaves_nothing(tmp_path):
    """The issue's example: a correct nim_sum that leaves a folder 1,500 levels deep. ``check`` used to
    exit 2 (RecursionError), leaving the run folder and its user id behind."""
    source = (PROJECT / "solutions" / "nim_sum.py").read_text()
    maker = (
        "import os\n"
        "fd = os.open('.', os.O_RDONLY)\n"
        f"for _ in range({DEEP}):\n"
        "    os.mkdir('d', dir_fd=fd)\n"
        "    nxt = os.open('d', os.O_RDONLY, dir_fd=fd)\n"
        "    os.close(fd)\n"
        "    fd = nxt\n"
    )
    work = tmp_path / "work"
    work.mkdir()
    (work / "nim_sum.py").write_text(maker + source)
    temp = tmp_path / "temp"
    temp.mkdir()
    temp.chmod(0o755)
    done = subprocess.run(
        [sys.executable, "-m", "grader", "check", str(work / "nim_sum.py"), "--report", str(tmp_path / "r")],
        cwd=PROJECT,
        env=dict(os.environ, TMPDIR=str(temp)),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(temp.iterdir()) == []


@pytest.mark.skipif(
    os.name != "posix" or os.geteuid() != 0, reason="user ids for runs are root's (its lock folder too)"
)
def test_a_wait_for_a_user_id_is_bounded_and_says_why(tmp_path):
    pool = UidPool(first=990_000, size=1, folder=str(tmp_path / "locks"))
    other = UidPool(first=990_000, size=1, folder=str(tmp_path / "locks"))
    held = pool.take()
    try:
        with pytest.raises(GraderError, match="in use for 0.2 s"):
            other.take(wait_s=0.2)
    finally:
        pool.give(held)
    assert other.take(wait_s=0.2) == held


def _stale_root(base: Path, name: str) -> Path:
    root = base / f"{ROOT_PREFIX}{name}"
    (root / "run-x" / "deep").mkdir(parents=True)
    (root / ".owner").write_text("")
    return root


def test_the_roots_of_graders_that_are_gone_are_removed_and_living_ones_kept(tmp_path):
    gone = _stale_root(tmp_path, "gone")
    alive = _stale_root(tmp_path, "alive")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX);"
            " print('held', flush=True); time.sleep(60)",
            str(alive / ".owner"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        unowned_recent = tmp_path / f"{ROOT_PREFIX}starting"
        unowned_recent.mkdir()
        link = tmp_path / f"{ROOT_PREFIX}link"
        link.symlink_to(alive)
        assert remove_stale_roots(str(tmp_path)) == [str(gone)]
        assert alive.is_dir() and unowned_recent.is_dir() and link.is_symlink()
    finally:
        holder.kill()
        holder.wait()
    assert str(alive) in remove_stale_roots(str(tmp_path))


def test_a_killed_grader_leaves_nothing_once_another_starts(tmp_path):
    """A SIGKILLed portal or ``check`` cannot clean up: the next grader on the machine does."""
    marker = f"left-{os.urandom(6).hex()}"
    looping = tmp_path / "work" / "nim_sum.py"
    looping.parent.mkdir()
    looping.write_text(
        "import os, subprocess, sys\nopen('left-behind', 'w').write('x' * 1000)\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)', {marker!r}],\n"
        "                 start_new_session=True)\n"
        "while True:\n    pass\n"
    )
    temp = tmp_path / "temp"
    temp.mkdir()
    temp.chmod(0o755)
    env = dict(os.environ, TMPDIR=str(temp))
    command = [sys.executable, "-m", "grader", "check", str(looping), "--report", str(tmp_path / "r")]
    grader = subprocess.Popen(command, cwd=PROJECT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(temp.glob(f"{ROOT_PREFIX}*/run-*")):
        time.sleep(0.05)
    assert any(temp.glob(f"{ROOT_PREFIX}*/run-*")), "the grader never started a run"
    killed = next(temp.glob(f"{ROOT_PREFIX}*")).name
    time.sleep(0.3)  # its program has started its own
    grader.send_signal(signal.SIGKILL)
    grader.wait()
    time.sleep(0.5)  # its fork server ends when its socket closes
    assert any(temp.iterdir())
    stub = tmp_path / "stub" / "exclusive_or.py"
    stub.parent.mkdir()
    stub.write_text("print(0)\n")
    subprocess.run(
        [sys.executable, "-m", "grader", "check", str(stub), "--report", str(tmp_path / "r2")],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        timeout=300,
    )
    assert list(temp.iterdir()) == []
    assert not _running(marker), "a process the killed grader's program left is still running"
    if killed:
        assert not _cgroups_named(killed), "the killed grader's cgroups are still there"


def _running(marker: str) -> bool:
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker.encode() in (entry / "cmdline").read_bytes():
                return True
        except OSError:
            pass
    return False


def _cgroups_named(name: str) -> list:
    from grader.run.cgroups import _mounts, _own_paths

    mounts, paths = _mounts(), _own_paths()
    return [key for key in ("memory", "pids", "cpu", "2") if key in mounts and key in paths
            and os.path.exists(os.path.join(mounts[key] + paths[key], name))]  # fmt: skip


def test_a_root_is_locked_while_its_runner_lives():
    from grader.run.run_folders import WorkRoot

    root = WorkRoot()
    try:
        fd = os.open(os.path.join(root.path, ".owner"), os.O_RDONLY)
        try:
            with pytest.raises(OSError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
        assert root.path not in remove_stale_roots(os.path.dirname(root.path))
    finally:
        root.close()
    assert not os.path.exists(root.path)


def test_a_folder_being_set_up_is_never_taken_for_one_whose_grader_is_gone(tmp_path, monkeypatch):
    """Another grader cleans up at the worst moment: a folder's owner file made, its lock not yet taken."""
    import tempfile

    from grader.run.run_folders import WorkRoot
    from grader.submission.files import staged

    real = fcntl.flock
    removed = []

    def flock_after_a_cleanup(descriptor, operation):
        if operation == fcntl.LOCK_EX:  # just before the lock is taken, another grader starts
            removed.extend(remove_stale_roots(str(tmp_path)))
        return real(descriptor, operation)

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(fcntl, "flock", flock_after_a_cleanup)
    with staged({"nim_sum.py": b"print(1)\n"}) as folder:
        assert (folder / "nim_sum.py").read_bytes() == b"print(1)\n"
    root = WorkRoot()
    try:
        assert os.path.isdir(os.path.join(root.path, ".view"))
    finally:
        root.close()
    assert removed == []
