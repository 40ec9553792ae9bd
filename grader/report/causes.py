"""A task's failing cases grouped by cause, for the summary at the top of its page and the terminal.

In: a ``TaskResult`` (its hidden cases already concealed: ``CaseResult.concealed``, so whatever is
built here shows of a hidden case only what its own row shows). Out: ``causes`` — one ``Cause``
per verdict and message core shared by several cases, in the order the cases come; ``particular``
— what is left of a case's message once its shared cause is said at the top; ``terminal_cause`` —
the first failing case's cause as one line, in the report's words.

A message's core is the message without what belongs to its case alone: the "Run 2 of 5: " of a
repeated case and the case's hint at the end. Two cases with the same verdict and core (the same
exception at the same line, the same syntax error, a missing module, "not run") share a cause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from grader.model import CaseResult, TaskResult, Verdict
from grader.safe_text import for_terminal

_RUN_PREFIX = re.compile(r"Run \d+ of \d+: ")
_NAMES_SHOWN = 3  # a cause lists its first cases by name, then says how many more
TERMINAL_CHARS = 200  # a cause line in the terminal, at most (the page says the rest)


@dataclass(frozen=True)
class Cause:
    """Cases that failed the same way: their verdict, how many, the shared message core ("" when
    each case says its own), and the first few of them as (name, anchor) for links."""

    verdict: Verdict
    count: int
    text: str
    first: Tuple[Tuple[str, str], ...]
    hidden: bool = False  # every case of it is hidden
    not_run: int = 0  # cases not run after these (time-outs): said on the same line
    not_run_text: str = ""  # why they were not run, and what to do

    @property
    def more(self) -> int:
        """How many of its cases are not named."""
        return self.count - len(self.first)


def split_message(case: CaseResult) -> Tuple[str, str]:
    """(core, particular) of ``case``'s message: the part another case may share, and the part
    that is this case's alone ("Run 2 of 5", its hint), as text a person reads."""
    message = case.message
    parts = []
    prefix = _RUN_PREFIX.match(message)
    if prefix:
        parts.append(prefix.group().rstrip(": ") + ".")
        message = message[prefix.end() :]
    hint = f" Hint: {case.case.hint}"
    if case.case.hint and message.endswith(hint):
        message = message[: -len(hint)]
        parts.append(hint.strip())
    return message, " ".join(parts)


def shared_cores(result: TaskResult) -> Dict[Tuple[Verdict, str], int]:
    """For each (verdict, core) of the task's failing cases, how many cases have it."""
    counts: Dict[Tuple[Verdict, str], int] = {}
    for case in result.cases:
        if not case.accepted:
            key = (case.verdict, split_message(case)[0])
            counts[key] = counts.get(key, 0) + 1
    return counts


def is_shared(case: CaseResult, counts: Dict[Tuple[Verdict, str], int]) -> bool:
    """Whether ``case``'s cause is said once at the top for several cases (its row then shows only
    ``split_message``'s particular part)."""
    return not case.accepted and counts.get((case.verdict, split_message(case)[0]), 0) > 1


def causes(
    result: TaskResult, anchors: Sequence[str], not_run_text: str = "", not_run_joined: str = ""
) -> Tuple[Cause, ...]:
    """The causes of ``result``'s failing cases (``anchors``: each case's anchor on the page), the
    first failing case's first. Cases of one verdict whose messages differ make one cause with no
    text ("each case below says how"). The cases not run are said with ``not_run_text`` when given
    (else their message); they join the time-outs' line when those share one cause, said there
    with ``not_run_joined`` when given (what to do, the time-outs having said why)."""
    counts = shared_cores(result)
    groups: Dict[Tuple[Verdict, str], List[Tuple[CaseResult, str]]] = {}
    for case, anchor in zip(result.cases, anchors):
        if case.accepted:
            continue
        core = split_message(case)[0]
        shared = counts[(case.verdict, core)] > 1 or case.verdict is Verdict.NOT_RUN
        groups.setdefault((case.verdict, core if shared else ""), []).append((case, anchor))
    made = [
        _cause(verdict, not_run_text if verdict is Verdict.NOT_RUN and not_run_text else core, members)
        for (verdict, core), members in groups.items()
    ]
    return _join_not_run(made, not_run_joined)


def _cause(verdict: Verdict, core: str, members: Sequence[Tuple[CaseResult, str]]) -> Cause:
    hidden = all(case.case.hidden for case, _ in members)
    return Cause(
        verdict=verdict,
        count=len(members),
        # (a hidden case's core is its verdict's fixed sentence, which the badge already says)
        text="" if hidden else core,
        first=tuple((case.case.name, anchor) for case, anchor in members[:_NAMES_SHOWN]),
        hidden=hidden,
    )


def _join_not_run(made: List[Cause], joined_text: str) -> Tuple[Cause, ...]:
    """``made`` with the cases not run said on the line of the one time-out cause before them."""
    not_run = [c for c in made if c.verdict is Verdict.NOT_RUN]
    timeouts = [c for c in made if c.verdict is Verdict.TIME_LIMIT_EXCEEDED]
    if len(not_run) != 1 or len(timeouts) != 1:
        return tuple(made)
    skipped, timeout = not_run[0], timeouts[0]
    joined = Cause(
        verdict=timeout.verdict,
        count=timeout.count,
        text=timeout.text,
        first=timeout.first,
        hidden=timeout.hidden,
        not_run=skipped.count,
        not_run_text=joined_text or skipped.text,
    )
    return tuple(joined if c is timeout else c for c in made if c is not skipped)


def terminal_cause(result: TaskResult) -> str:
    """The first failing case's cause as one line for the terminal ("" when every case passed):
    the verdict as the report says it and the first sentence of its message (the exception and
    line of a crash, the line of a syntax error, the first difference of a wrong answer)."""
    failing: Optional[CaseResult] = next((c for c in result.cases if not c.accepted), None)
    if failing is None:
        return ""
    sentence = first_sentence(result.problem.message if result.problem else split_message(failing)[0])
    if len(sentence) > TERMINAL_CHARS:
        sentence = sentence[: TERMINAL_CHARS - 1].rstrip() + "…"
    line = f"{failing.verdict.label}: {sentence}" if sentence else failing.verdict.label
    return for_terminal(line)


def first_sentence(text: str) -> str:
    """``text`` up to the end of its first sentence: a full stop, question or exclamation mark
    followed by a space, outside double quotes (a quoted output may hold ". ")."""
    quoted = False
    for index, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif char in ".?!" and not quoted and text[index + 1 : index + 2] == " ":
            return text[: index + 1]
    return text
