"""A task's failing cases grouped by cause, for the summary at the top of its page and the terminal.

In: a ``TaskResult`` (its hidden cases already concealed: ``CaseResult.concealed``, so whatever is
built here shows of a hidden case only what its own row shows). Out: ``causes`` — one ``Cause``
per cause shared by several cases, in the order the cases come; ``said_at_top`` — the cases whose
whole cause is said there, so that their rows show only what is theirs alone (``split_message``);
``terminal_cause`` — the first failing case's cause as one line, in the report's words.

A message's core is the message without what belongs to its case alone: the "Run 2 of 5: " of a
repeated case and the hint it got at the end. Cases share a cause when they fail the same way: the
same verdict and core (the same syntax error, a missing module, "not run"), or the same kind of
mistake said with their own numbers (``cause_kinds``: extra lines around the answer, every row
number one too high, one crash at one line with different values). A kind is said once, in a
sentence true of each of its cases; each case's row keeps its own message, which has its numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from grader.model import CaseResult, TaskResult, Verdict
from grader.report import cause_kinds
from grader.report.cause_kinds import first_sentence
from grader.safe_text import for_terminal

_RUN_PREFIX = re.compile(r"Run \d+ of \d+: ")
_RUN_SAID = re.compile(r"^Run \d+ of \d+\. ?")  # how ``split_message`` keeps that prefix
_NAMES_SHOWN = 3  # a cause lists its first cases by name, then says how many more
TERMINAL_CHARS = 200  # each sentence of a cause line in the terminal, at most (the page says the rest)
CAUSE_CHARS = 2 * TERMINAL_CHARS + 40  # a whole cause line: the verdict, the facts and the explanation


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
    that is this case's alone ("Run 2 of 5", the hint it got), as text a person reads."""
    message = case.message
    parts = []
    prefix = _RUN_PREFIX.match(message)
    if prefix:
        parts.append(prefix.group().rstrip(": ") + ".")
        message = message[prefix.end() :]
    said = next(
        (
            form.format(hint)
            for hint in (case.hint, case.case.hint)
            if hint
            for form in _HINT_FORMS
            if message.endswith(form.format(hint))
        ),
        "",
    )
    if said:
        message = message[: -len(said)]
        parts.append(said.strip())
    return message, " ".join(parts)


# How a case's hint follows its message (``grade.hints.hint_sentence``): a course's hint, or a
# known mistake's.
_HINT_FORMS = (" Hint: {}", " This is a common mistake: {}")


def said_at_top(result: TaskResult) -> FrozenSet[int]:
    """The indexes of ``result``'s cases whose whole cause is said once at the top, for several
    cases (their rows then show only ``split_message``'s particular part); a case of a kind whose
    cases each say it with their own numbers keeps its message."""
    return frozenset(index for group in _groups(result) if group[2] for index, _, _ in group[1])


def once_note(said: Sequence[Tuple[str, str]]) -> str:
    """Said once under the causes, not in each case: that a cause said there whole is not said
    again in its cases (``said``: each such case's error output as shown and as it was), and where
    an error output they share is; "" when no case is such (each keeps its own message)."""
    if not said:
        return ""
    moved = any(whole and not shown for shown, whole in said)
    where = ", and the error output they share is under the first of them" if moved else ""
    return f"A cause said here is not said again in the cases it names{where}."


# A group of failing cases: (verdict, members as (index, case, core), its cause said whole at the
# top, the sentence of its kind or "" when it is the members' common core or each says its own).
_Group = Tuple[Verdict, List[Tuple[int, CaseResult, str]], bool, str]


def _groups(result: TaskResult) -> List[_Group]:
    """``result``'s failing cases by cause, in the order the cases come (see the module docstring)."""
    failing = [(index, case, split_message(case)[0]) for index, case in enumerate(result.cases) if not case.accepted]
    kinds = {index: cause_kinds.kind(case, core) for index, case, core in failing}
    kind_counts: Dict[object, int] = {}
    core_counts: Dict[object, int] = {}
    for index, case, core in failing:
        if kinds[index] is not None:
            kind_counts[(case.verdict, kinds[index])] = kind_counts.get((case.verdict, kinds[index]), 0) + 1
        core_counts[(case.verdict, core)] = core_counts.get((case.verdict, core), 0) + 1
    grouped: Dict[Tuple[object, ...], List[Tuple[int, CaseResult, str]]] = {}
    for index, case, core in failing:
        if case.verdict is not Verdict.NOT_RUN and kind_counts.get((case.verdict, kinds[index]), 0) > 1:
            key: Tuple[object, ...] = (case.verdict, "kind", kinds[index])
        elif core_counts[(case.verdict, core)] > 1 or case.verdict is Verdict.NOT_RUN:
            key = (case.verdict, "core", core)
        else:
            key = (case.verdict, "each")  # each says its own: "each case below says how"
        grouped.setdefault(key, []).append((index, case, core))
    groups: List[_Group] = []
    for key, members in grouped.items():
        verdict, how = members[0][1].verdict, key[1]
        same = len({core for _, _, core in members}) == 1
        if how == "kind" and not same:
            kind = kinds[members[0][0]] or ()
            text = cause_kinds.sentence(kind, [(case, core) for _, case, core in members])
            groups.append((verdict, members, False, text))
        else:
            groups.append((verdict, members, how != "each", ""))
    return groups


def causes(
    result: TaskResult, anchors: Sequence[str], not_run_text: str = "", not_run_joined: str = ""
) -> Tuple[Cause, ...]:
    """The causes of ``result``'s failing cases (``anchors``: each case's anchor on the page), the
    first failing case's first. Cases of one verdict whose messages differ, of no kind in common,
    make one cause with no text ("each case below says how"). The cases not run are said with
    ``not_run_text`` when given (else their message); they join the time-outs' line when those
    share one cause, said there with ``not_run_joined`` when given (what to do, the time-outs having
    said why)."""
    made = []
    for verdict, members, whole, kind_text in _groups(result):
        core = members[0][2] if whole else kind_text
        if verdict is Verdict.NOT_RUN and not_run_text:
            core = not_run_text
        made.append(_cause(verdict, core, [(case, anchors[index]) for index, case, _ in members]))
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
    the verdict as the report says it, the first sentence of its message (the exception and line
    of a crash, the line of a syntax error, the first difference of a wrong answer), then the first
    sentence of the one explanation it got (``grade/mistakes``: the grader's cause read from the
    code, else the course's hint, else the crash's advice), each at most ``TERMINAL_CHARS``."""
    failing: Optional[CaseResult] = next((c for c in result.cases if not c.accepted), None)
    if failing is None:
        return ""
    if result.problem is not None:
        core, particular = result.problem.message, ""
    else:
        core, particular = split_message(failing)
    facts = first_sentence(core)
    explained = first_sentence(core[len(facts) :].strip() or _RUN_SAID.sub("", particular).strip())
    said = " ".join(_bounded(text) for text in (facts, explained) if text)
    line = f"{failing.verdict.label}: {said}" if said else failing.verdict.label
    return for_terminal(line)


def _bounded(sentence: str) -> str:
    return sentence if len(sentence) <= TERMINAL_CHARS else sentence[: TERMINAL_CHARS - 1].rstrip() + "…"
