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
import subprocess
import sys

from support import PROJECT

from grader.run.run_folders import remove_stale_roots

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
