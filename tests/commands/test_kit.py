"""``python -m grader kit OUT``: what students receive holds the public cases only, and ``check`` in it
grades them as the portal does and says that the portal also runs hidden cases."""

from __future__ import annotations

import functools
import json
import operator
import os
import re
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Dict, Iterator, List

import pytest
import yaml
from support import PROJECT

from grader.authoring import kit_yaml
from grader.authoring.kit_mistakes import MISTAKES
from grader.authoring.kit_readme import MARKER
from grader.authoring.yaml_writer import new_file
from grader.cli.main import main
from grader.course.loader import load_course
from grader.course.reference import with_answers

SHORTEST_SECRET = 6  # characters: shorter texts ("0", "true", "[0]") are in any kit by chance


@pytest.fixture(scope="module")
def project_kit(tmp_path_factory, _signature_home) -> Path:
    """The project's own course made into a kit, once (tests that write in it take a copy), its known
    mistakes read where the session made them (a module's fixture comes before a test's own)."""
    out = tmp_path_factory.mktemp("kit") / "nim-lab"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CACHE_HOME", str(_signature_home))
        assert main(["kit", str(out)]) == 0
    return out


@pytest.fixture
def kit_copy(project_kit, tmp_path) -> Path:
    """A copy of the project's kit that a test may write in (check writes its report there)."""
    return Path(shutil.copytree(project_kit, tmp_path / "kit", symlinks=True))


def bare(case):
    return replace(case, line=0, generated=None)


def files_of(folder: Path) -> Iterator[Path]:
    return (path for path in sorted(folder.rglob("*")) if path.is_file() and not path.is_symlink())


def haystacks(folder: Path) -> List[str]:
    """Every file's text, and every text inside each YAML or JSON file as its reader sees it (a block
    of lines in YAML is indented, so a multi-line text is found only there)."""
    found = []
    for path in files_of(folder):
        text = path.read_bytes().decode("utf-8", "replace")
        found.append(text)
        if path.suffix in (".yaml", ".json"):
            found += list(_texts(yaml.safe_load(text)))
    return found


def _texts(value) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)


def leaks(folder: Path, secrets: List[str]) -> List[str]:
    hay = haystacks(folder)
    return [secret for secret in secrets if any(secret in text for text in hay)]


@pytest.fixture(scope="module")
def secrets(course, context) -> List[str]:
    """The hidden cases' inputs and answers (generated ones' from the reference solution) that are
    not also a public case's text or in a stub, so that finding one in a kit means a leak."""
    public = []
    for task in course.values():
        for case in task.cases:
            if not case.hidden:
                public += [case.input.strip(), *(text.strip() for text in case.expected), case.hint]
    public += [path.read_text(encoding="utf-8") for path in (PROJECT / "exercises").glob("*.py")]
    secrets = []
    for task in course.values():
        hidden = with_answers(replace(task, cases=tuple(c for c in task.cases if c.hidden)), context)
        for case in hidden.cases:
            for text in (case.input, *case.expected):
                text = text.strip()
                if len(text) >= SHORTEST_SECRET and not any(text in other for other in public):
                    secrets.append(text)
    return secrets


# -- (a) nothing secret in the kit ----------------------------------------------------------------


def test_the_kit_holds_stubs_public_cases_readme_and_marker(project_kit, course):
    names = {str(path.relative_to(project_kit)) for path in files_of(project_kit)}
    assert {f"exercises/{task}.py" for task in course} | {f"testcases/{task}.yaml" for task in course} <= names
    assert {"README.md", MARKER} <= names
    readme = (project_kit / "README.md").read_text(encoding="utf-8")
    for command in ("python3 -m grader check exercises/", "python3 -m grader submit exercises/", "--server URL"):
        assert command in readme
    assert "URL is the portal's address" in readme and "marks come from the portal" in readme
    assert not any(name.startswith(("solutions", "report")) for name in names)
    for task in course:
        assert (project_kit / "exercises" / f"{task}.py").read_bytes() == (
            PROJECT / "exercises" / f"{task}.py"
        ).read_bytes()
    marker = json.loads((project_kit / MARKER).read_text(encoding="utf-8"))
    assert marker["tasks"]["make_move"] == {
        "public": sum(not c.hidden for c in course["make_move"].cases),
        "hidden": sum(c.hidden for c in course["make_move"].cases),
    }


