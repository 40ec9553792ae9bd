"""Results → reports: HTML pages (Jinja2), the JSON document of the spec, the terminal table.

Templates receive dataclasses built here and only loop and branch. Everything a student's program
printed is untrusted: autoescaping is on for every template, and nothing is marked safe; before it
escapes, every value a template shows goes through ``safe_text.for_page`` (the environment's
``finalize``), so a control, format or separator character shows as its marker on every page.
"""

from __future__ import annotations

import functools
import json
import os
import shlex
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path, PurePath
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import jinja2
import markupsafe

from grader import __version__
from grader.marks import CaseTally, StudentMarks, plain_number
from grader.model import CaseResult, KnownMistake, Task, TaskResult, Verdict
from grader.report.causes import Cause, causes, once_note, said_at_top, split_message, terminal_cause
from grader.report.class_overview import class_overview
from grader.report.records import task_record
from grader.report.shown import EVERYTHING, Shown, ShownLine, clipped, shown_lines
from grader.safe_text import for_page, plural

# Verdicts of a hidden case that are no hidden failure: it passed, or it was not run.
_NOT_FAILED = (Verdict.ACCEPTED, Verdict.NOT_RUN)
Links = Tuple[Tuple[str, str], ...]  # (address, text) of the links at the top of a page
INDEX_LINKS: Links = (("index.html", "← All tasks"),)  # ``check``'s task page: to its ``index.html``


@dataclass(frozen=True)
class CaseView:
    """A case as the task page shows it."""

    result: CaseResult
    anchor: str
    open: bool
    show_data: bool
    input_lines: Tuple[ShownLine, ...]
    expected_lines: Tuple[ShownLine, ...]
    actual_lines: Tuple[ShownLine, ...]
    expected_alternatives: int
    missing_final_newline: bool
    ran: bool = True  # False for a not_run case: nothing to show but why
    message: str = ""  # the case's message, and its error output, as shown (long ones cut: ``Shown``)
    stderr: str = ""
    shared: bool = False  # its cause is said once at the top; ``message`` is what is its alone


@dataclass(frozen=True)
class TaskView:
    """A task page: the result, its file name for links, its cases."""

    result: TaskResult
    page: str
    cases: Tuple[CaseView, ...]
    passed: int
    failed_hidden: int
    first_failing: Optional[CaseView]
    not_run_note: str = ""  # why some cases were not run, and how to run them all
    cut_note: str = ""  # on the portal: that the page was shortened, and how to see everything
    causes: Tuple[Cause, ...] = ()  # the failing cases grouped by cause, what to fix first first
    back_links: Links = ()
    once_note: str = ""  # under the causes: that a cause they say whole is not said again in its cases
    public_only: bool = False  # the portal's: graded on its public cases only, the hidden ones wait


def _shown(value):
    """What a template shows of ``value``: text as ``for_page`` shows it; what a template made itself
    (a macro's HTML, whose values went through here already) and anything but text as it is."""
    return for_page(value) if isinstance(value, str) and not isinstance(value, markupsafe.Markup) else value


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    # One environment for the process: it compiles each template once (a class run renders
    # thousands of pages), and rendering from it is safe from several threads.
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("grader.report", "templates"),
        autoescape=True,
        finalize=_shown,  # one rule for every value every page shows, before it is escaped
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["plural"] = plural  # a count meets its noun in every template the same way
    return env


def _marked(text: str, diff, shown: Shown) -> Tuple[ShownLine, ...]:
    return shown_lines(text, diff.line if diff else 0, diff.column if diff else 0, shown)


