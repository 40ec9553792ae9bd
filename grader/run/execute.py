"""Running one program on one input under limits, reporting facts (never verdicts).

A runner makes a fresh folder for each run (``RunFolder``: the program and its companions copied
in, owned by the run's own user id when the grader is root), starts the program there as the
sandbox plan says (``sandbox.plan``), and hands it to the loops of ``run_streams``. ``run``
feeds a fixed input; ``interact`` lets a ``Session`` type a line whenever the program waits.
``SubprocessRunner`` starts a new interpreter per run (the fallback, and the baseline the fork
server is measured by); ``forkserver.ForkServerRunner`` forks each run from a prepared one.
A run lost to the grader's own machinery (a fork server killed from outside) is run once more; a
second loss raises ``RunnerFailure``, never a verdict against the student, unless the program ran
as the grader's own user (no user ids of its own): it could then kill the server itself, and the
second loss is its result.
"""

from __future__ import annotations

import binascii
import os
import subprocess
import threading
import time
import zlib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, Dict, List, Optional, Protocol, Sequence, Tuple, Union

from grader.errors import GraderError
from grader.model import Limits, Rule
from grader.run.capture import REPORT_BYTES, Capture, captures, finish, kill_group
from grader.run.cgroups import RunCgroups
from grader.run.run_clock import RunClock
from grader.run.run_facts import RunResult
from grader.run.run_folders import RunFolder, WorkRoot, remove_stale_roots
from grader.run.sandbox import Plan, Protections, plan
from grader.run.streams import END_OF_INPUT, EndOfInput, Session, converse, pump

__all__ = ["END_OF_INPUT", "EndOfInput", "Program", "ProcessRunner", "Runner", "RunnerFailure", "Session"]

# What runs in the program's own process lives in ``run/child/``, and the rules' part of it in
# ``rules/`` (beside the syntax check that shares its data); all of it imports only the standard
# library and its siblings sent with it. The modules are sent as source text, to the fork server
# ahead of its own (``forkserver``) and to a new interpreter in its bootstrap, in this order (each
# finds the ones it imports already registered). ``zygote`` and ``subprocess_start`` are the two starts.
CHILD_FOLDER = Path(__file__).parent / "child"
RULES_FOLDER = Path(__file__).parent.parent / "rules"
CHILD_MODULES = (
    ("run_mounts", CHILD_FOLDER),
    ("server_view", CHILD_FOLDER),
    ("zygote_isolation", CHILD_FOLDER),
    ("started_runs", CHILD_FOLDER),
    ("seeded_randomness", CHILD_FOLDER),
    ("syscall_filter", CHILD_FOLDER),
    ("rule_data", RULES_FOLDER),
    ("rule_tree", RULES_FOLDER),
    ("rule_checks", RULES_FOLDER),
    ("rule_traps", RULES_FOLDER),
    ("rule_imports", RULES_FOLDER),
    ("rule_guard", RULES_FOLDER),
    ("child_program", CHILD_FOLDER),
)
STARTS = ("zygote", "subprocess_start")


def child_modules_source(modules=CHILD_MODULES) -> str:
    """Source that makes each of ``modules`` (name, folder) a module of the running interpreter.

    Each module's text travels compressed: the source is one argument of the interpreter's command
    line, which Linux bounds at 128 KiB, and the modules' text alone is near that.
    """
    source = "import sys as _sys, types as _types, zlib as _zlib, binascii as _binascii\n"
    for name, folder in modules:
        packed = binascii.b2a_base64(zlib.compress((folder / f"{name}.py").read_bytes(), 9), newline=False)
        source += (
            f"_module = _types.ModuleType({name!r})\n"
            f"_text = _zlib.decompress(_binascii.a2b_base64({packed!r})).decode('utf-8')\n"
            f"exec(compile(_text, '{name}.py', 'exec'), _module.__dict__)\n"
            f"_sys.modules[{name!r}] = _module\n"
        )
    return source + "del _sys, _types, _zlib, _binascii, _module, _text\n"


