"""The command line: arguments, exit codes and messages for people (``grader-cli.md``).

Exit status: 0 everything accepted, 1 something was not, 2 the grader could not do its job.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sqlite3
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import List, Optional, Sequence

from grader import __version__
from grader.authoring.add_case import add_case
from grader.authoring.import_cms import import_cms
from grader.authoring.import_kattis import import_kattis
from grader.authoring.verify import verify_course
from grader.classrun.grade_class import CACHE_NAME, grade_class, students_in
from grader.classrun.progress import Progress
from grader.classrun.result_cache import FreshCache, ResultCache
from grader.course.loader import course_checkers, load_course
from grader.errors import GraderError, UsageError
from grader.grade.grading import GradingContext, grade_file
from grader.model import TaskResult, Verdict
from grader.report import pages as report
from grader.run.execute import python_version
from grader.run.forkserver import best_runner
from grader.safe_text import for_terminal
from grader.submission.paths import collect_submissions

PROJECT = Path(__file__).resolve().parents[2]


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
    check.add_argument(
        "--all",
        action="store_true",
        help="run every case, even after a program has run out of time on two cases of a task "
        "(without it, the rest of that task's cases are not run, for quicker feedback)",
    )
    _shared_options(check, "testcases/", "the submissions")
    verify = commands.add_parser(
        "verify",
        help="check the course's test suite: reference solutions, stubs, junk, known-wrong solutions",
        description="Check that every reference solution passes every case (twice), that stubs and junk "
        "are rejected and that every known-wrong solution in solutions/wrong/<task>/ is rejected as it "
        "declares; print the kill matrix's weak cases and uncaught solutions.",
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
    add.add_argument("--name", help="what the case checks, for students (default: from the input)")
    add.add_argument("--hidden", action="store_true", help="a hidden case: students see its name and verdict only")
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
        "--cache",
        metavar="FILE",
        help=f"results cache: a re-run grades only what changed (default: DIR/{CACHE_NAME})",
    )
    grade.add_argument("--fresh", action="store_true", help="grade everything again (the cache is refilled)")
    grade.add_argument("--no-cache", action="store_true", help="neither read nor write a results cache")
    grade.add_argument(
        "--dask", metavar="ADDRESS", help="spread the students over a Dask cluster (e.g. tcp://10.0.0.5:8786)"
    )
    grade.add_argument(
        "--allow-unprotected",
        action="store_true",
        help="grade even where the sandbox lacks some of its protections (they are named in the reports)",
    )
    _shared_options(grade, "testcases/", "the submissions")
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
    return parser


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


def default_course() -> Path:
    """The project's own folder when it holds testcases/, else the current folder if it does."""
    for candidate in (PROJECT, Path.cwd()):
        if (candidate / "testcases").is_dir():
            return candidate
    raise UsageError("No testcases/ folder found next to the grader or here; pass --course DIR.")


def course_folder(option: Optional[str]) -> Path:
    """The course folder from ``--course`` (checked) or the default."""
    if option is None:
        return default_course()
    folder = Path(option)
    if not (folder / "testcases").is_dir():
        raise UsageError(f"--course {option}: there is no testcases/ folder in it.")
    return folder


def _check(args) -> int:
    course = course_folder(args.course)
    tasks = load_course(course)
    if not tasks:
        raise UsageError(f"{course / 'testcases'}: no test case files (*.yaml) in it.")
    pairs, notes = collect_submissions(args.paths, tasks, args.task)
    version = python_version(args.python)
    if version is None or not version.startswith("3."):
        raise UsageError(f"--python {args.python}: this interpreter cannot be run, or is not Python 3.")
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1.")
    with best_runner() as runner:
        context = GradingContext(
            checkers=course_checkers(course),
            python=args.python,
            jobs=args.jobs,
            course=course,
            task_ids=tuple(sorted(tasks)),
            runner=runner,
            quick_feedback=not args.all,
        )
        note = f"graded with Python {version} · {runner.protections(args.python).describe()}"
        return _grade_and_report(args, pairs, notes, context, note)


def _grade_and_report(args, pairs, notes, context: GradingContext, note: str) -> int:
    """Grade, write the report, print the table (and JSON); with --watch, again on every save."""
    for line in notes:
        print(for_terminal(line), file=sys.stderr)

    def grade_all() -> int:
        results: List[TaskResult] = [grade_file(task, path, context, for_terminal(str(path))) for task, path in pairs]
        index = _write_report(results, Path(args.report), note)
        print(report.terminal_table(results, index), file=sys.stderr if args.json else sys.stdout, flush=True)
        if args.json:
            print(report.json_text(results), flush=True)
        return 0 if all(r.verdict is Verdict.ACCEPTED for r in results) else 1

    files = [path for _, path in pairs]
    before = _stamps(files)  # taken before grading: a save during the first grading counts too
    status = grade_all()
    if not args.watch:
        return status
    count = f"{len(files)} file{'s' if len(files) != 1 else ''}"
    print(f"Watching {count}: save to grade again, Ctrl-C to stop.", flush=True)
    return watch(files, grade_all, before)


