"""The start of a program's new interpreter (``execute.SubprocessRunner``), before the student's code.

Like ``zygote_isolation``, this runs in the program's own process, never imported by the grader:
the runner sends it, beside the modules it uses, as source (``execute.child_modules_source``), and
the interpreter's only code of its own is a call of ``start`` with the run's settings as data.
"""

import os
import sys

import child_program  # sent beside this module, as the three below
import seeded_randomness
import syscall_filter
import zygote_isolation


def start(settings):
    """Run the student's file as the run's ``settings`` say; never returns (``SystemExit``).

    ``settings`` is a dict: ``joins`` (file descriptors of the run's cgroups), ``seed``,
    ``limits`` (``resource`` limits by name), ``uid`` (the run's own user id, or None), ``folder``,
    ``script``, ``report_fd``, ``rules`` (as ``rule_guard`` takes them) and ``filter`` (whether to
    install the system call filter).

    In this order: the run's cgroups are joined (everything from here on counts in them); its
    randomness comes from the run's seed (first, so that what it loads counts before the limits);
    the limits (memory on top of what the interpreter has mapped, as in the fork server); the run's
    own user id when the grader is root; the report channel; the working folder first on sys.path
    (a file may import the exercise files copied beside it); then the file as __main__
    (``child_program``, as in the fork server). Set here rather than in preexec_fn, which is unsafe
    with threads.
    """
    for fd in settings["joins"]:
        os.write(fd, b"0")
        os.close(fd)
    seeded_randomness.seed_everything(settings["seed"])
    zygote_isolation.apply_limits(settings["limits"])
    uid = settings["uid"]
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
        try:
            os.kill(-1, 9)  # this id is the run's alone (uid_pool): what it still runs is a leftover
        except OSError:
            pass
    folder, script = settings["folder"], settings["script"]
    os.chdir(folder)
    child_program.take_channel(settings["report_fd"])
    child_program.watch_for_stack()
    sys.argv = [script]
    sys.path.insert(0, folder)
    if settings["filter"]:
        syscall_filter.install()
    raise SystemExit(child_program.run(script, folder, settings["rules"]))
