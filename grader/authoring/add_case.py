"""Adding a case to ``testcases/<task>.yaml``, its expected answer computed by the reference solution.

``add_case`` runs ``solutions/<task>.py`` on the new input, checks that it ran cleanly and that the
task's checker accepts its output, and appends the case to the file as text, so the file's comments
and layout stay as the instructor wrote them. The file is then loaded again: when it does not
validate, or the new case does not read back exactly, the original text is put back.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, List, Optional, Tuple

import yaml

from grader.check.registry import Checker
from grader.check.text import quote, significant_lines
from grader.course.files import read_yaml
from grader.course.limits import DEFAULT_LIMITS
from grader.course.loader import load_task
from grader.course.reference import program_for
from grader.errors import GraderError, UsageError
from grader.grade.grading import GradingContext
from grader.model import Limits, RunResult, Task, Verdict

DEFAULT_NAME_PREFIX = "added: "
DEFAULT_NAME_LENGTH = 40  # characters of the input's first line kept in a default name

# Characters a YAML single-quoted scalar may hold as they are: printable (as PyYAML reads a stream)
# and not a line break (which YAML would fold into a space); tabs and the BOM are escaped too.
_PLAIN_CHARS = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]*")
# Characters a double-quoted scalar may hold as they are; the others are escaped.
_KEPT_CHARS = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


@dataclass(frozen=True)
class AddedCase:
    """The case that was added: its task, name, input (as graded: with a final newline), the
    expected answer written (None when the task's checker needs none) and the file changed."""

    task_id: str
    name: str
    input: str
    expected: Optional[str]
    path: Path


def add_case(
    course: Path,
    task_id: str,
    case_input: str,
    *,
    name: Optional[str] = None,
    hidden: bool = False,
    hint: str = "",
    context: GradingContext,
) -> AddedCase:
    """Append a case to ``course/testcases/<task_id>.yaml``, its expected answer given by the
    reference solution ``course/solutions/<task_id>.py``.

    Raises ``UsageError`` (one sentence) when the case cannot be added: an unknown task, an
    interactive task, a name or an input that a case already has, a reference solution that does
    not run cleanly on the input; ``CaseFileError`` when the file does not validate; and
    ``GraderError`` when the file cannot be written, or does not read back as it should (it is
    then restored).
    """
    path, shown = _task_file(course, task_id)
    task = load_task(path, context.checkers, shown)
    settings = _task_settings(path, shown)
    checker = context.checkers.get(settings["checker"])
    if checker.interactive:
        raise UsageError(
            f"The task {task_id} is graded by the interactive checker '{checker.name}', which plays against the "
            f"program instead of giving it an input: write the case, with its checker_options, by hand in {shown} "
            "(see 'Interactive games' in docs/testcases.md)."
        )
    missing = checker.option_errors(settings["checker_options"], complete=True)
    if missing:
        raise UsageError(
            f"The task {task_id}'s checker '{checker.name}' needs options that each case gives ({missing[0]}): "
            f"write this case by hand in {shown}."
        )
    if _has_surrogates(case_input) or _has_surrogates(name or "") or _has_surrogates(hint):
        raise UsageError("The input, name or hint holds bytes that are not UTF-8 text; give them as UTF-8.")

    graded_input = normal_input(case_input)
    for case in task.cases:
        if case.input == graded_input and not _interactive(context, case.checker):
            raise UsageError(
                f"The case '{case.name}' ({shown}, line {case.line}) already has this input, so a second case "
                "with it would test nothing new."
            )
    names = {case.name: case.line for case in task.cases}
    if name is None:
        name = _unused(default_name(graded_input), names)
    else:
        name = name.strip()
        if not name:
            raise UsageError("The case's name is empty: give a name that says what the case checks.")
        if name in names:
            raise UsageError(
                f"A case named '{name}' already exists ({shown}, line {names[name]}); names must be unique in a file."
            )

    limits = Limits(
        time_s=float(settings["time_limit"]),
        memory_mib=int(settings["memory_limit"]),
        output_bytes=int(settings["output_limit"]),
    )
    actual = _run_solution(course, task, graded_input, limits, context)
    expected = _expected_answer(checker, actual, graded_input, settings["checker_options"], task_id)

    added = AddedCase(task_id=task_id, name=name, input=graded_input, expected=expected, path=path)
    _append(path, shown, task, added, hidden, hint, context)
    return added


def normal_input(text: str) -> str:
    """The input as the loader reads it and the program gets it: a final newline added if missing."""
    return text if not text or text.endswith("\n") else text + "\n"


def default_name(case_input: str) -> str:
    """``added: `` and the input's first line, shortened to 40 characters.

    A blank first line gives way to the first line that is not blank (an input of white space only
    is named as empty).
    """
    lines = [line.strip() for line in case_input.splitlines() if line.strip()]
    first = lines[0] if lines else "(empty input)"
    if len(first) > DEFAULT_NAME_LENGTH:
        first = first[: DEFAULT_NAME_LENGTH - 3].rstrip() + "..."
    return DEFAULT_NAME_PREFIX + first


def _unused(name: str, taken) -> str:
    """``name``, or ``name (2)``, ``name (3)``... the first that no case has."""
    candidate, number = name, 1
    while candidate in taken:
        number += 1
        candidate = f"{name} ({number})"
    return candidate


def _interactive(context: GradingContext, checker_name: str) -> bool:
    checker = context.checkers.get(checker_name)
    return checker is not None and checker.interactive


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# -- the task -----------------------------------------------------------------------------------


def _task_file(course: Path, task_id: str) -> Tuple[Path, str]:
    """The task's YAML file and how messages name it; an unknown task is a ``UsageError``."""
    folder = course / "testcases"
    if not folder.is_dir():
        raise UsageError(f"{course}: there is no testcases/ folder in it.")
    known = sorted(p.stem for p in folder.glob("*.yaml") if p.is_file())
    if task_id not in known:
        listed = ", ".join(known) if known else "none"
        raise UsageError(f"There is no task {task_id} (no {folder / (task_id + '.yaml')}); the tasks are: {listed}.")
    path = folder / f"{task_id}.yaml"
    try:
        shown = str(path.relative_to(course))
    except ValueError:
        shown = str(path)
    return path, shown


def _task_settings(path: Path, shown: str) -> dict:
    """The checker, its options and the limits of the task itself: what a new case gets.

    The file has been validated by ``load_task``, so the values have the right types.
    """
    data = read_yaml(path, shown)
    return {
        "checker": data.get("checker", "text"),
        "checker_options": dict(data.get("checker_options", {})),
        "time_limit": data.get("time_limit", DEFAULT_LIMITS.time_s),
        "memory_limit": data.get("memory_limit", DEFAULT_LIMITS.memory_mib),
        "output_limit": data.get("output_limit", DEFAULT_LIMITS.output_bytes),
    }


# -- the expected answer ------------------------------------------------------------------------


def _run_solution(course: Path, task: Task, case_input: str, limits: Limits, context: GradingContext) -> str:
    """The reference solution's output on ``case_input``; a ``UsageError`` unless it ran cleanly."""
    solution = course / "solutions" / f"{task.id}.py"
    try:
        shown = str(solution.relative_to(course))
    except ValueError:
        shown = str(solution)
    if not solution.is_file():
        raise UsageError(f"There is no reference solution {shown} to compute the expected answer with.")
    program, notes = program_for(task, solution, context.python)
    run = context.runner.run(program, case_input.encode("utf-8"), limits)
    problem = _run_problem(run, limits)
    if problem:
        note = f" ({notes[0]})" if notes else ""
        raise UsageError(
            f"The reference solution {shown} {problem} on this input{note}, so the case was not added: "
            "check the input (or the solution)."
        )
    try:
        return run.stdout.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(
            f"The reference solution {shown} printed bytes that are not UTF-8 text on this input, so the case "
            "was not added."
        ) from None


def _run_problem(run: RunResult, limits: Limits) -> str:
    """What went wrong with a run, as a verb phrase (``crashed (...)``), or ``""``."""
    if run.timed_out:
        return f"took longer than the time limit ({limits.time_s:g} seconds)"
    if run.output_limit_hit:
        return f"printed more than the output limit ({limits.output_bytes:,} bytes)"
    if run.stderr_limit_hit:
        return f"wrote more than {limits.stderr_bytes:,} bytes to its error output"
    if run.exit_code != 0:
        last = _last_line(run.stderr)
        if run.exit_code is None:
            how = f"was stopped by signal {run.signal}"
        else:
            how = f"ended with exit status {run.exit_code}"
        return f"{how}{f' ({last})' if last else ''}"
    if not run.stdout.strip():
        last = _last_line(run.stderr)
        return f"printed nothing{f' (its error output ends: {last})' if last else ''}"
    return ""


def _last_line(data: bytes) -> str:
    lines = [line.strip() for line in data.decode("utf-8", errors="replace").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _expected_answer(checker: Checker, actual: str, case_input: str, options: dict, task_id: str) -> Optional[str]:
    """The expected answer to write for ``actual`` (None when the checker needs none), once the
    checker has accepted ``actual`` against it as grading would."""
    expected: Optional[str] = None
    if checker.needs_expected:
        expected = "\n".join(significant_lines(actual, keep_spaces=True))
        if checker.name == "regex":
            expected = re.escape(expected)  # the output itself, as a pattern that matches only it
        if checker.validate_expected is not None:
            error = checker.validate_expected(expected, options)
            if error:
                raise UsageError(
                    f"The reference solution's output {quote(actual.strip())} cannot be the expected answer of "
                    f"the task {task_id} ({error}), so the case was not added."
                )
    try:
        outcome = checker(actual, expected or "", case_input, options)
    except Exception as error:  # a course's own checker, or input it cannot read
        raise UsageError(
            f"The checker '{checker.name}' failed on the reference solution's output ({type(error).__name__}: "
            f"{error}), so the case was not added."
        ) from None
    if outcome.verdict is not Verdict.ACCEPTED:
        raise UsageError(
            f"The checker '{checker.name}' does not accept the reference solution's output "
            f"{quote(actual.strip())} on this input ({outcome.message}), so the case was not added."
        )
    return expected


# -- writing the file ---------------------------------------------------------------------------


def yaml_scalar(text: str) -> str:
    """``text`` as a YAML scalar that reads back exactly: single-quoted (``'`` doubled) when it
    is one line of printable characters, else double-quoted with escapes (``\\n``, ``\\t``...)."""
    if _PLAIN_CHARS.fullmatch(text):
        return "'" + text.replace("'", "''") + "'"
    return '"' + "".join(_escape(char) for char in text) + '"'


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    if _KEPT_CHARS.match(char):
        return char
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def case_text(added: AddedCase, hidden: bool, hint: str, dash_column: int = 2, key_column: int = 4) -> List[str]:
    """The lines (without line ends) of the new case, in the style of the course's files."""
    written_input = added.input
    if written_input.endswith("\n") and not written_input[:-1].endswith("\n"):
        written_input = written_input[:-1]  # the loader adds it back; one line stays single-quoted
    pairs: List[Tuple[str, Any]] = [("name", added.name), ("input", written_input)]
    if added.expected is not None:
        pairs.append(("expected", added.expected))
    if hidden:
        pairs.append(("hidden", True))
    if hint:
        pairs.append(("hint", hint))
    first = " " * dash_column + "-" + " " * (key_column - dash_column - 1)
    lines = []
    for number, (key, value) in enumerate(pairs):
        written = "true" if value is True else yaml_scalar(value)
        lines.append(f"{first if number == 0 else ' ' * key_column}{key}: {written}")
    return lines


class _Layout:
    """Where the file's ``cases`` list is and how its items are indented, from the YAML nodes."""

    def __init__(self, text: str, shown: str) -> None:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        cases = next((value for key, value in root.value if key.value == "cases"), None)
        if root.flow_style or not isinstance(cases, yaml.SequenceNode) or cases.flow_style:
            raise UsageError(
                f"The cases of {shown} are written in the [..., ...] flow style, so a case cannot be appended to "
                "them as text: add it by hand."
            )
        self.items = cases.value
        self.dash_column = cases.start_mark.column
        last = self.items[-1]
        key_column = last.start_mark.column if isinstance(last, yaml.MappingNode) else self.dash_column + 2
        self.key_column = key_column if key_column > self.dash_column else self.dash_column + 2
        self.text = text
        self.after_last = self.after(last)

    def after(self, item: yaml.Node) -> int:
        """The index just after the line where ``item``'s content ends (its last value)."""
        end, node = max(_content_ends(item), key=lambda pair: pair[0])
        if end > 0 and self.text[end - 1] not in "\r\n":
            return _next_line(self.text, end)
        # A block scalar (| or >) ends after the blank lines that follow it; they belong to its
        # value only with keep chomping (|+), which leaves more than one line break at its end.
        if isinstance(node, yaml.ScalarNode) and node.value.endswith("\n\n"):
            return end
        while end > 0:
            start = _line_start(self.text, end)
            if self.text[start:end].strip():
                break
            end = start
        return end

    def blank_separated(self) -> bool:
        """True when most cases follow a blank line, as in optimal_move.yaml."""
        gaps = []
        for item in self.items[1:]:
            start = self.text.rfind("\n", 0, item.start_mark.index) + 1
            previous = self.text.rfind("\n", 0, max(start - 1, 0)) + 1
            gaps.append(start > 0 and not self.text[previous:start].strip())
        return bool(gaps) and sum(gaps) * 2 >= len(gaps)


def _content_ends(node: yaml.Node) -> List[Tuple[int, yaml.Node]]:
    """(end index, node) of everything written in ``node``: its scalars and flow collections.

    A block collection's own end mark lies after the comments that follow it, so it is not used.
    """
    if isinstance(node, yaml.ScalarNode) or node.flow_style:
        return [(node.end_mark.index, node)]
    children = node.value if isinstance(node, yaml.SequenceNode) else [part for pair in node.value for part in pair]
    ends = [end for child in children for end in _content_ends(child)]
    return ends or [(node.end_mark.index, node)]


def _line_start(text: str, end: int) -> int:
    """The index where the line ending (with its line break) at ``end`` starts."""
    brk = end - 1
    if text[brk] == "\n" and brk > 0 and text[brk - 1] == "\r":
        brk -= 1
    return max(text.rfind("\n", 0, brk), text.rfind("\r", 0, brk)) + 1


def _next_line(text: str, index: int) -> int:
    """The index of the start of the line after the one holding ``index`` (or the text's end)."""
    match = re.compile(r"\r\n|\r|\n").search(text, index)
    return match.end() if match else len(text)


def new_text(text: str, shown: str, lines: List[str], layout: Optional[_Layout] = None) -> str:
    """``text`` with the case ``lines`` added after the last case.

    When only comments and blank lines follow the last case (``cases`` is the last key), the lines
    are appended at the end of the file; otherwise they go right after the last case's last line.
    """
    layout = layout or _Layout(text, shown)
    newline = "\r\n" if "\r\n" in text[: _next_line(text, 0)] else "\n"
    rest = text[layout.after_last :]
    only_comments = all(not line.strip() or line.lstrip().startswith("#") for line in rest.splitlines())
    at = len(text) if only_comments else layout.after_last
    before = text[:at]
    prefix = ""
    if before and not before.endswith(("\n", "\r")):
        prefix = newline
    elif layout.blank_separated() and not re.search(r"(\r\n|\r|\n)[ \t]*(\r\n|\r|\n)$", "\n" + before):
        prefix = newline
    return before + prefix + "".join(line + newline for line in lines) + text[at:]


def _append(path: Path, shown: str, task: Task, added: AddedCase, hidden: bool, hint: str, context) -> None:
    """Write the case into the file, load it again, and put the original back if anything is off."""
    target = path.resolve()  # a symbolic link stays one
    try:
        original = target.read_bytes()
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError as error:
        raise GraderError(f"{shown}: cannot read the file ({error.strerror or error}).") from None
    text = original.decode("utf-8")  # load_task has read it as UTF-8
    layout = _Layout(text, shown)
    lines = case_text(added, hidden, hint, layout.dash_column, layout.key_column)
    _write(target, new_text(text, shown, lines, layout).encode("utf-8"), mode, shown)
    try:
        problem = _read_back_problem(path, shown, task, added, hidden, hint, context)
    except BaseException:
        _write(target, original, mode, shown)
        raise
    if problem:
        _write(target, original, mode, shown)
        raise GraderError(f"{shown}: the case was not added: {problem}; the file was left as it was.")


def _read_back_problem(path: Path, shown: str, task: Task, added: AddedCase, hidden: bool, hint: str, context) -> str:
    """Why the written file is not the old one plus the new case, or ``""``."""
    try:
        again = load_task(path, context.checkers, shown)
    except GraderError as error:
        return f"with it the file did not validate ({error})"
    if len(again.cases) != len(task.cases) + 1:
        return f"the file read back with {len(again.cases)} cases instead of {len(task.cases) + 1}"
    new = [c for c in again.cases if c.name == added.name]
    if len(new) != 1:
        return f"no case named '{added.name}' read back"
    # The other cases (generated ones included) must read back as before, but for their lines:
    # what follows an insertion point moves down.
    others = _unlined(c for c in again.cases if c.name != added.name)
    if replace(again, cases=others) != replace(task, cases=_unlined(task.cases)):
        return "the cases already in the file did not read back as before"
    case = new[0]
    found = (case.name, case.input, case.expected, case.hidden, case.hint)
    wanted = (added.name, added.input, () if added.expected is None else (added.expected,), hidden, hint)
    if found != wanted:
        keys = ("name", "input", "expected", "hidden", "hint")
        differ = ", ".join(key for key, a, b in zip(keys, found, wanted) if a != b)
        return f"the new case read back with a different {differ}"
    return ""


def _unlined(cases) -> tuple:
    return tuple(replace(case, line=0) for case in cases)


def _write(path: Path, data: bytes, mode: int, shown: str) -> None:
    """Replace ``path``'s content with ``data`` at once (a temporary file, then ``os.replace``)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except OSError as error:
        _remove(temporary)
        raise GraderError(f"{shown}: cannot write the file ({error.strerror or error}).") from None
    except BaseException:
        _remove(temporary)
        raise


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
