"""A submission's page as its student lands on it after handing in: the cause first, then the facts.

In: a graded row (``Submission``) and its course task (``landing``); a graded ``TaskResult``
(``graded_row.kept_outputs`` kept what the row holds of its visible failures, at grading); a handed-in file's text
(``docstring_lines``). Out: ``Landing``, what ``web/submission.html`` shows of the cases, built from
the row's task record (``row_records.row_result``), so a hidden case is shown as the record keeps
it (``CaseResult.concealed``: its name, verdict, fixed sentence and hint, nothing else).

The order is the page's: the known mistake's sentence (``report.mistake_sentence``) and "What to
fix first" as the report computes it (``report.task_view``'s causes, over ``report/causes.py``), or
why the file was not run; then the failing cases grouped by the hint they were given, so each hint
is said once, the first ``SHOWN_PER_HINT`` visible case of a group with its input, expected and
actual output (kept at grading by ``kept_outputs``, bounded by ``LANDING``), the others folded;
the cases not run, one line per reason; the accepted ones as a count. A row graded on its public
cases only (``public_only``: its hidden cases wait for the deadline, ``hidden_results``) has its
causes from the public cases alone: a case that waits is nothing to fix.
"""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from grader.model import CaseResult, Task, TaskResult, Verdict
from grader.report import pages as report
from grader.report.causes import Cause, said_at_top
from grader.report.shown import ShownLine
from grader.safe_text import for_page
from grader.web.graded_row import LANDING
from grader.web.row_records import row_result

SHOWN_PER_HINT = 1  # visible cases of one hint shown open; the others are one click away
FOLDED_DOCSTRING = 5  # a module docstring of this many lines or more is folded away above the code


def _lines(value) -> Optional[Tuple[ShownLine, ...]]:
    """Lines kept by ``_stored``, each text as a page shows it; None for anything else (a row of an
    older grader keeps none)."""
    if not isinstance(value, list):
        return None
    try:
        return tuple(
            ShownLine(int(n), for_page(str(b)), for_page(str(m)), for_page(str(a)), bool(d), int(g))
            for n, b, m, a, d, g in value
        )
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class CaseShown:
    """A failing case as the page shows it: the message is what is its own (not its hint, nor a
    cause said at the top); ``input``/``expected``/``actual`` are None when not kept."""

    result: CaseResult
    anchor: str
    message: str
    input: Optional[Tuple[ShownLine, ...]] = None
    expected: Optional[Tuple[ShownLine, ...]] = None
    actual: Optional[Tuple[ShownLine, ...]] = None
    game: bool = False
    note: str = ""

    @property
    def kept(self) -> bool:
        return self.actual is not None

    @property
    def short(self) -> bool:
        """Its expected and actual outputs are a line each: shown side by side."""
        return all(lines is not None and len(lines) <= 1 for lines in (self.expected, self.actual))


@dataclass(frozen=True)
class HintGroup:
    """The failing cases given one hint ("" for none): the visible ones shown open, the visible ones
    folded, the hidden ones (one line each)."""

    hint: str
    shown: Tuple[CaseShown, ...]
    folded: Tuple[CaseShown, ...]
    hidden: Tuple[CaseShown, ...]

    @property
    def count(self) -> int:
        return len(self.shown) + len(self.folded) + len(self.hidden)


@dataclass(frozen=True)
class Landing:
    """What the submission page shows of a graded row, in its order (the module docstring)."""

    mistake: str  # the known mistake's sentence ("" for none)
    problem: str  # why the file was not run ("" when it ran)
    causes: Tuple[Cause, ...]
    groups: Tuple[HintGroup, ...]
    not_run: Tuple[Tuple[str, Tuple[str, ...]], ...]  # (why, the names of the cases) per reason
    accepted: Tuple[str, ...]  # the names of the accepted cases
    outputs: bool  # the row kept its failures' outputs (a row of an older grader did not)

    @property
    def failing(self) -> int:
        return sum(group.count for group in self.groups)


def public_part(result: TaskResult, public_only: bool) -> TaskResult:
    """``result`` without the hidden cases that wait for the deadline when it was graded on its
    public cases only (``public_only``): what its causes are computed from."""
    if not public_only:
        return result
    return replace(result, cases=tuple(c for c in result.cases if not (c.case.hidden and c.verdict is Verdict.NOT_RUN)))


