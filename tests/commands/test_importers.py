"""Importing CMS task folders and Kattis problem packages as testcases/<task>.yaml (grader/authoring/import_*.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import yaml

from grader.authoring.import_cms import import_cms
from grader.authoring.import_kattis import import_kattis
from grader.authoring.importing import ImportResult
from grader.cli.main import main
from grader.course.limits import DEFAULT_LIMITS
from grader.course.loader import load_task
from grader.errors import UsageError
from grader.nim.lab import lab_checkers

PROJECT = Path(__file__).resolve().parents[2]
DATA = PROJECT / "tests" / "data" / "importers"


def load(result: ImportResult, tmp_path: Path):
    """Write the YAML where a course keeps it and load it with the grader's own loader."""
    folder = tmp_path / "course" / "testcases"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{result.task_id}.yaml"
    path.write_text(result.yaml_text, encoding="utf-8")
    task = load_task(path, lab_checkers())
    assert len(task.cases) == result.cases
    return task


def copy(name: str, tmp_path: Path) -> Path:
    """A copy of a sample folder to change, under its own name."""
    target = tmp_path / "src" / name
    shutil.copytree(DATA / name, target)
    return target


def edit_yaml(path: Path, **changes) -> None:
    """Set (or, with None, remove) top-level keys of a YAML file."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path.write_text(yaml.safe_dump(data), encoding="utf-8")


def has_note(result: ImportResult, *words: str) -> bool:
    return any(all(word in note for word in words) for note in result.notes)


# -- CMS ----------------------------------------------------------------------------------------


def test_cms_sample_converts(tmp_path):
    result = import_cms(DATA / "cms_nim_sum")
    assert result.task_id == "cms_nim_sum" and result.cases == 4
    task = load(result, tmp_path)
    assert task.title == "The nim-sum of a board"
    assert [c.name for c in task.cases] == [f"case {i} (input{i}.txt)" for i in range(4)]
    assert [c.hidden for c in task.cases] == [False, False, True, True]  # public_testcases: "0,1"
    assert [c.input for c in task.cases] == ["4\n1 3 5 7\n", "4\n27 8 3 29\n", "1\n5\n", "3\n0 0 0\n"]
    assert [c.expected for c in task.cases] == [("0\n",), ("13\n",), ("5\n",), ("0\n",)]
    assert {(c.checker, tuple(c.checker_options.items())) for c in task.cases} == {("tokens", ())}
    # CMS's 256 MiB counts the interpreter as well: the grader's default of 512 applies (see the memory tests)
    assert {(c.limits.time_s, c.limits.memory_mib) for c in task.cases} == {(1.5, 512)}
    # GroupMin [[40, 2], [60, 2]]: each subtask's points shared by its two cases
    assert [c.points for c in task.cases] == [20, 20, 30, 30]
    assert re.match(r"# Imported from the CMS task folder \S+cms_nim_sum on \d{4}-\d\d-\d\d; notes:", result.yaml_text)


def test_cms_sample_notes_say_what_was_not_carried_over():
    result = import_cms(DATA / "cms_nim_sum")
    assert has_note(result, "custom checker", "check/checker", "not carried over")
    assert has_note(result, "GroupMin", "all its cases pass", "40 points over 2 cases")
    assert has_note(result, "tokens checker", "line by line")
    assert has_note(result, "token_mode")
    assert not has_note(result, "standard input and writes")  # infile and outfile are empty
    assert all(note.endswith(".") and "\n" not in note for note in result.notes)
    header = result.yaml_text.split("\ntask:")[0]
    for note in result.notes:  # each note is in the header comment, wrapped
        assert " ".join(note.split()[:6]) in " ".join(header.replace("#", " ").split())


def test_cms_explicit_task_id_and_folder_name_cleanup(tmp_path):
    assert "task: nim_sum\n" in import_cms(DATA / "cms_nim_sum", "nim_sum").yaml_text
    odd = tmp_path / "Nim-Sum 2"
    shutil.copytree(DATA / "cms_nim_sum", odd)
    assert import_cms(odd).task_id == "nim_sum_2"
    digit = tmp_path / "2sum"
    shutil.copytree(DATA / "cms_nim_sum", digit)
    assert import_cms(digit).task_id == "task_2sum"
    with pytest.raises(UsageError, match="task id 'nim-sum'"):
        import_cms(DATA / "cms_nim_sum", "nim-sum")


def test_cms_missing_output_and_non_utf8_input_skip_the_case(tmp_path):
    folder = copy("cms_nim_sum", tmp_path)
    (folder / "output" / "output1.txt").unlink()
    (folder / "input" / "input2.txt").write_bytes(b"1\n\xff\xfe\n")
    result = import_cms(folder)
    task = load(result, tmp_path)
    assert [c.name for c in task.cases] == ["case 0 (input0.txt)", "case 3 (input3.txt)"]
    assert has_note(result, "Case 1 was skipped", "output/output1.txt is missing")
    assert has_note(result, "Case 2 was skipped", "input/input2.txt is not UTF-8")


def test_cms_file_io_is_noted(tmp_path):
    folder = copy("cms_nim_sum", tmp_path)
    edit_yaml(folder / "task.yaml", infile=None, outfile=None)  # CMS's defaults: input.txt, output.txt
    result = import_cms(folder)
    assert has_note(result, "reads input.txt and writes output.txt", "standard input")
    edit_yaml(folder / "task.yaml", infile="nim.in", outfile="")
    result = import_cms(folder)
    assert has_note(result, "reads nim.in", "standard input") and not has_note(result, "writes output.txt")


def test_cms_sum_points_are_exact(tmp_path):
    folder = copy("cms_nim_sum", tmp_path)
    edit_yaml(folder / "task.yaml", score_type="Sum", score_type_parameters=25)
    result = import_cms(folder)
    assert [c.points for c in load(result, tmp_path).cases] == [25, 25, 25, 25]
    assert not has_note(result, "points")


def test_cms_group_regex_parameters_and_single_case_subtasks(tmp_path):
    folder = copy("cms_nim_sum", tmp_path)
    edit_yaml(folder / "task.yaml", score_type_parameters=[[10, "00[0]"], [30, "00[12]"], [60, "003"]])
    result = import_cms(folder)
    assert [c.points for c in load(result, tmp_path).cases] == [10, 15, 15, 60]
    assert has_note(result, "subtask 1: 30 points over 2 cases") and not has_note(result, "subtask 0:")


def test_cms_shares_that_are_not_whole_add_up(tmp_path):
    folder = copy("cms_nim_sum", tmp_path)
    edit_yaml(folder / "task.yaml", score_type_parameters=[[100, 3], [0, 1]])
    points = [c.points for c in load(import_cms(folder), tmp_path).cases]
    assert points[:3] == [33.33, 33.33, 33.34] and points[3] == 0


def test_cms_other_score_types_are_noted_and_count_one_point(tmp_path):
    folder = copy("cms_nim_sum", tmp_path)
    edit_yaml(folder / "task.yaml", score_type="GroupThreshold", score_type_parameters=[[40, 2, 0.5], [60, 2, 0.5]])
    result = import_cms(folder)
    assert [c.points for c in load(result, tmp_path).cases] == [1, 1, 1, 1]
    assert has_note(result, "GroupThreshold", "not carried over")
    edit_yaml(folder / "task.yaml", score_type="GroupMin", score_type_parameters="nonsense")
    assert has_note(import_cms(folder), "could not be read")


def test_cms_subtasks_from_gen(tmp_path):
    folder = copy("cms_nim_sum", tmp_path)
    edit_yaml(folder / "task.yaml", score_type=None, score_type_parameters=None)
    assert [c.points for c in load(import_cms(folder), tmp_path).cases] == [1, 1, 1, 1]  # CMS: equal Sum
    (folder / "gen").mkdir()
    (folder / "gen" / "GEN").write_text("# ST: 30\n1 3 5 7\n# ST: 70\n27 8 3 29\n5\n0 0 0 # empty rows\n")
    result = import_cms(folder)
    assert [c.points for c in load(result, tmp_path).cases] == [30, 23.33, 23.33, 23.34]
    assert has_note(result, "GroupMin", "subtask 1: 70 points over 3 cases")
    assert has_note(result, "gen/", "not imported")


def test_cms_public_testcases_all_and_none(tmp_path):
    folder = copy("cms_nim_sum", tmp_path)
    edit_yaml(folder / "task.yaml", public_testcases="all")
    assert [c.hidden for c in load(import_cms(folder), tmp_path).cases] == [False] * 4
    edit_yaml(folder / "task.yaml", public_testcases=None)
    assert [c.hidden for c in load(import_cms(folder), tmp_path).cases] == [True] * 4
    edit_yaml(folder / "task.yaml", public_testcases="3, 9")
    result = import_cms(folder)
    assert [c.hidden for c in load(result, tmp_path).cases] == [True, True, True, False]
    assert has_note(result, "public_testcases", "do not exist", "9")


def test_cms_managers_graders_and_output_only_are_noted(tmp_path):
    folder = copy("cms_nim_sum", tmp_path)
    shutil.rmtree(folder / "check")
    (folder / "cor").mkdir()
    (folder / "cor" / "correttore").write_text("#!/bin/sh\n")
    (folder / "cor" / "manager").write_text("#!/bin/sh\n")
    (folder / "sol").mkdir()
    (folder / "sol" / "grader.py").write_text("import nim_sum\n")
    (folder / "sol" / "nim_sum.py").write_text("print(0)\n")
    edit_yaml(folder / "task.yaml", output_only=True)
    result = import_cms(folder)
    assert has_note(result, "custom checker", "cor/correttore")
    assert has_note(result, "cor/manager", "Communication")
    assert has_note(result, "sol/grader.py", "standard input")
    assert has_note(result, "output-only")
    assert has_note(result, "sol/", "solutions/<task>.py")


def test_cms_n_input_limits_the_cases(tmp_path):
    folder = copy("cms_nim_sum", tmp_path)
    edit_yaml(folder / "task.yaml", n_input=3, score_type=None, score_type_parameters=None)
    (folder / "input" / "notes.md").write_text("how the inputs were made\n")
    result = import_cms(folder)
    assert result.cases == 3
    assert has_note(result, "n_input: 3", "input3.txt")
    assert has_note(result, "notes.md")
    edit_yaml(folder / "task.yaml", n_input=5)
    result = import_cms(folder)
    assert result.cases == 4 and has_note(result, "Case 4 was skipped", "input4.txt does not exist")


def test_a_large_expected_output_raises_the_output_limit(tmp_path):
    folder = copy("cms_nim_sum", tmp_path)
    big = "1 3 5 7\n" * 100_000  # 800,000 bytes: near the default limit of 1,000,000
    (folder / "output" / "output3.txt").write_text(big)
    result = import_cms(folder)
    case = load(result, tmp_path).cases[3]
    assert case.expected == (big,) and case.limits.output_bytes == 1_600_000
    assert has_note(result, "output_limit", "1600000")


def test_texts_survive_the_yaml_exactly(tmp_path):
    texts = [
        "plain\n",
        "no final newline",
        "",
        "\n",
        "\n\nblank lines first\n",
        "trailing spaces   \nand\ttabs\t\n",
        "   leading spaces\n  two\n",
        "windows\r\nline ends\r\n",
        "5",
        "true\n",
        "null",
        "- a list?\n# a comment?\n",
        "key: value\n",
        "'quotes' and \"quotes\"\n",
        "unicode: ünïcödé ✓ 🎲\n",
        "control \x07 bell \x1b escape\n",
        "ends with blank lines\n\n\n",
        "|\n>\n",
    ]
    folder = tmp_path / "texts"
    (folder / "input").mkdir(parents=True)
    (folder / "output").mkdir()
    (folder / "task.yaml").write_text("public_testcases: all\n")
    for index, text in enumerate(texts):
        (folder / "input" / f"input{index}.txt").write_bytes(text.encode("utf-8"))
        (folder / "output" / f"output{index}.txt").write_bytes(text[::-1].encode("utf-8") or b"x")
    result = import_cms(folder)
    task = load(result, tmp_path)
    for case, text in zip(task.cases, texts):
        want = text if not text or text.endswith("\n") else text + "\n"  # the loader adds a final newline
        assert case.input == want
        assert case.expected == (text[::-1] or "x",)


def test_cms_pretty_printed_json_inputs_import_and_the_reference_solution_passes(tmp_path, capsys):
    # The 2018 lab's CMS data writes each input as JSON over several lines: the whole of standard
    # input is one test case, and the reference solution's main block reads all of it.
    folder = copy("cms_make_move", tmp_path)
    edit_yaml(folder / "task.yaml", memory_limit=None)  # this test is about the inputs, not the limit
    result = import_cms(folder, "make_move")
    task = load(result, tmp_path)
    assert all(case.input.count("\n") > 3 for case in task.cases)
    solution = (PROJECT / "solutions" / "make_move.py").read_text(encoding="utf-8")
    assert grade(result, solution, tmp_path) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "accepted" in out and "3/3" in out


def test_cms_memory_limit_of_10_mib_keeps_the_default_and_says_why(tmp_path, capsys):
    # CMS's 10 MiB is the resident memory of the whole process, interpreter included; ours is what a
    # run may use beyond the interpreter's start, so the number would mean another bound here.
    result = import_cms(DATA / "cms_make_move", "make_move")
    assert "memory_limit" not in result.yaml_text.split("\ncases:")[0].split("\ntask:")[1]
    assert {case.limits.memory_mib for case in load(result, tmp_path).cases} == {DEFAULT_LIMITS.memory_mib}
    assert has_note(result, "10 MiB", "task.yaml memory_limit", "whole process", "interpreter", "isolate")
    assert has_note(result, "beyond what the Python interpreter takes to start", "default of 512 MiB applies")
    header = " ".join(result.yaml_text.split("\ntask:")[0].replace("#", " ").split())
    assert "The memory limit of 10 MiB (task.yaml memory_limit) was not carried over" in header
    solution = (PROJECT / "solutions" / "make_move.py").read_text(encoding="utf-8")
    assert grade(result, solution, tmp_path) == 0, capsys.readouterr().out


def test_a_memory_limit_above_the_default_is_kept_with_its_meaning(tmp_path):
    folder = copy("cms_make_move", tmp_path)
    edit_yaml(folder / "task.yaml", memory_limit=2047.5)
    result = import_cms(folder)
    assert {case.limits.memory_mib for case in load(result, tmp_path).cases} == {2048}
    assert has_note(result, "2047.5 MiB", "whole process", "memory_limit is 2048 MiB", "more than the default")


# -- Kattis -------------------------------------------------------------------------------------


def test_kattis_sample_converts(tmp_path):
    result = import_kattis(DATA / "kattis_xor")
    assert result.task_id == "kattis_xor" and result.cases == 5
    task = load(result, tmp_path)
    assert task.title == "XOR and mean"
    names = ["sample/1", "sample/2", "secret/group1/01", "secret/group1/02", "secret/group1/03"]
    assert [c.name for c in task.cases] == names
    assert [c.hidden for c in task.cases] == [False, False, True, True, True]
    assert [c.input for c in task.cases] == ["5 3\n", "10 10\n", "0 0\n", "7 1\n", "1 2\n"]
    assert [c.expected for c in task.cases] == [("6 4.0\n",), ("0 10.0\n",), ("0 0.0\n",), ("6 4.0\n",), ("3 1.5\n",)]
    assert {c.checker for c in task.cases} == {"float"}
    assert task.cases[0].checker_options == {"abs_tol": 1e-6, "rel_tol": 1e-6}  # float_tolerance sets both
    assert {(c.limits.time_s, c.limits.memory_mib) for c in task.cases} == {(2.0, 512)}  # time: the default
    assert task.cases[4].hint == "The mean of 1 and 2 is not a whole number."
    assert re.match(r"# Imported from the Kattis problem package \S+kattis_xor on \d{4}-\d\d-\d\d", result.yaml_text)
    assert "# license: cc by-sa" in result.yaml_text and "# author: Nim Lab Staff" in result.yaml_text


def test_kattis_sample_notes_say_what_was_not_carried_over():
    result = import_kattis(DATA / "kattis_xor")
    assert has_note(result, "time limit", "time_multiplier 3", "not carried over", "2 seconds")
    assert has_note(result, "output_validators/xor_validator/validator.py", "validation default")
    assert has_note(result, "data/secret/group1/testdata.yaml", "on_reject")
    assert has_note(result, "input validators", "input_validators/validate.py")
    assert has_note(result, "case-sensitively", "Kattis ignores case")
    assert has_note(result, "submissions/")


@pytest.mark.parametrize(
    "flags, checker, options, note",
    [
        # problemtools' default_validator.cc: case-insensitive unless case_sensitive
        ("", "tokens", {"case_sensitive": False}, None),
        ("case_sensitive", "tokens", {}, None),
        ("space_change_sensitive", "text", {"trailing_space": True}, "ignores case"),
        ("space_change_sensitive case_sensitive", "text", {"trailing_space": True}, "trailing_space"),
        ("float_absolute_tolerance 1e-3", "float", {"abs_tol": 1e-3, "rel_tol": 0.0}, "case-sensitively"),
        ("float_relative_tolerance 0.01 case_sensitive", "float", {"abs_tol": 0.0, "rel_tol": 0.01}, None),
        ("float_tolerance 1e-4 float_absolute_tolerance 1e-2", "float", {"abs_tol": 1e-2, "rel_tol": 1e-4}, None),
        ("float_tolerance 1e-6 space_change_sensitive", "float", {"abs_tol": 1e-6, "rel_tol": 1e-6}, "spaced"),
    ],
)
def test_kattis_validator_flags_map_to_checkers(tmp_path, flags, checker, options, note):
    folder = copy("kattis_xor", tmp_path)
    edit_yaml(folder / "problem.yaml", validator_flags=flags or None)
    result = import_kattis(folder)
    case = load(result, tmp_path).cases[0]
    assert (case.checker, case.checker_options) == (checker, options)
    if note:
        assert has_note(result, note)


def test_kattis_float_tolerance_accepts_what_kattis_accepts():
    checkers = lab_checkers()
    check = checkers.get("float").function
    assert check("6 4.0000001\n", "6 4.0\n", "", abs_tol=1e-6, rel_tol=1e-6).verdict.value == "accepted"
    assert check("6 4.0001\n", "6 4.0\n", "", abs_tol=1e-6, rel_tol=1e-6).verdict.value == "wrong_answer"


def test_kattis_group_flags_override_for_that_group(tmp_path):
    folder = copy("kattis_xor", tmp_path)
    (folder / "data" / "secret" / "group1" / "testdata.yaml").write_text("output_validator_flags: case_sensitive\n")
    edit_yaml(folder / "problem.yaml", validator_flags=None)
    task = load(import_kattis(folder), tmp_path)
    assert [(c.checker, c.checker_options) for c in task.cases] == [("tokens", {"case_sensitive": False})] * 2 + [
        ("tokens", {})
    ] * 3


def test_kattis_custom_and_interactive_validation_are_noted(tmp_path):
    folder = copy("kattis_xor", tmp_path)
    edit_yaml(folder / "problem.yaml", validation="custom")
    result = import_kattis(folder)
    assert has_note(result, "custom output validator", "xor_validator", "not carried over")
    edit_yaml(folder / "problem.yaml", validation="custom interactive")
    result = import_kattis(folder)
    assert has_note(result, "interactive", "not carried over")
    edit_yaml(folder / "problem.yaml", validation=None, type=["pass-fail", "interactive"])
    assert has_note(import_kattis(folder), "interactive")


def test_kattis_2023_format_output_validator_means_custom(tmp_path):
    folder = copy("kattis_xor", tmp_path)
    edit_yaml(folder / "problem.yaml", validation=None, problem_format_version="2023-07-draft")
    (folder / "output_validators").rename(folder / "output_validator")
    assert has_note(import_kattis(folder), "custom output validator", "output_validator/xor_validator")
    edit_yaml(folder / "problem.yaml", problem_format_version=None)  # legacy: no 'validation' means default
    assert has_note(import_kattis(folder), "validation default")


def test_kattis_explicit_limits_carry_over(tmp_path):
    folder = copy("kattis_xor", tmp_path)
    edit_yaml(folder / "problem.yaml", limits={"time_limit": 3, "memory": 1024, "output": 8, "code": 128})
    result = import_kattis(folder)
    case = load(result, tmp_path).cases[0]
    assert (case.limits.time_s, case.limits.memory_mib, case.limits.output_bytes) == (3.0, 1024, 8 * 1024 * 1024)
    assert not has_note(result, "time limit")
    assert has_note(result, "limits", "code")
    assert has_note(result, "1024 MiB", "limits.memory", "whole process", "memory_limit is 1024 MiB")


def test_kattis_memory_limit_below_the_default_keeps_the_default(tmp_path):
    folder = copy("kattis_xor", tmp_path)
    edit_yaml(folder / "problem.yaml", limits={"time_limit": 1, "memory": 64})
    result = import_kattis(folder)
    assert {case.limits.memory_mib for case in load(result, tmp_path).cases} == {DEFAULT_LIMITS.memory_mib}
    assert has_note(result, "64 MiB", "problem.yaml limits.memory", "Kattis", "interpreter", "default of 512 MiB")


def test_kattis_missing_ans_and_non_utf8_files_skip_the_case(tmp_path):
    folder = copy("kattis_xor", tmp_path)
    (folder / "data" / "secret" / "group1" / "02.ans").unlink()
    (folder / "data" / "sample" / "2.ans").write_bytes(b"0 10.0\xff\n")
    (folder / "data" / "secret" / "stray.ans").write_text("1\n")
    result = import_kattis(folder)
    assert [c.name for c in load(result, tmp_path).cases] == ["sample/1", "secret/group1/01", "secret/group1/03"]
    assert has_note(result, "secret/group1/02 was skipped", "no .ans")
    assert has_note(result, "sample/2 was skipped", "data/sample/2.ans is not UTF-8")
    assert has_note(result, "data/secret/stray.ans", "no .in")


def test_kattis_scoring_include_unknown_flags_and_other_data_are_noted(tmp_path):
    folder = copy("kattis_xor", tmp_path)
    edit_yaml(folder / "problem.yaml", type="scoring", validator_flags="float_tolerance 1e-6 ignore_case", memo="x")
    (folder / "include" / "python3").mkdir(parents=True)
    (folder / "include" / "python3" / "helper.py").write_text("X = 1\n")
    (folder / "data" / "invalid_inputs").mkdir()
    (folder / "data" / "sample" / "1.png").write_bytes(b"\x89PNG")
    result = import_kattis(folder)
    assert has_note(result, "scoring problem")
    assert has_note(result, "include/python3/helper.py")
    assert has_note(result, "Unknown validator flags", "ignore_case")
    assert has_note(result, "problem.yaml settings", "memo")
    assert has_note(result, "invalid_inputs/")
    assert has_note(result, "data/sample/1.png")


# -- errors -------------------------------------------------------------------------------------


def error_of(function, *args) -> str:
    with pytest.raises(UsageError) as caught:
        function(*args)
    message = str(caught.value)
    assert "\n" not in message and message.endswith(".")
    return message


def test_errors_not_a_folder_or_no_task_file(tmp_path):
    assert "no such folder" in error_of(import_cms, tmp_path / "nowhere")
    (tmp_path / "file.txt").write_text("x")
    assert "not a folder" in error_of(import_kattis, tmp_path / "file.txt")
    assert "task.yaml: no such file" in error_of(import_cms, tmp_path)
    assert "problem.yaml: no such file" in error_of(import_kattis, DATA / "cms_nim_sum")


def test_errors_no_data_at_all(tmp_path):
    folder = copy("cms_nim_sum", tmp_path)
    for path in (folder / "input").iterdir():
        path.unlink()
    assert "input: no test case inputs" in error_of(import_cms, folder)
    shutil.rmtree(folder / "input")
    assert "input: no such folder" in error_of(import_cms, folder)
    kattis = copy("kattis_xor", tmp_path)
    for path in (kattis / "data").rglob("*.in"):
        path.unlink()
    assert "no test cases (.in files)" in error_of(import_kattis, kattis)
    shutil.rmtree(kattis / "data")
    assert "data: no such folder" in error_of(import_kattis, kattis)


def test_errors_when_every_case_is_skipped(tmp_path):
    folder = copy("cms_nim_sum", tmp_path)
    shutil.rmtree(folder / "output")
    message = error_of(import_cms, folder)
    assert "none of the 4 test cases could be imported" in message and "output0.txt" in message


def test_errors_malformed_yaml_names_file_and_line(tmp_path):
    folder = copy("cms_nim_sum", tmp_path)
    (folder / "task.yaml").write_text("name: x\ntime_limit: [1\n")
    message = error_of(import_cms, folder)
    assert "task.yaml, line" in message and "YAML syntax error" in message
    (folder / "task.yaml").write_text("- a list\n")
    assert "task.yaml: the file must be a mapping" in error_of(import_cms, folder)
    kattis = copy("kattis_xor", tmp_path)
    (kattis / "problem.yaml").write_text("name: a\nname: b\n")
    assert "problem.yaml, line 2" in error_of(import_kattis, kattis)
    (kattis / "data" / "sample" / "testdata.yaml").write_text("on_reject: [\n")
    (kattis / "problem.yaml").write_text("name: a\n")
    assert "data/sample/testdata.yaml" in error_of(import_kattis, kattis)


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"time_limit": "fast"}, "'time_limit' must be a number of seconds"),
        ({"memory_limit": -1}, "'memory_limit' must be a number of MiB"),
        ({"n_input": "four"}, "'n_input' must be a whole number"),
        ({"public_testcases": "first,second"}, "'public_testcases' must be 'all' or case numbers"),
    ],
)
def test_errors_bad_cms_values(tmp_path, changes, words):
    folder = copy("cms_nim_sum", tmp_path)
    edit_yaml(folder / "task.yaml", **changes)
    message = error_of(import_cms, folder)
    assert "task.yaml" in message and words in message


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"validator_flags": "float_tolerance"}, "'float_tolerance' must be followed by a tolerance"),
        ({"validator_flags": "float_tolerance -1"}, "'float_tolerance' must be followed by a tolerance"),
        ({"validation": "magic"}, "'validation' must be"),
        ({"limits": [1, 2]}, "'limits' must be a mapping"),
        ({"limits": {"memory": "lots"}}, "'limits.memory' must be a number of MiB"),
    ],
)
def test_errors_bad_kattis_values(tmp_path, changes, words):
    folder = copy("kattis_xor", tmp_path)
    edit_yaml(folder / "problem.yaml", **changes)
    message = error_of(import_kattis, folder)
    assert "problem.yaml" in message and words in message


# -- the imported files grade -------------------------------------------------------------------


def grade(result: ImportResult, source: str, tmp_path: Path) -> int:
    course = tmp_path / "course"
    (course / "testcases").mkdir(parents=True, exist_ok=True)
    (course / "testcases" / f"{result.task_id}.yaml").write_text(result.yaml_text, encoding="utf-8")
    solution = tmp_path / "work" / f"{result.task_id}.py"
    solution.parent.mkdir(exist_ok=True)
    solution.write_text(source, encoding="utf-8")
    return main(["check", str(solution), "--course", str(course), "--report", str(tmp_path / "r")])


NIM_SUM = """\
input()  # the number of rows
total = 0
for row in input().split():
    total ^= int(row)
print(total)
"""


def test_imported_cms_cases_accept_a_correct_solution(tmp_path, capsys):
    result = import_cms(DATA / "cms_nim_sum")
    assert grade(result, NIM_SUM, tmp_path) == 0
    assert "accepted" in capsys.readouterr().out


def test_imported_cms_cases_reject_a_wrong_solution(tmp_path, capsys):
    result = import_cms(DATA / "cms_nim_sum")
    assert grade(result, NIM_SUM.replace("^=", "+="), tmp_path) == 1
    assert "wrong_answer" in capsys.readouterr().out


def test_imported_kattis_cases_accept_a_correct_solution_within_tolerance(tmp_path, capsys):
    source = "a, b = map(int, input().split())\nprint(a ^ b, f'{(a + b) / 2 + 1e-8:.9f}')\n"
    assert grade(import_kattis(DATA / "kattis_xor"), source, tmp_path) == 0
    assert "accepted" in capsys.readouterr().out
