"""The unit tier runs no program: no student's file, no reference solution, no command in a process
of its own. A test here that starts one fails with a sentence saying where it belongs, so the tier
stays the one every developer can run in seconds (docs/architecture.md, "Where a test goes")."""

from __future__ import annotations

import os
import subprocess

import pytest

MOVE = (
    "the unit tier runs no program ({what}): a test that runs one goes in tests/sandbox, tests/grading "
    "or tests/commands (docs/architecture.md, 'Where a test goes')"
)


@pytest.fixture(autouse=True)
def _no_program_runs(monkeypatch):
    """Every way this process could start another refuses, naming the tier to move the test to."""

    def refuse(what: str):
        def refused(*args, **kwargs):
            raise AssertionError(MOVE.format(what=what))

        return refused

    # every subprocess.Popen (run, check_output, the grader's runners) spawns through this method
    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse("subprocess"))
    for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system", "execv", "execve"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, refuse(f"os.{name}"))
