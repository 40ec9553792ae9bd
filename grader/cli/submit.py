"""``submit``: hand in exercise files to the course's portal and, with ``--wait``, show the results.

In: the parsed ``submit`` arguments (FILE..., ``--server``, ``--token`` or ``NIM_GRADER_TOKEN``,
``--task``, ``--wait``, ``--timeout``). Out: for each file its submission's id and the address of
its page on the portal (the one a student opens) on standard output, and for a file that imports
others of those given (``working_game.py`` with ``ui.py``, as the portal's task list says) a line
naming those handed in with it: they go with its hand-in, graded together, and are still handed in
as their own tasks too, each in its turn (a warning when the portal does not say it took them,
as an older portal would not); with ``--wait`` the table
``check`` prints, built from the portal's answers, a line for each file handed in after its
task's deadline (late), and each task's report URL. The exit status is ``check``'s: 0 every file
accepted (or, without ``--wait``, handed in), 1 one was not accepted, 2 the grader could not do
its job (a file that cannot be handed in, a refused token, a portal that cannot be reached or
answers junk, a submission the portal could not grade, a wait that ran out). Every file is read,
and its task known to the portal, before anything is handed in.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Tuple

from grader.cli.portal_client import (
    HandedIn,
    PortalClient,
    PortalError,
    SubmissionState,
    checked_token,
    portal_address,
    size_limit,
)
from grader.errors import UsageError
from grader.model import KnownMistake
from grader.report.causes import CAUSE_CHARS
from grader.report.pages import mistake_sentence, score_text, table_lines
from grader.safe_text import for_terminal, plural
from grader.submission.files import Kind, read_files

TOKEN_VARIABLE = "NIM_GRADER_TOKEN"
DEFAULT_WAIT_S = 600.0
# The portal grades a file in seconds: ask soon, then less and less often.
FIRST_POLL_S = 0.25
POLL_GROWTH = 1.5
LONGEST_POLL_S = 5.0


@dataclass(frozen=True)
class _File:
    """A file to hand in: as the student named it (made safe to print), its name, its task, its bytes."""

    shown: str
    name: str
    task: str
    data: bytes


class _StillWaiting(Exception):
    """The wait ran out before the portal finished the submission; ``status`` is where it was."""

    def __init__(self, status: str) -> None:
        super().__init__(status)
        self.status = status


def add_submit_parser(commands) -> None:
    """The ``submit`` command's arguments, on the command line's sub-parsers."""
    submit = commands.add_parser(
        "submit",
        help="hand in exercise files to the course's portal",
        description="Hand in exercise files (the task is the file name, nim_sum.py is nim_sum) to the "
        "course's submission portal; with --wait, wait for the results and print the table check prints.",
    )
    submit.add_argument("files", nargs="+", metavar="FILE", help="an exercise file to hand in")
    submit.add_argument("--server", required=True, metavar="URL", help="the portal's address (https://...)")
    submit.add_argument(
        "--token",
        help=f"your API token (default: the environment variable {TOKEN_VARIABLE}); "
        "one that starts with - goes as --token=TOKEN",
    )
    submit.add_argument("--task", help="hand in the file as this task, whatever its name (one FILE only)")
    submit.add_argument("--wait", action="store_true", help="wait for the results and print them as check does")
    submit.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_WAIT_S,
        metavar="SECONDS",
        help=f"with --wait, stop waiting after this long in all (default: {DEFAULT_WAIT_S:g}; grading goes on)",
    )
    submit.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)


def submit_command(args) -> int:
    """Hand in ``args.files`` (see the module docstring); returns the exit status."""
    portal = portal_address(args.server)
    if portal.in_clear:
        print(
            f"warning: {for_terminal(portal.shown)} is plain http to another machine: your token travels "
            "unencrypted; use the portal's https:// address if it has one.",
            file=sys.stderr,
        )
    token = checked_token(args.token or os.environ.get(TOKEN_VARIABLE))
    if args.task is not None and len(args.files) > 1:
        raise UsageError(
            "--task names the task of one file: hand the files in one at a time, or name each after its task."
        )
    if not args.timeout > 0:
        raise UsageError("--timeout must be a number of seconds above 0.")
    files = [_read(text, args.task) for text in args.files]
    client = PortalClient(portal, token)
    tasks = client.tasks()
    _check_tasks(files, list(tasks), args.task)
    given = {item.task: item for item in files}  # a task given twice: its last file, handed in last
    handed: List[Tuple[_File, HandedIn]] = []
    for item in files:
        also = [(f"{used}.py", given[used].data) for used in tasks.get(item.task, ()) if used in given]
        try:
            submission = client.hand_in(item.task, item.name, item.data, also)
        except PortalError as error:
            before = " (the files before it were handed in)" if handed else ""
            raise PortalError(f"{item.shown}: {error}{before}") from None
        handed.append((item, submission))
        print(
            f"{item.shown}: handed in as {for_terminal(item.task)}, submission {for_terminal(submission.id)} "
            f"({submission.status}{', late: after the deadline' if submission.late else ''}): "
            f"{for_terminal(client.submission_page(submission.id))}",
            flush=True,
        )
        if also:
            _say_together(item, [name for name, _ in also], submission)
    if not args.wait:
        return 0
    return _wait_and_show(client, handed, args.timeout)


def _say_together(item: _File, sent: Sequence[str], submission: HandedIn) -> None:
    """The line naming the files handed in with ``item``, as the portal's answer lists them; a
    warning for those it does not list (an older portal takes ``file`` alone, and grades it with
    the student's latest earlier hand-ins of the others)."""
    taken = [name for name in sent if submission.files is not None and name in submission.files[1:]]
    if taken:
        print(f"{item.shown} handed in with {for_terminal(', '.join(taken))}", flush=True)
    left = [name for name in sent if name not in taken]
    if left:
        print(
            f"warning: the portal did not say it took {for_terminal(', '.join(left))} with {item.shown}: it may "
            "grade it with your latest hand-ins of those made before it instead (they are handed in on their own too).",
            file=sys.stderr,
        )


def _read(text: str, forced: Optional[str]) -> _File:
    """The file named ``text``, read as a regular file (never through a link), within the grader's size
    limit; a ``UsageError`` that says why not."""
    path, shown = Path(text), for_terminal(text)
    nothing = "nothing was handed in."
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        raise UsageError(f"{shown}: no such file; {nothing}") from None
    except OSError as error:
        raise UsageError(f"{shown}: cannot be examined ({error.strerror or error}); {nothing}") from None
    if stat.S_ISDIR(mode):
        raise UsageError(f"{shown} is a folder: name the exercise files in it, one by one; {nothing}")
    found = read_files(path.parent, [path.name], follow_folder=True, shown=str(path.parent))[path.name]
    if found.kind is Kind.MISSING:
        raise UsageError(f"{shown}: no such file; {nothing}")
    if found.kind is Kind.TOO_LARGE:
        raise UsageError(
            f"{shown} is larger than the grader takes ({size_limit()} a file): hand in the exercise file itself; "
            f"{nothing}"
        )
    if found.kind is not Kind.READ:
        raise UsageError(f"{found.reason} Nothing was handed in.")
    return _File(shown, path.name, forced or path.stem, found.data)


def _check_tasks(files: Sequence[_File], known: Sequence[str], forced: Optional[str]) -> None:
    """Every file's task is one the portal takes, before anything is handed in."""
    tasks = ", ".join(sorted(known)) or "none"
    for item in files:
        if item.task in known:
            continue
        if forced is not None:
            raise UsageError(f"--task {forced}: the portal has no such task (it has {tasks}); nothing was handed in.")
        raise UsageError(
            f"{item.shown}: the file name names no task of the portal (it has {tasks}): name the file after its "
            "task or pass --task; nothing was handed in."
        )


def _wait_and_show(client: PortalClient, handed: Sequence[Tuple[_File, HandedIn]], limit_s: float) -> int:
    """Wait for every submission (``limit_s`` in all), print the table and the reports; the exit status."""
    print(f"Waiting for the results (at most {limit_s:g} s; Ctrl-C stops waiting, not grading).", file=sys.stderr)
    deadline = time.monotonic() + limit_s
    finished: List[SubmissionState] = []
    problems: List[str] = []
    for item, submission in handed:
        where = f"{item.shown} (submission {for_terminal(submission.id)})"
        try:
            state = wait_for(client, submission.id, deadline)
        except _StillWaiting as late:
            problems.append(
                f"{where} was still {late.status} after {limit_s:g} s: the portal keeps it; see "
                f"{for_terminal(client.submission_page(submission.id))} later, or wait longer with --timeout."
            )
            continue
        except PortalError as error:  # the portal is out of reach or answers junk: the others would fare no better
            problems.append(f"{where}: {error}")
            break
        finished.append(state)
        if state.status == "error":
            problems.append(
                f"{where}: the portal could not grade it (its status is error): hand it in again, and tell your "
                "instructor if it happens again."
            )
    if finished:
        print(results_table(finished), flush=True)
    for problem in problems:
        print(f"error: {for_terminal(problem)}", file=sys.stderr)
    if problems:
        return 2
    return 0 if all(state.verdict == "accepted" for state in finished) else 1


def wait_for(
    client: PortalClient,
    submission_id: str,
    deadline: float,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> SubmissionState:
    """The submission once ``done`` or ``error``, asked for at growing intervals; ``_StillWaiting``
    when ``deadline`` (of ``clock``) passes first. It is always asked for once, however late."""
    interval = FIRST_POLL_S
    while True:
        state = client.submission(submission_id)
        if state.status in ("done", "error"):
            return state
        left = deadline - clock()
        if left <= 0:
            raise _StillWaiting(state.status)
        sleep(min(interval, left))
        interval = min(interval * POLL_GROWTH, LONGEST_POLL_S)


def results_table(states: Sequence[SubmissionState]) -> str:
    """``check``'s table from the portal's answers, then the notes on each file, a line for each
    handed in late (after its task's deadline: graded, and marked late), and each task's report URL."""
    rows = []
    for state in states:
        if state.status != "done":
            rows.append((for_terminal(state.task), "error", "-", ""))
            continue
        failing = next((case for case in state.cases if case.verdict != "accepted" and not case.waiting), None)
        rows.append(
            (
                for_terminal(state.task),
                state.verdict,
                score_text(state.score, state.max_score),
                for_terminal(failing.name) if failing else "",
            )
        )
    table = table_lines(rows)
    lines = table[:1]
    for row, state in zip(table[1:], states):  # under a task's row, what check prints there
        lines += [row, *(f"    {said}" for said in said_under(state))]
    notes = [f"{for_terminal(s.task)}: {for_terminal(note)}" for s in states for note in s.notes]
    notes += [
        f"{for_terminal(s.task)}: late: handed in after the task's deadline (graded all the same, and marked late)."
        for s in states
        if s.late
    ]
    reports = [f"Report ({for_terminal(s.task)}): {for_terminal(s.report_url)}" for s in states if s.report_url]
    return "\n".join(lines + notes + reports)


def said_under(state: SubmissionState) -> List[str]:
    """What ``check`` prints under a task's row, from the portal's answer: the first failing case's
    cause and the known mistake the answers match, as ``check`` words them (``report.terminal_table``);
    either left out where the portal does not say it (an older portal) or says something else. For a
    submission graded on its public cases only, every one of them accepted: that, and that the hidden
    ones wait (the verdict column says ``not_run`` for them)."""
    said = state.said or {}
    cause, known = said.get("cause"), said.get("known_mistake")
    lines = [for_terminal(cause[:CAUSE_CHARS])] if isinstance(cause, str) and cause.strip() else []
    waiting = sum(case.waiting for case in state.cases)
    if waiting and all(case.verdict == "accepted" or case.waiting for case in state.cases):
        lines.append(
            f"every public case accepted; the {plural(waiting, 'hidden case')} "
            f"{'runs' if waiting == 1 else 'run'} after your deadline (the note below says when)"
        )
    if isinstance(known, dict) and isinstance(known.get("mistake"), str) and known["mistake"].strip():
        matched, failing = known.get("matched"), known.get("failing")
        if all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 10**6 for n in (matched, failing)):
            found = KnownMistake("", known["mistake"][:1000], "", int(matched or 0), int(failing or 0))
            lines.append(for_terminal(mistake_sentence(found)))
    return lines
