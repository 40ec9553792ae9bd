"""Import test cases from other judges: a CMS task folder or a Kattis (ICPC) problem package.

Each importer reads one folder and returns the text of a complete ``testcases/<task>.yaml`` (see
``docs/testcases.md``), ready for the loader, with a header comment that says where it came from.
What the other judge does and this grader cannot (a custom checker, subtask scoring, a time limit
computed from the judges' solutions, ...) is never dropped silently: each such thing is one
sentence in ``ImportResult.notes``, repeated in the file's header comment.

Nothing here writes files: the caller (the command line) decides where the text goes.
"""

from __future__ import annotations

import datetime
import json
import math
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import yaml

from grader.course.files import read_yaml
from grader.course.limits import DEFAULT_LIMITS
from grader.errors import CaseFileError, UsageError


@dataclass(frozen=True)
class ImportResult:
    """One imported task: its id, the YAML text, how many cases, and what was not carried over."""

    task_id: str  # the task id the YAML is for
    yaml_text: str  # a complete testcases/<task>.yaml, with a header comment saying where it came from
    cases: int  # how many cases
    notes: Tuple[str, ...]  # one sentence per thing that could not be carried over


# -- shared helpers -----------------------------------------------------------------------------


class _Notes:
    """Notes in the order they were found, each once."""

    def __init__(self) -> None:
        self.items: List[str] = []

    def add(self, sentence: str) -> None:
        if sentence not in self.items:
            self.items.append(sentence)


def _folder(folder: Path, kind: str, marker: str) -> Path:
    """The folder, checked: it exists, is a folder and holds ``marker`` (task.yaml, problem.yaml)."""
    folder = Path(folder)
    if not folder.exists():
        raise UsageError(f"{folder}: no such folder (expected a {kind} with {marker} in it).")
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder (expected a {kind} with {marker} in it).")
    if not (folder / marker).is_file():
        raise UsageError(f"{folder / marker}: no such file, so {folder} is not a {kind}.")
    return folder


def _task_id(folder: Path, given: Optional[str]) -> str:
    """``given`` (checked), or the folder's name lower-cased with other characters than a-z, 0-9, _ as _."""
    if given is not None:
        if not given.isidentifier():
            raise UsageError(
                f"task id {given!r}: a task id is a Python name such as nim_sum (letters, digits and _, "
                "not starting with a digit)."
            )
        return given
    name = re.sub(r"[^a-z0-9_]", "_", folder.resolve().name.lower())
    if not name or name[0].isdigit():
        name = f"task_{name}"
    return name


def _read_mapping(path: Path) -> Dict[str, Any]:
    """A YAML file that must hold a mapping (an empty file is an empty mapping)."""
    try:
        data = read_yaml(path, str(path))
    except CaseFileError as error:
        raise UsageError(f"{str(error).rstrip('.')}.") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise UsageError(f"{path}: the file must be a mapping (key: value lines), not {type(data).__name__}.")
    return dict(data)


def _read_text(path: Path) -> Optional[str]:
    """The file as UTF-8 text, or None when it is not UTF-8."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UsageError(f"{path}: cannot read the file ({error.strerror or error}).") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _number(value: Any) -> Optional[float]:
    """A YAML number (not true/false), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def _tidy(value: float) -> Any:
    """``2.0`` → ``2``: whole numbers are written without a decimal point."""
    return int(value) if float(value).is_integer() else value


def _limit(value: Any, path: Path, key: str, unit: str) -> float:
    """A limit from a file: a finite number more than 0, or a UsageError naming the file and key."""
    number = _number(value)
    if number is None or not 0 < number < math.inf:
        raise UsageError(f"{path}: '{key}' must be a number of {unit} more than 0, not {value!r}.")
    return number