def cause_line(row, task: Optional[Task]) -> Optional[str]:
    """The first failing case's cause in one line, as ``check`` prints it under its table's row
    (``causes.terminal_cause``; "" when nothing failed), for a graded row; None when its task is no
    longer in the course."""
    if task is None:
        return None
    return report.terminal_cause(public_part(row_result(row, task), bool(row.public_only)))


def landing(row, task: Task) -> Landing:
    """The page's view of the graded ``row`` of ``task`` (see the module docstring)."""
    whole = row_result(row, task)
    result = public_part(whole, bool(row.public_only))
    mistake = report.mistake_sentence(whole.mistake) if whole.mistake is not None else ""
    if result.problem is not None:
        return Landing(for_page(mistake), for_page(result.problem.message), (), (), (), (), False)
    view = report.task_view(result, "", LANDING)
    kept = {k.get("name"): k for k in (row.outputs or ()) if isinstance(k, dict)}
    at_top = said_at_top(result)  # the cases whose whole cause the top says
    groups: Dict[str, List[CaseShown]] = {}
    not_run: Dict[str, List[str]] = {}
    for index, case in enumerate(result.cases):  # anchored as ``task_view`` anchors the causes' cases
        if case.verdict is not Verdict.NOT_RUN and not case.accepted:
            anchor = f"case-{index + 1}"
            groups.setdefault(case.hint, []).append(_case_shown(case, anchor, kept, index in at_top))
    for case in whole.cases:  # those that wait for the deadline too
        if case.verdict is Verdict.NOT_RUN:
            not_run.setdefault(for_page(case.message), []).append(for_page(case.case.name))
    return Landing(
        mistake=for_page(mistake),
        problem="",
        causes=tuple(_shown_cause(c) for c in view.causes),
        groups=tuple(_group(hint, members) for hint, members in groups.items()),
        not_run=tuple((why, tuple(names)) for why, names in not_run.items()),
        accepted=tuple(for_page(c.case.name) for c in whole.cases if c.accepted),
        outputs=bool(kept),
    )


def _shown_cause(cause: Cause) -> Cause:
    return replace(
        cause,
        text=for_page(cause.text),
        not_run_text=for_page(cause.not_run_text),
        first=tuple((for_page(name), anchor) for name, anchor in cause.first),
    )


def _case_shown(case: CaseResult, anchor: str, kept: Dict[Any, Dict[str, Any]], shared: bool) -> CaseShown:
    """``case`` for the page: its message less its hint (and less its cause, when that is said at
    the top for several cases), and, for a visible case, the outputs its row kept."""
    message = case.message
    hint = f" Hint: {case.hint}"
    if case.hint and message.endswith(hint):
        message = message[: -len(hint)]
    if shared and not case.case.hidden:
        message = ""
    found = kept.get(case.case.name) if not case.case.hidden else None
    if found is None:
        return CaseShown(case, anchor, for_page(message))
    return CaseShown(
        case,
        anchor,
        for_page(message),
        input=_lines(found.get("input")),
        expected=_lines(found.get("expected")),
        actual=_lines(found.get("actual")),
        game=bool(found.get("game")),
        note=for_page(str(found.get("note") or "")),
    )


def _group(hint: str, members: Sequence[CaseShown]) -> HintGroup:
    visible = [m for m in members if not m.result.case.hidden]
    hidden = tuple(m for m in members if m.result.case.hidden)
    return HintGroup(for_page(hint), tuple(visible[:SHOWN_PER_HINT]), tuple(visible[SHOWN_PER_HINT:]), hidden)


def docstring_lines(text: str) -> int:
    """How many of the file's first lines hold its module docstring (and any comment before it),
    when it is ``FOLDED_DOCSTRING`` lines or more; else 0 (none, a short one, or a file whose start
    cannot be read as Python). Only the first tokens are read: a syntax error further down changes
    nothing."""
    try:
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        significant = (t for t in tokens if t.type not in (tokenize.NL, tokenize.COMMENT, tokenize.ENCODING))
        first = next(significant, None)
        after = next(significant, None)
    except (tokenize.TokenError, SyntaxError, ValueError):  # (IndentationError is a SyntaxError)
        return 0
    if first is None or first.type != tokenize.STRING or after is None:
        return 0
    if after.type not in (tokenize.NEWLINE, tokenize.ENDMARKER):
        return 0  # a string that starts an expression ("".join(...)), not a docstring
    end = first.end[0]
    return end if end >= FOLDED_DOCSTRING else 0
