"""The roster is clean (docs/portal.md, "What holds against a hostile class", 7): names that one
student could be taken for another's (letter case, width, NFKC) are refused naming both, names that
could never sign in are refused, and the Gradescope zip keeps every student apart on any disk, even
for accounts that predate these rules (made here directly in the database)."""

from __future__ import annotations

import csv
import io
import json
import sys
import unicodedata
import zipfile

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import signed_in  # noqa: E402

from grader.errors import UsageError  # noqa: E402
from grader.safe_text import for_spreadsheet  # noqa: E402

NFD = "Jose\u0301"  # José as e and a combining accent: what macOS's older disks store
# (first name, second name, what makes them one): a person or a case-insensitive disk takes them for one
COLLIDING = [
    ("Bob", "bob", "letter case"),
    ("bob", "BOB", "letter case"),
    ("Straße", "STRASSE", "case folding (ß is ss)"),
    ("José", "JOSÉ", "letter case, beyond ASCII"),
    ("ann", "ann", "the same name twice"),
    ("Σίσυφος", "ΣΊΣΥΦΟΣ", "Greek final sigma"),
]
# names the sign-in page could never match (it strips the name and reads it as NFKC makes it), or
# that hide what they are
UNSIGNABLE = {
    "fullwidth": "ｂｏｂ",
    "fullwidth capital": "ＢＯＢ",
    "ligature": "ﬁsh",
    "superscript": "x²",
    "circled digit": "ann①",
    "combining accent": NFD,
    "zero-width space": "a\u200bb",
    "right-to-left override": "\u202eevil",
    "control character": "a\x1b[31mb",
    "tab inside": "a\tb",
    "no-break space": "a\u00a0b",
    "ideographic space": "a\u3000b",
    "only dots": "..",
    "slash": "a/b",
    "too long": "a" * 151,
}


def _import(tmp_path, rows: str):
    from grader.web.site import roster

    path = tmp_path / "roster.csv"
    path.write_text("username,role\n" + rows, encoding="utf-8")
    return roster.import_roster(path)


def _usernames() -> set:
    from django.contrib.auth import get_user_model

    return set(get_user_model().objects.values_list("username", flat=True))


@pytest.mark.parametrize("first, second, why", COLLIDING, ids=[c[2] for c in COLLIDING])
def test_names_one_student_could_be_taken_for_another_in_one_roster_are_refused_naming_both(
    tmp_path, first, second, why
):
    before = _usernames()
    with pytest.raises(UsageError) as refused:
        _import(tmp_path, f"{first},student\nzed,student\n{second},student\n")
    said = str(refused.value)
    assert "lines 2 and 4" in said and repr(first) in said and repr(second) in said, said
    assert _usernames() == before  # nothing of the roster is imported


@pytest.mark.parametrize("first, second, why", [c for c in COLLIDING if c[0] != c[1]], ids=lambda c: str(c))
def test_a_name_one_student_could_be_taken_for_an_existing_account_updates_that_account(tmp_path, first, second, why):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create(username=first)  # made directly: an account of any age
    before = _usernames()
    outcome = _import(tmp_path, f"zed,student\n{second},instructor\n")
    assert outcome.changed == (first,) and [name for name, _ in outcome.created] == ["zed"]
    assert _usernames() == before | {"zed"}  # never a second account for the same student
    assert get_user_model().objects.get(username=first).is_staff  # the account keeps its own spelling


def test_accounts_that_already_collide_are_still_updated_by_their_own_names(tmp_path):
    from django.contrib.auth import get_user_model

    for name in ("Kim", "kim"):  # from before the rule
        get_user_model().objects.create(username=name)
    assert _import(tmp_path, "kim,student\n").updated == ("kim",)
    with pytest.raises(UsageError, match="'KIM'"):
        _import(tmp_path, "KIM,student\n")