def task_view(
    result: TaskResult, page: str, shown: Shown = EVERYTHING, cut_note="", back_links=INDEX_LINKS, public_only=False
) -> TaskView:
    """Build the view of one task page, its long texts cut as ``shown`` says, with ``back_links``
    ((address, text) pairs) at its top (``public_only``: ``result`` is of a task's public cases, the
    hidden ones waiting, and the headline says so); the first case not accepted is the one open. A
    case whose cause several cases share (or the file's problem, when it did not run) shows in its
    row only what is its alone: the cause is said once, at the top."""
    first_failing = next((i for i, c in enumerate(result.cases) if not c.accepted), None)
    at_top = said_at_top(result)
    anchors = [f"case-{index + 1}" for index in range(len(result.cases))]
    views = []
    seen_errors = set()  # (verdict, core, error output) shown already: the same traceback, once
    for index, case in enumerate(result.cases):
        ran = case.verdict is not Verdict.NOT_RUN
        show = not case.case.hidden and ran
        diff = case.difference
        shared = result.problem is not None or index in at_top or not ran
        core, own = split_message(case)
        message = own if shared and result.problem is None else case.message
        error_key = (case.verdict, core, case.stderr)
        stderr = "" if shared and error_key in seen_errors else case.stderr
        seen_errors.add(error_key)
        views.append(
            CaseView(
                result=case,
                anchor=anchors[index],
                open=index == first_failing and result.problem is None and ran,
                show_data=show,
                input_lines=shown_lines(case.case.input, shown=shown) if show else (),
                expected_lines=_marked(case.expected, diff, shown) if show and case.case.expected else (),
                actual_lines=_marked(case.actual, diff, shown) if show else (),
                expected_alternatives=max(len(case.case.expected) - 1, 0),
                missing_final_newline=bool(case.actual) and not case.actual.endswith("\n"),
                ran=ran,
                message="" if result.problem else clipped(message, shown.text_chars, "both"),
                stderr=clipped(stderr, shown.text_chars, "both"),
                shared=shared,
            )
        )
    return TaskView(
        result=result,
        page=page,
        cases=tuple(views),
        once_note="" if result.problem else once_note([(v.stderr, v.result.stderr) for v in views if v.shared]),
        passed=sum(1 for c in result.cases if c.accepted),
        failed_hidden=sum(1 for c in result.cases if c.case.hidden and c.verdict not in _NOT_FAILED),
        first_failing=views[first_failing] if first_failing is not None else None,
        not_run_note=not_run_note(result),
        cut_note=cut_note,
        back_links=back_links,
        public_only=public_only,
        causes=()
        if result.problem
        else tuple(_clipped_cause(c, shown) for c in causes(result, anchors, *_not_run_texts(result))),
    )


def _clipped_cause(cause: Cause, shown: Shown) -> Cause:
    """``cause`` with its texts cut as ``shown`` cuts a case's message."""
    return replace(
        cause,
        text=clipped(cause.text, shown.text_chars, "both"),
        not_run_text=clipped(cause.not_run_text, shown.text_chars, "both"),
    )


def not_run_note(result: TaskResult) -> str:
    """The sentence for a task some of whose cases ``check`` did not run ("" when it ran them all)."""
    skipped = sum(1 for c in result.cases if c.verdict is Verdict.NOT_RUN)
    if not skipped:
        return ""
    cases = "case was" if skipped == 1 else "cases were"
    return f"{skipped} {cases} not run: {_NOT_RUN_WHY} {_not_run_advice(result)}"


_NOT_RUN_WHY = "your program ran out of time on two cases."


def _not_run_advice(result: TaskResult) -> str:
    command = f"python -m grader check {shlex.quote(PurePath(result.file).name)} --all"
    return f"Make it finish in time first, then check again; '{command}' runs every case."


def _not_run_texts(result: TaskResult) -> Tuple[str, str]:
    """What the summary of causes says of the cases not run: alone, and on the time-outs' line."""
    advice = _not_run_advice(result)
    return (
        f"{_NOT_RUN_WHY[0].upper()}{_NOT_RUN_WHY[1:]} {advice}",
        f"The cases not run wait for it: {advice[0].lower()}{advice[1:]}",
    )


def _urgency(result: TaskResult) -> Tuple[int, float]:
    accepted = result.verdict is Verdict.ACCEPTED
    share = result.score / result.max_score if result.max_score else 1.0
    return (1 if accepted else 0, share)


