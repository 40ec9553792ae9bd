"""A hostile program in a shared process: nothing one case leaves reaches the next case.

Each program here writes its case's input somewhere a later case could look (a library module, an
open descriptor, a file rewritten in place, shared memory, its process's limits...) and prints what
it finds there. Alone, each run finds nothing; in a shared process a case must find nothing either,
or not run there at all (None: it runs again alone). A case that found a marker could carry work
from one case to the next (a gain: accepted there, too slow or wrong alone), and the program itself
can reach and change the code that decides whether a case was clean, so no check inside the
program's process can stand in for a fresh process.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest

from grader.model import Case, Limits, Task
from grader.run.execute import Program
from grader.run.forkserver import ForkServerRunner

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the shared process is the fork server's")
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


def shared_and_alone(runner, prog, inputs, limits=QUICK):
    runs = [(text.encode(), limits, f"seed-{i}") for i, text in enumerate(inputs)]
    shared = runner.run_together(prog, runs)
    alone = [runner.run(replace(prog, seed=seed), stdin, limits) for stdin, limits, seed in runs]
    return shared, alone


def assert_as_alone(shared, alone):
    """Each case that ran in the shared process printed what it prints alone."""
    assert shared[0] is not None  # the first case runs there
    for together, by_itself in zip(shared, alone):
        assert together is None or together.stdout == by_itself.stdout, (together.stdout, by_itself.stdout)


@pytest.mark.parametrize("place", sorted(PLACES))
def test_nothing_a_case_leaves_reaches_the_next(runner, tmp_path, place):
    see, leave = PLACES[place]
    prog = program(tmp_path, f"{see}\nx = input()\nprint(x, repr(seen), flush=True)\n{leave}\n")
    shared, alone = shared_and_alone(runner, prog, ["a", "b", "c"])
    assert_as_alone(shared, alone)


# Finds the loop's frame and makes its check of what a case left always say "nothing".
PATCH_THE_LOOP = """
import sys
loop = sys.modules.get("case_loop")
frame = sys._getframe()
while frame is not None and frame.f_code.co_name != "serve":
    frame = frame.f_back
if loop is not None and frame is not None:
    before = frame.f_locals.get("before")
    loop.state = lambda folder: before
"""


def test_a_program_that_patches_the_loop_keeps_nothing(runner, tmp_path):
    prog = program(
        tmp_path,
        "import os\nseen = open('/tmp/memo').read() if os.path.exists('/tmp/memo') else None\n"
        f"x = input()\nprint(x, repr(seen), flush=True)\n{PATCH_THE_LOOP}\nopen('/tmp/memo', 'w').write(x)\n",
    )
    assert_as_alone(*shared_and_alone(runner, prog, ["a", "b", "c"]))


# Finds the control socket, says the case ended cleanly, then takes the next case's descriptors and
# answers it with what the first case knew.
TAKE_OVER = """
import array, json, os, socket, stat
x = input()
print(x, "alone", flush=True)
control = None
for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            s = socket.socket(fileno=os.dup(fd))
            if s.type == socket.SOCK_SEQPACKET:
                control = s
    except OSError:
        pass
if control is not None:
    sys.stdout.flush()
    control.send(json.dumps({"status": 0, "clean": True}).encode())
    fds = array.array("i")
    _, ancillary, _, _ = control.recvmsg(4096, socket.CMSG_SPACE(4 * fds.itemsize))
    fds.frombytes(ancillary[0][2])
    stdin, stdout = fds[0], fds[1]
    os.write(stdout, (os.read(stdin, 100).decode().strip() + " after " + x + "\\n").encode())
    for fd in fds:
        os.close(fd)
    control.send(json.dumps({"status": 0, "clean": True}).encode())
"""


def test_a_program_cannot_answer_for_the_loop(runner, tmp_path):
    prog = program(tmp_path, "import sys\n" + TAKE_OVER)
    shared, alone = shared_and_alone(runner, prog, ["a", "b", "c"])
    assert [r.stdout for r in alone] == [b"a alone\n", b"b alone\n", b"c alone\n"]
    assert_as_alone(shared, alone)


def test_work_carried_from_case_to_case_gains_no_mark(tmp_path):
    """A program that does a share of some long work in each case and answers once the work is
    done (here, from the second case on) scores nothing alone: it must score nothing here too."""
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
        shared = grade_file(task, tmp_path / "echo.py", context)
        alone = grade_file(task, tmp_path / "echo.py", replace(context, share_process=False))
    assert alone.score == 0
    assert [c.verdict for c in shared.cases] == [c.verdict for c in alone.cases]
    assert shared.score == alone.score


def test_each_case_reads_its_own_seeds_bytes_from_the_random_devices(runner, tmp_path):
    """A run's /dev/urandom holds bytes of its seed; in a shared process, of each case's own seed."""
    if not runner.protections(sys.executable).private_tmp:
        pytest.skip("runs have no devices of their own here")
    prog = program(tmp_path, "print(open('/dev/urandom', 'rb').read(8).hex(), open('/dev/random', 'rb').read(8).hex())")
    shared, alone = shared_and_alone(runner, prog, ["", "", ""])
    assert [r.stdout for r in shared] == [r.stdout for r in alone]
    assert len({r.stdout for r in alone}) == 3


def test_each_case_has_its_own_limits_as_alone(runner, tmp_path):
    """The shared process's processor time is that of all its cases: each case's own is its own
    (without a cgroup, a program with threads on two processors is stopped alone at the limit, and
    must be here too), and its open-file limit that of a run."""
    names = ("RLIMIT_CPU", "RLIMIT_NOFILE", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_CORE")
    prog = program(tmp_path, f"import resource\nprint([resource.getrlimit(getattr(resource, n)) for n in {names}])")
    runs = [(b"", replace(QUICK, time_s=seconds), f"seed-{seconds}") for seconds in (1, 3, 2)]
    shared = runner.run_together(prog, runs)
    alone = [runner.run(replace(prog, seed=seed), stdin, limits) for stdin, limits, seed in runs]
    assert [r.stdout for r in shared] == [r.stdout for r in alone]


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


def test_a_file_that_takes_long_to_compile_is_compiled_for_each_case(runner, tmp_path):
    """A file with a large table in it takes time to compile, in each run's time: compiled once for
    all the cases of a shared process, a later case would take no time there (and be accepted where
    it times out alone). Each case's own time is compared with what compiling the file takes here
    (a tenth of it at least), never with a time limit, so that a loaded machine cannot tip a case
    over a limit and decide the test."""
    table = ",".join(str(i * 7 % 1000003) for i in range(350_000))
    prog = program(tmp_path, f"TABLE = [{table}]\nprint(TABLE[int(input())])")
    started = time.monotonic()
    compile(prog.script.read_text(encoding="utf-8"), "main.py", "exec")
    compiling = time.monotonic() - started
    runs = [(b"5\n", Limits(time_s=60), "seed-0")] + [(b"7\n", Limits(time_s=60), f"seed-{i}") for i in (1, 2)]
    shared = runner.run_together(prog, runs)
    assert all(result is not None for result in shared)
    assert [result.stdout for result in shared] == [b"35\n", b"49\n", b"49\n"]
    times = [result.time_s for result in shared]
    assert min(times) >= compiling / 10, f"cases took {times} s where compiling alone takes {compiling:.2f} s"