# The new interpreter's start (``subprocess_start``), shipped after the modules it uses; the runner
# sends the run's settings as a literal and that module's ``start`` does the rest.
_CHILD_MODULES_SOURCE = (
    child_modules_source((*CHILD_MODULES, ("subprocess_start", CHILD_FOLDER))) + "import subprocess_start\n"
)


# String hashing (the order of a set of strings) the same in every run and on every machine.
FIXED_HASHING = {"PYTHONHASHSEED": "0"}


def rules_for_child(rules: Tuple[Rule, ...]) -> List[Dict[str, Any]]:
    """A task's rules as the program's process takes them (``rule_guard``): kind, target, min_args."""
    return [{"kind": r.kind, "target": r.target, "min_args": r.min_args} for r in rules]


class RunnerFailure(GraderError):
    """The grader's own machinery lost a run twice (not the student's doing)."""


@dataclass(frozen=True)
class Program:
    """What to run: ``script`` copied into the working folder as ``run_name``, run by ``python``.

    ``companions`` are other files copied beside it under their own names (exercise files that
    the program imports); ``own_modules`` names every such file it may import, present or not,
    so that messages can tell a missing one from a module that does not exist.
    """

    python: str
    script: Path
    run_name: str
    companions: Tuple[Path, ...] = ()
    own_modules: Tuple[str, ...] = ()
    # The course's own code (a reference solution): never run beside, or forked from the same
    # process as, students' programs.
    trusted: bool = False
    # Where every source of randomness the program sees comes from (``seeded_randomness``): the
    # grader sets it per run, from the submission, the case and the repeat.
    seed: str = ""
    # The task's rules, checked as the program runs too (``rule_guard``); () for none.
    rules: Tuple[Rule, ...] = ()


class Runner(Protocol):
    """Runs one program; implementations differ in isolation and speed."""

    def run(self, program: Program, stdin: bytes, limits: Limits) -> RunResult:
        """Run ``program`` with ``stdin`` under ``limits`` and report what happened."""

    def interact(self, program: Program, session: Session, limits: Limits) -> RunResult:
        """Run ``program`` with ``session`` typing its input, under ``limits``."""

    def protections(self, python: str) -> Protections:
        """What is active for programs run by ``python`` (said in the report's header)."""


