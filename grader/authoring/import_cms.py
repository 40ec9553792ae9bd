"""Importing a CMS task folder (the "italy_yaml" format) as a ``testcases/<task>.yaml``.

In: a folder with ``task.yaml``, ``input/inputN.txt`` and ``output/outputN.txt``. Out: an
``ImportResult`` (see ``importing``) whose notes name what CMS does and this grader cannot (a
custom checker, a manager, graders, files instead of standard input, ...). The points of CMS's
score types are worked out in ``cms_scores``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from grader.authoring.cms_scores import case_points
from grader.authoring.imported_yaml import task_file_text
from grader.authoring.importing import (
    ImportResult,
    Notes,
    carried_memory_limit,
    files_in,
    listing,
    no_cases_error,
    package_folder,
    positive_limit,
    read_mapping,
    read_text,
    task_id_for,
)
from grader.errors import UsageError
from grader.marks import plain_number

# The CMS "italy_yaml" task format, as cmscontrib/loaders/italy_yaml.py reads it.
_CMS_USED_KEYS = {
    "name",
    "nome_breve",
    "title",
    "nome",
    "time_limit",
    "timeout",
    "memory_limit",
    "memlimit",
    "n_input",
    "public_testcases",
    "risultati",
    "score_type",
    "score_type_parameters",
    "total_value",  # the scale of CMS's default equal-weight Sum: equal weights are what this grader does
    "infile",
    "outfile",
    "output_only",
    "num_processes",
}
_CMS_INPUT = re.compile(r"input(\d+)\.txt")


def _first(conf: Dict[str, Any], *keys: str) -> Tuple[Optional[str], Any]:
    """(key, value) of the first of ``keys`` present in ``conf`` (CMS accepts old Italian names)."""
    for key in keys:
        if key in conf and conf[key] is not None:
            return key, conf[key]
    return None, None


def import_cms(folder: Path, task_id: Optional[str] = None) -> ImportResult:
    """Convert a CMS task folder (``task.yaml``, ``input/inputN.txt``, ``output/outputN.txt``).

    Each input/output pair is a case named ``case N (inputN.txt)``; cases not in
    ``public_testcases`` are hidden. The time limit carries over, the memory limit only when it is
    above the grader's default (see ``carried_memory_limit``), and the points of the
    ``Sum``, ``GroupMin`` and ``GroupMul`` score types as far as per-case points can express them.
    Raises ``UsageError`` (one sentence naming the file) when the folder cannot be read as a task.
    """
    folder = package_folder(folder, "CMS task folder", "task.yaml")
    conf_path = folder / "task.yaml"
    conf = read_mapping(conf_path)
    task_id = task_id_for(folder, task_id)
    notes = Notes()

    task: Dict[str, Any] = {}
    title = _first(conf, "title", "nome")[1] or _first(conf, "name", "nome_breve")[1]
    if title is not None:
        task["title"] = str(title)
    # CMS's default comparison ("white diff", cms/grading/steps/whitediff.py) compares line by line,
    # each line with its white space runs collapsed and trimmed, and ignores blank lines at the end.
    # Our text checker would reject (as a presentation error) outputs that white diff accepts, such
    # as a doubled or a leading space; tokens accepts every output white diff accepts, and only also
    # accepts the same words broken into lines differently. A grader should not reject what CMS
    # accepted, so tokens it is (case-sensitive, as white diff is), with a note about line breaks.
    task["checker"] = "tokens"
    notes.add(
        "CMS compares output line by line (white space within a line is free); the tokens checker used here "
        "accepts every output CMS accepts, and also the same words split into lines differently."
    )
    key, value = _first(conf, "time_limit", "timeout")
    if key is not None:
        task["time_limit"] = plain_number(positive_limit(value, conf_path, key, "seconds"))
    key, value = _first(conf, "memory_limit", "memlimit")
    if key is not None:
        meaning = "the resident memory of the whole process, interpreter included, as CMS's sandbox isolate measures it"
        memory = carried_memory_limit(positive_limit(value, conf_path, key, "MiB"), f"task.yaml {key}", meaning, notes)
        if memory is not None:
            task["memory_limit"] = memory

    indices, inputs = _cms_inputs(folder, conf, conf_path, notes)
    public = _cms_public(conf, conf_path, indices, notes)
    points = case_points(folder, conf, indices, notes)
    cases = []
    for index in indices:
        case = _cms_case(folder, index, inputs[index], notes)
        if case is None:
            continue
        if public is not None and index not in public:
            case["hidden"] = True
        if index in points:
            case["points"] = plain_number(points[index])
        cases.append(case)
    if not cases:
        raise no_cases_error(folder, len(indices), notes)
    _cms_other_notes(folder, conf, notes)
    text = task_file_text(f"CMS task folder {folder.resolve()}", task_id, task, cases, notes)
    return ImportResult(task_id=task_id, yaml_text=text, cases=len(cases), notes=tuple(notes.items))


def _cms_inputs(folder: Path, conf: Dict[str, Any], conf_path: Path, notes: Notes) -> Tuple[List[int], Dict]:
    """The case numbers to import, in order, and the input file of each (None when missing)."""
    input_dir = folder / "input"
    if not input_dir.is_dir():
        raise UsageError(f"{input_dir}: no such folder; a CMS task keeps its inputs there (input0.txt, ...).")
    found: Dict[int, Path] = {}
    others = []
    for path in sorted(input_dir.iterdir()):
        match = _CMS_INPUT.fullmatch(path.name)
        if match and path.is_file():
            found[int(match.group(1))] = path
        else:
            others.append(path.name)
    if others:
        notes.add(f"Files in input/ not named inputN.txt were not imported: {listing(others)}.")
    if not found:
        raise UsageError(f"{input_dir}: no test case inputs (input0.txt, input1.txt, ...) in it.")
    if "n_input" in conf and conf["n_input"] is not None:
        count = conf["n_input"]
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise UsageError(f"{conf_path}: 'n_input' must be a whole number of 0 or more, not {count!r}.")
        indices = list(range(count))
        extra = [found[i].name for i in sorted(found) if i >= count]
        if extra:
            notes.add(f"task.yaml says n_input: {count}, so {listing(extra)} were not imported (as CMS would not).")
    else:
        indices = sorted(found)
    if not indices:
        raise UsageError(f"{conf_path}: 'n_input' is 0, so there is no test case to import.")
    return indices, {i: found.get(i) for i in indices}


def _cms_case(folder: Path, index: int, input_path: Optional[Path], notes: Notes) -> Optional[Dict[str, Any]]:
    """One case, or None (with a note) when its input or output is missing or not UTF-8 text."""
    in_name, out_name = f"input{index}.txt", f"output{index}.txt"
    if input_path is None:
        notes.add(f"Case {index} was skipped: input/{in_name} does not exist.")
        return None
    output_path = folder / "output" / out_name
    if not output_path.is_file():
        notes.add(f"Case {index} was skipped: input/{in_name} has no expected output (output/{out_name} is missing).")
        return None
    case_input, expected = read_text(input_path), read_text(output_path)
    for text, name in ((case_input, f"input/{in_name}"), (expected, f"output/{out_name}")):
        if text is None:
            notes.add(f"Case {index} was skipped: {name} is not UTF-8 text, and test case files hold text only.")
            return None
    return {"name": f"case {index} ({in_name})", "input": case_input, "expected": expected}


def _cms_public(conf: Dict[str, Any], conf_path: Path, indices: List[int], notes: Notes) -> Optional[set]:
    """The public case numbers, or None for all of them (``public_testcases: all``)."""
    key, value = _first(conf, "public_testcases", "risultati")
    if value is None:
        return set()
    if isinstance(value, str) and value.strip() == "all":
        return None
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(",") if p.strip()]
    elif isinstance(value, list):
        parts = value
    else:
        parts = [value]
    public = set()
    for part in parts:
        try:
            if isinstance(part, bool) or isinstance(part, float):
                raise ValueError
            public.add(int(part))
        except (TypeError, ValueError):
            raise UsageError(
                f"{conf_path}: '{key}' must be 'all' or case numbers such as \"0,1\", not {value!r}."
            ) from None
    unknown = sorted(public - set(indices))
    if unknown:
        notes.add(f"task.yaml {key} names cases that do not exist ({listing([str(i) for i in unknown])}).")
    return public


def _cms_other_notes(folder: Path, conf: Dict[str, Any], notes: Notes) -> None:
    """Notes for what a CMS task has and a test case file cannot say."""
    for name in ("check", "cor"):
        files = [f for f in files_in(folder / name) if not Path(f).name.startswith("manager")]
        if files:
            notes.add(
                f"The custom checker ({listing(files)}) was not carried over: the cases compare output with the "
                "tokens checker, so answers it would accept in other forms are rejected."
            )
        managers = [f for f in files_in(folder / name) if Path(f).name.startswith("manager")]
        if managers:
            notes.add(
                f"{listing(managers)} makes this a CMS Communication task, whose manager talks with the program; "
                "that was not carried over: the cases only feed each input to standard input."
            )
    graders = [f for f in files_in(folder / "sol") if Path(f).name.startswith(("grader.", "stub."))]
    if graders:
        notes.add(
            f"CMS runs submissions together with {listing(graders)}, which calls their functions; here each "
            "case runs the submission alone, with the input on standard input."
        )
    if conf.get("output_only"):
        notes.add("This is a CMS output-only task (output_only: true); here each case runs a program instead.")
    files = [conf.get(key, default) or "" for key, default in (("infile", "input.txt"), ("outfile", "output.txt"))]
    if any(files):
        shown = " and ".join(f"{key} {name}" for key, name in zip(("reads", "writes"), files) if name)
        notes.add(
            f"The CMS task {shown} (infile/outfile, CMS's defaults when not given); here the program reads "
            "standard input and writes standard output instead."
        )
    left = sorted(key for key in conf if key not in _CMS_USED_KEYS)
    if left:
        notes.add(f"These task.yaml settings have no counterpart here and were not carried over: {listing(left, 8)}.")
    folders = [name + "/" for name in ("sol", "statement", "testo", "att", "gen") if (folder / name).is_dir()]
    if folders:
        notes.add(
            f"The folders {', '.join(folders)} (solutions, statement, attachments, generators) were not imported; "
            "a Python solution can go to solutions/<task>.py for python -m grader verify."
        )
