"""A known-wrong solution's header: what a file in ``solutions/wrong/<task>/`` declares about itself.

In: a task id and the path of a known-wrong solution. Out: a ``WrongSolution`` with what its header
declares, or with ``header_problem``, a sentence saying what is wrong with the header (the file
cannot be read, a line is not ``# key: value`` with a known key, a key comes twice, a value is
malformed). ``verify`` and the pytest plugin grade with the verdict and caught-by, ``verify`` looks
at the hints shown to it with ``hints`` (``hint_warnings``: a graded result in, sentences out); the
plugin's message check (``wrong_says``) uses the other keys.

The header is the comment lines at the top of the file, up to the first line that is not a comment.
Each is ``# key: value``, with a key of ``KEYS`` (in any letter case, each at most once); a list
separates its items with ``;``::

    # Mistake: calls random.choice on the list of good rows even when it is empty (a P-position)
    # verdict: runtime_error
    # caught-by: P-position 1, 2, 3: no winning move, so play a random legal move
    # says: IndexError; random.choice of an empty list
    # never-says: Rows count from 1
    # hints: random.choice of an empty list crashes

- ``mistake``: the student's mistake, in words (for the instructor: verify, the class page).
- ``student-says`` (optional): the mistake as a student reads it after "Your answers match a known
  mistake:" on the report (``grade/mistakes/known_mistakes.py``); without it, ``mistake`` is shown there.
- ``verdict``: the verdict of the whole file, that of its first case that is not accepted;
  ``a or b`` when either may come first on a given machine.
- ``caught-by`` (optional): cases that must not accept it.
- ``says`` (optional): words that the message of the first case that is not accepted must contain,
  ignoring letter case.
- ``never-says`` (optional, with ``says``): words that message must not contain (misleading advice).
- ``cases`` (optional, with ``says``): the message check grades only these cases, in the task's
  order, to stay fast when the first failure comes late in a slow task.
- ``quick: true`` (optional, with ``says``): for a file that runs into the time limit, the message
  check gives each case 0.5 s and grades the task's first two cases only (or those ``cases`` names).
- ``xfail`` (optional, with ``says``): why the grader does not say that yet; the message check is
  then expected to fail, and fails the suite once it passes.
- ``hints`` (optional): words of the course's hints that fit this mistake. ``verify`` grades the
  file on every case and warns (worth a look, not a failure) about each hint it is shown (a
  known mistake's or a case's, on any case) that contains none of them, ignoring letter case: that
  hint names another mistake, or is not tied to the failures it explains. Without the line, the
  file should be shown no hint at all. An item that no hint shown to it contains is warned about
  too (a hint since changed or tied elsewhere).

A shebang or coding line, and a bare ``#``, may stand in the header too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from grader.model import CaseResult, Task, TaskResult, Verdict

KEYS = ("mistake", "student-says", "verdict", "caught-by", "says", "never-says", "cases", "quick", "xfail", "hints")
# Keys that only tune the check of what the first failing case's message says.
MESSAGE_KEYS = ("never-says", "cases", "quick", "xfail")
_KNOWN = ", ".join(KEYS)
_KEY_LINE = re.compile(r"^#\s*([^:]*?)\s*:\s*(.*?)\s*$")
# Comment lines that Python or the shell read, not the header: a shebang, a PEP 263 coding line.
_NOT_HEADER = re.compile(r"^#!|^#.*?coding[:=]\s*[-\w.]+|^#\s*$")


@dataclass(frozen=True)
class WrongSolution:
    """A known-wrong solution and what its header declares (the module docstring says each key)."""

    task_id: str
    path: Path
    mistake: str
    verdict: Optional[Verdict]
    caught_by: Tuple[str, ...] = ()
    header_problem: str = ""
    # Verdicts that hold as well as ``verdict`` ("time_limit_exceeded or output_limit_exceeded"):
    # for a mistake whose first limit reached depends on the machine's speed (an endless print).
    or_verdicts: Tuple[Verdict, ...] = ()
    says: Tuple[str, ...] = ()
    never_says: Tuple[str, ...] = ()
    cases: Tuple[str, ...] = ()
    quick: bool = False
    xfail: str = ""
    student_says: str = ""
    hints: Tuple[str, ...] = ()

    @property
    def student_text(self) -> str:
        """The mistake as the report tells a student whose answers match it."""
        return self.student_says or self.mistake

    @property
    def verdicts(self) -> Tuple[Verdict, ...]:
        """Every verdict the header allows (empty when it declares none that exists)."""
        return ((self.verdict,) if self.verdict else ()) + self.or_verdicts

    @property
    def label(self) -> str:
        return self.path.stem


def read_wrong_solution(task_id: str, path: Path) -> WrongSolution:
    """Parse a known-wrong solution's header (the comment lines at the top of the file).

    Returns every key the header sets; when something is wrong with it, ``header_problem`` says
    what (each problem, joined by "; ") and ``verdict`` is None, so that nothing grades the file.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        return WrongSolution(task_id, path, "", None, (), f"cannot be read ({error})")
    fields, problems = _header_fields(lines)
    verdicts, problem = _verdicts(fields)
    problems += [problem] if problem else []
    lists = {key: _items(fields.get(key, "")) for key in ("caught-by", "says", "never-says", "cases", "hints")}
    for key in ("says", "never-says", "cases", "xfail", "hints"):
        if key in fields and not lists.get(key, fields[key]):
            problems.append(f"has an empty '# {key}:' line")
    quick = fields.get("quick", "false").lower()
    if quick not in ("true", "false"):
        problems.append(f"declares quick: '{fields['quick']}', which is neither true nor false")
    alone = [key for key in MESSAGE_KEYS if key in fields and "says" not in fields]
    if alone:
        problems.append(f"has {_lines(alone)} but no '# says:' line: they only tune the check of what it says")
    if problems:
        verdicts = []
    return WrongSolution(
        task_id,
        path,
        fields.get("mistake", ""),
        verdicts[0] if verdicts else None,
        lists["caught-by"],
        "; ".join(problems),
        tuple(verdicts[1:]),
        says=lists["says"],
        never_says=lists["never-says"],
        cases=lists["cases"],
        quick=quick == "true",
        xfail=fields.get("xfail", ""),
        student_says=fields.get("student-says", ""),
        hints=lists["hints"],
    )


