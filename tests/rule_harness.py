"""A program run under a task's rules as the program's own process runs it, in an interpreter of its own.

The rule guard (``grader/rules/``: the modules ``execute.CHILD_MODULES`` sends from there) changes
builtins and the import system, so each program runs in a fresh interpreter: a small harness,
written into the test's folder, sends the rules modules in as the fork server does (source text,
each registered by its bare name, in the list's order), prepares the file, installs the guard with
a ``violated`` that prints ``VIOLATION index file line`` and exits with 3, and runs the file as
``__main__``. With no rules the harness runs the file as the grader does without rules: the baseline.

Set RULE_GUARD_PYTHONS to interpreters separated by ``os.pathsep`` to run every program under each
(3.9 to 3.13): they need nothing installed.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import textwrap

from support import PROJECT

from grader.course.loader import load_course
from grader.run.execute import CHILD_MODULES

# The rules modules the program's process is sent, in the order it is sent them.
RULE_MODULES = [(name, str(folder)) for name, folder in CHILD_MODULES if name.startswith("rule_")]

HARNESS = """
import builtins, json, os, sys, types

run = exec  # taken before install, which replaces builtins.exec: the program's frames are its own
modules, script, rules = json.loads(sys.argv[1]), os.path.abspath(sys.argv[2]), json.loads(sys.argv[3])
for name, folder in modules:
    module = types.ModuleType(name)
    with open(os.path.join(folder, name + ".py"), encoding="utf-8") as handle:
        run(compile(handle.read(), name + ".py", "exec"), module.__dict__)
    sys.modules[name] = module


returns = os.environ.get("RULE_GUARD_RETURN") is not None  # read now: the program may break os.environ


def violated(index, filename, line):
    sys.stdout.flush()
    os.write(1, f"VIOLATION {index} {os.path.basename(filename)} {line}\\n".encode())
    if not returns:
        os._exit(3)


folder = os.path.dirname(script)
os.chdir(folder)
sys.path.insert(0, folder)
sys.argv = [script]
guard = sys.modules["rule_guard"]
with open(script, "rb") as handle:
    code = guard.prepare(handle.read(), script, rules)
guard.install(rules, violated, folder)
main = types.ModuleType("__main__")
main.__file__, main.__builtins__ = script, builtins
sys.modules["__main__"] = main
del name, module, handle, modules, rules, folder, guard
run(code, main.__dict__)
"""


def pythons():
    """The interpreters to run each program with: RULE_GUARD_PYTHONS, else this one."""
    listed = [path for path in os.environ.get("RULE_GUARD_PYTHONS", "").split(os.pathsep) if path]
    return listed or [sys.executable]


@functools.cache
def task_rules(task_id):
    """A task's rules as the child gets them: JSON-able dicts in the task's order."""
    task = load_course(PROJECT)[task_id]
    return [{"kind": r.kind, "target": r.target, "min_args": r.min_args} for r in task.rules]


def rules_of(rules):
    """``rules`` as dicts: a task's (given its id), or as given."""
    return task_rules(rules) if isinstance(rules, str) else rules


def run(python, folder, source, rules, stdin="", files=None, env=None):
    """Run ``source`` as prog.py in ``folder`` (with ``files`` beside it) under ``rules`` (a task
    id or a list of dicts; [] for none); the finished process."""
    folder.mkdir(exist_ok=True)
    (folder / "harness.py").write_text(HARNESS, encoding="utf-8")
    program = folder / "prog.py"
    program.write_text(textwrap.dedent(source), encoding="utf-8")
    for name, text in (files or {}).items():
        (folder / name).write_text(textwrap.dedent(text), encoding="utf-8")
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    environment.update(env or {})
    return subprocess.run(
        [
            python,
            "-X",
            "utf8",
            str(folder / "harness.py"),
            json.dumps(RULE_MODULES),
            str(program),
            json.dumps(rules_of(rules)),
        ],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=environment,
        cwd=folder,
    )