def page_names(results: Sequence[TaskResult]) -> List[str]:
    """One page file name per result: ``<task>.html``, numbered when a task appears twice."""
    seen: Dict[str, int] = {}
    names = []
    for result in results:
        count = seen.get(result.task.id, 0) + 1
        seen[result.task.id] = count
        names.append(f"{result.task.id}.html" if count == 1 else f"{result.task.id}-{count}.html")
    return names


def write_html(results: Sequence[TaskResult], folder: Path, environment_note: str = "") -> Path:
    """Write one page per task and ``index.html`` into ``folder``; returns the index path."""
    folder.mkdir(parents=True, exist_ok=True)
    env = _environment()
    views = [task_view(r, page) for r, page in zip(results, page_names(results))]
    common = {"version": __version__, "environment_note": environment_note}
    for view in views:
        _write_atomically(folder / view.page, env.get_template("task.html").render(view=view, **common))
    ordered = sorted(views, key=lambda v: _urgency(v.result))
    index = folder / "index.html"
    _write_atomically(index, env.get_template("index.html").render(views=ordered, **common))
    return index


def task_page(result: TaskResult, environment_note: str = "") -> str:
    """The page ``write_html`` writes for one task's ``result``, as text."""
    return _task_html(task_view(result, page_names([result])[0]), environment_note)


def _task_html(view: TaskView, environment_note: str) -> str:
    return (
        _environment()
        .get_template("task.html")
        .render(view=view, version=__version__, environment_note=environment_note)
    )


# What the portal keeps and shows of a case: its message, error output and outputs, tighter at each
# step until the page fits its budget (the last step's page is a few KiB a case, whatever was printed).
PORTAL_STEPS = (
    Shown(text_chars=2000),
    Shown(head_lines=10, context_lines=3, tail_lines=2, line_chars=200, text_chars=500),
    Shown(head_lines=3, context_lines=1, tail_lines=1, line_chars=80, text_chars=200),
)
MESSAGE_CHARS = PORTAL_STEPS[0].text_chars  # a case's message, as the portal keeps it (``clipped``)
PAGE_BYTES = 1_000_000  # a task page the portal keeps, at most (but for a course of thousands of cases)


def bounded_task_page(
    result: TaskResult, environment_note="", budget=PAGE_BYTES, back_links=INDEX_LINKS, public_only=False
) -> str:
    """The task page of ``result`` as the portal keeps it: messages and error outputs cut to their
    start and end, and, over ``budget`` bytes, every long text shorter (the page, valid HTML whatever
    was cut, says so and how ``check`` shows everything); ``back_links`` and ``public_only`` as
    ``task_view`` takes them (the portal's links where ``check``'s page links its ``index.html``)."""
    name = shlex.quote(PurePath(result.file).name)
    for step, shown in enumerate(PORTAL_STEPS):
        cut = step > 0 or any(
            len(c.message) > shown.text_chars or len(c.stderr) > shown.text_chars for c in result.cases
        )
        note = ""
        if cut:
            note = (
                "This page is shortened: long outputs, messages and error outputs are cut, each saying how much "
                f"was left out (the portal keeps at most {budget // 1000:,} kB of a page). "
                f"'python -m grader check {name}' on your own machine shows everything."
            )
        view = task_view(result, page_names([result])[0], shown, note, back_links, public_only)
        page = _task_html(view, environment_note)
        if len(page.encode("utf-8", "replace")) <= budget:
            break
    return page


