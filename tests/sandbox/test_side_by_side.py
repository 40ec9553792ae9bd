"""Graders side by side on one machine never break each other (docs/security.md, "Graders side by side").

Each grader removes what graders that are gone left in the temporary folder. Here several graders
at once make their folders, use them and sweep, round after round, in a temporary folder of the
test's own (``TMPDIR``); the sweeping graders see the file system's clock an hour behind theirs
(a network /tmp, a virtual machine's shared folder), so a rule that leaned on timestamps fails
within a few dozen rounds, where one that leans on locks alone never does.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from support import PROJECT

from grader.errors import GraderError
from grader.model import Limits
from grader.run import sandbox
from grader.run.execute import Program
from grader.run.forkserver import ForkServerRunner
from grader.run.run_folders import remove_stale_roots
from grader.run.uid_pool import UidPool

GRADERS = 6
ROUNDS = 150  # the rule before the folder's own lock failed 8 to 43 of 6 x 150 rounds, the first within 10

# One grader: a work root and a run folder in it, a staged submission, a sweep; once more at its end
# a root and a staged submission it leaves behind, killed.
_GRADER = r"""
import json, os, sys, tempfile, time, traceback
real = time.time
time.time = lambda: real() + 3600  # the file system's clock, as this grader sees it, is an hour behind
sys.path.insert(0, sys.argv[1])
from grader.run.run_folders import ROOT_PREFIX, WorkRoot, remove_stale_roots, remove_tree
from grader.submission.files import staged

failures = []
for _ in range(int(sys.argv[2])):
    try:
        root = WorkRoot()
        try:
            run = tempfile.mkdtemp(prefix="run-", dir=root.path)
            with open(os.path.join(run, "nim_sum.py"), "w") as out:
                out.write("print(0)\n")
            assert remove_tree(run)
        finally:
            root.close()
        with staged({"nim_sum.py": b"print(1)\n"}) as folder:
            assert (folder / "nim_sum.py").read_bytes() == b"print(1)\n"
    except Exception:
        failures.append(traceback.format_exc(limit=2))
    remove_stale_roots()
left = WorkRoot()
staged({"nim_sum.py": b"print(2)\n"}).__enter__()
print(json.dumps(failures), flush=True)
os._exit(0)  # as a grader killed: its folders left behind, their locks let go by the system
"""


def test_graders_side_by_side_never_remove_each_others_folders(tmp_path):
    temp = tmp_path / "temp"
    temp.mkdir()
    env = dict(os.environ, TMPDIR=str(temp))
    command = [sys.executable, "-c", _GRADER, str(PROJECT), str(ROUNDS)]
    graders = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True) for _ in range(GRADERS)]
    failures = [json.loads(grader.communicate(timeout=120)[0]) for grader in graders]
    assert [len(each) for each in failures] == [0] * GRADERS, failures[0][:1] + failures[-1][:1]
    # what the graders that are gone left is removed by the next sweep, at once
    remove_stale_roots(str(temp))
    assert sorted(os.listdir(temp)) == []


def _running_as(uid: int) -> list:
    """The processes whose real user id is ``uid``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            lines = (entry / "status").read_text().splitlines() if entry.name.isdigit() else []
        except OSError:
            continue
        if any(line.split()[:2] == ["Uid:", str(uid)] for line in lines):
            found.append(int(entry.name))
    return found


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="user ids for runs are root's")
def test_a_user_id_is_no_other_graders_while_a_program_may_still_run_as_it(tmp_path, monkeypatch):
    """A grader that is gone (its own hold on the id gone with it) while its fork server still runs
    a program: the id is not handed out again until the server has ended what runs as it. Before,
    another grader got it at once, and the server then killed whatever ran as it, that grader's run too."""
    uid = 991_000 + secrets.randbelow(8_000)  # a pool of one id, apart from every other grader's
    locks = str(tmp_path / "uids")
    pools = []

    def one_id_pool():
        pools.append(UidPool(first=uid, size=1, folder=locks))
        return pools[-1]

    monkeypatch.setattr(sandbox, "UidPool", one_id_pool)
    script = tmp_path / "waits.py"
    script.write_text("import time\ntime.sleep(120)\n")
    program = Program(python=sys.executable, script=script, run_name="waits.py")
    other = UidPool(first=uid, size=1, folder=locks)
    with ForkServerRunner() as runner:
        runner.protections(sys.executable)  # its server started, and the probes run as the id done
        run = threading.Thread(target=runner.run, args=(program, b"", Limits(time_s=60)))
        run.start()
        deadline = time.monotonic() + 60
        while not _running_as(uid) and time.monotonic() < deadline:
            time.sleep(0.02)
        program_pids = _running_as(uid)
        assert program_pids, "the program never started"
        pools[0].give(uid)  # as when the grader's process is killed: its own hold goes with it
        with pytest.raises(GraderError, match="in use"):
            other.take(wait_s=0.2)
        for pid in program_pids:
            os.kill(pid, signal.SIGKILL)
        run.join(timeout=60)
    assert other.take(wait_s=30) == uid
    other.give(uid)
