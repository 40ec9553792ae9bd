"""The view of the file system a program has, in every configuration that grades: the system, the
parts of the interpreter it needs and its own folders; no course, no classmate's file, nothing it
can write to outside its run.

Attacks of a security review: a course inside the interpreter's folder (a virtual environment that
holds the clone) was in bubblewrap's view; as root without bubblewrap a program carried one run's
input to a later one in /run/lock and read a classmate's file in a class folder outside /tmp; as a
normal user without bubblewrap a program appended to the grader's own checker.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from grader.model import Limits
from grader.run.execute import Program
from grader.run.file_view import view_of
from grader.run.forkserver import ForkServerRunner

QUICK = Limits(time_s=10)
ROOT = os.name == "posix" and os.geteuid() == 0
SYSTEM_PYTHON = "/usr/bin/python3"
PROJECT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not Path("/proc/self/mountinfo").exists(), reason="the views are Linux's")


def _run(runner, python: str, folder: Path, text: str):
    path = folder / "look.py"
    path.write_text(text, encoding="utf-8")
    return runner.run(Program(python=python, script=path, run_name="look.py"), b"", QUICK)


@pytest.fixture
def venv_with_course(request):
    """A virtual environment whose folder holds a course, as a clone kept in it: of this interpreter,
    or (asked for with ``indirect`` "system") of /usr/bin/python3, which a run's own user can read."""
    interpreter = SYSTEM_PYTHON if getattr(request, "param", "") == "system" else sys.executable
    if not os.access(interpreter, os.X_OK):
        pytest.skip(f"no {interpreter}")
    base = Path(tempfile.mkdtemp(prefix="nim-grader-venv-", dir="/var/tmp"))
    base.chmod(0o755)
    try:
        made = subprocess.run([interpreter, "-m", "venv", "--without-pip", str(base / "venv")], timeout=120)
        if made.returncode != 0:
            pytest.skip(f"{interpreter} cannot make a virtual environment here")
        course = base / "venv" / "nim-grader" / "testcases"
        course.mkdir(parents=True)
        (course / "nim_sum.yaml").write_text("hidden answer 12345\n")
        for path in (base / "venv" / "nim-grader", course):
            path.chmod(0o755)
        (course / "nim_sum.yaml").chmod(0o644)
        yield base / "venv"
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_of_the_interpreter_only_its_own_parts_are_in_view(venv_with_course, tmp_path):
    view = view_of(str(venv_with_course / "bin" / "python"), str(tmp_path), private=[str(venv_with_course.parent)])
    assert str(venv_with_course) not in view.read_only
    assert str(venv_with_course / "pyvenv.cfg") in view.read_only
    # the standard library alone: not the packages installed beside it, in the environment or its base
    assert not any(p.startswith(str(venv_with_course / "lib")) for p in view.read_only)
    assert not any(p.startswith(str(venv_with_course / "nim-grader")) for p in view.read_only)
    assert "/usr" not in view.read_only
    assert not any(p.endswith(("site-packages", "dist-packages")) for p in view.read_only)


@pytest.mark.parametrize(
    "venv_with_course, bubblewrap",
    [("this", True), ("system", False)],
    ids=["with bubblewrap", "without bubblewrap"],
    indirect=["venv_with_course"],
)
def test_a_course_inside_the_interpreters_folder_is_out_of_view(venv_with_course, tmp_path, bubblewrap):
    if bubblewrap and not shutil.which("bwrap"):
        pytest.skip("bubblewrap is not installed")
    python = str(venv_with_course / "bin" / "python")
    look = f"import os\nprint(os.path.exists({str(venv_with_course / 'nim-grader' / 'testcases')!r}))\n"
    with ForkServerRunner(bubblewrap, private=[str(venv_with_course / "nim-grader")]) as runner:
        try:
            done = _run(runner, python, tmp_path, look)
        except Exception as error:  # root without bubblewrap: an interpreter only root may read
            pytest.skip(f"this interpreter cannot run here: {error}")
        protections = runner.protections(python)
    if not protections.files_hidden:
        pytest.skip(f"no view of the file system here: {protections.describe()}")
    assert done.stdout == b"False\n", done.stdout + done.stderr