class ProcessRunner:
    """``run`` and ``interact`` around the steps a runner provides: a folder to run in and a way to
    start the program there (``_launch``). Holds the runs' root folder and the sandbox plans; use
    it as a context manager, or call ``close()``."""

    def __init__(self, use_sandbox: bool = True, private: Sequence[Union[str, Path]] = ()) -> None:
        remove_stale_roots()  # what graders that are gone left behind (killed before they could clean up)
        self._work_root = WorkRoot()
        self.root = self._work_root.path
        self.use_sandbox = use_sandbox
        self.private = tuple(str(path) for path in private)  # folders no program may see
        self._plans: Dict[str, Plan] = {}
        self._lock = threading.Lock()
        # a cgroup per run where the machine lets us make them (named as the work root, whose
        # owner lock tells a later grader whether they are left over)
        self._cgroups, self._no_cgroups = RunCgroups.find(os.path.basename(self.root))

    def plan(self, python: str) -> Plan:
        """How programs of ``python`` are started here (worked out once per interpreter)."""
        with self._lock:
            if python not in self._plans:
                self._plans[python] = plan(python, self.root, self.use_sandbox, self.private)
            return self._plans[python]

    def protections(self, python: str) -> Protections:
        """What is active for programs run by ``python``."""
        return self._bounded(self.plan(python).protections)

    def _bounded(self, protections: Protections) -> Protections:
        """``protections`` with the bound on a run as a whole (its cgroup) as this runner has it."""
        return replace(protections, run_bounded=self._cgroups is not None)

    def run(self, program: Program, stdin: bytes, limits: Limits) -> RunResult:
        def once(process, start, workdir):
            stdout, stderr = captures(limits)
            clock = RunClock(limits, process, start)
            timed_out, flooded = pump(process, stdin, stdout, stderr, limits, clock)
            return finish(process, clock, stdout, stderr, timed_out, flooded, workdir, limits)

        return self._twice(program, limits, False, once)

    def interact(self, program: Program, session: Session, limits: Limits) -> RunResult:
        def once(process, start, workdir):
            stdout, stderr = captures(limits)
            clock = RunClock(limits, process, start)
            timed_out, flooded, waiting = converse(process, session, stdout, stderr, limits, clock)
            result = finish(process, clock, stdout, stderr, timed_out, flooded, workdir, limits)
            return replace(result, waiting_for_input=waiting)

        return self._twice(program, limits, True, once)

    def _twice(self, program: Program, limits: Limits, unbuffered: bool, once) -> RunResult:
        """Run once; a run the machinery lost (``lost`` on the process) is run once more."""
        lost_twice: Optional[RunResult] = None
        for _ in range(2):
            with RunFolder(program, self.root, self.plan(program.python).uids) as folder:
                folder.cgroup = self._cgroup(limits)
                try:
                    process, start = self._launch(program, folder, limits, unbuffered)
                    process.cgroup = folder.cgroup
                    try:
                        # the folder as the program saw it (a fork server's runs see one fixed path)
                        result = once(process, start, getattr(process, "workdir", "") or folder.path)
                    except BaseException:
                        kill_group(process)  # whatever went wrong on our side, the program ends with it
                        raise
                    finally:
                        release = getattr(process, "release", None)
                        if release is not None:
                            release()
                finally:
                    if folder.cgroup is not None:
                        self._cgroups.finish(folder.cgroup)
                if not getattr(process, "lost", False):
                    return result
                if self.protections(program.python).grader_in_reach:
                    # The program ran as the grader's own user, so it may have killed the server
                    # itself: run it once more, and a second loss is its result (killed), not ours.
                    lost_twice = result
        if lost_twice is not None:
            return lost_twice
        raise RunnerFailure(
            f"the grader lost the run of {program.run_name} twice (its fork server stopped while the program "
            "ran, which a program cannot cause): grade again, and if it happens again, report it."
        )

    def _cgroup(self, limits: Limits):
        """A new run's cgroups, or None where this runner makes none; ``RunnerFailure`` (the grader's
        failure, never the student's) when the kernel refuses one."""
        if self._cgroups is None:
            return None
        try:
            return self._cgroups.make(limits)
        except OSError as error:
            raise RunnerFailure(
                f"the grader could not make a cgroup for a run ({error.strerror or error}): too many cgroups on this "
                "machine, or its cgroup file system changed; grade again, and if it happens again, report it."
            ) from None

    def _launch(self, program: Program, folder: RunFolder, limits: Limits, unbuffered: bool):
        raise NotImplementedError

    def close(self) -> None:
        """Free what the runner holds: its servers (if any), the runs' folder and cgroups, the user ids."""
        if self._cgroups is not None:
            self._cgroups.close()
        self._work_root.close()
        with self._lock:
            plans, self._plans = list(self._plans.values()), {}
        for each in plans:
            if each.uids is not None:
                each.uids.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class SubprocessRunner(ProcessRunner):
    """One new interpreter process per run, in the sandbox where there is one (a bwrap per run, so
    each run has its own /tmp and IPC), as the run's own user when the grader is root.

    The fallback where a fork server cannot run (no ``fork``), and the baseline it is measured by.
    """

    def protections(self, python: str) -> Protections:
        return subprocess_protections(self, python)

    def _launch(self, program: Program, folder: RunFolder, limits: Limits, unbuffered: bool):
        return launch_subprocess(self, program, folder, limits, unbuffered)


