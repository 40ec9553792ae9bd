"""The command line: the arguments, which command runs, and the exit status (``grader-cli.md``).

In: ``argv``. Out: the exit status: 0 everything accepted, 1 something was not, 2 the grader could
not do its job (a bad argument, a file that does not validate, Ctrl-C or SIGTERM, its own fault: one
sentence each, on standard error). Each command's body is in its own module of this package.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import traceback
from typing import Optional, Sequence

from grader import __version__
from grader.classrun.grade_class import CACHE_NAME
from grader.cli.authoring import add_case_command, import_command
from grader.cli.backup import add_parsers as add_backup_parsers
from grader.cli.backup import backup_command, restore_command
from grader.cli.check import check_command
from grader.cli.grade import grade_command
from grader.cli.kit import kit_command
from grader.cli.portal import add_parsers as add_portal_parsers
from grader.cli.portal import dispatch_command, publish_command, serve_command, users_command
from grader.cli.submit import add_submit_parser, submit_command
from grader.cli.verify import verify_command
from grader.errors import GraderError
from grader.safe_text import for_terminal


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m grader",
        description="Grade Nim lab exercise files against the course's test cases.",
    )
    parser.add_argument("--version", action="version", version=f"nim-grader {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    check = commands.add_parser(
        "check",
        help="grade exercise files, or every exercise file in a folder",
        description="Grade exercise files (the task is the file name, nim_sum.py is nim_sum), "
        "write an HTML report and print a short table.",
    )
    check.add_argument("paths", nargs="+", metavar="PATH", help="an exercise file or a folder of them")
    check.add_argument("--task", help="grade the file(s) as this task, whatever their names")
    check.add_argument(
        "--report", default="report", metavar="DIR", help="folder for the HTML report (default: report/)"
    )
    check.add_argument("--json", action="store_true", help="print the JSON results on standard output")
    check.add_argument("--watch", action="store_true", help="grade again whenever a file is saved (Ctrl-C stops)")
    _all_option(check)
    _shared_options(check, "testcases/", "the submissions")
    verify = commands.add_parser(
        "verify",
        help="check the course's test suite: reference solutions, stubs, junk, known-wrong solutions",
        description="Check that every reference solution passes every case (twice), that stubs and junk "
        "are rejected and that every known-wrong solution in solutions/wrong/<task>/ is rejected as it "
        "declares; print the kill matrix's weak cases and uncaught solutions.",
    )
    verify.add_argument(
        "tasks",
        nargs="*",
        metavar="TASK",
        help="verify only these tasks (e.g. make_move after editing its cases); default: every task",
    )
    verify.add_argument("--html", metavar="FILE", help="also write the kill matrix as an HTML page")
    _shared_options(verify, "testcases/ and solutions/", "the solutions")
    add = commands.add_parser(
        "add-case",
        help="add a case to a task, its expected answer computed by the reference solution",
        description="Run the reference solution on INPUT, show its answer, and append the case to "
        "testcases/<task>.yaml without disturbing the file's comments or layout.",
    )
    add.add_argument("task", metavar="TASK", help="the task id, e.g. nim_sum")
    add.add_argument("--input", required=True, help="the case's standard input (\\n for a line break is fine)")
    add.add_argument(
        "--name",
        help="what the case checks, for students (default: 'added: ' and the input; for a hidden case "
        "'hidden case N', N the next number of the task, since students see a hidden case's name)",
    )
    add.add_argument(
        "--hidden",
        action="store_true",
        help="a hidden case: students see its name, verdict and hint only, so the name must not state the "
        "input or the answer",
    )
    add.add_argument("--hint", default="", help="a sentence shown to a student who fails the case")
    _shared_options(add, "testcases/ and solutions/", "the reference solution")
    grade = commands.add_parser(
        "grade",
        help="grade a whole class: one folder per student",
        description="Grade every student folder of CLASS_DIR on every task and write, into DIR, each "
        "student's report and results.json (Gradescope), gradebook.csv and the class overview.",
    )
    grade.add_argument("class_dir", metavar="CLASS_DIR", help="a folder holding one folder per student")
    grade.add_argument("--out", required=True, metavar="DIR", help="where the reports and gradebook go")
    grade.add_argument(
        "--roster",
        metavar="CSV",
        help="the class list (username,role[,name,email], as users import reads it): a student on it with "
        "no folder is in the gradebook with every task not handed in; a folder not on it is named",
    )
    grade.add_argument(
        "--cache",
        metavar="FILE",
        help=f"results cache: a re-run grades only what changed (default: DIR/{CACHE_NAME})",
    )
    grade.add_argument("--fresh", action="store_true", help="grade everything again (the cache is refilled)")
    grade.add_argument("--no-cache", action="store_true", help="neither read nor write a results cache")
    grade.add_argument(
        "--dask", metavar="ADDRESS", help="spread the students over a Dask cluster (e.g. tcp://10.0.0.5:8786)"
    )
    _all_option(grade)
    grade.add_argument(
        "--allow-unprotected",
        action="store_true",
        help="grade even where the sandbox lacks some of its protections (they are named in the reports)",
    )
    _shared_options(grade, "testcases/", "the submissions")
    kit = commands.add_parser(
        "kit",
        help="write what students receive: the stubs, the public cases only and a README",
        description="Write into OUT (a new or empty folder) the exercise stubs, the public test cases only "
        "(no hidden case, no solution), the course's checkers.py, the grader as a wheel to install and a "
        "README on checking locally and handing in; check run there grades against the public cases.",
    )
    kit.add_argument("out", metavar="OUT", help="the folder to write the kit into (new, or empty)")
    kit.add_argument("--server", metavar="URL", help="the portal's address, for the README's commands")
    kit.add_argument(
        "--no-wheel",
        action="store_true",
        help="leave out the grader's wheel (built from its source), for a course that gives students the "
        "grader another way: the README then says to install it as the course team says",
    )
    _shared_options(kit, "testcases/, solutions/ and exercises/", "the reference solutions")
    bring = commands.add_parser(
        "import",
        help="turn a CMS task folder or a Kattis problem package into a test case file",
        description="Convert an existing lab's test data into testcases/<task>.yaml and list what could "
        "not be carried over (custom checkers, scoring, ...).",
    )
    bring.add_argument("kind", choices=["cms", "kattis"], help="the format of FOLDER")
    bring.add_argument("folder", metavar="FOLDER", help="the CMS task folder or Kattis problem package")
    bring.add_argument("--task", help="the task id to give it (default: from the folder name)")
    bring.add_argument("--course", metavar="DIR", help="write into DIR/testcases/ (default: this project)")
    bring.add_argument("--out", metavar="FILE", help="write to FILE instead")
    bring.add_argument("--force", action="store_true", help="replace an existing file")
    bring.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    add_portal_parsers(commands)
    add_backup_parsers(commands)
    add_submit_parser(commands)
    return parser


def _all_option(command) -> None:
    """``--all``: the one rule of every path (check, grade, the portal) is that a task's cases after
    a program's second time-out are not run; this runs them anyway."""
    command.add_argument(
        "--all",
        action="store_true",
        help="run every case, even after a program has run out of time on two cases of a task "
        "(without it, the rest of that task's cases are not run, as on the portal)",
    )