def test_the_kits_readme_lists_the_exercises_in_the_handouts_order(project_kit, course):
    """As the portal lists them: by the number on each stub's first line, "Exercise 1 ..." first."""
    readme = (project_kit / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"^\| `(\w+)` \| ", readme.split("## The exercises", 1)[1], re.M)
    numbers = [int(re.match(r'"""Exercise (\d+) ', (PROJECT / "exercises" / f"{t}.py").read_text())[1]) for t in listed]
    assert sorted(listed) == sorted(course) and numbers == list(range(1, len(course) + 1))


def test_no_solution_and_no_hidden_case_is_anywhere_in_the_kit(project_kit, course, secrets):
    solutions = [path.read_text(encoding="utf-8").strip() for path in (PROJECT / "solutions").rglob("*.py*")]
    assert len(solutions) > 100
    assert leaks(project_kit, solutions) == []
    assert len(secrets) >= 20  # enough hidden texts are searched for the search to mean something
    assert leaks(project_kit, secrets) == []
    for task in load_course(project_kit).values():
        assert not any(case.hidden for case in task.cases)
    kit_options = [dict(c.checker_options) for c in load_course(project_kit)["working_game"].cases]
    assert not any(dict(c.checker_options) in kit_options for c in course["working_game"].cases if c.hidden)


def test_the_search_finds_a_planted_hidden_case(project_kit, secrets, tmp_path):
    planted = Path(shutil.copytree(project_kit, tmp_path / "planted"))
    multi_line = min((s for s in secrets if "\n" in s), key=len)
    one_line = next(s for s in secrets if "\n" not in s)
    # a multi-line answer as a YAML block (indented: found by reading the YAML) and an input in a file
    (planted / "testcases" / "extra.yaml").write_text(new_file({"expected": multi_line}), encoding="utf-8")
    (planted / "exercises" / "notes.txt").write_text(f"spoiler: {one_line}\n", encoding="utf-8")
    assert "  " + multi_line.splitlines()[1] in (planted / "testcases" / "extra.yaml").read_text(encoding="utf-8")
    assert set(leaks(planted, [multi_line, one_line])) == {multi_line, one_line}
    planted_solution = (PROJECT / "solutions" / "nim_sum.py").read_text(encoding="utf-8").strip()
    (planted / "exercises" / "nim_sum.py").write_text(planted_solution, encoding="utf-8")
    assert leaks(planted, [planted_solution]) == [planted_solution]


# -- (b), (e) the kit grades as the portal does -----------------------------------------------------


def test_the_kit_loads_as_the_public_cases_the_server_grades(project_kit, course, context):
    kit = load_course(project_kit)
    assert set(kit) == set(course)
    for task_id, task in course.items():
        served = with_answers(task, context)  # what grading on the server uses, generated answers included
        public = [bare(c) for c in served.cases if not c.hidden]
        assert [bare(c) for c in kit[task_id].cases] == public, task_id
        assert (kit[task_id].rules, kit[task_id].uses_files, kit[task_id].title) == (
            task.rules,
            task.uses_files,
            task.title,
        )
    generated = [c for c in course["nim_sum"].cases if c.generated and not c.hidden]
    assert generated and all(any(c.name == g.name and c.expected for c in kit["nim_sum"].cases) for g in generated)


def check_in(folder: Path, paths, monkeypatch, capsys, *options) -> tuple:
    """``python -m grader check PATHS --json`` run inside ``folder``: (status, JSON by task, terminal)."""
    monkeypatch.chdir(folder)
    status = main(["check", *map(str, paths), "--json", "--all", *options])
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    return status, {t["task"]: t for t in document["tasks"]}, captured.err


def test_check_in_the_kit_accepts_the_reference_solutions_on_every_public_case(kit_copy, course, monkeypatch, capsys):
    work = kit_copy / "work"
    work.mkdir()
    for task in course:
        shutil.copy(PROJECT / "solutions" / f"{task}.py", work)
    status, results, _ = check_in(kit_copy, [work], monkeypatch, capsys)
    assert status == 0
    assert set(results) == set(course)
    for task_id, result in results.items():
        assert [c["name"] for c in result["cases"]] == [c.name for c in course[task_id].cases if not c.hidden]
        assert all(c["verdict"] == "accepted" for c in result["cases"])