def _memory(value: float, where: str, meaning: str, notes: _Notes) -> Optional[int]:
    """The ``memory_limit`` to write for another judge's memory limit of ``value`` MiB, or None for
    the grader's default; either way a note says what the limit meant there and what it means here.

    The numbers do not measure the same thing: the other judge counts the whole process, the
    interpreter included, where ours is what the program may use beyond the interpreter's own
    start. Copying a small number (the 2018 lab's CMS tasks give 10 MiB) would set a bound nobody
    chose, so the number is kept only when it is above the grader's default (rounded up to whole MiB).
    """
    default = DEFAULT_LIMITS.memory_mib
    kept = math.ceil(value) if value > default else None
    outcome = (
        f"the default of {default} MiB applies"
        if kept is None
        else f"memory_limit is {kept} MiB, as the source allows more than the default of {default} MiB"
    )
    notes.add(
        f"The memory limit of {_tidy(value)} MiB ({where}) was not carried over as a number: there it is {meaning}, "
        "while here memory_limit is the memory a program may use beyond what the Python interpreter takes to "
        f"start, so {outcome}."
    )
    return kept


def _listing(names: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _files_in(folder: Path) -> List[str]:
    """Names of the files anywhere under ``folder``, relative to its parent (``check/checker``)."""
    if not folder.is_dir():
        return []
    return sorted(str(p.relative_to(folder.parent)) for p in folder.rglob("*") if p.is_file())


class _Dumper(yaml.SafeDumper):
    """safe_dump with indented lists and multi-line texts as literal blocks (``|``)."""

    def increase_indent(self, flow: bool = False, indentless: bool = False):
        return super().increase_indent(flow, False)


def _represent_text(dumper: yaml.SafeDumper, value: str):
    # A literal block is the nicest to read; PyYAML falls back to a quoted style by itself when
    # the text cannot be one (trailing spaces on a line, control characters, ...).
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_text)


def _comment(text: str, first: str, rest: str) -> List[str]:
    """``text`` wrapped as YAML comment lines (no line breaks can slip out of the comment)."""
    flat = " ".join(text.split())
    lines = textwrap.wrap(
        flat, width=100, initial_indent=first, subsequent_indent=rest, break_long_words=False, break_on_hyphens=False
    )
    return lines or [first.rstrip()]


def _render(
    origin: str,
    task_id: str,
    task: Dict[str, Any],
    cases: List[Dict[str, Any]],
    notes: _Notes,
    extra_header: Sequence[str] = (),
) -> str:
    """The whole file: header comment, task keys, cases."""
    largest = max((len(c["expected"].encode("utf-8")) for c in cases), default=0)
    if "output_limit" not in task and largest > DEFAULT_LIMITS.output_bytes // 2:
        task["output_limit"] = max(DEFAULT_LIMITS.output_bytes, 2 * largest)
        notes.add(
            f"output_limit was set to {task['output_limit']} bytes, twice the largest expected output, "
            f"because the default of {DEFAULT_LIMITS.output_bytes} bytes is too small for it."
        )
    today = datetime.date.today().isoformat()
    header = [" ".join(f"# Imported from the {origin} on {today}; notes:{' none.' if not notes.items else ''}".split())]
    for note in notes.items:
        header += _comment(note, "# - ", "#   ")
    for line in extra_header:
        header += _comment(line, "# ", "#   ")
    document = {"task": task_id, **task, "cases": cases}
    body = yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=4096)
    return "\n".join(header) + "\n" + body


def _no_cases(where: Path, found: int, notes: _Notes) -> UsageError:
    skipped = [note for note in notes.items if "skipped" in note]
    reason = f" ({skipped[0].rstrip('.')})" if skipped else ""
    return UsageError(f"{where}: none of the {found} test cases could be imported{reason}.")


