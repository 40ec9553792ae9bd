"""The one rule for export folder names (``report/export_names.py``) and a class folder's names
(``classrun/folders.py``): no two students share a folder on any disk or a name in any list, the
same class folder gives the same names on every machine, and every name fits a disk."""

from __future__ import annotations

import contextlib
import os
import random
import unicodedata
from pathlib import Path

import pytest

from grader.classrun import folders as class_folders
from grader.classrun.folders import scan_class
from grader.classrun.grade_class import CLASS_FILES
from grader.report.export_names import distinct_names, folder_key, on_every_disk

NAMES = [
    "Bob", "bob", "BOB", "ｂｏｂ", "Bob~2", "bob~2", "Straße", "STRASSE", "strasse", "José", "Jose\u0301",
    "ﬁsh", "fish", "ann", "ann.", "ann ", "Index.html", "ＧＲＡＤＥＢＯＯＫ.csv", "students.csv",
    "grading-cache.sqlite-WAL", "con", "NUL.txt", "a:b", "a_b", "...", "_...", "a\x01b", "a\\x01b",
    "=x", "'=x", "z\ufffd", "z\ufffe", "\u202eevil", "x" * 255, "X" * 255, "\x1b" * 64, "é" * 127, "É" * 127,
]  # fmt: skip


def lenient(name: str) -> str:
    """How the most lenient disk (or a person) compares names, written apart from the code under test."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold()).rstrip(". ")


def make(root: Path, names) -> Path:
    for name in names:
        (root / name).mkdir(parents=True)
    return root


@pytest.fixture
def room(tmp_path) -> Path:
    return make(tmp_path / "class", NAMES)


def test_every_folder_is_graded_with_a_folder_and_a_name_no_other_student_shares(room):
    listing = scan_class(room, CLASS_FILES)
    assert not listing.skipped and len(listing.students) == len(NAMES)
    keys = [lenient(s.folder) for s in listing.students]
    assert len(set(keys)) == len(keys), sorted(keys)
    assert not set(keys) & {lenient(name) for name in CLASS_FILES}
    names = [s.name for s in listing.students]
    assert len(set(names)) == len(names)
    for student in listing.students:
        assert not on_every_disk(student.folder), student
        assert len(student.folder.encode()) <= 255


def test_a_class_folder_gives_the_same_names_whatever_order_its_disk_lists_it_in(room, monkeypatch):
    first = scan_class(room, CLASS_FILES)
    listed = os.scandir

    @contextlib.contextmanager
    def shuffled(path):
        with listed(path) as entries:
            found = list(entries)
        random.Random(7).shuffle(found)
        yield iter(found[::-1])

    monkeypatch.setattr(class_folders.os, "scandir", shuffled)
    assert scan_class(room, CLASS_FILES) == first


def test_a_name_that_is_its_own_and_first_keeps_it_and_the_others_are_said(room):
    listing = scan_class(room, CLASS_FILES)
    folder = {s.path.name: s.folder for s in listing.students}
    assert folder["BOB"] == "BOB" and folder["Bob~2"] == "Bob~2" and folder["fish"] == "fish"
    assert folder["Bob"] == "Bob~3"  # "Bob~2" is a student's own: the suffix passes it by
    assert folder["Index.html"] == "Index.html~2" and folder["con"] == "_con" and folder["a:b"] == "a_b~2"
    renamed = {line.split(": ")[0] for line in listing.renamed}
    moved = {class_folders.for_terminal(s.path.name) for s in listing.students if s.folder != s.name}
    assert moved <= renamed


def test_a_folder_named_with_reserved_names_by_nfkc_is_kept_off_the_class_files(tmp_path):
    listing = scan_class(make(tmp_path / "class", ["ｉｎｄｅｘ.ｈｔｍｌ", "JUNIT.xml", "alice"]), CLASS_FILES)
    assert sorted(s.folder for s in listing.students) == ["JUNIT.xml~2", "alice", "ｉｎｄｅｘ.ｈｔｍｌ~2"]
    assert all("the class's own file" in line for line in listing.renamed)


def test_an_ordinary_class_keeps_its_names_and_folders(tmp_path):
    names = ["alice", "Bob", "José", "李雷", "anne marie", ".hidden"]
    listing = scan_class(make(tmp_path / "class", names), CLASS_FILES)
    assert [(s.name, s.folder) for s in listing.students] == [(n, n) for n in sorted(names)]
    assert not listing.renamed


def test_distinct_names_cuts_a_plain_form_to_fit_its_suffix():
    wanted = [(1, "b" * 255, "b" * 255), (2, "B" * 255, "B" * 255), (3, None, "é" * 200)]
    names = distinct_names(wanted)
    assert names[1] == "b" * 255 and names[2] == "B" * 253 + "~2"
    assert names[3] == "é" * 127 and all(len(n.encode()) <= 255 for n in names.values())
    assert len({folder_key(n) for n in names.values()}) == 3


def test_many_spellings_of_one_name_cost_a_bounded_number_of_comparisons_each():
    calls = []

    def counted(name: str) -> str:
        calls.append(name)
        return folder_key(name)

    spellings = ["".join("B" if i >> k & 1 else "b" for k in range(11)) for i in range(2048)]
    names = distinct_names(((s, s, s) for s in spellings), key=counted)
    assert len({folder_key(n) for n in names.values()}) == len(spellings)
    assert len(calls) < 8 * len(spellings)  # trying ~2, ~3... from the start for each was 2 million
