"""The portal's server-side commands: ``serve``, ``dispatch``, ``publish`` and ``users import`` /
``users token`` (``portal.md``).

In: the parsed arguments. Out: the exit status (0 done, 1 a publish refused, 2 could not). The portal needs the ``web``
extra (Django, waitress; Python 3.10+): without it each command says how to install it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Optional
from urllib.parse import urlsplit

from grader.cli.grading_setup import course_folder
from grader.errors import UsageError
from grader.safe_text import plural

_INSTALL = "the portal needs the web extra: pip install -e '.[web]' (Python 3.10 or later)"


def _common(parser) -> None:
    """The options ``serve`` and ``dispatch`` share: where the portal's state is, and its grading."""
    parser.add_argument("--data", required=True, metavar="DIR", help="the portal's folder (database, settings)")
    parser.add_argument("--course", metavar="DIR", help="the course folder (default: this project)")
    parser.add_argument(
        "--db",
        metavar="URL",
        default=os.environ.get("NIM_GRADER_DB") or None,
        help="a database URL (postgresql://user@host/name; its password from PGPASSWORD or PGPASSFILE, never "
        "here); default $NIM_GRADER_DB, or SQLite in DIR",
    )
    parser.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="grade on the Dask cluster whose scheduler is at ADDRESS (its workers need the course folder "
        "at the same path, never the database)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        help="submissions graded at once (default: twice the cores; with --dask, the cluster's threads)",
    )
    parser.add_argument(
        "--allow-unprotected",
        action="store_true",
        help="grade even where the sandbox lacks some of its protections (a trial: programs could read the data)",
    )
    parser.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)


def add_parsers(commands) -> None:
    """The ``serve``, ``dispatch`` and ``users`` commands, added to the command line's subparsers."""
    serve = commands.add_parser(
        "serve",
        help="run the submission portal: the website and its grading, on this machine",
        description="Serve the portal: students hand in, the grader grades in its sandbox, instructors "
        "watch. DIR holds everything it keeps; it is created on first start and migrated on later ones.",
    )
    _common(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000; 0: any free port)")
    serve.add_argument(
        "--proxy",
        metavar="ADDRESS",
        help="the reverse proxy's address (e.g. 127.0.0.1): its X-Forwarded-For and X-Forwarded-Proto "
        "name the client and the scheme (default: no proxy; those headers are ignored)",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a name the site is reached by (e.g. nim.example.edu behind a proxy); repeat for more",
    )
    serve.add_argument(
        "--no-grading",
        action="store_true",
        help="serve the site only; python -m grader dispatch grades (one dispatcher for several web processes)",
    )
    dispatch = commands.add_parser(
        "dispatch",
        help="grade what is handed in to the portal, without serving the site",
        description="Grade the portal's queue: the dispatcher of serve, alone, for a portal whose web "
        "processes run apart (serve --no-grading, or grader.web.wsgi behind gunicorn). Several may run: "
        "each submission's attempt is claimed in the database by one of them.",
    )
    _common(dispatch)
    dispatch.add_argument("--parent-pid", type=int, help=argparse.SUPPRESS)  # (serve's own: it ends with it)
    publish = commands.add_parser(
        "publish",
        help="make the course folder's edits the course the portal grades (verify checks the changed tasks first)",
        description="Publish the course folder as the portal's next version: the tasks whose files changed "
        "since the live version are verified first, and nothing is published if verify finds anything that "
        "falls short. Hand-ins graded before keep their marks until you regrade the changed tasks.",
    )
    publish.add_argument("--data", required=True, metavar="DIR", help="the portal's folder")
    publish.add_argument("--course", metavar="DIR", help="the course folder (default: this project)")
    publish.add_argument(
        "--db",
        metavar="URL",
        default=os.environ.get("NIM_GRADER_DB") or None,
        help="a database URL (default: $NIM_GRADER_DB, or SQLite in DIR)",
    )
    publish.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    users = commands.add_parser(
        "users", help="the portal's accounts: import a roster, issue API tokens and one-time passwords"
    )
    actions = users.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    roster = actions.add_parser("import", help="create or update the accounts of a class from ROSTER.csv")
    roster.add_argument("roster", metavar="ROSTER.csv", help="header row with username and role (student/instructor)")
    roster.add_argument(
        "--passwords",
        metavar="FILE",
        help="write the new accounts' one-time passwords to FILE, a new CSV only you may read "
        "(username,name,email,password: for a mail merge), instead of printing them",
    )
    token = actions.add_parser("token", help="print a new API token for each user named")
    token.add_argument("usernames", nargs="+", metavar="USERNAME")
    password = actions.add_parser(
        "password",
        help="print a new one-time password for each user named (a forgotten password; work stays; "
        "their old password, API token and sessions end)",
    )
    password.add_argument("usernames", nargs="+", metavar="USERNAME")
    for action in (roster, token, password):
        action.add_argument("--data", required=True, metavar="DIR", help="the portal's folder")
        action.add_argument(
            "--db",
            metavar="URL",
            default=os.environ.get("NIM_GRADER_DB") or None,
            help="a database URL (default: $NIM_GRADER_DB, or SQLite in DIR)",
        )
        action.add_argument("--course", metavar="DIR", help=argparse.SUPPRESS)
        action.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)