# -- CMS ----------------------------------------------------------------------------------------

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
    above the grader's default (see ``_memory``), and the points of the
    ``Sum``, ``GroupMin`` and ``GroupMul`` score types as far as per-case points can express them.
    Raises ``UsageError`` (one sentence naming the file) when the folder cannot be read as a task.
    """
    folder = _folder(folder, "CMS task folder", "task.yaml")
    conf_path = folder / "task.yaml"
    conf = _read_mapping(conf_path)
    task_id = _task_id(folder, task_id)
    notes = _Notes()

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
        task["time_limit"] = _tidy(_limit(value, conf_path, key, "seconds"))
    key, value = _first(conf, "memory_limit", "memlimit")
    if key is not None:
        meaning = "the resident memory of the whole process, interpreter included, as CMS's sandbox isolate measures it"
        memory = _memory(_limit(value, conf_path, key, "MiB"), f"task.yaml {key}", meaning, notes)
        if memory is not None:
            task["memory_limit"] = memory

    indices, inputs = _cms_inputs(folder, conf, conf_path, notes)
    public = _cms_public(conf, conf_path, indices, notes)
    points = _cms_points(folder, conf, indices, notes)
    cases = []
    for index in indices:
        case = _cms_case(folder, index, inputs[index], notes)
        if case is None:
            continue
        if public is not None and index not in public:
            case["hidden"] = True
        if index in points:
            case["points"] = _tidy(points[index])
        cases.append(case)
    if not cases:
        raise _no_cases(folder, len(indices), notes)
    _cms_other_notes(folder, conf, notes)
    text = _render(f"CMS task folder {folder.resolve()}", task_id, task, cases, notes)
    return ImportResult(task_id=task_id, yaml_text=text, cases=len(cases), notes=tuple(notes.items))


def _cms_inputs(folder: Path, conf: Dict[str, Any], conf_path: Path, notes: _Notes) -> Tuple[List[int], Dict]:
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
        notes.add(f"Files in input/ not named inputN.txt were not imported: {_listing(others)}.")
    if not found:
        raise UsageError(f"{input_dir}: no test case inputs (input0.txt, input1.txt, ...) in it.")
    if "n_input" in conf and conf["n_input"] is not None:
        count = conf["n_input"]
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise UsageError(f"{conf_path}: 'n_input' must be a whole number of 0 or more, not {count!r}.")
        indices = list(range(count))
        extra = [found[i].name for i in sorted(found) if i >= count]
        if extra:
            notes.add(f"task.yaml says n_input: {count}, so {_listing(extra)} were not imported (as CMS would not).")
    else:
        indices = sorted(found)
    if not indices:
        raise UsageError(f"{conf_path}: 'n_input' is 0, so there is no test case to import.")
    return indices, {i: found.get(i) for i in indices}


def _cms_case(folder: Path, index: int, input_path: Optional[Path], notes: _Notes) -> Optional[Dict[str, Any]]:
    """One case, or None (with a note) when its input or output is missing or not UTF-8 text."""
    in_name, out_name = f"input{index}.txt", f"output{index}.txt"
    if input_path is None:
        notes.add(f"Case {index} was skipped: input/{in_name} does not exist.")
        return None
    output_path = folder / "output" / out_name
    if not output_path.is_file():
        notes.add(f"Case {index} was skipped: input/{in_name} has no expected output (output/{out_name} is missing).")
        return None
    case_input, expected = _read_text(input_path), _read_text(output_path)
    for text, name in ((case_input, f"input/{in_name}"), (expected, f"output/{out_name}")):
        if text is None:
            notes.add(f"Case {index} was skipped: {name} is not UTF-8 text, and test case files hold text only.")
            return None
    return {"name": f"case {index} ({in_name})", "input": case_input, "expected": expected}


def _cms_public(conf: Dict[str, Any], conf_path: Path, indices: List[int], notes: _Notes) -> Optional[set]:
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
        notes.add(f"task.yaml {key} names cases that do not exist ({_listing([str(i) for i in unknown])}).")
    return public


def _cms_points(folder: Path, conf: Dict[str, Any], indices: List[int], notes: _Notes) -> Dict[int, float]:
    """Per-case points from the score type, where per-case points can say it (see the notes)."""
    score_type, parameters = conf.get("score_type"), conf.get("score_type_parameters")
    source = "task.yaml"
    if score_type is None and parameters is None:
        subtasks = _gen_subtasks(folder / "gen" / "GEN")
        if not subtasks:
            return {}  # CMS's default: Sum with an equal value per case, as this grader does
        score_type, parameters, source = "GroupMin", subtasks, "gen/GEN"
    elif score_type is None or parameters is None:
        notes.add(
            "task.yaml gives only one of score_type and score_type_parameters, so per-case points were not "
            "carried over and every case counts 1 point."
        )
        return {}
    if isinstance(parameters, str):
        try:
            parameters = json.loads(parameters)
        except json.JSONDecodeError:
            pass
    if score_type == "Sum":
        value = _number(parameters)
        if value is not None and value >= 0:
            return {index: value for index in indices}  # exact: each case is worth the parameter
    elif score_type in ("GroupMin", "GroupMul"):
        groups = _cms_groups(parameters, indices)
        if groups is not None:
            return _group_points(score_type, source, groups, indices, notes)
    else:
        notes.add(
            f"The CMS score type {score_type} has no counterpart here: per-case points were not carried over "
            "and every case counts 1 point."
        )
        return {}
    notes.add(
        f"The {score_type} parameters in {source} ({parameters!r}) could not be read: per-case points were not "
        "carried over and every case counts 1 point."
    )
    return {}


def _cms_groups(parameters: Any, indices: List[int]) -> Optional[List[Tuple[float, List[int]]]]:
    """(max score, case numbers) per subtask, as CMS's ScoreTypeGroup reads its parameters, or None.

    Each parameter is [max score, t, ...]: t a number of cases taken in order of their codenames
    ("000", "001", ...), or t a regular expression matched against those codenames.
    """
    if not isinstance(parameters, list) or not parameters:
        return None
    codenames = {f"{i:03d}": i for i in indices}
    order = [codenames[name] for name in sorted(codenames)]
    groups, taken = [], 0
    for item in parameters:
        if not isinstance(item, list) or len(item) < 2 or _number(item[0]) is None:
            return None
        target = item[1]
        if isinstance(target, int) and not isinstance(target, bool):
            members, taken = order[taken : taken + target], taken + target
        elif isinstance(target, str):
            try:
                pattern = re.compile(target)
            except re.error:
                return None
            members = [codenames[name] for name in sorted(codenames) if pattern.match(name)]
        else:
            return None
        groups.append((item[0], members))
    kinds = {isinstance(item[1], str) for item in parameters}
    return groups if len(kinds) == 1 else None


def _group_points(
    score_type: str, source: str, groups: List[Tuple[float, List[int]]], indices: List[int], notes: _Notes
) -> Dict[int, float]:
    """Each subtask's points shared equally by its cases (exact for a subtask of one case)."""
    points: Dict[int, float] = {index: 0 for index in indices}
    shared = []
    for number, (maximum, members) in enumerate(groups):
        if not members:
            notes.add(f"Subtask {number} of {source} ({_tidy(maximum)} points) has no cases; its points are lost.")
            continue
        for index, share in zip(members, _shares(maximum, len(members))):
            points[index] += share
        if len(members) > 1:
            shared.append(f"subtask {number}: {_tidy(maximum)} points over {len(members)} cases")
    if shared:
        notes.add(
            f"CMS {score_type} gives a subtask's points only when all its cases pass; here each case carries an "
            f"equal share of its subtask's points ({'; '.join(shared)}), so a partly solved subtask scores partly."
        )
    orphans = [str(index) for index in indices if not any(index in members for _, members in groups)]
    if orphans:
        notes.add(f"Cases {_listing(orphans)} belong to no subtask in {source}, so they count 0 points, as in CMS.")
    return points


