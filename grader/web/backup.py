"""A portal backed up to one file and restored from it (``python -m grader backup`` and ``restore``).

In: the data folder, the database URL (None: SQLite in the data folder), Django configured on them
(not migrated). Out: ``make`` writes OUT, a gzipped tar holding
- ``manifest.json``: what this is (``format``, ``version``), when and by which grader it was made,
  the database's kind, migrations and counts (``backup_database.Facts``), and each member's size
  and SHA-256;
- ``database/portal.sqlite3`` (SQLite's backup API) or ``database/portal.pgdump`` (``pg_dump``'s
  custom format);
- ``files/...``: every other plain file of the data folder (``secret_key``, and whatever else the
  portal keeps there), but for the live database's own files and ``logs/``, a record of the past
  that restoring must not rewrite.
OUT is made 0600 under another name and linked into place: never world-readable, never half
written, never over an existing file. ``restore`` reads such a file (anything else is refused with
a sentence), refuses to replace a portal that holds accounts or submissions unless ``force``
(saying what would be lost), and always one whose dispatcher is running; then puts the database
and files back and migrates the database to this version of the grader.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import tarfile
import tempfile
import time
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Callable, Dict, List, Optional, Tuple

from grader import __version__
from grader.errors import UsageError
from grader.safe_text import plural
from grader.web import backup_database as db
from grader.web.private_files import private_file, private_folder
from grader.web.settings import DATABASE_FILE

FORMAT = "nim-grader-backup"
VERSION = 1
MANIFEST = "manifest.json"
MEMBERS = {db.SQLITE: "database/portal.sqlite3", db.POSTGRESQL: "database/portal.pgdump"}
_LIVE = {DATABASE_FILE + suffix for suffix in ("", "-wal", "-shm", "-journal")}
_LEFT_OUT = _LIVE | {"logs"}  # at the top of the data folder
_NOT_A_BACKUP = "A backup is the file python -m grader backup writes."


@dataclass(frozen=True)
class Made:
    """What a backup holds (from its manifest)."""

    database: str
    facts: db.Facts
    files: Tuple[str, ...]
    made_at: str
    grader: str
    skipped: Tuple[str, ...] = ()  # what was in the data folder and is not in the backup, with why


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _copy(source, target, limit: int = -1) -> str:
    """Copy the open file ``source`` to ``target`` a MiB at a time (a database may be large); its SHA-256."""
    digest = hashlib.sha256()
    while limit:
        chunk = source.read(1 << 20 if limit < 0 else min(limit, 1 << 20))
        if not chunk:
            break
        digest.update(chunk)
        if target is not None:
            target.write(chunk)
        limit -= len(chunk) if limit > 0 else 0
    return digest.hexdigest()


def _data_files(data: Path) -> Tuple[Dict[str, bytes], List[str]]:
    """The data folder's plain files to keep (path relative to it → bytes), and what was left out
    with why (a link or a pipe planted there is never followed or read)."""
    kept: Dict[str, bytes] = {}
    skipped: List[str] = []
    for folder, folders, names in os.walk(data):
        here = Path(folder)
        if here == data:
            folders[:] = [name for name in folders if name not in _LEFT_OUT]
            names = [name for name in names if name not in _LEFT_OUT]
        for name in sorted(names):
            path = here / name
            found = os.lstat(path)
            if not stat.S_ISREG(found.st_mode):
                skipped.append(f"{path} (not a plain file)")
                continue
            descriptor = os.open(str(path), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with os.fdopen(descriptor, "rb") as handle:
                kept[path.relative_to(data).as_posix()] = handle.read()
        for name in [name for name in folders if os.path.islink(here / name)]:
            skipped.append(f"{here / name} (a symbolic link)")
            folders.remove(name)
    return kept, skipped


def _entry(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), 0o600, int(time.time())
    tar.addfile(info, io.BytesIO(data))


def _private(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.mode, info.uid, info.gid, info.uname, info.gname = 0o600, 0, 0, "", ""
    return info


def _new_file(out: Path, data: Path) -> None:
    """Refuse an OUT that exists, or lies inside the data folder (the next backup would hold it)."""
    if os.path.lexists(out):
        raise UsageError(f"{out} exists: a backup never replaces a file. Name a new file, or remove that one first.")
    if out.parent.resolve().is_relative_to(data.resolve()):
        raise UsageError(
            f"{out} is inside the data folder {data}: write the backup elsewhere (it would be lost with the folder)."
        )
    if not out.parent.is_dir():
        raise UsageError(f"{out.parent} is not a folder: make it first, or name a file in a folder that exists.")


def _publish(partial: Path, out: Path) -> None:
    """``partial``, whole, under the name ``out``: linked (which fails on an existing file, even one
    made a moment ago), or renamed where the file system has no links."""
    try:
        os.link(partial, out)
    except FileExistsError:
        raise UsageError(f"{out} appeared while the backup was written: it is left alone. Name a new file.") from None
    except OSError:
        if os.path.lexists(out):
            raise UsageError(f"{out} exists: a backup never replaces a file. Name a new file.") from None
        os.rename(partial, out)
        return
    os.unlink(partial)


def make(out: Path, data: Path, db_url: Optional[str]) -> Made:
    """Write the backup of the portal in ``data`` (and ``db_url``) to the new file ``out``."""
    _new_file(out, data)
    with tempfile.TemporaryDirectory(prefix="nim-grader-backup-") as work:  # 0700: the database passes here
        dumped, facts = db.dump(data, db_url, Path(work))
        files, skipped = _data_files(data)
        with dumped.open("rb") as handle:
            database = _copy(handle, None)
        kind = db.kind(db_url)
        manifest = {
            "format": FORMAT,
            "version": VERSION,
            "made_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "grader": __version__,
            "database": kind,
            "facts": asdict(facts),
            "members": {MEMBERS[kind]: database, **{f"files/{n}": _sha256(b) for n, b in files.items()}},
        }
        partial = out.with_name(f".{out.name}.partial-{os.getpid()}")
        descriptor = os.open(str(partial), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(descriptor, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
                _entry(tar, MANIFEST, json.dumps(manifest, indent=1).encode())
                tar.add(str(dumped), MEMBERS[kind], filter=_private)
                for name, content in sorted(files.items()):
                    _entry(tar, f"files/{name}", content)
            _publish(partial, out)
        finally:
            if os.path.lexists(partial):
                os.unlink(partial)
    return _made(manifest, tuple(skipped))


def _made(manifest: dict, skipped: Tuple[str, ...] = ()) -> Made:
    files = tuple(sorted(name[len("files/") :] for name in manifest["members"] if name.startswith("files/")))
    facts = db.Facts(**manifest["facts"])
    return Made(manifest["database"], facts, files, manifest["made_at"], manifest["grader"], skipped)


def _bad(path: Path, why: str) -> UsageError:
    return UsageError(f"{path} is not a backup the grader can restore: {why}. {_NOT_A_BACKUP}")


def _safe_member(name: str) -> bool:
    """A member name that stays inside the data folder: relative, no ``..``, not the live database or logs."""
    parts = PurePosixPath(name).parts
    return (
        len(parts) >= 2
        and parts[0] == "files"
        and not name.startswith("/")
        and all(part not in ("", ".", "..") for part in parts)
        and parts[1] not in _LEFT_OUT
    )


def read(path: Path, work: Path) -> Tuple[Made, Path, Dict[str, bytes]]:
    """The backup at ``path``, checked against its manifest: what the manifest says, its database
    written into the folder ``work``, and the data folder's files (path → bytes)."""
    if not path.is_file():
        raise UsageError(f"{path} is not a file: name the backup to restore.")
    digests: Dict[str, str] = {}
    files: Dict[str, bytes] = {}
    manifest: dict = {}
    try:
        with tarfile.open(str(path), "r:gz") as tar:
            for info in tar:
                handle = tar.extractfile(info) if info.isfile() else None
                if handle is None:
                    raise _bad(path, f"{info.name!r} in it is not a plain file")
                if info.name == MANIFEST:
                    manifest = _manifest(path, handle.read(1 << 20))
                elif info.name in MEMBERS.values():
                    with open(work / PurePosixPath(info.name).name, "xb") as target:
                        digests[info.name] = _copy(handle, target)
                elif _safe_member(info.name):
                    files[info.name] = handle.read()
                    digests[info.name] = _sha256(files[info.name])
                else:
                    raise _bad(path, f"it names {info.name!r}, which is no file of a data folder")
    except (tarfile.TarError, EOFError, zlib.error) as error:
        raise _bad(path, f"it cannot be read as a gzipped tar ({error})") from None
    except OSError as error:
        raise _bad(path, f"it cannot be read ({error.strerror or error})") from None
    if not manifest:
        raise _bad(path, f"it holds no {MANIFEST}")
    made = _made(manifest)
    if set(digests) != set(manifest["members"]):
        raise _bad(path, "its files are not those its manifest lists (cut short, or changed)")
    for name, digest in digests.items():
        if digest != manifest["members"][name]:
            raise _bad(path, f"{name} in it is not what was backed up (its SHA-256 differs: damaged or changed)")
    return made, work / PurePosixPath(MEMBERS[made.database]).name, {n[len("files/") :]: b for n, b in files.items()}


