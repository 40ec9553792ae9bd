"""Graders at once on one machine: each grades as if alone (docs/security.md, "Graders side by side").

Two ``check`` runs and a ``grade`` share a temporary folder of the test's own (``TMPDIR``) with a
grader that sweeps it for what gone graders left, over and over, seeing the file system's clock an
hour behind its own (a network /tmp, a virtual machine's shared folder).
"""

from __future__ import annotations

import os
import subprocess
import sys

from support import PROJECT, course_of, solution

_SWEEPER = r"""
import os, sys, time
real = time.time
time.time = lambda: real() + 3600
sys.path.insert(0, sys.argv[1])
from grader.run.run_folders import remove_stale_roots
sweeps = 0
while not os.path.exists(sys.argv[2]):
    remove_stale_roots()
    sweeps += 1
print(sweeps)
"""


def test_check_and_grade_at_once_beside_a_sweeping_grader_each_grade_normally(tmp_path):
    temp = tmp_path / "temp"
    temp.mkdir()
    temp.chmod(0o755)  # the runs' own users pass through to their folders
    env = dict(os.environ, TMPDIR=str(temp))
    stop = tmp_path / "stop"
    sweeper = subprocess.Popen(
        [sys.executable, "-c", _SWEEPER, str(PROJECT), str(stop)], env=env, stdout=subprocess.PIPE, text=True
    )
    course = str(course_of(tmp_path / "course", ["bin_num", "exclusive_or", "nim_sum"]))
    room = tmp_path / "class"
    for student in ("alice", "bob"):
        (room / student).mkdir(parents=True)
        for task in ("bin_num", "exclusive_or", "nim_sum"):
            (room / student / f"{task}.py").write_text(solution(task))
    grader = [sys.executable, "-m", "grader"]
    commands = [
        [*grader, "check", str(PROJECT / "solutions" / "nim_sum.py"), "--report", str(tmp_path / "r1")],
        [*grader, "check", str(PROJECT / "solutions" / "bin_num.py"), "--report", str(tmp_path / "r2")],
        [*grader, "grade", str(room), "--out", str(tmp_path / "out"), "--allow-unprotected"],
    ]
    commands = [[*command, "--course", course] for command in commands]
    try:
        running = [
            subprocess.Popen(c, cwd=PROJECT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for c in commands
        ]
        ended = []
        for process in running:
            out, err = process.communicate(timeout=600)
            ended.append((process.returncode, out, err))
    finally:
        stop.touch()
        sweeps = int(sweeper.communicate(timeout=60)[0])
    assert sweeps > 0
    assert [code for code, _, _ in ended] == [0, 0, 0], [err for _, _, err in ended]
    assert not any("grader failed" in err for _, _, err in ended)
    assert "nim_sum  accepted  37/37" in ended[0][1] and "bin_num  accepted" in ended[1][1]
    assert "alice: " in ended[2][2] and "bob: " in ended[2][2]  # every task accepted: exit status 0
    assert os.listdir(temp) == []
