"""Adding a case to ``testcases/<task>.yaml``, its expected answer computed by the reference solution.

``add_case`` runs ``solutions/<task>.py`` on the new input, checks that it ran cleanly and that the
task's checker accepts its output, and appends the case to the file's ``cases`` (by ``yaml_writer``,
ruamel.yaml's round-trip mode), so the file's comments and layout stay as the instructor wrote them.
The file is then loaded again by the course loader: when it does not validate, or the new case does
not read back exactly, the original text is put back.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from grader.authoring.added_names import default_name, hidden_default_name, unused_name
from grader.authoring.hidden_names import name_gives_away
from grader.authoring.yaml_writer import appended, quoted
from grader.check.registry import GameChecker, OutputChecker
from grader.check.text import quote, significant_lines
from grader.course.files import read_yaml
from grader.course.layout import Course
from grader.course.limits import case_limits, default_settings
from grader.course.loader import load_task
from grader.course.reference import program_for
from grader.errors import GraderError, UsageError
from grader.grade.grading import GradingContext
from grader.model import Limits, Task, Verdict
from grader.run.run_facts import RunResult


@dataclass(frozen=True)
class AddedCase:
    """The case that was added: its task, name, input (as graded: with a final newline), the
    expected answer written (None when the task's checker needs none) and the file changed; for a
    hidden case whose given name states its input or answer, ``warning`` says so (else ``""``)."""

    task_id: str
    name: str
    input: str
    expected: Optional[str]
    path: Path
    warning: str = ""


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

    Without ``name`` a visible case is named after its input (``default_name``), a hidden one
    ``hidden case N`` (``hidden_default_name``): students see a hidden case's name, never its input.

    Raises ``UsageError`` (one sentence) when the case cannot be added: an unknown task, an
    interactive task, a name or an input that a case already has, a reference solution that does
    not run cleanly on the input; ``CaseFileError`` when the file does not validate; and
    ``GraderError`` when the file cannot be written, or does not read back as it should (it is
    then restored).
    """
    layout = Course(course)
    path, shown = _task_file(layout, task_id)
    task = load_task(path, context.checkers, shown)
    settings = _task_settings(path, shown)
    checker = context.checkers[settings["checker"]]
    if isinstance(checker, GameChecker):
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
        name = hidden_default_name(names) if hidden else unused_name(default_name(graded_input), names)
    else:
        name = name.strip()
        if not name:
            raise UsageError("The case's name is empty: give a name that says what the case checks.")
        if name in names:
            raise UsageError(
                f"A case named '{name}' already exists ({shown}, line {names[name]}); names must be unique in a file."
            )

    limits = case_limits(settings)
    actual = _run_solution(layout, task, graded_input, limits, context)
    expected = _expected_answer(checker, actual, graded_input, settings["checker_options"], task_id)

    told = name_gives_away(name, graded_input, () if expected is None else (expected,)) if hidden else ""
    warning = (
        f"the hidden case's name '{name}' states {told}; students see a hidden case's name, so rename it "
        f"(key 'name' in {shown}) by what it checks without its values, or 'hidden case N'"
        if told
        else ""
    )
    added = AddedCase(task_id=task_id, name=name, input=graded_input, expected=expected, path=path, warning=warning)
    _append(path, shown, task, added, hidden, hint, context)
    return added


def normal_input(text: str) -> str:
    """The input as the loader reads it and the program gets it: a final newline added if missing."""
    return text if not text or text.endswith("\n") else text + "\n"


def _interactive(context: GradingContext, checker_name: str) -> bool:
    checker = context.checkers.get(checker_name)
    return isinstance(checker, GameChecker)


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# -- the task -----------------------------------------------------------------------------------


def _task_file(course: Course, task_id: str) -> Tuple[Path, str]:
    """The task's YAML file and how messages name it; an unknown task is a ``UsageError``."""
    if not course.is_course():
        raise UsageError(f"{course.root}: there is no testcases/ folder in it.")
    path = course.case_file(task_id)
    known = sorted(p.stem for p in course.case_files() if p.is_file())
    if task_id not in known:
        listed = ", ".join(known) if known else "none"
        raise UsageError(f"There is no task {task_id} (no {path}); the tasks are: {listed}.")
    return path, _shown(path, course)


def _shown(path: Path, course: Course) -> str:
    """``path`` as messages name it: relative to the course folder when it is inside it."""
    try:
        return str(path.relative_to(course.root))
    except ValueError:
        return str(path)


def _task_settings(path: Path, shown: str) -> dict:
    """The checker, its options and the limits of the task itself: what a new case gets.

    The file has been validated by ``load_task``, so the values have the right types.
    """
    data = read_yaml(path, shown)
    settings = default_settings()
    settings.update({key: data[key] for key in settings if key in data})
    settings["checker_options"] = dict(settings["checker_options"])
    return settings


# -- the expected answer ------------------------------------------------------------------------


def _run_solution(course: Course, task: Task, case_input: str, limits: Limits, context: GradingContext) -> str:
    """The reference solution's output on ``case_input``; a ``UsageError`` unless it ran cleanly."""
    solution = course.solution(task.id)
    shown = _shown(solution, course)
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


def _expected_answer(
    checker: OutputChecker, actual: str, case_input: str, options: dict, task_id: str
) -> Optional[str]:
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


def case_entry(
    name: str, case_input: str, expected: Optional[str], *, hidden: bool = False, hint: str = ""
) -> Dict[str, Any]:
    """The new case's keys as the file gives them: its name, input, expected answer (none when
    None; a one-line input or answer in quotes, as docs/testcases.md asks), ``hidden`` and hint."""
    written_input = case_input
    if written_input.endswith("\n") and not written_input[:-1].endswith("\n"):
        written_input = written_input[:-1]  # the loader adds it back; one line stays on its line
    entry: Dict[str, Any] = {"name": name, "input": quoted(written_input)}
    if expected is not None:
        entry["expected"] = quoted(expected)
    if hidden:
        entry["hidden"] = True
    if hint:
        entry["hint"] = hint
    return entry


def _append(path: Path, shown: str, task: Task, added: AddedCase, hidden: bool, hint: str, context) -> None:
    """Write the case into the file, load it again, and put the original back if anything is off."""
    target = path.resolve()  # a symbolic link stays one
    try:
        original = target.read_bytes()
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError as error:
        raise GraderError(f"{shown}: cannot read the file ({error.strerror or error}).") from None
    text = original.decode("utf-8")  # load_task has read it as UTF-8
    entry = case_entry(added.name, added.input, added.expected, hidden=hidden, hint=hint)
    try:
        new = appended(text, "cases", entry, shown)
    except UsageError:
        raise
    except Exception as error:  # a file PyYAML reads but ruamel.yaml cannot rewrite
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise GraderError(
            f"{shown}: the case was not added: the file could not be rewritten with it ({first}); the file was "
            "left as it was: add the case by hand."
        ) from None
    _write(target, new.encode("utf-8"), mode, shown)
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