def _manifest(path: Path, text: bytes) -> dict:
    """The manifest's content, checked to be one a backup of this format writes."""
    try:
        manifest = json.loads(text)
        shaped = (
            manifest["format"] == FORMAT and manifest["database"] in MEMBERS and isinstance(manifest["members"], dict)
        )
        _made(manifest)
    except (KeyError, ValueError, TypeError, AttributeError):
        shaped = False
    if not shaped:
        raise _bad(path, f"its {MANIFEST} is not one a backup writes")
    if manifest["version"] != VERSION:
        raise UsageError(
            f"{path} is a backup of format {manifest['version']}; this grader reads format {VERSION}: restore it "
            f"with the grader that made it ({manifest['grader']})."
        )
    return manifest


def _newer_migrations(made: Made) -> List[str]:
    """The migrations the backup's database has that this grader does not know (a newer grader's)."""
    from django.db.migrations.loader import MigrationLoader

    known = set(MigrationLoader(None, ignore_no_migrations=True).disk_migrations)
    return [
        f"{app}.{name}" for app, names in made.facts.migrations.items() for name in names if (app, name) not in known
    ]


def _lost(now: db.Facts) -> str:
    if now.accounts < 0:
        return "a database of another version, which would be replaced"
    newest = f", the newest handed in at {now.newest[:19]}" if now.newest else ""
    return f"{plural(now.accounts, 'account')} and {plural(now.submissions, 'submission')}{newest}"