def _header_fields(lines: List[str]) -> Tuple[Dict[str, str], List[str]]:
    """The header's values by lower-case key, and a sentence for each line that is not one."""
    fields: Dict[str, str] = {}
    problems: List[str] = []
    for line in lines:
        if not line.startswith("#"):
            break
        match = _KEY_LINE.match(line)
        key = match.group(1).lower() if match else ""
        if key in fields:
            problems.append(f"has two '# {key}:' lines")
        elif match and key in KEYS:
            fields[key] = match.group(2)
        elif not _NOT_HEADER.match(line):
            problems.append(f"has the header line '{line}', which is not '# key: value' with a key of: {_KNOWN}")
    return fields, problems


def _verdicts(fields: Dict[str, str]) -> Tuple[List[Verdict], str]:
    """The verdicts the ``verdict`` line allows, in order, and the sentence saying what is wrong with it."""
    if "verdict" not in fields:
        return [], "has no '# verdict: ...' line at the top"
    verdicts: List[Verdict] = []
    problem = ""
    for word in re.split(r"\s+or\s+", fields["verdict"].strip()):
        try:
            verdicts.append(Verdict(word))
        except ValueError:
            names = ", ".join(v.value for v in Verdict if v not in (Verdict.ACCEPTED, Verdict.NOT_RUN))
            problem = f"declares the verdict '{word}', which does not exist (one of: {names})"
    if Verdict.ACCEPTED in verdicts:
        problem = "declares 'accepted': a known-wrong solution must be rejected"
    if Verdict.NOT_RUN in verdicts:
        problem = "declares 'not_run', which only check gives (to cases it skips): declare the verdict of the mistake"
    return verdicts, problem


def _items(value: str) -> Tuple[str, ...]:
    """A list value's items: split at ';', stripped, empty ones left out."""
    return tuple(item.strip() for item in value.split(";") if item.strip())


def _lines(keys: List[str]) -> str:
    return " and ".join(f"'# {key}:'" for key in keys)


def hint_warnings(task: Task, wrong: WrongSolution, result: TaskResult) -> List[str]:
    """Sentences for the course's hints shown to a known-wrong solution (``result``, graded on every
    case) that its header's ``hints`` does not expect: each hint (a known mistake's or a case's) must
    contain one of its items, ignoring letter case, and each item must be in a hint shown. Empty
    when every hint fits; a file whose header has a problem is a finding of its own, not looked at."""
    if wrong.header_problem:
        return []
    shown: Dict[str, List[CaseResult]] = {}
    for case in result.cases:
        if case.hint and not case.accepted:
            shown.setdefault(case.hint, []).append(case)
    expected = [word.lower() for word in wrong.hints]
    what = f"{wrong.path} ({wrong.mistake or 'a known-wrong solution'})"
    warnings = []
    for hint, cases in shown.items():
        if any(word in hint.lower() for word in expected):
            continue
        first = cases[0].case
        more = f" and {len(cases) - 1} more case{'s' if len(cases) > 2 else ''}" if len(cases) > 1 else ""
        header = (
            f"its header's '# hints: {'; '.join(wrong.hints)}'" if wrong.hints else "its header (no '# hints:' line)"
        )
        warnings.append(
            f"{what} is shown the hint {_quoted(hint)} on '{first.name}' (line {first.line} of {task.source}){more}, "
            f"which {header} does not expect: if the hint is about another mistake, tie it to the failures it "
            'explains (its verdict, output or pattern, exception, or earlier cases accepted: see "Hints" in '
            "docs/testcases.md); if it fits this mistake, add words of it to the header's '# hints:' line"
        )
    for word in wrong.hints:
        if not any(word.lower() in hint.lower() for hint in shown):
            warnings.append(
                f"{what} expects a hint with '{word}' ('# hints:' line), but no case shows it one: was that hint "
                "changed, or tied to other failures?"
            )
    return warnings


def _quoted(text: str, limit: int = 90) -> str:
    """``text`` in quotes, cut to about ``limit`` characters."""
    return f"'{text}'" if len(text) <= limit else f"'{text[: limit - 3].rstrip()}...'"
