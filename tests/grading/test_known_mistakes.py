"""Known mistakes by their signature: when a result matches one, the task page's banner, check --json,
the class overview's common mistakes, and the ``# student-says:`` header."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
from typing import Sequence, Tuple

from support import PROJECT, course_of, mutate, solution

from grader.authoring.known_wrong import read_wrong_solution
from grader.authoring.mistake_signatures import stored_signatures
from grader.cli.main import main
from grader.course.loader import load_course
from grader.grade.mistakes.known_mistakes import MistakeSignature, match_mistake, output_digest, with_known_mistake
from grader.marks import StudentMarks, TaskMark, marks_of
from grader.model import Case, CaseResult, KnownMistake, Limits, Task, TaskResult, Verdict
from grader.report import pages as report

WA, OK, RE = Verdict.WRONG_ANSWER, Verdict.ACCEPTED, Verdict.RUNTIME_ERROR
NAMES = ("a", "b", "c", "d", "e")
TASK = Task("bin_num", "Binary numerals", tuple(Case(n, "", ("1",), "exact", {}, Limits()) for n in NAMES))


def result(outcomes: Sequence[Tuple[Verdict, str]], hidden: Sequence[str] = ()) -> TaskResult:
    """A result of TASK with (verdict, output) per case; cases named in ``hidden`` are hidden."""
    cases = []
    for case, (verdict, output) in zip(TASK.cases, outcomes):
        case = Case(case.name, "", ("1",), "exact", {}, Limits(), hidden=case.name in hidden)
        cases.append(CaseResult(case, verdict, "wrong" if verdict is not OK else "", actual=output))
    return TaskResult(
        task=Task(TASK.id, TASK.title, tuple(c.case for c in cases)), file="bin_num.py", cases=tuple(cases)
    )


def signature(label: str, failing: Sequence[Tuple[str, Verdict, str]], text: str = "") -> MistakeSignature:
    cases = tuple(
        (name, verdict.value, output_digest(output) if verdict is WA else "") for name, verdict, output in failing
    )
    return MistakeSignature(label, text or f"{label} (for students)", f"{label} (for instructors)", cases)


BACKWARDS = signature("backwards", [("a", WA, "[1, 0]"), ("b", WA, "[0, 1, 1]"), ("c", WA, "[1, 1, 0, 0]")])


def test_answers_the_same_as_a_known_mistake_on_every_failing_case_are_diagnosed():
    found = match_mistake(
        result([(WA, "[1, 0]"), (WA, "[0, 1, 1]\r\n"), (WA, "[1, 1, 0, 0]"), (OK, "1"), (OK, "1")]), [BACKWARDS]
    )
    assert found == KnownMistake("backwards", "backwards (for students)", "backwards (for instructors)", 3, 3)


def test_other_wrong_outputs_say_nothing():
    assert (
        match_mistake(result([(WA, "[1, 0]"), (WA, "[0, 1, 1]"), (WA, "[9]"), (OK, "1"), (OK, "1")]), [BACKWARDS])
        is None
    )


def test_a_case_the_known_mistake_fails_but_the_student_passes_tells_them_apart():
    extra = signature(
        "backwards",
        [
            *((n, WA, o) for n, _, o in [("a", 0, "[1, 0]"), ("b", 0, "[0, 1, 1]"), ("c", 0, "[1, 1, 0, 0]")]),
            ("d", WA, "7"),
        ],
    )
    assert (
        match_mistake(result([(WA, "[1, 0]"), (WA, "[0, 1, 1]"), (WA, "[1, 1, 0, 0]"), (OK, "1"), (OK, "1")]), [extra])
        is None
    )


def test_fewer_than_three_wrong_outputs_alike_prove_nothing():
    small = signature("small", [("a", WA, "[1, 0]"), ("b", WA, "[0, 1, 1]"), ("c", RE, "")])
    assert match_mistake(result([(WA, "[1, 0]"), (WA, "[0, 1, 1]"), (RE, ""), (OK, "1"), (OK, "1")]), [small]) is None


def test_a_hidden_case_is_never_evidence():
    """The same outputs, but case c hidden: only two visible cases are alike, so nothing is said."""
    answers = [(WA, "[1, 0]"), (WA, "[0, 1, 1]"), (WA, "[1, 1, 0, 0]"), (OK, "1"), (OK, "1")]
    assert match_mistake(result(answers, hidden=("c",)), [BACKWARDS]) is None


def test_cases_not_run_after_time_outs_count_on_neither_side():
    """Two time-outs (hidden cases may be among them) leave later cases not run: the diagnosis is
    made from the cases that ran, so what hidden cases did cannot take it away."""
    outputs = ("[1, 0]", "[0, 1, 1]", "[1, 1, 0, 0]", "[1]", "[0]")
    five = signature("five", [(name, WA, output) for name, output in zip(NAMES, outputs)])
    stopped = [(WA, "[1, 0]"), (WA, "[0, 1, 1]"), (WA, "[1, 1, 0, 0]"), (Verdict.NOT_RUN, ""), (Verdict.NOT_RUN, "")]
    found = match_mistake(result(stopped), [five])
    assert found is not None and (found.matched, found.failing) == (3, 3)


def test_two_mistakes_that_explain_the_answers_equally_say_neither():
    twin = signature(
        "twin", [(n, WA, o) for n, _, o in [("a", 0, "[1, 0]"), ("b", 0, "[0, 1, 1]"), ("c", 0, "[1, 1, 0, 0]")]]
    )
    answers = result([(WA, "[1, 0]"), (WA, "[0, 1, 1]"), (WA, "[1, 1, 0, 0]"), (OK, "1"), (OK, "1")])
    assert match_mistake(answers, [BACKWARDS, twin]) is None


def test_the_task_page_says_it_at_the_top_the_terminal_under_the_row_and_json_has_the_field():
    answers = result([(WA, "[1, 0]"), (WA, "[0, 1, 1]"), (WA, "[1, 1, 0, 0]"), (WA, "[5]"), (OK, "1")])
    sig = signature(
        "backwards",
        [("a", WA, "[1, 0]"), ("b", WA, "[0, 1, 1]"), ("c", WA, "[1, 1, 0, 0]"), ("d", WA, "[5]")],
        "the bits come out least significant first.",
    )
    diagnosed = with_known_mistake(answers, [sig])
    page = " ".join(html.unescape(re.sub(r"<[^>]+>", "", report.task_page(diagnosed))).split())
    banner = "Your answers match a known mistake: the bits come out least significant first (4 of 4 failing cases)."
    assert banner in page
    assert page.index(banner) < page.index("Cases")
    task = json.loads(report.json_text([diagnosed]))["tasks"][0]
    assert task["known_mistake"] == {"mistake": "the bits come out least significant first", "matched": 4, "failing": 4}
    assert "known_mistake" not in json.loads(report.json_text([answers]))["tasks"][0]
    assert "known mistake" not in report.task_page(answers)
    table = report.terminal_table([diagnosed]).splitlines()
    assert table[1].startswith("bin_num") and table[-1] == f"    {banner}"  # under the row and its cause line
    assert "known mistake" not in report.terminal_table([answers])


def test_the_class_overview_lists_common_mistakes_with_the_students(tmp_path):
    adds = KnownMistake("adds_the_rows", "the rows are added", "adds the rows with + instead of XOR-ing them", 5, 5)
    plain = result([(WA, "[1, 0]"), (WA, "[0, 1, 1]"), (WA, "[1, 1, 0, 0]"), (OK, "1"), (OK, "1")])
    students = [
        marks_of(name, [TaskResult(plain.task, "x.py", plain.cases, mistake=adds)]) for name in ("Bea", "<b>Al</b>")
    ]
    students.append(StudentMarks("Cy", (TaskMark("bin_num", OK, 5, 5, 0, 5),)))
    path = tmp_path / "index.html"
    report.write_class_html(students, [], [plain.task], path)
    page = path.read_text(encoding="utf-8")
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())
    assert "Common mistakes in this class 2 students on bin_num : adds the rows with + instead of XOR-ing them" in text
    assert "&lt;b&gt;Al&lt;/b&gt;</a>, " in page and "Bea</a>" in page and "<b>Al</b>" not in page
    assert "Cy</a></span>" not in page.split("mistakes-heading")[1].split("</section>")[0]


def test_the_student_says_header_words_the_mistake_for_the_student(tmp_path):
    path = tmp_path / "x.py"
    path.write_text("# mistake: adds the rows\n# student-says: the rows are added\n# verdict: wrong_answer\nx = 1\n")
    wrong = read_wrong_solution("nim_sum", path)
    assert (wrong.header_problem, wrong.student_text, wrong.mistake) == ("", "the rows are added", "adds the rows")
    path.write_text("# mistake: adds the rows\n# verdict: wrong_answer\n")
    assert read_wrong_solution("nim_sum", path).student_text == "adds the rows"


def test_check_reads_the_kept_signatures_and_says_the_mistake(tmp_path, mistake_signatures, _signature_home):
    """End to end: the signatures kept under XDG_CACHE_HOME (the session's, made once); check --json
    on a file that adds the rows names the mistake, in the header's student words."""
    cache = _signature_home
    mistake_signatures("nim_sum")
    nim_sum = load_course(PROJECT)["nim_sum"]
    assert stored_signatures(PROJECT, [nim_sum], cache / "nim-grader" / "mistakes")["nim_sum"]
    student = tmp_path / "student" / "nim_sum.py"
    student.parent.mkdir()
    student.write_text(mutate("nim_sum", "total = total ^ row", "total += row"), encoding="utf-8")
    env = {"XDG_CACHE_HOME": str(cache), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "grader", "check", str(student), "--json", "--report", str(tmp_path / "report")],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    task = json.loads(done.stdout)["tasks"][0]
    assert task["known_mistake"]["mistake"] == "the rows are added up with + instead of XOR-ed"
    assert task["known_mistake"]["matched"] == task["known_mistake"]["failing"] >= 3
    page = (tmp_path / "report" / "nim_sum.html").read_text(encoding="utf-8")
    assert "Your answers match a known mistake:" in page


def test_grade_lists_the_common_mistake_with_the_students(tmp_path, monkeypatch):
    """A class run makes the signatures it lacks, tells each student the mistake their answers
    match, and lists it on the overview with the students' names (not the one who got it right).
    The one test that makes signatures (the session's are made once, by ``mistake_signatures``):
    for the smallest course there is, one task with one known-wrong file."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    course = course_of(tmp_path / "course", ["nim_sum"])
    (course / "solutions" / "wrong" / "nim_sum").mkdir(parents=True)
    shutil.copy(PROJECT / "solutions/wrong/nim_sum/adds_the_rows.py", course / "solutions/wrong/nim_sum")
    room = tmp_path / "class"
    files = {
        "ann": mutate("nim_sum", "total = total ^ row", "total = total + row"),
        "bob": mutate("nim_sum", "total = total ^ row", "total += row"),
        "cid": solution("nim_sum"),
    }
    for name, text in files.items():
        (room / name).mkdir(parents=True)
        (room / name / "nim_sum.py").write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    assert (
        main(["grade", str(room), "--out", str(out), "--course", str(course), "--allow-unprotected", "--jobs", "2"])
        == 1
    )
    page = (out / "index.html").read_text(encoding="utf-8")
    common = page.split('id="mistakes-heading"')[1].split("</section>")[0]
    assert "2 students" in common and "adds the rows with + instead of XOR-ing them" in common
    assert "ann</a>" in common and "bob</a>" in common and "cid" not in common
    assert "Your answers match a known mistake: the rows are added up with + instead of XOR-ed" in html.unescape(
        (out / "ann" / "nim_sum.html").read_text(encoding="utf-8")
    ).replace("<strong>", "").replace("</strong>", "")


def test_a_kept_signature_file_that_is_not_ours_is_made_again_never_a_stop_or_a_wait(tmp_path):
    """A signature file replaced by JSON nested past Python's recursion limit, by something too large,
    or by a pipe that would block a reader forever reads as missing: check goes on without it."""
    import os

    from grader.authoring import mistake_signatures

    nim_sum = load_course(PROJECT)["nim_sum"]
    folder = tmp_path / "mistakes"
    folder.mkdir()
    path = folder / f"nim_sum-{mistake_signatures.task_fingerprint(PROJECT, nim_sum)}.json"
    for planted in ("[" * 100_000 + "]" * 100_000, " " * (mistake_signatures.MAX_BYTES + 1), None):
        if path.exists():
            path.unlink()
        if planted is None:
            os.mkfifo(path)  # nobody writes to it: a blocking read would never return
        else:
            path.write_text(planted)
        assert stored_signatures(PROJECT, [nim_sum], folder) == {}