def _shared_options(parser: argparse.ArgumentParser, holds: str, runs: str) -> None:
    """--course, --python, --jobs and the hidden --debug, as every grading command has them."""
    parser.add_argument("--course", metavar="DIR", help=f"folder holding {holds} (default: this project)")
    parser.add_argument("--python", default=sys.executable, metavar="EXE", help=f"interpreter that runs {runs}")
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        metavar="N",
        help="programs run at once (grade: students side by side, each one case at a time)",
    )
    parser.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)


@contextlib.contextmanager
def _terminate_as_interrupt():
    """SIGTERM (a service stopping, ``kill``) ends the grader as Ctrl-C does: the runs are stopped
    and their folders, with the students' code in them, removed on the way out."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGTERM"):
        yield
        return

    def interrupt(*_):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; returns the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    commands = {
        "check": check_command,
        "verify": verify_command,
        "add-case": add_case_command,
        "import": import_command,
        "grade": grade_command,
        "serve": serve_command,
        "dispatch": dispatch_command,
        "users": users_command,
        "publish": publish_command,
        "backup": backup_command,
        "restore": restore_command,
        "kit": kit_command,
        "submit": submit_command,
    }
    try:
        with _terminate_as_interrupt():
            return commands[args.command](args)
    except GraderError as error:
        print(f"error: {for_terminal(str(error), keep_newlines=True)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("Stopped.", file=sys.stderr)
        return 2
    except Exception as error:  # the grader's own fault: one sentence, the details on request
        if args.debug:
            traceback.print_exc()
        print(
            f"error: the grader failed unexpectedly ({type(error).__name__}: {for_terminal(str(error))}). "
            "Please report this with the command you ran; --debug shows the details.",
            file=sys.stderr,
        )
        return 2