def _stamps(files: Sequence[Path]) -> dict:
    """Each file's modification time and size (None when it cannot be read)."""
    found = {}
    for path in files:
        try:
            info = path.stat()
            found[path] = (info.st_mtime_ns, info.st_size)
        except OSError:
            found[path] = None
    return found


def watch(files: Sequence[Path], grade_all, seen: dict, poll_s: float = 0.3, rounds: Optional[int] = None) -> int:
    """Call ``grade_all()`` again whenever one of ``files`` differs from ``seen`` (their stamps);
    stop on Ctrl-C (or after ``rounds``). Returns the status of the last grading."""
    status, done = 0, 0
    try:
        while rounds is None or done < rounds:
            time.sleep(poll_s)
            now = _stamps(files)
            if now == seen:
                continue
            seen = now
            time.sleep(poll_s)  # let the editor finish writing
            changed = ", ".join(for_terminal(str(p)) for p in files)
            print(f"\n--- {time.strftime('%H:%M:%S')}: grading {changed} again ---", flush=True)
            status = grade_all()
            done += 1
    except KeyboardInterrupt:
        print("Stopped watching.")
    return status


def _write_report(results: List[TaskResult], folder: Path, note: str) -> Path:
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--report {folder}: this is a file, not a folder; choose another --report DIR.")
    try:
        return report.write_html(results, folder, note)
    except OSError as error:
        raise UsageError(f"cannot write the report to {folder}: {error.strerror or error}.") from None


def _verify(args) -> int:
    course = course_folder(args.course)
    if not (course / "solutions").is_dir():
        raise UsageError(f"{course}: there is no solutions/ folder to verify against.")
    if python_version(args.python) is None:
        raise UsageError(f"--python {args.python}: this interpreter cannot be run, or is not Python 3.")
    with best_runner() as runner:
        context = GradingContext(
            checkers=course_checkers(course),
            python=args.python,
            jobs=args.jobs,
            course=course,
            task_ids=tuple(sorted(p.stem for p in (course / "testcases").glob("*.yaml"))),
            runner=runner,
        )
        result = verify_course(course, context, progress=lambda text: print(f"  {text}", file=sys.stderr))
    print(verify_text(result))
    if args.html:
        path = Path(args.html)
        try:
            report.write_verify_html(result, path)
        except OSError as error:
            raise UsageError(f"cannot write {path}: {error.strerror or error}.") from None
        print(f"Kill matrix: {path}")
    return 0 if result.ok else 1


def _add_case(args) -> int:
    course = course_folder(args.course)
    case_input = args.input.replace("\\n", "\n")
    with best_runner() as runner:
        context = GradingContext(checkers=course_checkers(course), python=args.python, course=course, runner=runner)
        added = add_case(
            course, args.task, case_input, name=args.name, hidden=args.hidden, hint=args.hint, context=context
        )
    print(f"Added the case '{added.name}' to {added.path}.")
    print("Input:")
    print(_indented(added.input))
    if added.expected is None:
        print("Expected: (none stored: the task's checker decides by the rules)")
    else:
        print("Expected (what the reference solution printed):")
        print(_indented(added.expected))
    return 0


def _grade(args) -> int:
    class_dir = Path(args.class_dir)
    if not class_dir.is_dir():
        raise UsageError(f"{class_dir}: no such folder.")
    listing = students_in(class_dir)
    if not listing.students:
        skipped = "".join(f"\n  {line}" for line in listing.skipped)
        raise UsageError(f"{class_dir}: no student folders in it (one folder per student is expected).{skipped}")
    if args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: give 1 or more.")
    out = Path(args.out)
    if out.resolve() == class_dir.resolve() or class_dir.resolve() in out.resolve().parents:
        raise UsageError(f"--out {out}: choose a folder outside {class_dir}, or it would be graded as a student.")
    course = course_folder(args.course)
    tasks = list(load_course(course).values())
    version = python_version(args.python)
    if version is None or not version.startswith("3."):
        raise UsageError(f"--python {args.python}: this interpreter cannot be run, or is not Python 3.")
    with contextlib.ExitStack() as stack:
        runner = stack.enter_context(best_runner())
        executor, workers = (None, None) if not args.dask else _dask_executor(args.dask, stack)
        cache = None if args.no_cache else stack.enter_context(_open_cache(Path(args.cache or out / CACHE_NAME)))
        if cache is not None and args.fresh:
            cache = FreshCache(cache)
        context = GradingContext(
            checkers=course_checkers(course),
            python=args.python,
            jobs=args.jobs,
            course=course,
            task_ids=tuple(t.id for t in tasks),
            runner=runner,
        )
        protections = runner.protections(args.python)
        _refuse_unprotected(protections, args.allow_unprotected)
        note = f"graded with Python {version} · {protections.describe()}"
        try:
            outcome = grade_class(
                class_dir,
                tasks,
                out,
                context,
                python_version=version,
                executor=executor,
                workers=workers,
                cache=cache,
                progress=Progress(len(listing.students)),
                note=note,
            )
        except KeyboardInterrupt:
            print(
                f"\nStopped. Finished students are kept in {out}; run the same command again to go on "
                "where it stopped.",
                file=sys.stderr,
            )
            return 2
        except OSError as error:
            raise UsageError(f"cannot write to {out}: {error.strerror or error}.") from None
    print(outcome.summary, file=sys.stderr)
    if outcome.skipped:
        print(f"Not graded ({len(outcome.skipped)} of the entries in {for_terminal(str(class_dir))}):", file=sys.stderr)
    for line in outcome.skipped:
        print(f"  {for_terminal(line)}", file=sys.stderr)
    for failure in outcome.grader_failures:
        print(f"error: {for_terminal(failure)}", file=sys.stderr)
    print(
        f"Graded {len(outcome.students)} students on {len(tasks)} tasks: {out / 'index.html'}, {out / 'gradebook.csv'}"
    )
    if outcome.grader_failures:
        return 2
    everything = all(t.verdict is Verdict.ACCEPTED for student in outcome.students for t in student.tasks)
    return 0 if everything else 1


