"""A portal backed up and restored (``python -m grader backup`` / ``restore``, ``grader/web/backup.py``),
on the session's database (SQLite, or PostgreSQL with ``NIM_GRADER_TEST_DB=postgresql``):

- a class hands in and is graded, the portal is backed up, wiped and restored: the student's pages,
  the instructor's pages, the gradebook and the API say exactly what they said before;
- the backup file is the portal's user's alone (0600), never replaces a file, and is never written
  inside the data folder;
- a restore over a portal that holds accounts or submissions is refused, saying what would be lost,
  and changes nothing; with --force it replaces them;
- whatever is not a backup (another file, a cut one, one changed or with a path out of the data
  folder) is refused with a sentence, by the command too, never a traceback;
- a PostgreSQL backup without ``pg_dump`` says what to install.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tarfile

import pytest

pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_get, api_hand_in, set_up_portal, signed_in  # noqa: E402
from support import PROJECT, mutate, solution  # noqa: E402

# the restore replaces the database that every connection reads: rows committed, emptied at the end
pytestmark = pytest.mark.committed

WRONG = mutate("nim_sum", "total = total ^ row", "total = total + row")
ROSTER = "username,role,name\nbk_ann,student,Ann Lee\nbk_ben,student,\nbk_teach,instructor,\n"


@pytest.fixture(scope="module")
def where(django_site, portal_database):
    """(the data folder, the database URL or None) of the session's portal."""
    if portal_database.url and not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("pg_dump and pg_restore are not on PATH (Debian: apt-get install postgresql-client)")
    return django_site, portal_database.url


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory, where, grade_queue):
    """Two students' hand-ins graded (ann: a wrong and a right nim_sum, ben: a wrong one); returns
    ann's latest submission's id."""
    from grader.web.models import Submission

    Submission.objects.all().delete()  # (nothing another module left)
    set_up_portal(tmp_path_factory.mktemp("roster"), ROSTER)
    api_hand_in("bk_ann", "nim_sum", WRONG)
    latest = api_hand_in("bk_ann", "nim_sum", solution("nim_sum"))
    api_hand_in("bk_ben", "nim_sum", WRONG)
    grade_queue()
    return latest


def _steady(text: str) -> str:
    """A page without what differs at every request (its CSRF token)."""
    return re.sub(r'(csrfmiddlewaretoken" value=")[^"]+', r"\1", text)


def what_everyone_sees(latest: int) -> dict:
    """Each page and export a student or an instructor reads, as text."""
    seen = {}
    for user, paths in {
        "bk_ann": ["/", "/tasks/nim_sum/", f"/submissions/{latest}/", f"/submissions/{latest}/report"],
        "bk_teach": ["/teach/", "/teach/class/", "/teach/class/bk_ann/index.html", "/teach/gradebook.csv"],
    }.items():
        client = signed_in(user)
        for path in paths:
            answer = client.get(path)
            assert answer.status_code == 200, (user, path, answer.status_code)
            seen[f"{user} {path}"] = _steady(answer.content.decode())
    seen["the API"] = api_get("bk_ann", f"/api/submissions/{latest}")
    return seen


def wipe() -> None:
    from django.contrib.auth import get_user_model

    from grader.web.models import Submission

    Submission.objects.all().delete()
    get_user_model().objects.all().delete()


def test_a_restored_backup_shows_every_page_and_mark_as_before(graded_class, where, tmp_path):
    from grader.web import backup

    data, url = where
    before = what_everyone_sees(graded_class)
    assert "Ann Lee" in before["bk_teach /teach/gradebook.csv"]  # (the pages hold the class's work)
    out = tmp_path / "portal.backup"
    made = backup.make(out, data, url)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600, "the backup is readable by the portal's user alone"
    assert (made.facts.accounts, made.facts.submissions) == (3, 3)
    assert "secret_key" in made.files
    wipe()
    assert signed_in_fails("bk_ann")
    restored, migrated = backup.restore(out, data, url)
    assert migrated == [] and restored.facts.submissions == 3
    assert what_everyone_sees(graded_class) == before


def signed_in_fails(user: str) -> bool:
    try:
        signed_in(user)
    except Exception:
        return True
    return False


def test_a_restore_over_a_portal_with_work_is_refused_saying_what_would_be_lost(graded_class, where, tmp_path):
    from grader.errors import UsageError
    from grader.web import backup
    from grader.web.models import Submission

    data, url = where
    out = tmp_path / "before.backup"
    backup.make(out, data, url)
    api_hand_in("bk_ben", "nim_sum", solution("nim_sum"))  # work done after the backup
    with pytest.raises(UsageError) as refused:
        backup.restore(out, data, url)
    said = str(refused.value)
    assert "3 accounts and 4 submissions" in said and "--force" in said and "backup" in said
    assert Submission.objects.count() == 4, "a refused restore changes nothing"
    backup.restore(out, data, url, force=True)
    assert Submission.objects.count() == 3


