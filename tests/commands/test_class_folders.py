"""Every student of a class folder gets output of their own on any disk, and nothing is merged or lost.

A class folder on Linux may hold ``Bob`` and ``bob``, ``ｂｏｂ`` (fullwidth), ``Straße`` and
``STRASSE``, ``José`` written two ways, a folder named like one of the class's own files, ``con`` or
``a:b``, which Windows cannot hold, and names that show alike once escaped (``a\\x01b`` and the
literal ``a\\\\x01b``). The output folder, copied to macOS or Windows or zipped, must keep each
student's reports apart, and every export (gradebook, JUnit, overview) must name each student once.
"""

from __future__ import annotations

import contextlib
import csv
import html
import io
import json
import re
import shutil
import unicodedata
from pathlib import Path
from urllib.parse import unquote

import pytest
from support import PROJECT, course_of, solution

from grader.cli.main import main
from grader.safe_text import for_spreadsheet, for_terminal

WRONG = (PROJECT / "solutions" / "wrong" / "exclusive_or" / "always_zero.py").read_text(encoding="utf-8")
NFD_JOSE = "Jose\u0301"
# Each group: names some disk or some export takes for one; the first's file is right, the others' wrong,
# so a student's reports in another's folder show as the wrong marks.
GROUPS = [
    ["Bob", "bob", "ｂｏｂ", "BOB"],  # letter case, fullwidth
    ["alice", "ＡＬＩＣＥ"],
    ["Straße", "STRASSE"],  # case folding makes ß ss
    ["José", NFD_JOSE],  # one composed character, or e and a combining accent (HFS+ decomposes)
    ["ﬁsh", "fish"],  # a ligature
    ["bob~2", "Bob~2"],  # a name the first renamed folder would take
    ["ann", "ann.", "ann "],  # Windows drops trailing dots and spaces
    ["Index.html", "ＧＲＡＤＥＢＯＯＫ.csv", "junit.XML", "students.csv"],  # the class's own files
    ["con", "a:b", "what?", "...", "back\\slash"],  # Windows cannot hold these names
    ["a\x01b", "a\\x01b"],  # the same once a terminal's characters are escaped
    ["'=x", "=x"],  # the same cell once a formula is defused
    ["z\ufffd", "z\ufffe"],  # the same JUnit name (XML cannot hold U+FFFE)
]
NAMES = [name for group in GROUPS for name in group]
RIGHT = {group[0] for group in GROUPS}
CLASS_FILES = ("index.html", "gradebook.csv", "cases.csv", "junit.xml", "students.csv", "grading-cache.sqlite")
WINDOWS_REFUSES = set('<>:"/\\|?*')
DEVICES = {"con", "prn", "aux", "nul", *(f"com{n}" for n in range(10)), *(f"lpt{n}" for n in range(10))}


def disk_key(name: str) -> str:
    """How the most lenient disk compares names: NFKC and case folding (macOS, Windows, ``same_key``),
    trailing dots and spaces dropped (Windows)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold()).rstrip(". ")


def make_class(root: Path, names, order=1) -> Path:
    for name in names[::order]:
        (root / name).mkdir(parents=True)
        (root / name / "exclusive_or.py").write_text(solution("exclusive_or") if name in RIGHT else WRONG)
    return root


def grade(room: Path, out: Path, course: Path) -> tuple:
    """Run ``grade``; (exit status, standard output, standard error)."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        status = main(["grade", str(room), "--out", str(out), "--course", str(course), "--allow-unprotected"])
    return status, stdout.getvalue(), stderr.getvalue()


def rows(path: Path) -> list:
    return list(csv.reader(path.open(encoding="utf-8", newline="")))


def folders(out: Path) -> list:
    return sorted(p.name for p in out.iterdir() if p.is_dir())


