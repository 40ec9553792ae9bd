"""A hostile program: nothing one run leaves reaches a later run (of the same case or another).

Each program here writes its case's input somewhere a later run could look (a library module, an
open descriptor, a file rewritten in place, shared memory, its own or its parent's limits...) and
prints what it finds there. Every case and every repeat is a run of its own, forked from the fork
server before anything of the student's ran: a later run must find exactly what the first found.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from grader.model import Case, Limits, Task
from grader.run.execute import Program
from grader.run.forkserver import ForkServerRunner

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="these attacks need the fork server")
QUICK = Limits(time_s=3)


@pytest.fixture(scope="module")
def runner():
    with ForkServerRunner() as made:
        yield made


# Each entry: (code that sets ``seen`` to what an earlier case left, or None; code that leaves ``x``).
PLACES = {
    "a library module": ("import math\nseen = getattr(math, 'memo', None)", "math.memo = x"),
    "sys.modules": (
        "import sys\nseen = getattr(sys.modules.get('memo'), 'value', None)",
        "import types\nsys.modules['memo'] = types.SimpleNamespace(value=x)",
    ),
    "an object the collector has not freed": (
        "import gc\nseen = [o.value for o in gc.get_objects() if type(o).__name__ == 'Memo'] or None",
        "class Memo: pass\nm = Memo(); m.value = x; m.me = m",
    ),
    "a profile function": (
        "import sys\nseen = getattr(sys.getprofile(), 'value', None)",
        "def memo(*a): pass\nmemo.value = x\nsys.setprofile(memo)",
    ),
    "an open pipe": (
        "import os\ntry:\n    os.set_blocking(50, False); seen = os.read(50, 100) or None\n"
        "except OSError:\n    seen = None",
        "r, w = os.pipe(); os.write(w, x.encode()); os.dup2(r, 50); os.close(w); os.close(r)",
    ),
    "an anonymous file": (
        "import os\ntry:\n    seen = os.pread(51, 100, 0) or None\nexcept OSError:\n    seen = None",
        "fd = os.memfd_create('memo'); os.write(fd, x.encode()); os.dup2(fd, 51)",
    ),
    "the umask": ("import os\nseen = os.umask(0o022); os.umask(seen)", "os.umask(0o077)"),
    "a file rewritten in place, its time put back": (
        "seen = open(__file__).read()[-42:-1].strip('#.') or None",
        "import os\nst = os.stat(__file__)\nfd = os.open(__file__, os.O_WRONLY)\n"
        "os.pwrite(fd, ('#' + x).ljust(41, '.').encode(), st.st_size - 42); os.close(fd)\n"
        "os.utime(__file__, ns=(st.st_atime_ns, st.st_mtime_ns))",
    ),
    "System V shared memory": (
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.shmat.restype = ctypes.c_void_p\n"
        "shm = libc.shmget(0x4D454D4F, 0, 0)\n"
        "seen = ctypes.string_at(libc.shmat(shm, None, 0), 8).rstrip(b'\\0') if shm >= 0 else None",
        "shm = libc.shmget(0x4D454D4F, 4096, 0o1600)\nif shm >= 0:\n"
        "    ctypes.memmove(libc.shmat(shm, None, 0), x.encode()[:8].ljust(8, b'\\0'), 8)",
    ),
    "a message queue": (
        "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "q = libc.mq_open(b'/memo', os.O_RDWR | os.O_NONBLOCK)\nbuf = ctypes.create_string_buffer(9000)\n"
        "seen = buf.raw[: libc.mq_receive(q, buf, 9000, None)] or None if q >= 0 else None",
        "q = libc.mq_open(b'/memo', os.O_RDWR | os.O_CREAT | os.O_NONBLOCK, 0o600, None)\n"
        "if q >= 0:\n    libc.mq_send(q, x.encode(), len(x), 0)",
    ),
    # what a case can change in its own process and in its parent's (same user): a parent that
    # starts each case would hand it on
    "the limits": (
        "import resource\nseen = resource.getrlimit(resource.RLIMIT_STACK)[0]",
        "import os\nfor pid in (0, os.getppid()):\n    try:\n"
        "        s, h = resource.prlimit(pid, resource.RLIMIT_STACK)\n"
        "        resource.prlimit(pid, resource.RLIMIT_STACK, (s - 4096, h))\n"
        "    except (OSError, ValueError):\n        pass",
    ),
    "the priority": (
        "import os\nseen = os.getpriority(os.PRIO_PROCESS, 0)",
        "for pid in (0, os.getppid()):\n    try:\n"
        "        os.setpriority(os.PRIO_PROCESS, pid, os.getpriority(os.PRIO_PROCESS, pid) + 1)\n"
        "    except OSError:\n        pass",
    ),
    "the I/O priority": (
        "import ctypes, os\nlibc = ctypes.CDLL(None)\n"
        "calls = {'x86_64': (251, 252), 'aarch64': (30, 31)}.get(os.uname().machine)\n"
        "seen = libc.syscall(calls[1], 1, 0) if calls else None",
        "for pid in (0, os.getppid()):\n    if calls:\n        libc.syscall(calls[0], 1, pid, (2 << 13) | 7)",
    ),
    "the processors it may run on": (
        "import os\nseen = sorted(os.sched_getaffinity(0))",
        "for pid in (0, os.getppid()):\n    try:\n        os.sched_setaffinity(pid, {min(os.sched_getaffinity(pid))})\n"
        "    except OSError:\n        pass",
    ),
}


def program(folder: Path, text: str) -> Program:
    path = folder / "main.py"
    path.write_text(text + "\n#" + "." * 40 + "\n", encoding="utf-8")
    return Program(sys.executable, path, "main.py")


def runs(runner, prog, inputs, limits=QUICK):
    """``prog`` run on each of ``inputs`` in turn, each a run of its own with its own seed."""
    return [runner.run(replace(prog, seed=f"seed-{i}"), text.encode(), limits) for i, text in enumerate(inputs)]


@pytest.mark.parametrize("place", sorted(PLACES))
def test_nothing_a_run_leaves_reaches_the_next(runner, tmp_path, place):
    see, leave = PLACES[place]
    prog = program(tmp_path, f"{see}\nx = input()\nprint(repr(seen), flush=True)\n{leave}\n")
    seen = [result.stdout for result in runs(runner, prog, ["a", "b", "c"])]
    assert seen[0] and seen == [seen[0]] * 3, seen


def test_work_carried_from_run_to_run_gains_no_mark(tmp_path):
    """A program that does a share of some long work in each run and answers once the work is done
    (from the second run on) scores nothing: no case sees what an earlier case did."""
    from support import PROJECT

    from grader.course.course_checkers import course_checkers
    from grader.grade.grading import GradingContext, grade_file

    (tmp_path / "echo.py").write_text(
        "import math\nmath.work = getattr(math, 'work', 0) + 1\n"
        "x = input()\nprint(x if math.work >= 2 else 'not yet')\n"
    )
    cases = tuple(
        Case(name=f"echo {i}", input=f"{i}\n", expected=(f"{i}\n",), checker="text", checker_options={}, limits=QUICK)
        for i in range(4)
    )
    task = Task(id="echo", title="echo", cases=cases)
    with ForkServerRunner() as runner:
        context = GradingContext(checkers=course_checkers(PROJECT), python=sys.executable, runner=runner, jobs=1)
        assert grade_file(task, tmp_path / "echo.py", context).score == 0


LISTEN = """
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\\0nim-grader-red-team")
s.listen(1)
s.settimeout(3)
try:
    print("got", s.accept()[0].recv(100))
except OSError:
    print("nothing")
"""
TELL = """
import socket, time
time.sleep(0.5)
secret = input()
try:
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect("\\0nim-grader-red-team")
    c.send(secret.encode())
except OSError:
    pass
"""


def test_two_runs_at_once_cannot_meet_on_an_abstract_socket(runner, tmp_path):
    """Runs at once (a file's cases, a class's students) must not talk: a hidden case could tell its
    input to a visible one, which prints it. Abstract local sockets belong to a network namespace."""
    if not runner.protections(sys.executable).private_tmp:
        pytest.skip("runs have no namespaces of their own here")
    (tmp_path / "listen").mkdir()
    (tmp_path / "tell").mkdir()
    listen, tell = program(tmp_path / "listen", LISTEN), program(tmp_path / "tell", TELL)
    with ThreadPoolExecutor(2) as pool:
        heard = pool.submit(runner.run, listen, b"", Limits(time_s=5))
        pool.submit(runner.run, tell, b"hidden input\n", Limits(time_s=5)).result()
        assert heard.result().stdout == b"nothing\n"
