"""The portal's ``backup`` and ``restore`` commands (docs/portal.md, "Backup, restore and upgrade").

In: the parsed arguments. Out: the exit status (0 done, 2 could not: the sentence on standard
error), and on standard output what the backup holds or what was restored. Both configure Django on
the portal without migrating it: a backup changes nothing, and a restore migrates once the old
database is back (``grader/web/backup.py``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from grader.cli.grading_setup import course_folder
from grader.cli.portal import _warn_of_password, _web
from grader.errors import UsageError
from grader.safe_text import for_terminal, plural


def add_parsers(commands) -> None:
    """The ``backup`` and ``restore`` commands, added to the command line's subparsers."""
    backup = commands.add_parser(
        "backup",
        help="back the portal up to one file (its database and data folder), even while it serves",
        description="Write OUT, a new file only you may read (mode 600), holding the portal's database (a "
        "consistent copy, even while serve runs) and the files of its data folder but its logs.",
    )
    backup.add_argument("out", metavar="OUT", help="the backup file to write (a new file, outside DIR)")
    restore = commands.add_parser(
        "restore",
        help="put a backup back in place of the portal's database and files, then migrate it",
        description="Restore FILE (written by backup) into DIR (and --db), then migrate it to this version. "
        "Stop serve and dispatch first. A portal that holds accounts or submissions is replaced only with --force.",
    )
    restore.add_argument("file", metavar="FILE", help="the backup to restore")
    restore.add_argument(
        "--force", action="store_true", help="replace the portal's accounts and submissions with the backup's"
    )
    for command in (backup, restore):
        command.add_argument("--data", required=True, metavar="DIR", help="the portal's folder")
        command.add_argument(
            "--db",
            metavar="URL",
            default=os.environ.get("NIM_GRADER_DB") or None,
            help="a database URL (postgresql://user@host/name; default: $NIM_GRADER_DB, or SQLite in DIR)",
        )
        command.add_argument("--course", metavar="DIR", help=argparse.SUPPRESS)
        command.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)


def _configure(args, data: Path) -> None:
    """Django configured on the portal of ``--data`` (and ``--db``), unmigrated."""
    from grader.web.settings import configure

    configure(data, course_folder(args.course).root, args.db)


def backup_command(args) -> int:
    _warn_of_password(args.db)
    _web()
    data = Path(args.data).absolute()
    if not data.is_dir():
        raise UsageError(f"{data} is not a folder: name the --data folder of the portal to back up.")
    from grader.web import backup
    from grader.web.settings import DATABASE_FILE

    if not args.db and not (data / DATABASE_FILE).is_file():
        raise UsageError(f"{data} holds no portal ({DATABASE_FILE} is not there): name the portal's --data folder.")
    _configure(args, data)

    out = Path(args.out).absolute()
    made = backup.make(out, data, args.db)
    facts = made.facts
    print(
        f"Backed up {plural(facts.accounts, 'account')}, {plural(facts.submissions, 'submission')} and "
        f"{plural(len(made.files), 'file')} of {data} to {out} (readable by you only)."
    )
    for skipped in made.skipped:
        print(f"warning: left out {for_terminal(skipped)}: the portal never reads it", file=sys.stderr)
    return 0


def restore_command(args) -> int:
    _warn_of_password(args.db)
    _web()
    data = Path(args.data).absolute()
    from grader.web import backup

    ready = lambda: _configure(args, data)  # noqa: E731
    made, migrated = backup.restore(Path(args.file).absolute(), data, args.db, force=args.force, ready=ready)
    facts = made.facts
    print(
        f"Restored {plural(facts.accounts, 'account')} and {plural(facts.submissions, 'submission')} "
        f"into {data}, as they were at {made.made_at} (backed up by the grader {made.grader})."
    )
    if migrated:
        print(f"Migrated to this version ({', '.join(migrated)}).")
    print("Start serve (or dispatch) again: it grades what was waiting when the backup was made.")
    return 0
