"""``grade``: grade a whole class, one folder per student, and write the reports and gradebook.

In: the parsed ``grade`` arguments. Out: the exit status (0 every task of every student accepted,
1 not, 2 a student could not be graded or the run was stopped), a summary on standard error and
where the reports went on standard output. Here too: opening the results cache, reaching a Dask
cluster, and refusing to mark a class with a sandbox that lacks protections unless told to.
"""

from __future__ import annotations

import contextlib
import sqlite3
import sys
from pathlib import Path

from grader.authoring.mistake_signatures import course_signatures
from grader.classrun.class_roster import RosterMatch, match_roster, read_roster
from grader.classrun.grade_class import CACHE_NAME, CLASS_FILES, grade_class, students_in
from grader.classrun.outputs import STUDENTS_CSV
from grader.classrun.progress import Progress
from grader.classrun.result_cache import FreshCache, ResultCache
from grader.cli.grading_setup import course_folder, graded_with, grading_context, interpreter_version
from grader.course.loader import load_course
from grader.errors import UsageError
from grader.grade.quick_feedback import GRADE_ADVICE
from grader.model import Verdict
from grader.safe_text import for_terminal, plural


def grade_command(args) -> int:
    """Grade every student folder of ``args.class_dir`` into ``args.out`` (see the module docstring)."""
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
    match = None
    if getattr(args, "roster", None):
        roster = read_roster(Path(args.roster))
        match = match_roster(
            roster, [s.name for s in listing.students], [s.folder for s in listing.students], CLASS_FILES
        )
    course = course_folder(args.course)
    tasks = list(load_course(course.root).values())
    version = interpreter_version(args.python)
    with contextlib.ExitStack() as stack:
        # after a task's second time-out its other cases are not run, as in check and on the portal
        setting = {"quick_feedback": not args.all, "not_run_advice": GRADE_ADVICE}
        context = stack.enter_context(
            grading_context(course, args.python, args.jobs, private=(class_dir, out), **setting)
        )
        executor, workers = (None, None) if not args.dask else _dask_executor(args.dask, stack)
        cache = None if args.no_cache else stack.enter_context(_open_cache(Path(args.cache or out / CACHE_NAME)))
        if cache is not None and args.fresh:
            cache = FreshCache(cache)
        protections = context.runner.protections(args.python)
        _refuse_unprotected(protections, args.allow_unprotected)
        # the known mistakes' signatures: kept from verify or an earlier grade, else made now (once)
        signatures = course_signatures(course.root, tasks, context, said=lambda text: print(text, file=sys.stderr))
        try:
            outcome = grade_class(
                class_dir,
                tasks,
                out,
                context,
                executor=executor,
                workers=workers,
                cache=cache,
                progress=Progress(len(listing.students)),
                note=graded_with(version, protections),
                signatures=signatures,
                absent=match.absent if match is not None else (),
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
    if outcome.renamed:
        print(
            f"Graded under another folder or name ({plural(len(outcome.renamed), 'student')}; "
            f"{for_terminal(str(out / STUDENTS_CSV))} says whose each folder is; rename their folders in "
            f"{for_terminal(str(class_dir))} to keep their own):",
            file=sys.stderr,
        )
    for line in outcome.renamed:
        print(f"  {for_terminal(line)}", file=sys.stderr)
    if match is not None:
        _said_roster(match, class_dir)
    for failure in outcome.grader_failures:
        print(f"error: {for_terminal(failure)}", file=sys.stderr)
    print(
        f"Graded {plural(len(outcome.students), 'student')} on {plural(len(tasks), 'task')}: "
        f"{out / 'index.html'}, {out / 'gradebook.csv'}"
    )
    if outcome.grader_failures:
        return 2
    everything = all(t.verdict is Verdict.ACCEPTED for student in outcome.students for t in student.tasks)
    return 0 if everything else 1


def _said_roster(match: RosterMatch, class_dir: Path) -> None:
    """Who the roster names with no folder, and which folders it does not name, on standard error."""
    where = for_terminal(str(class_dir))
    if match.absent:
        names = ", ".join(for_terminal(name) for name in match.absent)
        print(
            f"On the roster with no folder in {where} ({plural(len(match.absent), 'student')}; in the gradebook "
            f"with 0 points, every task not_handed_in): {names}",
            file=sys.stderr,
        )
    if match.unlisted:
        names = ", ".join(for_terminal(name) for name in match.unlisted)
        print(
            f"Not on the roster ({plural(len(match.unlisted), 'folder')} of {where}; graded all the same: "
            f"add them to the roster, or remove the folders if they are not students): {names}",
            file=sys.stderr,
        )


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
    """The results cache at ``path``, closed on the way out; a ``UsageError`` when it cannot be used."""
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