def subprocess_protections(runner: ProcessRunner, python: str) -> Protections:
    """What is active for programs of ``python`` that ``launch_subprocess`` starts for ``runner``."""
    active = runner.plan(python)
    return runner._bounded(replace(active.protections, private_tmp=active.prefix is not None))


def launch_subprocess(runner: ProcessRunner, program: Program, folder: RunFolder, limits: Limits, unbuffered: bool):
    """``program`` started in ``folder`` as a new interpreter (``SubprocessRunner``, and the fork
    server runner's fallback); the process and its start time."""
    prefix = runner.plan(program.python).prefix or []
    if prefix:  # a bwrap per run: a process namespace of its own, whose /proc shows the run alone
        prefix = [prefix[0], "--unshare-pid", *prefix[1:]]
    # RLIMIT_NPROC counts every process of the user: it bounds a run only under an id of its
    # own (root is not limited by it, and under the grader's own id it could starve the grader).
    limited = tuple(item for item in rlimits(limits) if item[0] != "RLIMIT_NPROC" or folder.uid is not None)
    report_read, report_write = os.pipe()
    joins = folder.cgroup.fds if folder.cgroup is not None else ()
    settings = {
        "joins": tuple(joins),
        "limits": limited,
        "script": folder.script,
        "folder": folder.path,
        "uid": folder.uid,
        "seed": program.seed,
        "report_fd": report_write,
        "rules": rules_for_child(program.rules),
        "filter": runner.plan(program.python).protections.syscall_filter,
    }
    bootstrap = f"{_CHILD_MODULES_SOURCE}subprocess_start.start({settings!r})\n"
    # Not -I (it ignores PYTHONHASHSEED): the environment is ours alone, and -s leaves out the
    # user's site folder.
    flags = ["-s", "-X", "utf8"] + (["-u"] if unbuffered else [])
    env = {"PATH": os.environ.get("PATH", ""), "HOME": folder.path, "LANG": "C.UTF-8", "TMPDIR": folder.path}
    env.update(FIXED_HASHING)
    if os.name == "nt":
        env["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", "")
    start = time.monotonic()
    try:
        process = (_Wrapped if prefix else _Child)(
            [*prefix, program.python, *flags, "-c", bootstrap],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=folder.path,
            env=env,
            start_new_session=(os.name == "posix"),
            pass_fds=(report_write, *joins),
        )
    except BaseException:
        os.close(report_read)
        raise
    finally:
        os.close(report_write)
    process.report = os.fdopen(report_read, "rb", buffering=0)
    process.report_capture = Capture(REPORT_BYTES)
    return process, start


class _Child(subprocess.Popen):
    """A program's new interpreter, with the read end of its report channel beside its pipes."""

    report: IO[bytes]
    report_capture: Capture


class _Wrapped(_Child):
    """A program started through bwrap, which ends with 128 + N when its program was killed by
    signal N: reported as the signal, as a program started directly would be."""

    @property
    def returncode(self):
        code = self.__dict__.get("_raw_code")
        return -(code - 128) if code is not None and 128 < code < 160 else code

    @returncode.setter
    def returncode(self, value) -> None:
        self.__dict__["_raw_code"] = value


def rlimits(limits: Limits) -> Tuple[Tuple[str, int], ...]:
    """The ``resource`` limits of a run, by name: memory (the address space a program may map
    beyond what its interpreter has mapped when it starts), CPU seconds, file size, core dumps,
    processes and open files."""
    return (
        ("RLIMIT_AS", limits.memory_mib * 1024 * 1024),
        ("RLIMIT_CPU", limits.cpu_seconds),
        ("RLIMIT_FSIZE", limits.file_bytes),
        ("RLIMIT_CORE", 0),
        ("RLIMIT_NPROC", limits.processes),
        ("RLIMIT_NOFILE", limits.open_files),
    )


def python_version(python: str) -> Optional[str]:
    """``3.11.7`` for an interpreter, or None when it cannot be run."""
    try:
        done = subprocess.run(
            [python, "-I", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
            capture_output=True,
            text=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None
