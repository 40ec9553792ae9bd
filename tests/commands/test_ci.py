"""CI (``.ci/run``) runs the suite with tox and, as root, once more as an unprivileged user; tests
themselves never install system packages.

``.ci/run`` is run for real here, with the commands that would change the machine or take minutes
(``id``, ``useradd``, ``runuser``, ``python3``, ``apt-get``, ...) replaced by stubs that record
how they were called.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from support import PROJECT

STUB = """#!/bin/sh
echo "$(basename "$0") $*" >> "{log}"
{body}
"""

STUBS = {
    "id": 'if [ "$1" = -u ] && [ -z "$2" ]; then echo "$CI_TEST_UID"; else echo 999; fi',
    "useradd": "exit 0",
    "chown": "exit 0",
    "apt-get": "exit 1",
    "getent": 'echo "nimci:x:999:999::$CI_TEST_HOME:/usr/sbin/nologin"',
    # python3 -m pip install tox; python3 -m tox -p auto
    "python3": 'case "$*" in *tox\\ -p*) echo "tox ran"; exit "$CI_TEST_TOX" ;; esac; exit 0',
    # the venv and pip as the user succeed; pytest prints its summary line and ends as told
    "runuser": 'case "$*" in *pytest*) echo "1 failed, 2 passed in 0.01s"; exit "$CI_TEST_PYTEST" ;; esac; exit 0',
}


def run_ci(tmp_path: Path, uid: int = 0, tox: int = 0, pytest_status: int = 0):
    """``.ci/run`` with stubs; returns (exit status, output lines, the stubs' calls)."""
    if not shutil.which("bash"):
        pytest.skip("bash is needed to run .ci/run")
    if not os.access("/usr/bin/python3", os.X_OK):
        pytest.skip("the run as a user needs Debian's /usr/bin/python3, as on the CI machine")
    stubs, home, log = tmp_path / "stubs", tmp_path / "home", tmp_path / "calls.log"
    stubs.mkdir()
    home.mkdir()
    for name, body in STUBS.items():
        (stubs / name).write_text(STUB.format(log=log, body=body))
        (stubs / name).chmod(0o755)
    env = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "HOME": str(home),
        "CI_TEST_UID": str(uid),
        "CI_TEST_HOME": str(home),
        "CI_TEST_TOX": str(tox),
        "CI_TEST_PYTEST": str(pytest_status),
    }
    done = subprocess.run(["bash", str(PROJECT / ".ci" / "run")], env=env, capture_output=True, text=True, timeout=120)
    calls = log.read_text().splitlines() if log.exists() else []
    return done.returncode, done.stdout.strip().splitlines(), calls


def test_as_root_the_suite_also_runs_as_an_unprivileged_user(tmp_path):
    status, lines, calls = run_ci(tmp_path)
    assert status == 0, lines
    user_runs = [call for call in calls if call.startswith("runuser -u nimci -- ")]
    assert any("-m venv" in call and "/usr/bin/python3" in call for call in user_runs)
    assert any("pip install" in call and "[test,dask]" in call for call in user_runs)
    assert any(call.endswith("python -m pytest -q -p no:cacheprovider tests/sandbox") for call in user_runs)
    # the run as a user goes on beside tox; what it printed comes after tox's, with its time
    tox_line = lines.index("tox ran")
    user_line = next(n for n, line in enumerate(lines) if line.startswith("The run as nimci took "))
    assert tox_line < user_line and any(
        "The sandbox tier as the unprivileged user" in line for line in lines[user_line:]
    )
    assert re.fullmatch(r"\d+ failed, \d+ passed in [\d.]+s", lines[-1]), "the last line is pytest's summary"
    assert not list(tmp_path.glob("home/nim-grader.*")), "the copy of the clone is removed"


@pytest.mark.parametrize("tox, pytest_status", [(1, 0), (0, 1), (1, 1)])
def test_ci_fails_when_either_run_fails(tmp_path, tox, pytest_status):
    status, lines, calls = run_ci(tmp_path, tox=tox, pytest_status=pytest_status)
    assert status != 0
    assert any("pytest" in call for call in calls), "the run as a user happens even after tox failed"
    assert lines[-1].endswith("s") and "passed" in lines[-1]


def test_not_root_the_run_as_a_user_is_skipped_with_a_line_saying_so(tmp_path):
    status, lines, calls = run_ci(tmp_path, uid=1000)
    assert status == 0
    assert not any(call.startswith(("runuser", "useradd")) for call in calls)
    assert any("the test run as an unprivileged user is skipped" in line for line in lines)
    assert any("tox -p auto" in call for call in calls)


def test_no_test_installs_system_packages():
    command = re.compile(r"""["'](apt-get|apt|dnf|yum|apk|pacman|zypper|brew)["']""")
    for path in sorted((PROJECT / "tests").rglob("*.py")):
        if path.name == Path(__file__).name:
            continue
        found = command.search(path.read_text(encoding="utf-8"))
        assert found is None, f"{path.name} runs {found.group(1)}: tests skip with the reason instead"