def _shares(total: float, count: int) -> List[float]:
    """``total`` split in ``count`` shares to the hundredth; the last share takes the rounding rest."""
    share = total / count
    if float(share).is_integer():
        return [share] * count
    share = round(share, 2)
    return [share] * (count - 1) + [round(total - share * (count - 1), 2)]


def _gen_subtasks(path: Path) -> Optional[List[List[int]]]:
    """[[points, number of cases], ...] from ``# ST: points`` lines of gen/GEN, as CMS reads them."""
    if not path.is_file():
        return None
    text = _read_text(path)
    if text is None:
        return None
    subtasks: List[List[int]] = []
    points, count = None, 0
    for line in text.splitlines():
        case, _, comment = line.strip().partition("#")
        comment = comment.strip()
        if comment.startswith("ST:"):
            if points is not None:
                subtasks.append([points, count])
            try:
                points = int(comment[3:].strip())
            except ValueError:
                return None
            count = 0
        elif case.strip() or comment.startswith("COPY:"):
            count += 1
    if points is None:
        return None
    subtasks.append([points, count])
    return subtasks


def _cms_other_notes(folder: Path, conf: Dict[str, Any], notes: _Notes) -> None:
    """Notes for what a CMS task has and a test case file cannot say."""
    for name in ("check", "cor"):
        files = [f for f in _files_in(folder / name) if not Path(f).name.startswith("manager")]
        if files:
            notes.add(
                f"The custom checker ({_listing(files)}) was not carried over: the cases compare output with the "
                "tokens checker, so answers it would accept in other forms are rejected."
            )
        managers = [f for f in _files_in(folder / name) if Path(f).name.startswith("manager")]
        if managers:
            notes.add(
                f"{_listing(managers)} makes this a CMS Communication task, whose manager talks with the program; "
                "that was not carried over: the cases only feed each input to standard input."
            )
    graders = [f for f in _files_in(folder / "sol") if Path(f).name.startswith(("grader.", "stub."))]
    if graders:
        notes.add(
            f"CMS runs submissions together with {_listing(graders)}, which calls their functions; here each "
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
        notes.add(f"These task.yaml settings have no counterpart here and were not carried over: {_listing(left, 8)}.")
    folders = [name + "/" for name in ("sol", "statement", "testo", "att", "gen") if (folder / name).is_dir()]
    if folders:
        notes.add(
            f"The folders {', '.join(folders)} (solutions, statement, attachments, generators) were not imported; "
            "a Python solution can go to solutions/<task>.py for python -m grader verify."
        )


# -- Kattis -------------------------------------------------------------------------------------

# problem.yaml keys of the legacy and 2023-07 formats. Metadata worth keeping goes into the header
# comment; ids and keywords are dropped as they mean nothing to a test case file.
_KATTIS_HEADER_KEYS = ("author", "source", "source_url", "license", "rights_owner", "credits")
_KATTIS_USED_KEYS = {
    "name",
    "type",
    "limits",
    "validation",
    "validator_flags",
    "grading",
    "problem_format_version",
    "uuid",
    "keywords",
    *_KATTIS_HEADER_KEYS,
}
_KATTIS_TIME_KEYS = {"time_limit", "time_multiplier", "time_safety_margin", "time_multipliers", "time_resolution"}
_KATTIS_ANNOTATIONS = {".desc", ".png", ".jpg", ".jpeg", ".svg", ".interaction"}
_KATTIS_GROUP_SCORING = ("grading", "grader_flags", "on_reject", "accept_score", "reject_score", "range", "score")


@dataclass
class _Flags:
    """The default output validator's flags (Kattis problemtools, default_validator.cc)."""

    case_sensitive: bool = False
    space_change_sensitive: bool = False
    abs_tol: Optional[float] = None
    rel_tol: Optional[float] = None
    unknown: Tuple[str, ...] = ()


def _parse_flags(words: Sequence[str], where: str) -> _Flags:
    """Read validator flags as problemtools' default validator does: a later flag overrides an earlier
    one, and ``float_tolerance x`` sets both the absolute and the relative tolerance to x."""
    flags, unknown = _Flags(), []
    words = list(words)
    position = 0
    while position < len(words):
        word = words[position]
        if word == "case_sensitive":
            flags.case_sensitive = True
        elif word == "space_change_sensitive":
            flags.space_change_sensitive = True
        elif word in ("float_tolerance", "float_absolute_tolerance", "float_relative_tolerance"):
            text = words[position + 1] if position + 1 < len(words) else ""
            try:
                value = float(text)
            except ValueError:
                value = -1.0
            if not 0 <= value < math.inf:
                raise UsageError(f"{where}: '{word}' must be followed by a tolerance of 0 or more, not {text!r}.")
            if word != "float_relative_tolerance":
                flags.abs_tol = value
            if word != "float_absolute_tolerance":
                flags.rel_tol = value
            position += 1
        else:
            unknown.append(word)
        position += 1
    flags.unknown = tuple(unknown)
    return flags


def _kattis_checker(flags: _Flags, notes: _Notes) -> Tuple[str, Dict[str, Any]]:
    """The checker and options closest to Kattis's default output validator with these flags.

    Followed: Kattis problemtools, support/default_validator/default_validator.cc, and the legacy
    package format's "Default Output Validator Specification". The validator compares the
    white-space-separated tokens of output and answer; case-INsensitively (strcasecmp) unless
    ``case_sensitive``; any run of white space equals any other unless ``space_change_sensitive``
    (then every white space character must match); with a float tolerance, a token that is a number
    in the answer must be a number within the absolute OR the relative tolerance (relative to the
    answer's value; math.isclose, used by our float checker, takes the larger of the two values, a
    negligible difference).
    """
    if flags.abs_tol is not None or flags.rel_tol is not None:
        options = {"abs_tol": flags.abs_tol or 0.0, "rel_tol": flags.rel_tol or 0.0}
        if not flags.case_sensitive:
            notes.add(
                "The float checker compares words that are not numbers case-sensitively, where Kattis ignores "
                "case (no case_sensitive flag)."
            )
        if flags.space_change_sensitive:
            notes.add("space_change_sensitive was not carried over: the float checker ignores how words are spaced.")
        return "float", options
    if flags.space_change_sensitive:
        notes.add(
            "space_change_sensitive maps to the text checker with trailing_space, which rejects changed spacing as "
            "Kattis does but forgives missing or extra line ends and blank lines at the very end of the output."
        )
        if not flags.case_sensitive:
            notes.add(
                "The text checker compares letters case-sensitively, where Kattis ignores case (space_change_sensitive "
                "without case_sensitive)."
            )
        return "text", {"trailing_space": True}
    return "tokens", ({} if flags.case_sensitive else {"case_sensitive": False})


def _flag_words(value: Any, where: str) -> List[str]:
    """Validator flags given as one string (legacy) or a list of strings (2023-07)."""
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) for v in value):
        return [str(v) for v in value]
    if isinstance(value, dict) and isinstance(value.get("flags", ""), str):
        return value.get("flags", "").split()  # legacy map form {name: validator, flags: "..."}
    raise UsageError(f"{where}: the validator flags must be text such as 'float_tolerance 1e-6', not {value!r}.")