def restore(
    path: Path, data: Path, db_url: Optional[str], force: bool = False, ready: Callable[[], None] = lambda: None
) -> Tuple[Made, List[str]]:
    """Put the backup at ``path`` in place of the portal in ``data`` (and ``db_url``); returns what it
    held and the migrations applied after it, to bring it to this version. ``ready`` configures
    Django on the portal, once the backup has been read whole (a bad file makes no data folder)."""
    with tempfile.TemporaryDirectory(prefix="nim-grader-restore-") as work:  # 0700: the database passes here
        made, dumped, files = read(path, Path(work))
        ready()
        return _restore(path, made, dumped, files, data, db_url, force)


def _restore(
    path: Path, made: Made, dumped: Path, files: Dict[str, bytes], data: Path, db_url: Optional[str], force: bool
) -> Tuple[Made, List[str]]:
    kind = db.kind(db_url)
    if made.database != kind:
        where = (
            "without --db (into SQLite)"
            if made.database == db.SQLITE
            else "with --db postgresql://... (into PostgreSQL)"
        )
        named = {db.SQLITE: "SQLite", db.POSTGRESQL: "PostgreSQL"}
        raise UsageError(
            f"{path} holds a {named[made.database]} database and this portal's is {named[kind]}: restore it {where}."
        )
    newer = _newer_migrations(made)
    if newer:
        raise UsageError(
            f"{path} was made by a newer grader ({made.grader}): its database has {', '.join(newer)}, which this "
            "version does not know. Restore it with the version that made it (or a later one)."
        )
    running = db.running()
    if running:
        raise UsageError(
            f"the portal in {data} is running (its dispatcher {running[0]} was heard from in the last 30 s): "
            "stop serve and dispatch first, then restore."
        )
    now = db.held()
    if now is not None and (now.accounts or now.submissions) and not force:
        raise UsageError(
            f"the portal in {data} holds {_lost(now)}: restoring {path} would replace them all. Back it up first "
            f"(python -m grader backup NEW-FILE --data {data}), then restore with --force."
        )
    db.load(db_url, data, dumped)
    for name, content in sorted(files.items()):
        _put_file(data, name, content)
    return made, _migrate()


def _put_file(data: Path, name: str, content: bytes) -> None:
    """``content`` at ``data/name``, 0600, written beside it and renamed into place; a link or
    another user's file there is refused (``private_files``), never written through."""
    target = data.joinpath(*PurePosixPath(name).parts)
    folder = data
    for part in PurePosixPath(name).parts[:-1]:
        folder = folder / part
        private_folder(folder)
    private_file(target)
    partial = target.with_name(f".{target.name}.restoring-{os.getpid()}")
    descriptor = os.open(str(partial), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(content)
    os.replace(partial, target)


def _migrate() -> List[str]:
    """Migrate the restored database to this grader's schema; the migrations that applied."""
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.recorder import MigrationRecorder

    before = MigrationRecorder(connection).applied_migrations()
    call_command("migrate", verbosity=0, interactive=False)
    after = MigrationRecorder(connection).applied_migrations()
    return [f"{app}.{name}" for app, name in sorted(set(after) - set(before))]