def test_check_in_the_kit_gives_the_stubs_the_full_courses_verdicts(kit_copy, monkeypatch, capsys, tmp_path):
    _, kit, _ = check_in(kit_copy, ["exercises"], monkeypatch, capsys)
    _, full, _ = check_in(tmp_path, [PROJECT / "exercises"], monkeypatch, capsys, "--course", str(PROJECT))
    assert set(kit) == set(full)
    compared = 0
    for task_id, result in kit.items():
        verdicts = {c["name"]: c["verdict"] for c in full[task_id]["cases"]}
        for case in result["cases"]:
            assert case["verdict"] == verdicts[case["name"]], (task_id, case["name"])
            compared += 1
    # and the same rule: an untouched stub earns nothing, in the kit as on the full course
    assert compared > 150 and all(c["verdict"] != "accepted" for r in kit.values() for c in r["cases"])


def test_check_in_the_kit_names_the_known_mistakes_of_its_public_cases_only(kit_copy, course, monkeypatch, capsys):
    """The kit ships the signatures of visible cases (nothing of a hidden case, no solution's name
    nor the instructor's words), and check in it names the mistake as the portal does; a case file
    changed since the kit was made loads none of its task's (never a wrong one)."""
    shipped = json.loads((kit_copy / MISTAKES).read_text(encoding="utf-8"))["tasks"]
    assert "nim_sum" in shipped
    for task_id, entry in shipped.items():
        visible = {case.name for case in course[task_id].cases if not case.hidden}
        for signature in entry["signatures"]:
            assert signature["cases"] and {name for name, _, _ in signature["cases"]} <= visible, task_id
            assert signature["label"] == "" and len(signature["instructor"]) == 16
    assert "adds the rows with + instead of XOR-ing them" not in (kit_copy / MISTAKES).read_text(encoding="utf-8")
    work = kit_copy / "work"
    work.mkdir()
    text = (PROJECT / "solutions" / "nim_sum.py").read_text(encoding="utf-8")
    (work / "nim_sum.py").write_text(text.replace("total = total ^ row", "total = total + row"), encoding="utf-8")
    _, results, err = check_in(kit_copy, [work / "nim_sum.py"], monkeypatch, capsys)
    known = results["nim_sum"]["known_mistake"]
    assert known["mistake"] == "the rows are added up with + instead of XOR-ed" and known["matched"] >= 3
    assert "Your answers match a known mistake: the rows are added up with + instead of XOR-ed (" in err
    own = """  - name: my own board\n    input: '{"type": "nim_sum", "input": [2, 2]}'\n    expected: '0'\n"""
    with (kit_copy / "testcases" / "nim_sum.yaml").open("a", encoding="utf-8") as cases:  # a case of one's own
        cases.write(own)
    _, results, err = check_in(kit_copy, [work / "nim_sum.py"], monkeypatch, capsys)
    assert "known_mistake" not in results["nim_sum"] and "known mistake" not in err


def test_a_known_mistake_that_names_a_hidden_case_stops_the_kit(tmp_path, capsys, monkeypatch):
    from grader.authoring import mistake_signatures
    from grader.grade.mistakes.known_mistakes import MistakeSignature

    course = tiny_course(tmp_path / "course")
    (course / "testcases" / "nim_sum.yaml").write_text(COURSE_YAML, encoding="utf-8")
    (course / "testcases" / "nim_sum").mkdir()
    (course / "testcases" / "nim_sum" / "board.json").write_text('{"type": "nim_sum", "input": [1, 2, 3]}')
    cases = (("one row", "wrong_answer", "d1"), ("secret board", "wrong_answer", "d2"))
    planted = {"nim_sum": (MistakeSignature("adds", "the rows are added up", "adds them", cases),)}
    monkeypatch.setattr(mistake_signatures, "course_signatures", lambda *args, **kwargs: planted)
    assert main(["kit", str(tmp_path / "out"), "--course", str(course)]) == 2
    err = capsys.readouterr().err
    assert "is not one of its public cases" in err and "grader's fault" in err and "secret board" in err
    assert sorted(os.listdir(tmp_path)) == ["course"]


# -- (c) check in a kit says that the portal runs hidden cases -------------------------------------


