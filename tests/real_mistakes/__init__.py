"""Real-style mistakes: whole files written the way first-year students and hobby players write
them (brute force, Python 2 habits, debug prints, other courses' conventions), each with the words
its first message must hold and the misleading words no message may hold.

The first message is what a student reads first: the known mistake's sentence when the grader found
one, else the message of the first failing visible case. ``says`` must be in it; each of ``never``
must be in no case's message, no note and no known mistake. An entry with ``says`` empty is one whose
cause the grader cannot tell: its first message must then be the plain facts (``never`` lists the
advice it must not give).

Each class of issue 36 has a module of its own; ``ALL`` is every entry, for
``tests/grading/test_real_mistakes.py`` and ``bench/feedback_corpus.py`` (the counts before and after).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple

from support import solution


@dataclass(frozen=True)
class RealMistake:
    """One file: its ``task``, a ``name`` saying what it does, its ``text`` (whole, or built from the
    reference solution by ``changes``: (old, new) replacements), what its first message must say
    and what no message may say, and the student's other files it is graded with (task id → text;
    the reference solutions when not given, for a task that imports them)."""

    task: str
    name: str
    says: str
    never: Tuple[str, ...] = ()
    whole: Optional[str] = None
    changes: Tuple[Tuple[str, str], ...] = ()
    companions: Dict[str, str] = field(default_factory=dict)

    def text(self) -> str:
        if self.whole is not None:
            return self.whole
        text = solution(self.task)
        for old, new in self.changes:
            assert old in text, f"{self.task}/{self.name}: {old!r} is not in the file"
            text = text.replace(old, new, 1)
        return text


def first_message(result) -> str:
    """What a student reads first of ``result`` (a ``TaskResult``): its known mistake's sentence,
    else its first failing visible case's message ("" when every visible case passed)."""
    if result.mistake is not None:
        return result.mistake.student_text
    failing = [c for c in result.cases if not c.accepted and not c.case.hidden]
    return failing[0].message if failing else ""


def every_message(result) -> Tuple[str, ...]:
    """Every sentence ``result`` shows: each case's message, each note, the known mistake's."""
    said = tuple(c.message for c in result.cases) + tuple(result.notes)
    return said + ((result.mistake.student_text,) if result.mistake is not None else ())


def main_block(task: str) -> str:
    """The main block of ``task``'s exercise file, as every student's file ends (taken from its
    reference solution, which keeps it unchanged), from ``if __name__``."""
    text = solution(task)
    return text[text.index('if __name__ == "__main__":') :]


def _collected() -> Tuple[RealMistake, ...]:
    from real_mistakes import crashes, diagnoses, referee, timeouts

    return timeouts.FILES + diagnoses.FILES + crashes.FILES + referee.FILES


ALL = _collected()