def import_kattis(folder: Path, task_id: Optional[str] = None) -> ImportResult:
    """Convert a Kattis/ICPC problem package (``problem.yaml``, ``data/sample``, ``data/secret``).

    Samples are visible cases, secret ones hidden; a case's name is its path under data/ without
    the extension (``sample/1``, ``secret/group1/01``) and a ``.hint`` file becomes its hint. The
    default output validator's flags become a checker (see ``_kattis_checker``); the output limit
    carries over, the memory limit only when it is above the grader's default (see ``_memory``),
    and the time limit when ``limits.time_limit`` gives it.
    Raises ``UsageError`` (one sentence naming the file) when the folder cannot be read as a package.
    """
    folder = _folder(folder, "Kattis problem package", "problem.yaml")
    conf_path = folder / "problem.yaml"
    conf = _read_mapping(conf_path)
    task_id = _task_id(folder, task_id)
    notes = _Notes()

    task: Dict[str, Any] = {}
    name = conf.get("name")
    if isinstance(name, dict) and name:
        name = name.get("en", next(iter(name.values())))
    if name is not None:
        task["title"] = str(name)
    validation = _kattis_validation(folder, conf, conf_path, notes)
    problem_flags = _flag_words(conf.get("validator_flags"), f"{conf_path}, validator_flags")
    root_testdata = folder / "data" / "testdata.yaml"
    root_settings = _read_testdata(root_testdata, "data/testdata.yaml", notes)
    where = f"{root_testdata}, output_validator_flags"
    base_flags = problem_flags + _flag_words(root_settings.get("output_validator_flags"), where)
    checker, options = _kattis_checker(_parse_flags(base_flags, f"{conf_path}, validator_flags"), _Notes())
    task["checker"] = checker
    if options:
        task["checker_options"] = options
    _kattis_limits(conf, conf_path, task, notes)

    walker = _KattisData(folder, problem_flags, (checker, options), validation, notes)
    cases, found = walker.cases(root_settings)
    if not found:
        raise UsageError(f"{folder / 'data'}: no test cases (.in files) in data/sample/ or data/secret/.")
    if not cases:
        raise _no_cases(folder / "data", found, notes)
    _kattis_other_notes(folder, conf, notes)
    header = [f"{key}: {conf[key]}" for key in _KATTIS_HEADER_KEYS if conf.get(key)]
    text = _render(f"Kattis problem package {folder.resolve()}", task_id, task, cases, notes, header)
    return ImportResult(task_id=task_id, yaml_text=text, cases=len(cases), notes=tuple(notes.items))


