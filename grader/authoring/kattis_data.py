"""The cases of a Kattis problem package: its ``data/sample`` and ``data/secret`` folders, read.

In: the package folder, the problem's validator flags and the checker they give, and a ``Notes``.
Out: the cases as plain dicts (name, input, expected, hint, hidden, a group's own checker) in
Kattis's order, and how many ``.in`` files were found. A test group's ``testdata.yaml`` may change
the validator flags of its cases; what else it sets, and every file that is not a case, gets a note.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from grader.authoring.importing import Notes, listing, read_mapping, read_text
from grader.authoring.kattis_validator import flag_words, parse_flags, validator_checker
from grader.errors import UsageError

# Files next to a case that describe it (not imported, but named in a note).
_ANNOTATIONS = {".desc", ".png", ".jpg", ".jpeg", ".svg", ".interaction"}
# testdata.yaml keys that score a test group; here every case counts on its own.
_GROUP_SCORING = ("grading", "grader_flags", "on_reject", "accept_score", "reject_score", "range", "score")


def read_testdata(path: Path, shown: str, notes: Notes) -> Dict[str, Any]:
    """A group's testdata.yaml (empty when there is none), with notes for what it sets and we cannot."""
    if not path.is_file():
        return {}
    settings = read_mapping(path)
    scoring = [key for key in _GROUP_SCORING if key in settings]
    if scoring:
        notes.add(
            f"The test group settings in {shown} ({', '.join(scoring)}) were not carried over: here every case "
            "runs and is graded on its own, worth 1 point."
        )
    if "input_validator_flags" in settings or "input_validator_args" in settings:
        notes.add(f"The input validator flags in {shown} were not carried over (inputs are not validated here).")
    if "output_validator_args" in settings and "output_validator_flags" not in settings:
        settings["output_validator_flags"] = settings["output_validator_args"]  # the 2023-07 name
    return settings


class KattisData:
    """Walks data/sample and data/secret in Kattis's order: by base name, groups and cases mixed."""

    def __init__(self, folder: Path, problem_flags: List[str], base: Tuple[str, dict], validation: str, notes: Notes):
        self.folder = folder
        self.conf_path = folder / "problem.yaml"
        self.data = folder / "data"
        self.problem_flags = problem_flags
        self.base = base
        self.validation = validation
        self.notes = notes
        self.found = 0
        self.other_files: List[str] = []
        self.annotations: List[str] = []

    def cases(self, root_settings: Dict[str, Any]) -> Tuple[List[Dict[str, Any]], int]:
        """Every case of data/sample and data/secret, and how many .in files were found."""
        if not self.data.is_dir():
            raise UsageError(
                f"{self.data}: no such folder; a Kattis package keeps its cases in data/sample and data/secret."
            )
        cases: List[Dict[str, Any]] = []
        ignored = []
        for child in sorted(self.data.iterdir()):
            if child.is_dir() and child.name in ("sample", "secret"):
                cases += self.group(child, child.name == "secret", root_settings)
            elif child.is_dir():
                ignored.append(child.name + "/")
            elif child.name != "testdata.yaml":
                self.other_files.append(f"data/{child.name}")
        if ignored:
            self.notes.add(f"The data folders {listing(ignored)} hold no sample or secret cases and were not imported.")
        if self.annotations:
            self.notes.add(
                f"Test case descriptions, illustrations and interaction logs ({listing(self.annotations)}) were not "
                "imported."
            )
        if self.other_files:
            self.notes.add(f"Other files under data/ were not imported: {listing(self.other_files)}.")
        return cases, self.found

    def group(self, folder: Path, hidden: bool, inherited: Dict[str, Any]) -> List[Dict[str, Any]]:
        """The cases of one test group folder and its subgroups, with its (or the inherited) settings."""
        own = folder / "testdata.yaml"
        settings = inherited  # a group without testdata.yaml uses its closest ancestor's
        where = f"{self.conf_path}, validator_flags"
        if own.is_file():
            settings = read_testdata(own, self.shown(own), self.notes)
            where = f"{own}, output_validator_flags"
        flags = parse_flags(self.problem_flags + flag_words(settings.get("output_validator_flags"), where), where)
        checker = validator_checker(flags, self.notes)
        if flags.unknown and self.validation == "default":
            unknown = " ".join(flags.unknown)
            self.notes.add(
                f"Unknown validator flags were ignored (Kattis's default validator refuses them): {unknown}."
            )
        entries: Dict[str, List[Path]] = {}
        for path in folder.iterdir():
            key = path.name if path.is_dir() else path.name.rsplit(".", 1)[0] if "." in path.name else path.name
            entries.setdefault(key, []).append(path)
        cases: List[Dict[str, Any]] = []
        for key in sorted(entries):
            for path in sorted(entries[key]):
                if path.is_dir():
                    cases += self.group(path, hidden, settings)
                elif path.suffix == ".in":
                    case = self.case(path, hidden, checker)
                    if case is not None:
                        cases.append(case)
                elif path.suffix == ".ans":
                    if not path.with_suffix(".in").is_file():
                        self.notes.add(f"{self.shown(path)} has no .in file next to it and was not imported.")
                elif path.suffix in _ANNOTATIONS:
                    self.annotations.append(self.shown(path))
                elif path.suffix != ".hint" and path.name != "testdata.yaml":
                    self.other_files.append(self.shown(path))
        return cases

    def shown(self, path: Path) -> str:
        return str(path.relative_to(self.folder))

    def case(self, input_path: Path, hidden: bool, checker: Tuple[str, dict]) -> Optional[Dict[str, Any]]:
        """The case of one .in file, or None (with a note) when its .ans is missing or either is not text."""
        self.found += 1
        name = str(input_path.relative_to(self.data).with_suffix("")).replace("\\", "/")
        answer_path = input_path.with_suffix(".ans")
        if not answer_path.is_file():
            self.notes.add(f"Case {name} was skipped: {self.shown(input_path)} has no .ans file next to it.")
            return None
        case_input, expected = read_text(input_path), read_text(answer_path)
        for text, path in ((case_input, input_path), (expected, answer_path)):
            if text is None:
                self.notes.add(f"Case {name} was skipped: {self.shown(path)} is not UTF-8 text.")
                return None
        case: Dict[str, Any] = {"name": name, "input": case_input, "expected": expected}
        hint_path = input_path.with_suffix(".hint")
        if hint_path.is_file():
            hint = read_text(hint_path)
            if hint is None:
                self.notes.add(f"The hint {self.shown(hint_path)} is not UTF-8 text and was not imported.")
            elif hint.strip():
                case["hint"] = " ".join(hint.split())
        if hidden:
            case["hidden"] = True
        if checker != self.base:
            case["checker"], case["checker_options"] = checker[0], dict(checker[1])
        return case