def _web():
    """The portal's server module, or a sentence saying how to install it. (Its other modules are
    imported once Django is configured: their models need the settings.)"""
    try:
        import django  # noqa: F401
        import waitress  # noqa: F401
    except ImportError:
        raise UsageError(_INSTALL) from None
    if sys.version_info < (3, 10):
        raise UsageError(_INSTALL)
    from grader.web import server

    return server


def _warn_of_password(url: Optional[str]) -> None:
    """A password in a database URL on the command line is there for every process of the machine to
    read (/proc/PID/cmdline): say so, and where it belongs."""
    try:
        secret = urlsplit(url).password if url else None
    except ValueError:
        return
    if secret:
        print(
            "warning: the --db URL holds a password, which every process on this machine can read on the "
            "command line: put it in a file only the portal's user may read (chmod 600) named by PGPASSFILE, "
            "or in PGPASSWORD, and leave it out of the URL (postgresql://user@host/name).",
            file=sys.stderr,
        )


def _plan(args, **where):
    _warn_of_password(args.db)
    server = _web()
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers {args.workers}: at least 1.")
    plan = server.Plan(
        data=Path(args.data).resolve(),
        course=course_folder(args.course).root,
        db_url=args.db,
        workers=args.workers,
        dask=args.dask,
        allow_unprotected=args.allow_unprotected,
        **where,
    )
    return server, plan


def serve_command(args) -> int:
    if not 0 <= args.port < 65536:
        raise UsageError(f"--port {args.port}: a port is a number from 1 to 65535 (0: any free port).")
    server, plan = _plan(
        args,
        host=args.host,
        port=args.port,
        proxy=args.proxy,
        names=tuple(args.allowed_host),
        grading=not args.no_grading,
    )
    return server.run(plan)


def dispatch_command(args) -> int:
    server, plan = _plan(args, web=False, parent=args.parent_pid)
    return server.run(plan)


def users_command(args) -> int:
    _warn_of_password(args.db)
    server = _web()
    server.prepare(Path(args.data).resolve(), course_folder(args.course).root, args.db)
    from grader.web.site import roster

    if args.action == "import":
        written = Path(args.passwords) if args.passwords else None
        outcome = roster.import_roster(Path(args.roster), passwords=written)
        for username, password in [] if written else outcome.created:
            print(f"{username}: sign in the first time with the password {password} and change it at once.")
        print(
            f"{plural(len(outcome.created), 'account')} created, {len(outcome.changed)} changed, "
            f"{len(outcome.unchanged)} unchanged.",
            file=sys.stderr,
        )
        if outcome.dropped:
            print(
                f"Kept dropped (an import restores no one; restore them on /teach/ if they are back): "
                f"{', '.join(outcome.dropped)}.",
                file=sys.stderr,
            )
        if written:
            print(
                f"{plural(len(outcome.created), 'one-time password')} written to {written} (readable by you only): "
                "send each student their own line, then delete the file.",
                file=sys.stderr,
            )
        return 0
    if args.action == "password":
        for username, password in roster.new_passwords(args.usernames):
            print(f"{username}: sign in with the password {password} and change it at once.")
        return 0
    from grader.web.models import FirstSignIn

    issued = roster.new_tokens(args.usernames)
    for username, token in issued:
        print(f"{username} {token}")
    waiting = FirstSignIn.objects.filter(user__username__in=[name for name, _ in issued])
    for username in sorted(waiting.values_list("user__username", flat=True)):
        print(
            f"{username} is still on the one-time password: no token of theirs works until they have signed in "
            "and chosen a password of their own (which ends this one); then they make one on /account/, "
            "or you run users token again.",
            file=sys.stderr,
        )
    return 0


def publish_command(args) -> int:
    """Publish the course folder (``grader.web.worker.publishing``): 0 published or nothing to publish, 1 refused."""
    import getpass

    _warn_of_password(args.db)
    server = _web()
    data = Path(args.data).resolve()
    server.prepare(data, course_folder(args.course).root, args.db)
    from grader.web import logs
    from grader.web.worker import publishing

    logs.setup(data, "publish")
    try:
        who = getpass.getuser()
    except (KeyError, OSError):  # a user with no name on this machine
        who = f"uid {os.getuid()}"
    outcome = publishing.publish(f"{who} (python -m grader publish)")
    for sentence in outcome.sentences():
        print(sentence, file=sys.stdout if outcome.version is not None or outcome.nothing else sys.stderr)
    return 1 if outcome.refused else 0