def _refuse_unprotected(protections, allowed: bool) -> None:
    """A class's marks are graded with every protection, or with the instructor's say-so."""
    missing = protections.missing() + ([protections.note] if protections.note else [])
    if missing and not allowed:
        raise UsageError(
            "the sandbox lacks some of its protections here: " + "; ".join(missing) + ". Run grade as root on "
            "Linux with bubblewrap installed (Debian: apt-get install bubblewrap), or pass --allow-unprotected "
            "to grade with what is available (the reports will say what was missing)."
        )


@contextlib.contextmanager
def _open_cache(path: Path):
    try:
        cache = ResultCache(path)
    except (OSError, sqlite3.Error) as error:
        raise UsageError(
            f"{path}: cannot use this file as the results cache ({error}); pass --cache FILE or --no-cache."
        ) from None
    with cache:
        yield cache


def _dask_executor(address: str, stack: contextlib.ExitStack):
    """A concurrent.futures executor on the Dask cluster at ``address``, and units to keep in flight."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--dask needs Dask's distributed package: pip install 'nim-grader[dask]'.") from None
    try:
        client = stack.enter_context(Client(address, timeout=15))
    except OSError as error:
        raise UsageError(f"--dask {address}: cannot reach the Dask scheduler ({error}).") from None
    threads = sum(client.nthreads().values())
    if not threads:
        raise UsageError(f"--dask {address}: the cluster has no workers yet; start some with dask worker {address}.")
    return client.get_executor(), 2 * threads


def _import(args) -> int:
    convert = {"cms": import_cms, "kattis": import_kattis}[args.kind]
    result = convert(Path(args.folder), args.task)
    course = Path(args.course) if args.course else default_course()  # a new course folder is fine here
    target = Path(args.out) if args.out else course / "testcases" / f"{result.task_id}.yaml"
    if target.exists() and not args.force:
        raise UsageError(f"{target} already exists; choose another --task or --out, or pass --force to replace it.")
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        target.write_text(result.yaml_text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {target}: {error.strerror or error}.") from None
    print(f"Wrote {result.cases} case{'s' if result.cases != 1 else ''} for the task '{result.task_id}' to {target}.")
    if result.notes:
        print(f"Not carried over ({len(result.notes)}):")
        print("\n".join(f"  - {note}" for note in result.notes))
    return 0


def _indented(text: str) -> str:
    return "\n".join("    " + line for line in text.rstrip("\n").split("\n"))


def verify_text(result) -> str:
    """The summary ``verify`` prints: what held, the kill matrix in brief, what falls short."""
    lines = ["Held:"] + [f"  ok  {line}" for line in result.checked]
    lines.append("Kill matrix (cases x known-wrong solutions):")
    for matrix in result.matrices:
        if not matrix.wrong:
            lines.append(f"  {matrix.task_id}: no known-wrong solutions in solutions/wrong/{matrix.task_id}/")
            continue
        caught = len(matrix.wrong) - len(matrix.uncaught())
        weak = matrix.weak_cases()
        lines.append(
            f"  {matrix.task_id}: {caught} of {len(matrix.wrong)} known-wrong solutions caught; "
            f"{len(matrix.cases) - len(weak)} of {len(matrix.cases)} cases catch at least one"
        )
    if result.weak:
        lines.append(f"Cases that catch no known-wrong solution ({len(result.weak)}; worth a look, not a failure):")
        lines += [f"  - {f.task_id}: {f.what}" for f in result.weak]
    if result.findings:
        lines.append(f"Falls short ({len(result.findings)}):")
        lines += [f"  - {f.task_id}: {f.what}" for f in result.findings]
    else:
        lines.append("Everything held.")
    return "\n".join(lines)


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
    commands = {"check": _check, "verify": _verify, "add-case": _add_case, "import": _import, "grade": _grade}
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