def _kattis_validation(folder: Path, conf: Dict[str, Any], conf_path: Path, notes: _Notes) -> str:
    """'default', 'custom' or 'interactive', with notes for what a custom validator does."""
    value = conf.get("validation", "default")
    if not isinstance(value, str) or not value.split() or value.split()[0] not in ("default", "custom"):
        raise UsageError(f"{conf_path}: 'validation' must be 'default' or 'custom ...', not {value!r}.")
    words = set(value.split())
    types = conf.get("type", "pass-fail")
    types = set(types.split()) if isinstance(types, str) else set(map(str, types or []))
    validators = _files_in(folder / "output_validators") + _files_in(folder / "output_validator")
    shown = f" ({_listing(validators)})" if validators else ""
    if "interactive" in words or "interactive" in types or "multi-pass" in types:
        notes.add(
            f"This is an interactive problem: its output validator{shown} talks with the program as it runs, which "
            "was not carried over; the cases only feed each .in file to standard input and compare the output "
            "with the .ans file, so they will most likely need rewriting."
        )
        return "interactive"
    # In the 2023-07 format there is no 'validation' key: an output_validator/ folder means custom.
    modern = str(conf.get("problem_format_version", "legacy")) != "legacy"
    if "custom" in words or (modern and "validation" not in conf and validators):
        notes.add(
            f"The custom output validator{shown} was not carried over: the cases compare output as Kattis's "
            "default validator would with the same validator_flags, so answers it would accept in other forms "
            "are rejected."
        )
        return "custom"
    if validators:
        notes.add(
            f"The output validator{shown} was not imported; with validation default (problem.yaml) Kattis does not "
            "use it either."
        )
    return "default"