def test_check_in_the_kit_says_once_that_the_portal_runs_hidden_cases(kit_copy, course, monkeypatch, capsys):
    monkeypatch.chdir(kit_copy)
    assert main(["check", "exercises/make_move.py", "exercises/nim_sum.py"]) == 1
    out = capsys.readouterr().out
    hidden = sum(c.hidden for task in ("make_move", "nim_sum") for c in course[task].cases)
    sentence = f"the portal also runs {hidden} hidden cases of these tasks"
    assert out.count(sentence) == 1 and out.count("hidden") == 1
    for page in ("index.html", "make_move.html", "nim_sum.html"):
        assert (kit_copy / "report" / page).read_text(encoding="utf-8").count(sentence) == 1


def test_with_json_the_sentence_goes_with_the_table_to_standard_error(kit_copy, monkeypatch, capsys):
    _, results, err = check_in(kit_copy, ["exercises/exclusive_or.py"], monkeypatch, capsys)
    assert list(results) == ["exclusive_or"]  # standard output is the JSON document alone
    assert err.count("the portal also runs 2 hidden cases of this task") == 1


def test_check_finds_the_kit_from_its_exercises_folder(kit_copy, monkeypatch, capsys):
    monkeypatch.chdir(kit_copy / "exercises")
    assert main(["check", "ui.py", "--report", str(kit_copy / "r")]) == 1
    out = capsys.readouterr().out
    assert "hidden cases of this task" in out
    assert f"/{sum(1 for _ in load_course(kit_copy)['ui'].cases)}" in out  # the kit's cases, not the course's


def test_check_outside_a_kit_says_nothing_of_the_portal(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["check", str(PROJECT / "solutions" / "exclusive_or.py")]) == 0
    assert "portal" not in capsys.readouterr().out


@pytest.mark.parametrize("marker", ["junk", "huge", "link", "negative"])
def test_a_marker_that_cannot_be_read_still_makes_a_kit(kit_copy, monkeypatch, capsys, marker):
    path = kit_copy / MARKER
    path.unlink()
    if marker == "junk":
        path.write_bytes(b"\xff{not json")
    elif marker == "huge":
        path.write_text(json.dumps({"tasks": {}, "pad": "x" * 200_000}))
    elif marker == "negative":
        path.write_text(json.dumps({"tasks": {"exclusive_or": {"hidden": -3}}}))
    else:
        path.symlink_to("/dev/zero")
    monkeypatch.chdir(kit_copy)
    assert main(["check", "exercises/exclusive_or.py"]) == 1
    assert "Public cases only: the portal also runs hidden cases" in capsys.readouterr().out


# -- (d) and the other ways a kit is not made ------------------------------------------------------


def snapshot(folder: Path) -> Dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in files_of(folder)}


