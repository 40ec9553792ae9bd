"""``users import`` as an instructor runs it (docs/instructors.md): ``--passwords FILE`` writes the
one-time passwords as a CSV for a mail merge (a new file only its owner may read; an existing file
is never overwritten), and the summary counts what really happened (a re-import that changes
nothing says "0 changed")."""

from __future__ import annotations

import csv
import io
import stat
import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

ROSTER = "username,role,name,email\nann,student,Ann Lee,ann@example.org\nZed,student,=HYPERLINK(1),\n"


@pytest.fixture
def users_import(django_site, tmp_path, capsys):
    """users_import(roster text, *options) → (exit status, stdout, stderr) of ``python -m grader
    users import`` on the session's portal, in this process."""
    from grader.cli.main import main

    def run(text: str, *options: str):
        roster = tmp_path / "roster.csv"
        roster.write_text(text, encoding="utf-8")
        capsys.readouterr()
        status = main(["users", "import", str(roster), "--data", str(django_site), *options])
        said = capsys.readouterr()
        return status, said.out, said.err

    return run


def _usernames() -> set:
    from django.contrib.auth import get_user_model

    return set(get_user_model().objects.values_list("username", flat=True))


def _signs_in(name: str, password: str) -> bool:
    from django.test import Client

    return Client().post("/login/", {"username": name, "password": password}).status_code == 302


def test_passwords_go_to_a_new_private_csv_for_a_mail_merge(users_import, tmp_path):
    letters = tmp_path / "letters.csv"
    status, out, err = users_import(ROSTER, "--passwords", str(letters))
    assert status == 0, err
    assert stat.S_IMODE(letters.stat().st_mode) == 0o600  # only its owner may read it
    rows = list(csv.reader(io.StringIO(letters.read_text(encoding="utf-8"))))
    assert rows[0] == ["username", "name", "email", "password"]
    (ann,) = [row for row in rows if row[0] == "ann"]
    (zed,) = [row for row in rows if row[0] == "Zed"]
    assert ann[1:3] == ["Ann Lee", "ann@example.org"] and zed[1] == "'=HYPERLINK(1)"  # never a formula
    assert len(rows) == 3 and _signs_in("ann", ann[3]) and _signs_in("zed", zed[3])
    assert ann[3] not in out and zed[3] not in out  # written, not printed as well
    assert "2 accounts created, 0 changed, 0 unchanged." in err
    assert f"2 one-time passwords written to {letters}" in err


def test_an_existing_file_is_never_overwritten_and_nothing_is_imported(users_import, tmp_path):
    letters = tmp_path / "letters.csv"
    letters.write_text("last term's letters\n")
    before = _usernames()
    status, out, err = users_import(ROSTER, "--passwords", str(letters))
    assert status == 2 and f"{letters} exists already" in err and "no earlier list is overwritten" in err, err
    assert letters.read_text() == "last term's letters\n" and _usernames() == before


def test_a_refused_roster_leaves_no_passwords_file_and_no_account(users_import, tmp_path):
    letters = tmp_path / "letters.csv"
    before = _usernames()
    status, _, err = users_import(ROSTER + "zED,student,,\n", "--passwords", str(letters))
    assert status == 2 and "lines 3 and 4" in err, err
    assert not letters.exists() and _usernames() == before
    status, _, err = users_import(ROSTER, "--passwords", str(tmp_path / "no-such-folder" / "letters.csv"))
    assert status == 2 and "cannot be made" in err and _usernames() == before


def test_the_summary_counts_what_really_changed(users_import):
    assert users_import(ROSTER)[0] == 0
    status, out, err = users_import(ROSTER)  # the same roster again
    assert status == 0 and "0 accounts created, 0 changed, 2 unchanged." in err and out == "", err
    status, out, err = users_import(ROSTER.replace("ann@example.org", "ann.lee@example.org").upper())
    assert status == 0, err  # (its usernames in capitals too: the same accounts)
    assert "0 accounts created, 1 changed, 1 unchanged." in err  # (ann's name and email in capitals; Zed as he was)
    status, out, err = users_import("username,role\nANN,student\nben,student\n")
    assert status == 0 and "1 account created, 0 changed, 1 unchanged." in err, err
    assert out.startswith("ben: sign in the first time with the password ")