def _kattis_limits(conf: Dict[str, Any], conf_path: Path, task: Dict[str, Any], notes: _Notes) -> None:
    limits = conf.get("limits") or {}
    if not isinstance(limits, dict):
        raise UsageError(f"{conf_path}: 'limits' must be a mapping such as {{memory: 1024}}, not {limits!r}.")
    if limits.get("time_limit") is not None:
        task["time_limit"] = _tidy(_limit(limits["time_limit"], conf_path, "limits.time_limit", "seconds"))
    else:
        given = ", ".join(f"{k} {limits[k]}" for k in sorted(_KATTIS_TIME_KEYS) if k in limits)
        given = given or "time_multiplier 5 by default"
        seconds = _tidy(DEFAULT_LIMITS.time_s)
        notes.add(
            f"Kattis computes the time limit from the judge solutions' running times ({given}); it was not "
            f"carried over, so the default of {seconds} seconds applies: set time_limit by hand."
        )
    if limits.get("memory") is not None:
        given = _limit(limits["memory"], conf_path, "limits.memory", "MiB")
        meaning = "the memory of the whole process, interpreter included, as Kattis's judges count it"
        memory = _memory(given, "problem.yaml limits.memory", meaning, notes)
        if memory is not None:
            task["memory_limit"] = memory
    if limits.get("output") is not None:
        task["output_limit"] = math.ceil(_limit(limits["output"], conf_path, "limits.output", "MiB") * 1024 * 1024)
    left = sorted(k for k in limits if k not in _KATTIS_TIME_KEYS | {"memory", "output"})
    if left:
        notes.add(f"These limits have no counterpart here and were not carried over: {_listing(left, 8)}.")


def _read_testdata(path: Path, shown: str, notes: _Notes) -> Dict[str, Any]:
    """A group's testdata.yaml (empty when there is none), with notes for what it sets and we cannot."""
    if not path.is_file():
        return {}
    settings = _read_mapping(path)
    scoring = [key for key in _KATTIS_GROUP_SCORING if key in settings]
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