def test_a_folder_that_is_not_empty_is_refused_and_left_as_it_was(tmp_path, capsys):
    out = tmp_path / "out"
    (out / "exercises").mkdir(parents=True)
    (out / "exercises" / "nim_sum.py").write_text("# my work\n")
    before = snapshot(out)
    assert main(["kit", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "not empty" in err and "Traceback" not in err
    assert snapshot(out) == before and sorted(os.listdir(out)) == ["exercises"]
    assert sorted(os.listdir(tmp_path)) == ["out"]


@pytest.mark.parametrize("kind, words", [("file", "is a file"), ("link", "symbolic link")])
def test_a_file_or_a_link_as_out_is_refused(tmp_path, capsys, kind, words):
    out = tmp_path / "out"
    if kind == "file":
        out.write_text("notes\n")
    else:
        (tmp_path / "elsewhere").mkdir()
        out.symlink_to(tmp_path / "elsewhere")
    assert main(["kit", str(out)]) == 2
    assert words in capsys.readouterr().err
    assert not any((tmp_path / "elsewhere").iterdir()) if kind == "link" else out.read_text() == "notes\n"


def tiny_course(root: Path) -> Path:
    """A course of one task (nim_sum) in ``root``: its solution, stub and a case file to fill in."""
    for part in ("testcases", "solutions", "exercises"):
        (root / part).mkdir(parents=True)
    shutil.copy(PROJECT / "solutions" / "nim_sum.py", root / "solutions")
    shutil.copy(PROJECT / "exercises" / "nim_sum.py", root / "exercises")
    return root


COURSE_YAML = """\
# A comment about the hidden case: 'secret board 91 92 93'
task: nim_sum
title: 'Nim-sum: a | b'
checker: json
total: 10
time_limit: 1.5
mistakes:
  - pattern: '^(True|False)\\s*$'
    hint: print json.dumps(answer).
generate:
  - generator: random_board
    seed: 3
    count: 3
    options: {rows: [1, 5], heap: [0, 30]}
    format: '{"type": "nim_sum", "input": {board_json}}'
    name: 'public random board {index}'
  - generator: random_board
    seed: 4
    count: 2
    options: {rows: [6, 6], heap: [50, 60]}
    format: '{"type": "nim_sum", "input": {board_json}}'
    name: 'hidden random board {index}'
    hidden: true
cases:
  - name: one row
    input: '{"type": "nim_sum", "input": [5]}'
    expected: '5'
    points: 2
    time_limit: 3
    mistakes:
      - output: '0'
        hint: start the total at 0.
  - name: from a file
    input_file: nim_sum/board.json
    expected: ['0', '0.0']
    checker: float
    checker_options: {abs_tol: 0.5}
  - name: secret board
    input: '{"type": "nim_sum", "input": [91, 92, 93]}'
    expected: '94'
    hidden: true
"""


def test_generated_public_cases_get_the_servers_answers_and_settings_are_kept(tmp_path, context):
    course = tiny_course(tmp_path / "course")
    (course / "testcases" / "nim_sum.yaml").write_text(COURSE_YAML, encoding="utf-8")
    (course / "testcases" / "nim_sum").mkdir()
    (course / "testcases" / "nim_sum" / "board.json").write_text('{"type": "nim_sum", "input": [1, 2, 3]}')
    (course / "checkers.py").write_text("def register(registry):\n    pass\n")
    out = tmp_path / "empty"
    out.mkdir()
    assert main(["kit", str(out), "--course", str(course), "--server", "https://nim.example.edu"]) == 0
    served = with_answers(load_course(course)["nim_sum"], replace(context, course=course))
    kit = load_course(out)["nim_sum"]
    assert [bare(c) for c in kit.cases] == [bare(c) for c in served.cases if not c.hidden]
    assert [c.name for c in kit.cases] == ["one row", "from a file"] + [f"public random board {i}" for i in (1, 2, 3)]
    assert all(c.expected and c.expected[0].strip().isdigit() for c in kit.cases[2:])
    assert (kit.total, kit.title) == (10.0, "Nim-sum: a | b")
    assert (out / "checkers.py").read_bytes() == (course / "checkers.py").read_bytes()
    hidden = [c for c in served.cases if c.hidden]
    assert len(hidden) == 3 and leaks(out, [c.input.strip() for c in hidden] + ["secret board", "91, 92, 93"]) == []
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert "`nim_sum`" in readme and "fixed total" in readme and "3 hidden cases" in readme
    assert "`checkers.py`" in readme and "Nim-sum: a \\| b" in readme
    assert "python3 -m grader submit exercises/nim_sum.py --server https://nim.example.edu --wait" in readme


def test_long_texts_go_in_files_and_carriage_returns_and_line_separators_stay_exact(tmp_path):
    course = tiny_course(tmp_path / "course")
    long_board = json.dumps({"type": "nim_sum", "input": list(range(3000))})
    cases = [
        {"name": "long", "input": long_board, "expected": str(functools.reduce(operator.xor, range(3000)))},
        {"name": "odd text", "input": '{"type": "nim_sum",\r\n "input": [1]}\u2028', "expected": "1\x85"},
        {"name": "long with a carriage return", "input": long_board + "\r\n", "expected": "0", "points": 0},
    ]
    document = {"task": "nim_sum", "checker": "tokens", "cases": cases}
    (course / "testcases" / "nim_sum.yaml").write_text(new_file(document), encoding="utf-8")
    assert main(["kit", str(tmp_path / "out"), "--course", str(course)]) == 0
    kit = load_course(tmp_path / "out")["nim_sum"]
    assert [bare(c) for c in kit.cases] == [bare(c) for c in load_course(course)["nim_sum"].cases]
    written = (tmp_path / "out" / "testcases" / "nim_sum.yaml").read_text(encoding="utf-8")
    assert "input_file: nim_sum/1-input.txt" in written and long_board not in written.split("carriage")[0]


def test_a_task_with_hidden_cases_only_has_no_case_file_and_the_readme_says_so(tmp_path, capsys):
    course = tiny_course(tmp_path / "course")
    text = "task: nim_sum\ncases:\n  - name: secret\n    input: '[1]'\n    expected: '1'\n    hidden: true\n"
    (course / "testcases" / "nim_sum.yaml").write_text(text)
    shutil.copy(PROJECT / "testcases" / "exclusive_or.yaml", course / "testcases")
    assert main(["kit", str(tmp_path / "out"), "--course", str(course)]) == 0
    out = capsys.readouterr().out
    assert "nim_sum has hidden cases only" in out and "exclusive_or has no stub (exercises/exclusive_or.py)" in out
    assert sorted(os.listdir(tmp_path / "out" / "testcases")) == ["exclusive_or.yaml"]
    readme = (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert "none: hand it in to have it graded" in readme and "none given: write `exercises/exclusive_or.py`" in readme


@pytest.mark.parametrize(
    "spoil, words",
    [
        ("stub_link", "never through a link"),
        ("stub_hard_link", "never through a link"),
        ("checkers_link", "never through a link"),
        ("broken_yaml", "nim_sum.yaml, line 5: unknown key 'expectd'"),
        ("no_solution", "reference solution"),
        ("no_course", "no testcases/ folder"),
        ("empty_course", "no test case files"),
        ("server", "--server"),
    ],
)
def test_a_kit_that_cannot_be_made_is_a_sentence_and_exit_2_with_nothing_written(tmp_path, capsys, spoil, words):
    course = tiny_course(tmp_path / "course")
    shutil.copy(PROJECT / "testcases" / "nim_sum.yaml", course / "testcases")
    shutil.copytree(PROJECT / "testcases" / "nim_sum", course / "testcases" / "nim_sum")
    args = ["kit", str(tmp_path / "out"), "--course", str(course)]
    if spoil == "stub_link":  # a stub that leads to the solution must never be copied
        (course / "exercises" / "nim_sum.py").unlink()
        (course / "exercises" / "nim_sum.py").symlink_to(course / "solutions" / "nim_sum.py")
    elif spoil == "stub_hard_link":  # the same file as the solution under a second name: as bad
        (course / "exercises" / "nim_sum.py").unlink()
        os.link(course / "solutions" / "nim_sum.py", course / "exercises" / "nim_sum.py")
    elif spoil == "checkers_link":  # it works as checkers, but it is not the course's own file
        (course / "solutions" / "checkers.py").write_text("def register(registry):\n    pass\n")
        (course / "checkers.py").symlink_to(course / "solutions" / "checkers.py")
    elif spoil == "broken_yaml":
        (course / "testcases" / "nim_sum.yaml").write_text(
            "task: nim_sum\ncases:\n  - name: one\n    input: '1'\n    expectd: '1'\n"
        )
    elif spoil == "no_solution":
        (course / "solutions" / "nim_sum.py").unlink()
    elif spoil == "no_course":
        args[-1] = str(tmp_path / "nowhere")
    elif spoil == "empty_course":
        shutil.rmtree(course / "testcases")
        (course / "testcases").mkdir()
    else:
        args += ["--server", "grader.example.edu\nrm -rf /"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err and "Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == ["course"]


def test_a_kit_that_would_not_grade_as_the_course_is_not_written(tmp_path, capsys, monkeypatch):
    """The kit is loaded back before it is moved into place: a case file that lost a case stops it."""
    course = tiny_course(tmp_path / "course")
    shutil.copy(PROJECT / "testcases" / "exclusive_or.yaml", course / "testcases")
    real = kit_yaml.public_case_file

    def one_case_short(task, top, interactive):
        return real(replace(task, cases=task.cases[:-1]), top, interactive)

    monkeypatch.setattr(kit_yaml, "public_case_file", one_case_short)
    assert main(["kit", str(tmp_path / "out"), "--course", str(course)]) == 2
    err = capsys.readouterr().err
    assert "does not read back" in err and "grader's fault" in err
    assert sorted(os.listdir(tmp_path)) == ["course"]
