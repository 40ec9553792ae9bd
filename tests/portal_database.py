"""The database the portal's tests run against: SQLite in each data folder (the default), or a
PostgreSQL server of their own when ``NIM_GRADER_TEST_DB=postgresql`` (tox's ``portal-postgres``).

The server is Debian's PostgreSQL, started for the session in a temporary folder, listening on a
Unix socket only (no port, nobody else's). ``initdb`` refuses to run as root, so as root it runs as
the ``postgres`` user. Where it cannot be started, the tests that asked for it are skipped with why.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import List, Optional

WANTED = os.environ.get("NIM_GRADER_TEST_DB", "")


def _binary(name: str) -> Optional[str]:
    """``name`` from PATH or Debian's versioned folder (the newest), or None."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda p: int(p.split("/")[4]))
    return versions[-1] if versions else None


class PostgresServer:
    """A PostgreSQL server in a temporary folder; ``url(name)`` for a database on it."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="nim-pg-"))
        self.as_user: List[str] = []
        self.problem = ""
        self._started = False

    def start(self) -> bool:
        """Start it; False with ``problem`` set when it cannot be."""
        initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
        if not initdb or not pg_ctl:
            self.problem = "PostgreSQL is not installed (.ci/run installs Debian's postgresql package)"
            return False
        try:
            import psycopg  # noqa: F401
        except ImportError:
            self.problem = "the psycopg driver is not installed (pip install 'psycopg[binary]')"
            return False
        if os.geteuid() == 0:
            try:
                owner = pwd.getpwnam("postgres")
            except KeyError:
                self.problem = "initdb refuses root and there is no postgres user to run it as"
                return False
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self.folder.chmod(0o755)
        data, log = self.folder / "data", self.folder / "log"
        steps = [
            [initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"],
            [pg_ctl, "-D", str(data), "-l", str(log), "-w", "-t", "60", "start", "-o",
             f"-k {self.folder} -c listen_addresses='' -c fsync=off -c full_page_writes=off -c max_connections=200"],
        ]  # fmt: skip
        for step in steps:
            done = subprocess.run(self.as_user + step, capture_output=True, text=True, timeout=120)
            if done.returncode != 0:
                tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["?"]
                more = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else []
                self.problem = f"PostgreSQL could not be started here: {tail[0]} {' '.join(more)}".strip()
                return False
            self._started = step is steps[-1]
        return True

    def url(self, name: str = "postgres") -> str:
        return f"postgresql://postgres@/{name}?host={self.folder}"

    def new_database(self) -> str:
        """A new, empty database's URL."""
        import psycopg

        name = f"nim_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(host=str(self.folder), user="postgres", dbname="postgres", autocommit=True) as db:
            db.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self._started:
            pg_ctl = _binary("pg_ctl")
            subprocess.run(self.as_user + [pg_ctl, "-D", str(self.folder / "data"), "-m", "immediate", "stop"],
                           capture_output=True, timeout=60)  # fmt: skip
        shutil.rmtree(self.folder, ignore_errors=True)


class PortalDatabase:
    """What a portal test runs against: ``url`` for the session's database (None: SQLite in the
    data folder) and ``fresh()`` for a database of a test's own (None again for SQLite)."""

    def __init__(self, server: Optional[PostgresServer]) -> None:
        self.server = server
        self.url = server.new_database() if server else None
        self.name = "PostgreSQL" if server else "SQLite"

    def fresh(self) -> Optional[str]:
        return self.server.new_database() if self.server else None

    def options(self) -> List[str]:
        """``--db URL`` for a command with a database of its own, or nothing for SQLite."""
        fresh = self.fresh()
        return ["--db", fresh] if fresh else []