def owners(out: Path) -> dict:
    """Each student folder of ``out`` -> its student as the gradebook names them (``students.csv``
    for a folder that is not its student's name)."""
    index = dict(rows(out / "students.csv")[1:]) if (out / "students.csv").is_file() else {}
    return {folder: index.get(for_spreadsheet(folder), for_spreadsheet(folder)) for folder in folders(out)}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The hostile class, graded once: (class folder, output folder, exit status, stderr)."""
    root = tmp_path_factory.mktemp("folders")
    course = course_of(root / "course", ["exclusive_or"])
    room = make_class(root / "class", NAMES)
    status, _, err = grade(room, root / "out", course)
    return room, root / "out", status, err


def test_every_student_is_graded_and_named_once_in_the_gradebook(graded):
    _, out, status, err = graded
    assert status == 1, err  # graded: some tasks are not accepted, nothing failed
    book = [row[0] for row in rows(out / "gradebook.csv")[1:]]
    assert len(book) == len(NAMES), f"graded {len(book)} of {len(NAMES)}; {err}"
    assert len(set(book)) == len(book), f"two rows by one name: {sorted(book)}"
    # each keeps their own name, or (twins once escaped) it with a suffix
    cells = [for_spreadsheet(for_terminal(name)) for name in NAMES]
    assert not [cell for cell in cells if cell not in book and f"{cell}~2" not in book], book


def test_no_two_output_folders_are_one_on_any_disk(graded):
    _, out, _, _ = graded
    found = folders(out)
    together = {}
    for folder in found:
        together.setdefault(disk_key(folder), []).append(folder)
    assert not {k: v for k, v in together.items() if len(v) > 1}, "one folder on macOS or Windows"
    assert len(found) == len(NAMES)
    assert not {disk_key(name) for name in CLASS_FILES} & set(together), "a student folder is a class file"
    for folder in found:  # and each can be made on Windows, or unpacked there from a zip
        assert not WINDOWS_REFUSES & set(folder) and set(folder) != {"."}, folder
        assert disk_key(folder).split(".")[0] not in DEVICES and len(folder.encode()) <= 255, folder


def test_each_folder_holds_its_own_students_reports(graded):
    _, out, _, _ = graded
    book = {row[0]: row for row in rows(out / "gradebook.csv")[1:]}
    owner = owners(out)
    assert sorted(owner.values()) == sorted(book), "a folder for every row, and a row for every folder"
    for folder, student in owner.items():
        document = json.loads((out / folder / "results.json").read_text(encoding="utf-8"))
        assert document["score"] == float(book[student][-2]), (folder, student)  # the total
        page = html.unescape((out / folder / "exclusive_or.html").read_text(encoding="utf-8"))
        assert any(f"{shown}/exclusive_or.py" in page for shown in (student, student[1:])), (folder, student)


def test_the_overview_links_each_student_to_their_own_folder(graded):
    _, out, _, _ = graded
    page = (out / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'<th scope="row"><a href="([^"]+)/index.html" title="([^"]*)">', page)
    assert len(links) == len(NAMES)
    owner = owners(out)
    for href, title in links:
        folder = unquote(html.unescape(href))
        assert (out / folder / "index.html").is_file(), folder
        assert for_spreadsheet(html.unescape(title)) == owner[folder]


def test_junit_names_each_student_once(graded):
    _, out, _, _ = graded
    suites = re.findall(r'<testsuite name="([^"]*)"', (out / "junit.xml").read_text(encoding="utf-8"))
    assert len(suites) == len(NAMES) and len(set(suites)) == len(suites), sorted(suites)


def test_every_renamed_folder_is_said_naming_both(graded):
    _, out, _, err = graded
    index = dict(rows(out / "students.csv")[1:])
    folder = {student: folder for folder, student in index.items()}
    assert "bob" in folder and owners(out)["Bob~2"] == "Bob~2", index  # Bob~2 is a student's own name
    said = [line for line in err.splitlines() if line.startswith("  bob: ")]
    assert said and folder["bob"] in said[0] and "BOB" in said[0], err  # BOB comes first: it keeps it
    assert "Index.html~2" in err and "class's own file index.html" in err
    assert "skipped" not in err


def test_the_same_class_gets_the_same_folders_every_run(graded, tmp_path):
    room, out, _, _ = graded
    again = make_class(tmp_path / "class", NAMES, order=-1)  # made in the other order
    course = course_of(tmp_path / "course", ["exclusive_or"])
    grade(again, tmp_path / "out", course)
    assert folders(tmp_path / "out") == folders(out)
    assert (tmp_path / "out" / "students.csv").read_bytes() == (out / "students.csv").read_bytes()
    assert len({disk_key(f) for f in folders(out)}) == len(NAMES)  # and they are apart each time
    shutil.rmtree(tmp_path / "out" / "BOB")
    grade(room, tmp_path / "out", course)  # a rerun into the same output: the cache, the same names
    assert folders(tmp_path / "out") == folders(out)


def test_names_too_long_for_a_folder_once_escaped_or_suffixed_are_graded(tmp_path):
    course = course_of(tmp_path / "course", ["exclusive_or"])
    long = ["\x01" * 100, "b" * 255, "B" + "b" * 254, "é" * 127]  # 400 characters shown; 255 bytes
    room = make_class(tmp_path / "class", [*long, "alice"])
    status, _, err = grade(room, tmp_path / "out", course)
    assert status == 1, err
    assert len(rows(tmp_path / "out" / "gradebook.csv")) == 1 + 5  # the header, 5 students
    found = folders(tmp_path / "out")
    assert len({disk_key(f) for f in found}) == 5 and all(len(f.encode()) <= 255 for f in found), found