def _write_atomically(path: Path, text: str) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    try:
        # (errors="replace": a lone surrogate that reached a message can never stop a report being written)
        with os.fdopen(handle, "w", encoding="utf-8", errors="replace") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically (a crash never leaves half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomically(path, text)


def write_class_html(
    students: Sequence[StudentMarks],
    tallies: Sequence[CaseTally],
    tasks: Sequence[Task],
    path: Path,
    environment_note: str = "",
    folders: Optional[Mapping[str, str]] = None,
) -> None:
    """Write the class overview to ``path``: a summary, students to help first, the score
    distribution, each case's pass rate, and every student's mark per task (lowest share first);
    ``folders``: a student's folder beside it, by name, where it is not their name."""
    write_text(path, class_html(students, tallies, tasks, environment_note, folders=folders))


def class_html(
    students: Sequence[StudentMarks],
    tallies: Sequence[CaseTally],
    tasks: Sequence[Task],
    environment_note="",
    back_links: Links = (),
    names: Optional[Mapping[str, str]] = None,
    folders: Optional[Mapping[str, str]] = None,
) -> str:
    """The class overview page (``write_class_html``'s) as text; a student's name links to
    ``NAME/index.html`` beside it (``FOLDER/index.html`` where ``folders`` maps the name to another
    folder); ``back_links`` ((address, text) pairs, none for ``grade``'s file) at its top; ``names``
    (the portal's roster: username -> full name) shown beside each."""
    overview = class_overview(students, tallies, tasks)
    page = _environment().get_template("class.html")
    return page.render(
        overview=overview,
        version=__version__,
        environment_note=environment_note,
        back_links=back_links,
        names=names or {},
        folders=folders or {},
    )


def write_verify_html(result, path: Path) -> None:
    """Write ``verify``'s findings and kill matrices as one self-contained page."""
    html = _environment().get_template("verify.html").render(report=result, version=__version__, environment_note="")
    path.parent.mkdir(parents=True, exist_ok=True)
    _write_atomically(path, html)


def json_document(results: Sequence[TaskResult]) -> dict:
    """The document of ``grader-cli.md``: each task's record (``records.task_record``), the one the
    portal keeps and every export reads; hidden cases carry name, verdict, message and hint only."""
    return {"tasks": [task_record(r) for r in results]}


def known_mistake_json(result: TaskResult) -> dict:
    """The ``known_mistake`` field of a task in ``check --json``, when its answers match one (else
    nothing: the field is left out, so documents without one are as they were)."""
    found = result.mistake
    if found is None:
        return {}
    return {"known_mistake": {"mistake": found.student_text, "matched": found.matched, "failing": found.failing}}


def mistake_sentence(found: KnownMistake) -> str:
    """The known mistake a task's answers match, in one sentence (the report's banner says it so)."""
    return (
        f"Your answers match a known mistake: {found.student_text} "
        f"({found.matched} of {plural(found.failing, 'failing case')})."
    )


def json_text(results: Sequence[TaskResult]) -> str:
    """``json_document`` as indented text."""
    return json.dumps(json_document(results), indent=2, ensure_ascii=False)


def terminal_table(results: Sequence[TaskResult], report: Optional[Path] = None) -> str:
    """The short table for a terminal: task, verdict, score, and the first failing case; under a
    task not accepted, that case's cause in one line, in the report's words (``terminal_cause``),
    and the known mistake its answers match, as the report's banner says it."""
    rows = []
    for r in results:
        failing = next((c for c in r.cases if not c.accepted), None)
        failing_name = failing.case.name if failing else ""
        rows.append((r.task.id, r.verdict.value, score_text(r.score, r.max_score), failing_name))
    table = table_lines(rows)
    lines = table[:1]
    for row, r in zip(table[1:], results):
        cause = terminal_cause(r)
        lines += [row, f"    {cause}"] if cause else [row]
        if r.mistake is not None:
            lines.append(f"    {mistake_sentence(r.mistake)}")
    lines += [f"{r.task.id}: {not_run_note(r)}" for r in results if not_run_note(r)]
    if report is not None:
        lines.append(f"Report: {report}")
    return "\n".join(lines)


def score_text(score: float, max_score: float) -> str:
    """A task's score as the table shows it: ``7/9``, ``2.5/4``."""
    return f"{plain_number(score, 4)}/{plain_number(max_score, 4)}"


def table_lines(rows: Sequence[Tuple[str, str, str, str]]) -> List[str]:
    """The table's lines, header first: rows of (task, verdict, score, first case not accepted),
    aligned in columns; shared by ``check`` (from a ``TaskResult``) and ``submit`` (from the portal)."""
    rows = [("task", "verdict", "score", "first case not accepted"), *rows]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths)) + "  " + row[3] for row in rows]
    return [line.rstrip() for line in lines]
