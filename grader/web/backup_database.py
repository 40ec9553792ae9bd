"""The portal's database copied into a backup and back: SQLite by its backup API, PostgreSQL by
``pg_dump`` and ``pg_restore``.

In: Django configured on the portal (``settings.configure``, never migrated here: a backup changes
nothing, a restore migrates once the old database is back), the data folder and the database URL
(None: SQLite in the data folder). Out: the database as one file (``dump``) with what it holds
(``Facts``: its migrations, how many accounts and submissions), or the database put back from one
(``load``); what a portal holds now (``held``) and whether a dispatcher is grading it (``running``).

Why these and not Django's ``dumpdata``: both keep the database as it is, its schema and its
``django_migrations`` table with it, so a backup made by an older version is restored as that
version left it and ``migrate`` then brings it forward as it would have the live database (data
migrations included); ``dumpdata`` writes rows for today's models only, which an older backup's
rows need not fit. SQLite's backup API copies a consistent snapshot while ``serve`` writes
(a read transaction in WAL mode never blocks writers); ``pg_dump`` reads one snapshot too.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional
from urllib.parse import urlsplit, urlunsplit

from grader.errors import UsageError
from grader.web.settings import DATABASE_FILE

SQLITE = "sqlite"
POSTGRESQL = "postgresql"
_PG_CLIENT = (
    "PostgreSQL's client programs, of the server's major version or newer "
    "(Debian and Ubuntu: apt-get install postgresql-client)"
)


@dataclass(frozen=True)
class Facts:
    """What a database holds: its migrations by app (``{"web": ["0001_initial", ...]}``), its
    accounts and submissions, and when the newest submission was handed in (ISO text, or "")."""

    migrations: Dict[str, List[str]] = field(default_factory=dict)
    accounts: int = 0
    submissions: int = 0
    newest: str = ""


def kind(db_url: Optional[str]) -> str:
    return POSTGRESQL if db_url else SQLITE


def shown_url(db_url: str) -> str:
    """The URL without its password, for a sentence a person reads."""
    parts = urlsplit(db_url)
    if parts.password is None:
        return db_url
    host = parts.hostname or ""
    where = f"{parts.username}@{host}" if parts.username else host
    return urlunsplit(parts._replace(netloc=where + (f":{parts.port}" if parts.port else "")))


def _tables() -> tuple:
    """The tables of the accounts and of the submissions (the same in every version)."""
    from django.contrib.auth import get_user_model

    from grader.web.models import Submission

    return get_user_model()._meta.db_table, Submission._meta.db_table


def _facts(cursor) -> Facts:
    """``Facts`` from a DB-API cursor on the portal's tables (either database)."""
    users, submissions_table = _tables()
    migrations: Dict[str, List[str]] = {}
    cursor.execute("SELECT app, name FROM django_migrations ORDER BY app, name")
    for app, name in cursor.fetchall():
        migrations.setdefault(app, []).append(name)
    cursor.execute(f"SELECT COUNT(*) FROM {users}")
    accounts = cursor.fetchone()[0]
    cursor.execute(f"SELECT COUNT(*), MAX(submitted_at) FROM {submissions_table}")
    submissions, newest = cursor.fetchone()
    return Facts(migrations, accounts, submissions, str(newest or ""))


def _django_facts() -> Optional[Facts]:
    """The facts of the database Django is configured on; None when it holds no portal (no tables)."""
    from django.db import connection

    if not {"django_migrations", *_tables()} <= set(connection.introspection.table_names()):
        return None
    with connection.cursor() as cursor:
        return _facts(cursor)


def dump(data: Path, db_url: Optional[str], into: Path) -> tuple:
    """The database written as one file in the folder ``into``: (that file, its ``Facts``)."""
    if db_url:
        return _pg_dump(db_url, into / "portal.pgdump")
    target = into / DATABASE_FILE
    source = sqlite3.connect(str(data / DATABASE_FILE), timeout=30)
    copy = sqlite3.connect(str(target))
    try:
        source.backup(copy)  # one step: a snapshot, whatever serve writes meanwhile
        copy.execute("PRAGMA journal_mode=DELETE")  # one file, no -wal beside it
        try:
            facts = _facts(copy.cursor())
        except sqlite3.DatabaseError:
            raise UsageError(
                f"{data} holds no portal yet (its database has no accounts table): nothing to back up."
            ) from None
    finally:
        copy.close()
        source.close()
    return target, facts


def _program(name: str) -> str:
    found = shutil.which(name)
    if not found:
        raise UsageError(
            f"{name} was not found on PATH: a PostgreSQL portal is backed up and restored with {_PG_CLIENT}."
        )
    return found


def _run(command: List[str], what: str, db_url: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, errors="replace")
    if done.returncode != 0:
        said = [line for line in done.stderr.strip().splitlines() if line.strip()] or [f"exit status {done.returncode}"]
        raise UsageError(f"{what} {shown_url(db_url)} failed: {said[0].strip()}")


def _pg_dump(db_url: str, target: Path) -> tuple:
    program = _program("pg_dump")
    facts = _django_facts()
    if facts is None:
        raise UsageError(f"{shown_url(db_url)} holds no portal yet (no accounts table): nothing to back up.")
    # the URL as libpq reads it (its password, if any, from PGPASSFILE or PGPASSWORD as for the portal)
    command = [program, "--format=custom", "--no-owner", "--no-privileges", "--file", str(target), "--dbname", db_url]
    _run(command, "pg_dump of", db_url)
    return target, facts


def held() -> Optional[Facts]:
    """What the portal's database holds now (None: no portal in it yet)."""
    from django.db import DatabaseError

    try:
        return _django_facts()
    except DatabaseError:  # tables of another version, half there: whatever they hold is a portal's
        return Facts(accounts=-1)


def running() -> List[str]:
    """The dispatchers heard from in the last 30 seconds (a portal that is serving or grading)."""
    from django.db import DatabaseError

    try:
        from grader.web.worker.queue import live_workers

        return sorted(live_workers())
    except DatabaseError:  # no table yet (an empty database) or another version's: no dispatcher of ours
        return []


def load(db_url: Optional[str], data: Path, dumped: Path) -> None:
    """Put the database of the file ``dumped`` in place of the portal's (checked by the caller:
    empty, or ``--force``). Django's connections are closed first and reopen afterwards."""
    from django.db import connections

    connections.close_all()
    if db_url:
        _pg_load(db_url, dumped)
        return
    source = sqlite3.connect(str(dumped))
    try:
        if source.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            raise UsageError(
                "the database in the backup is damaged (SQLite's quick_check says otherwise): not restored."
            )
        # through SQLite, page by page into the live file: its -wal and -shm stay true to it
        target = sqlite3.connect(str(data / DATABASE_FILE), timeout=30)
        try:
            source.backup(target)
        finally:
            target.close()
    finally:
        source.close()


def _pg_load(db_url: str, dumped: Path) -> None:
    program = _program("pg_restore")
    from django.db import connection, connections, transaction

    # a database of its own (docs/portal.md): every table in it is the portal's, of whatever version
    with transaction.atomic(), connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"DROP TABLE IF EXISTS {connection.ops.quote_name(table)} CASCADE")
    connections.close_all()
    command = [program, "--no-owner", "--no-privileges", "--single-transaction", "--exit-on-error"]
    _run(command + ["--dbname", db_url, str(dumped)], "pg_restore into", db_url)