class _KattisData:
    """Walks data/sample and data/secret in Kattis's order: by base name, groups and cases mixed."""

    def __init__(self, folder: Path, problem_flags: List[str], base: Tuple[str, dict], validation: str, notes: _Notes):
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
            self.notes.add(
                f"The data folders {_listing(ignored)} hold no sample or secret cases and were not imported."
            )
        if self.annotations:
            self.notes.add(
                f"Test case descriptions, illustrations and interaction logs ({_listing(self.annotations)}) were not "
                "imported."
            )
        if self.other_files:
            self.notes.add(f"Other files under data/ were not imported: {_listing(self.other_files)}.")
        return cases, self.found

    def group(self, folder: Path, hidden: bool, inherited: Dict[str, Any]) -> List[Dict[str, Any]]:
        own = folder / "testdata.yaml"
        settings = inherited  # a group without testdata.yaml uses its closest ancestor's
        where = f"{self.conf_path}, validator_flags"
        if own.is_file():
            settings = _read_testdata(own, self.shown(own), self.notes)
            where = f"{own}, output_validator_flags"
        flags = _parse_flags(self.problem_flags + _flag_words(settings.get("output_validator_flags"), where), where)
        checker = _kattis_checker(flags, self.notes)
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
                elif path.suffix in _KATTIS_ANNOTATIONS:
                    self.annotations.append(self.shown(path))
                elif path.suffix != ".hint" and path.name != "testdata.yaml":
                    self.other_files.append(self.shown(path))
        return cases

    def shown(self, path: Path) -> str:
        return str(path.relative_to(self.folder))

    def case(self, input_path: Path, hidden: bool, checker: Tuple[str, dict]) -> Optional[Dict[str, Any]]:
        self.found += 1
        name = str(input_path.relative_to(self.data).with_suffix("")).replace("\\", "/")
        answer_path = input_path.with_suffix(".ans")
        if not answer_path.is_file():
            self.notes.add(f"Case {name} was skipped: {self.shown(input_path)} has no .ans file next to it.")
            return None
        case_input, expected = _read_text(input_path), _read_text(answer_path)
        for text, path in ((case_input, input_path), (expected, answer_path)):
            if text is None:
                self.notes.add(f"Case {name} was skipped: {self.shown(path)} is not UTF-8 text.")
                return None
        case: Dict[str, Any] = {"name": name, "input": case_input, "expected": expected}
        hint_path = input_path.with_suffix(".hint")
        if hint_path.is_file():
            hint = _read_text(hint_path)
            if hint is None:
                self.notes.add(f"The hint {self.shown(hint_path)} is not UTF-8 text and was not imported.")
            elif hint.strip():
                case["hint"] = " ".join(hint.split())
        if hidden:
            case["hidden"] = True
        if checker != self.base:
            case["checker"], case["checker_options"] = checker[0], dict(checker[1])
        return case


def _kattis_other_notes(folder: Path, conf: Dict[str, Any], notes: _Notes) -> None:
    types = conf.get("type", "pass-fail")
    types = set(types.split()) if isinstance(types, str) else set(map(str, types or []))
    if "submit-answer" in types:
        notes.add(
            "This is a Kattis submit-answer problem (answers are files, not a program); here each case runs a program."
        )
    if "scoring" in types or conf.get("grading"):
        notes.add(
            "This is a Kattis scoring problem: its scores (grading, accept_score, custom graders) were not carried "
            "over; every case counts 1 point."
        )
    validators = _files_in(folder / "input_validators") + _files_in(folder / "input_format_validators")
    if validators:
        notes.add(
            f"The input validators ({_listing(validators)}) were not carried over: they check the test data, and the "
            "imported inputs were not validated."
        )
    included = _files_in(folder / "include")
    if included:
        notes.add(f"The code Kattis adds to every submission ({_listing(included)}) was not carried over.")
    left = sorted(key for key in conf if key not in _KATTIS_USED_KEYS)
    if left:
        notes.add(f"These problem.yaml settings were not carried over: {_listing(left, 8)}.")
    folders = [
        name + "/"
        for name in ("submissions", "problem_statement", "statement", "attachments", "generators")
        if (folder / name).is_dir()
    ]
    if folders:
        notes.add(
            f"The folders {', '.join(folders)} (judge solutions, statement, attachments) were not imported; an "
            "accepted Python solution can go to solutions/<task>.py for python -m grader verify."
        )