@pytest.mark.parametrize("name", list(UNSIGNABLE.values()), ids=list(UNSIGNABLE))
def test_names_that_could_never_sign_in_are_refused_with_a_sentence(tmp_path, name):
    before = _usernames()
    with pytest.raises(UsageError) as refused:
        _import(tmp_path, f"ann,student\n{name},student\n")
    said = str(refused.value)
    assert "line 3" in said and ("could never sign in" in said or "may hold only" in said or "longer" in said), said
    assert said.isprintable() or "\n" not in said  # the name is shown escaped, never as it is
    assert "\x1b" not in said and "\u202e" not in said and "\u200b" not in said
    assert _usernames() == before


@pytest.mark.parametrize("name", ["José", "Ünal", "Σίσυφος", "李雷", "ann.lee+lab@uni-x_1"])
def test_names_beyond_ascii_that_the_sign_in_page_matches_are_accepted_and_sign_in(tmp_path, name):
    from django.test import Client

    ((made, password),) = _import(tmp_path, f"{name},student\n").created
    assert made == name
    answer = Client().post("/login/", {"username": name, "password": password})
    assert answer.status_code == 302 and answer.wsgi_request.user.get_username() == name


def _folders_on(archive: zipfile.ZipFile, key) -> dict:
    """The archive's top folders as a disk that compares names by ``key`` keeps them: key -> entries."""
    kept: dict = {}
    for entry in archive.namelist():
        top = entry.split("/")[0]
        kept.setdefault(key(top), set()).add(entry)
    return kept


# how disks compare names: exactly (Linux), case-insensitive (Windows, macOS's APFS), and macOS's
# older HFS+ (decomposed, case-insensitive); Windows also drops trailing dots
DISKS = {
    "exact": lambda name: name,
    "case-insensitive": lambda name: name.casefold().rstrip("."),
    "HFS+": lambda name: unicodedata.normalize("NFD", name).casefold(),
    "NFKC, case-insensitive": lambda name: unicodedata.normalize("NFKC", name).casefold(),
}
PREDATING = [
    "Bob",
    "bob",
    "BOB",
    "ｂｏｂ",
    "José",
    NFD,
    "Straße",
    "STRASSE",
    "..",
    "../up",
    "a/b",
    "con",
    "bob.",
    "_con",
]


def test_the_gradescope_zip_keeps_every_student_apart_on_any_disk_even_names_before_the_rules(tmp_path):
    from django.contrib.auth import get_user_model

    users = get_user_model()
    for name in PREDATING:
        users.objects.create(username=name)
    users.objects.create(username="teach_z", is_staff=True)
    archive = zipfile.ZipFile(io.BytesIO(signed_in("teach_z").get("/teach/gradescope.zip").content))
    students = set(users.objects.filter(is_staff=False).values_list("username", flat=True))
    documents = [n for n in archive.namelist() if n.endswith("/results.json")]
    assert len(documents) == len(students)
    for disk, key in DISKS.items():
        folders = _folders_on(archive, key)
        together = {k: v for k, v in folders.items() if len(v) > 1}
        assert not together, f"on a {disk} disk these share a folder: {together}"
    for entry in set(archive.namelist()) - {"students.csv"}:  # FOLDER/FILE inside the archive, nothing above it
        parts = entry.split("/")
        assert len(parts) == 2 and parts[0] not in ("", ".", "..") and "\\" not in entry, entry
    # the folders that are not their student's own name are listed, so each document has its owner
    index = dict(list(csv.reader(io.StringIO(archive.read("students.csv").decode())))[1:])
    owners = {folder: index.get(folder, folder) for folder in (d.split("/")[0] for d in documents)}
    assert sorted(owners.values()) == sorted(for_spreadsheet(name) for name in students)  # (as the gradebook)
    for folder, owner in owners.items():
        assert json.loads(archive.read(f"{folder}/results.json"))["score"] == 0, owner


def test_an_ordinary_class_gets_the_zip_it_always_got(tmp_path):
    from django.contrib.auth import get_user_model

    users = get_user_model()
    for name in ("ann", "ben", "José"):
        users.objects.create(username=name)
    users.objects.create(username="teach_z", is_staff=True)
    archive = zipfile.ZipFile(io.BytesIO(signed_in("teach_z").get("/teach/gradescope.zip").content))
    assert sorted(archive.namelist()) == ["José/results.json", "ann/results.json", "ben/results.json"]