def test_a_backup_never_replaces_a_file_nor_lands_in_the_data_folder(graded_class, where, tmp_path):
    from grader.errors import UsageError
    from grader.web import backup

    data, url = where
    there = tmp_path / "kept.txt"
    there.write_text("my notes")
    for out, says in [(there, "exists"), (data / "inside.backup", "inside the data folder")]:
        with pytest.raises(UsageError, match=says):
            backup.make(out, data, url)
    assert there.read_text() == "my notes"
    assert not (data / "inside.backup").exists()


def _tar(path, members: dict) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))


def not_backups(good, folder) -> dict:
    """Files that are not a backup the grader can restore, each by what is wrong with it."""
    with tarfile.open(good, "r:gz") as tar:
        members = {info.name: tar.extractfile(info).read() for info in tar.getmembers()}
    made = {"text": folder / "notes.txt", "cut": folder / "cut.backup", "folder": folder}
    made["text"].write_text("not a backup\n")
    made["cut"].write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    changed = dict(members, **{"files/secret_key": b"another key" * 8})
    escaping = dict(members, **{"../../outside": b"x"})
    manifest = json.loads(members["manifest.json"])
    manifest["members"]["../../outside"] = manifest["members"]["files/secret_key"]
    escaping["manifest.json"] = json.dumps(manifest).encode()
    for name, content in {"changed": changed, "escaping": escaping, "bare": {"hello.txt": b"hi"}}.items():
        made[name] = folder / f"{name}.backup"
        _tar(made[name], content)
    return made


def test_what_is_not_a_backup_is_refused_with_a_sentence(graded_class, where, tmp_path):
    from grader.errors import UsageError
    from grader.web import backup
    from grader.web.models import Submission

    data, url = where
    good = tmp_path / "good.backup"
    backup.make(good, data, url)
    (tmp_path / "bad").mkdir()
    for name, path in not_backups(good, tmp_path / "bad").items():
        with pytest.raises(UsageError) as refused:
            backup.restore(path, data, url, force=True)
        assert str(path) in str(refused.value), name
    assert Submission.objects.count() == 3, "nothing restored from a file that is not a backup"


def test_the_restore_command_says_a_sentence_for_a_bad_file(tmp_path):
    bad = tmp_path / "cut.backup"
    bad.write_bytes(b"\x1f\x8b\x08\x00 cut short")
    done = subprocess.run(
        [sys.executable, "-m", "grader", "restore", str(bad), "--data", str(tmp_path / "new-portal")],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(f"error: {bad} is not a backup the grader can restore"), done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "new-portal").exists(), "a file that is not a backup makes no portal"


def test_a_postgresql_backup_without_pg_dump_says_what_to_install(tmp_path):
    pytest.importorskip("psycopg", reason="the PostgreSQL driver is not installed")
    (tmp_path / "portal").mkdir()
    command = [
        sys.executable,
        "-m",
        "grader",
        "backup",
        str(tmp_path / "out.backup"),
        "--data",
        str(tmp_path / "portal"),
    ]
    env = dict(os.environ, PATH=str(tmp_path / "no-programs-here"))
    done = subprocess.run(
        command + ["--db", "postgresql://nim@/nim?host=/nowhere"], capture_output=True, text=True, env=env, cwd=PROJECT
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "pg_dump was not found on PATH" in done.stderr and "postgresql-client" in done.stderr
    assert not (tmp_path / "out.backup").exists()


OLD_PORTAL = """
import sys
from pathlib import Path

from grader.web.settings import configure

configure(Path(sys.argv[1]), Path(sys.argv[2]))
from django.contrib.auth import get_user_model
from django.core.management import call_command

call_command("migrate", verbosity=0)  # every app, then the portal's own taken back to the earlier one
call_command("migrate", "portal", sys.argv[3], verbosity=0)
get_user_model().objects.create_user("old_ann")
"""


def test_a_backup_made_before_the_latest_migration_is_restored_and_migrated_forward(tmp_path):
    """A portal of the version before the latest migration (SQLite, in processes of their own),
    backed up and restored into a new data folder by this version: migrated, its accounts there."""
    migrations = sorted(p.stem for p in (PROJECT / "grader" / "web" / "migrations").glob("0*.py"))
    earlier, latest = migrations[-2], migrations[-1]

    def grader(*arguments: str) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [sys.executable, "-m", "grader", *arguments], capture_output=True, text=True, cwd=PROJECT, timeout=300
        )
        assert done.returncode == 0, done.stderr
        return done

    old, new = tmp_path / "old-portal", tmp_path / "new-portal"
    made = subprocess.run(
        [sys.executable, "-c", OLD_PORTAL, str(old), str(PROJECT), earlier], cwd=PROJECT, capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr
    grader("backup", str(tmp_path / "old.backup"), "--data", str(old))
    restored = grader("restore", str(tmp_path / "old.backup"), "--data", str(new))
    assert f"portal.{latest}" in restored.stdout, restored.stdout
    assert grader("users", "token", "old_ann", "--data", str(new)).stdout.startswith("old_ann ")