@pytest.mark.skipif(not ROOT, reason="the grader as root, without bubblewrap")
def test_as_root_without_bubblewrap_a_program_sees_no_class_folder_and_writes_nowhere(tmp_path):
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        pytest.skip("no /usr/bin/python3, which a run's own user can read")
    classroom = Path(tempfile.mkdtemp(prefix="nim-grader-class-", dir="/var/tmp"))
    try:
        classroom.chmod(0o755)
        (classroom / "bob").mkdir(mode=0o755)
        (classroom / "bob" / "nim_sum.py").write_text("bob's answer\n")
        (classroom / "bob" / "nim_sum.py").chmod(0o644)
        look = (
            "import os\n"
            f"print(os.path.exists({str(classroom / 'bob' / 'nim_sum.py')!r}))\n"
            "for place in ('/run/lock/carried', '/var/tmp/carried', '/tmp/../carried', '/usr/carried'):\n"
            "    try:\n"
            "        open(place, 'w').write('input of an earlier run')\n"
            "        print('wrote', place)\n"
            "    except OSError:\n"
            "        pass\n"
        )
        with ForkServerRunner(False, private=[str(classroom)]) as runner:
            done = _run(runner, SYSTEM_PYTHON, tmp_path, look)
            again = _run(runner, SYSTEM_PYTHON, tmp_path, "import os\nprint(os.path.exists('/run/lock/carried'))\n")
            protections = runner.protections(SYSTEM_PYTHON)
        assert protections.files_hidden and protections.no_network, protections.describe()
        assert done.stdout.splitlines()[0] == b"False", done.stdout + done.stderr
        assert b"wrote /run/lock" not in done.stdout and b"wrote /usr" not in done.stdout
        assert again.stdout == b"False\n"
        assert not Path("/run/lock/carried").exists() and not Path("/var/tmp/carried").exists()
    finally:
        shutil.rmtree(classroom, ignore_errors=True)
        for left in ("/run/lock/carried", "/var/tmp/carried"):
            Path(left).unlink(missing_ok=True)


@pytest.mark.skipif(not ROOT or not shutil.which("runuser"), reason="needs root and runuser to act as a normal user")
def test_as_a_normal_user_without_bubblewrap_a_program_cannot_change_the_graders_files(tmp_path):
    """The grader run by a normal user who owns its files (an editable install): a program of that
    same user must not append to them."""
    if not os.access(SYSTEM_PYTHON, os.X_OK):
        pytest.skip("no /usr/bin/python3 to run as a normal user")
    if any(not (os.stat(p).st_mode & 0o005) for p in [PROJECT, *PROJECT.parents] if p != Path("/")):
        pytest.skip("the project's folder is not readable to other users")
    shared = Path(tempfile.mkdtemp(prefix="nim-grader-user-", dir="/var/tmp"))
    try:
        shared.chmod(0o777)
        checker = shared / "checker.py"
        checker.write_text("# the grader's own checker\n")
        shutil.chown(checker, "nobody")
        script = shared / "attack.py"
        script.write_text(  # (a write may land in the run's own folders: only the real file matters)
            f"import os\nprint('seen' if os.path.exists({str(checker)!r}) else 'unseen')\n"
            f"try:\n    open({str(checker)!r}, 'a').write('# every later student passes\\n')\n"
            "except OSError:\n    pass\n"
        )
        script.chmod(0o644)
        driver = (
            f"import sys; sys.path.insert(0, {str(PROJECT)!r})\n"
            "from pathlib import Path\nfrom grader.run.forkserver import ForkServerRunner\n"
            "from grader.run.execute import Program\nfrom grader.model import Limits\n"
            f"program = Program(python={SYSTEM_PYTHON!r}, script=Path({str(script)!r}), run_name='attack.py')\n"
            "with ForkServerRunner(False) as r:\n"
            "    done = r.run(program, b'', Limits(time_s=5))\n"
            f"    print(r.protections({SYSTEM_PYTHON!r}).files_hidden, done.stdout.decode().strip())\n"
        )
        done = subprocess.run(
            [shutil.which("runuser"), "-u", "nobody", "--", SYSTEM_PYTHON, "-c", driver],
            capture_output=True,
            text=True,
            timeout=120,
            cwd="/",
            env={"PATH": "/usr/bin:/bin", "TMPDIR": str(shared)},
        )
        hidden, said = done.stdout.split()[-2:] if done.stdout.strip() else ("?", done.stderr[-500:])
        if hidden != "True":
            pytest.skip(f"no view of the file system for a normal user here: {done.stdout} {done.stderr[-300:]}")
        assert said == "unseen", done.stdout + done.stderr
        assert checker.read_text() == "# the grader's own checker\n"
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_a_view_that_cannot_be_made_is_said_never_silently_dropped(tmp_path):
    """Without bubblewrap, the fork server makes the view itself; where it cannot, the header says
    so and no longer claims the course out of view (``grade`` and ``serve`` then refuse)."""
    if not ROOT or not os.access(SYSTEM_PYTHON, os.X_OK):
        pytest.skip("the server's own view, as root, with /usr/bin/python3")
    from dataclasses import replace

    with ForkServerRunner(False) as runner:
        plan = runner.plan(SYSTEM_PYTHON)
        broken = replace(plan.view, read_only=(*plan.view.read_only, "/nonexistent-nim-grader-part"))
        runner._plans[SYSTEM_PYTHON] = replace(plan, view=broken)
        protections = runner.protections(SYSTEM_PYTHON)
    assert not protections.files_hidden and not protections.no_network
    assert "could not make its view of the file system" in protections.describe()
