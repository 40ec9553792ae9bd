"""The values that flow between the stages: test cases in, results out.

Every class here is a frozen dataclass (or an enum): a stage hands the next one a value it cannot
change. Nothing in this module does I/O.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Tuple


class Verdict(str, enum.Enum):
    """The verdict names of the spec (``grader-cli.md``); the value is the name printed in JSON."""

    ACCEPTED = "accepted"
    WRONG_ANSWER = "wrong_answer"
    PRESENTATION_ERROR = "presentation_error"
    TIME_LIMIT_EXCEEDED = "time_limit_exceeded"
    MEMORY_LIMIT_EXCEEDED = "memory_limit_exceeded"
    OUTPUT_LIMIT_EXCEEDED = "output_limit_exceeded"
    RUNTIME_ERROR = "runtime_error"
    NO_OUTPUT = "no_output"
    SYNTAX_ERROR = "syntax_error"
    RULE_VIOLATION = "rule_violation"
    NOT_RUN = "not_run"  # only in check: skipped once a program has run out of time on two cases
    NOT_HANDED_IN = "not_handed_in"  # grade: the student's folder has no file for the task

    @property
    def label(self) -> str:
        """Plain English for a student, e.g. ``wrong answer``."""
        return _LABELS[self]

    @property
    def what_happened(self) -> str:
        """A verb phrase for a sentence about the program, e.g. ``gave a wrong answer``."""
        return _PHRASES[self]


_LABELS = {
    Verdict.ACCEPTED: "accepted",
    Verdict.WRONG_ANSWER: "wrong answer",
    Verdict.PRESENTATION_ERROR: "right answer, wrong spacing",
    Verdict.TIME_LIMIT_EXCEEDED: "took too long",
    Verdict.MEMORY_LIMIT_EXCEEDED: "used too much memory",
    Verdict.OUTPUT_LIMIT_EXCEEDED: "printed too much",
    Verdict.RUNTIME_ERROR: "crashed",
    Verdict.NO_OUTPUT: "printed nothing",
    Verdict.SYNTAX_ERROR: "does not compile",
    Verdict.RULE_VIOLATION: "breaks a rule of the exercise",
    Verdict.NOT_RUN: "not run",
    Verdict.NOT_HANDED_IN: "not handed in",
}


_PHRASES = {
    Verdict.ACCEPTED: "gave the right answer",
    Verdict.WRONG_ANSWER: "gave a wrong answer",
    Verdict.PRESENTATION_ERROR: "gave the right answer with different spacing",
    Verdict.TIME_LIMIT_EXCEEDED: "took longer than the time limit",
    Verdict.MEMORY_LIMIT_EXCEEDED: "used more memory than the limit",
    Verdict.OUTPUT_LIMIT_EXCEEDED: "printed more than the output limit",
    Verdict.RUNTIME_ERROR: "crashed",
    Verdict.NO_OUTPUT: "printed nothing",
    Verdict.SYNTAX_ERROR: "does not compile",
    Verdict.RULE_VIOLATION: "breaks a rule of the exercise",
    Verdict.NOT_RUN: "was not run",
    Verdict.NOT_HANDED_IN: "was not handed in",
}


@dataclass(frozen=True)
class Limits:
    """What one run of a submission may use."""

    time_s: float = 2.0
    memory_mib: int = 512
    output_bytes: int = 1_000_000
    stderr_bytes: int = 100_000
    file_bytes: int = 16 * 1024 * 1024  # largest file the program may write
    processes: int = 64  # processes and threads (RLIMIT_NPROC, counted for the run's own user)
    open_files: int = 64

    @property
    def cpu_seconds(self) -> int:
        """The processor time a run may use (RLIMIT_CPU): the time limit, rounded down, plus one
        second, so that a program is stopped by the wall clock first and by this only as a backstop."""
        return int(self.time_s) + 1


@dataclass(frozen=True)
class Rule:
    """One static rule of a task, read from the submission's syntax tree.

    ``kind`` is ``operator``, ``name``, ``import`` or ``format_spec``; ``target`` is what it
    forbids (``^``, ``operator.xor``, ``b``...); ``min_args`` narrows a ``name`` rule to calls with
    that many arguments; ``instead`` says what the student should do.
    """

    kind: str
    target: str
    instead: str = ""
    min_args: int = 0


# The verdicts a course's hint may be tied to: a program that ran on the case's input and ended, or
# was stopped (no case ran a file that does not compile or breaks a rule; printing nothing gets the
# grader's advice on the main block).
_NO_HINT = (Verdict.ACCEPTED, Verdict.SYNTAX_ERROR, Verdict.RULE_VIOLATION, Verdict.NO_OUTPUT, Verdict.NOT_RUN)
HINT_VERDICTS = tuple(verdict for verdict in Verdict if verdict not in _NO_HINT)


# What the grader may find a time-out to be (``grade/mistakes/time_outs.py``), as a hint's ``when`` names it.
TIME_OUT_KINDS = ("loop", "slow", "unclear")


@dataclass(frozen=True)
class When:
    """The failures a course's hint explains, all to hold: the case's verdict is one of ``verdicts``;
    the program printed exactly ``output``, or ``pattern`` is found in it (within a time bound); it
    crashed with Python's own exception of class ``exception`` (a class name), whose message
    ``exception_text`` (a regex) is found in; the earlier cases ``accepted`` were, in the same grading;
    on a time-out, the grader found it to be one of ``time_out`` (``loop``, ``slow``, ``unclear``:
    ``grade/mistakes/time_outs.py``; empty: a time-out whose kind the grader could not tell, since
    where it told one its cause speaks: ``grade/mistakes``).
    """

    verdicts: Tuple[Verdict, ...] = (Verdict.WRONG_ANSWER,)
    output: Optional[str] = None
    pattern: Optional[str] = None
    exception: Optional[str] = None
    accepted: Tuple[str, ...] = ()
    exception_text: Optional[str] = None
    time_out: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Hint:
    """A course's hint for a case and the failures it explains (``when``)."""

    text: str
    when: When = When()


@dataclass(frozen=True)
class Mistake:
    """A known wrong answer: an exact ``output`` or a regex ``pattern``, and the hint to show (after a
    wrong answer, and when the earlier cases ``accepted`` were: an output may fit several mistakes)."""

    hint: str
    output: Optional[str] = None
    pattern: Optional[str] = None
    accepted: Tuple[str, ...] = ()


@dataclass(frozen=True)
class Generated:
    """Where a generated case's input came from: the generator, its fields (JSON) and the format."""

    generator: str
    fields_json: str
    template: str


@dataclass(frozen=True)
class Case:
    """One test case, fully resolved: defaults applied, files read."""

    name: str
    input: str
    expected: Tuple[str, ...]
    checker: str
    checker_options: Mapping[str, Any]
    limits: Limits
    hidden: bool = False
    hint: str = ""  # shown after a wrong answer that no known mistake or entry of ``hints`` explains
    points: float = 1.0
    line: int = 0
    repeat: int = 1
    min_distinct: int = 0
    mistakes: Tuple[Mistake, ...] = ()
    generated: Optional[Generated] = None  # its expected answer comes from the reference solution
    hints: Tuple[Hint, ...] = ()  # hints tied to the failures they explain (``grade/mistakes/hints.py``)


@dataclass(frozen=True)
class Task:
    """A task's test cases and static rules, as loaded from ``testcases/<id>.yaml``."""

    id: str
    title: str
    cases: Tuple[Case, ...]
    rules: Tuple[Rule, ...] = ()
    source: str = ""
    uses_files: Tuple[str, ...] = ()
    total: Optional[float] = None  # the task's worth; None: the sum of its cases' points

    @property
    def max_score(self) -> float:
        """What the task is worth: ``total`` when set, else the points of all its cases."""
        return self.total if self.total is not None else sum(case.points for case in self.cases)

    def points_of(self, case: Case) -> float:
        """What ``case`` is worth within the task: its points, scaled when the task sets a total."""
        if self.total is None:
            return case.points
        points = sum(c.points for c in self.cases)
        return self.total * case.points / points if points else 0.0


@dataclass(frozen=True)
class Conjecture:
    """A cause one failure suggests but cannot prove alone (``kind``, e.g. "rows counted from 0"),
    and the sentence that says it: said only where it explains the file's failures (``grade/mistakes/evidence.py``)."""

    kind: str
    text: str


@dataclass(frozen=True)
class CheckOutcome:
    """What a checker decided about one output: accepted, wrong_answer or presentation_error.

    ``answer_found`` is True when the right answer is in the output among other things (extra
    lines): the case's hint, which is about the logic, then does not apply. ``conjecture``: a cause
    this output alone suggests, for the whole file's failures to confirm.
    """

    verdict: Verdict
    message: str = ""
    answer_found: bool = False
    conjecture: Optional[Conjecture] = None


@dataclass(frozen=True)
class Difference:
    """Where the actual output first departs from the expected one (1-based line and column).

    Column 0 means the whole line (a broken rule of a game, not one character).
    """

    line: int
    column: int


@dataclass(frozen=True)
class CaseResult:
    """The verdict of one case and everything the report shows about it."""

    case: Case
    verdict: Verdict
    message: str
    time_s: float = 0.0
    actual: str = ""
    stderr: str = ""
    expected: str = ""
    difference: Optional[Difference] = None
    actual_note: str = ""
    game: bool = False  # ``actual`` is the transcript of an interactive game
    hint: str = ""  # the course's hint it shows, an instructor's text (a hidden case shows it too)
    # while grading only: the hints that may still be chosen, each with True for a known mistake;
    # how the run failed, to compare with other failures (``grade/mistakes/evidence.py``); a cause to
    # confirm; what a crash's exception usually means, said where no course hint is (``grade/mistakes``)
    hint_choices: Tuple[Tuple[Hint, bool], ...] = ()
    failure: Tuple[str, ...] = ()
    conjecture: Optional[Conjecture] = None
    advice: str = ""

    @property
    def accepted(self) -> bool:
        """True when the case passed."""
        return self.verdict is Verdict.ACCEPTED

    def concealed(self) -> CaseResult:
        """This result as a hidden case may show it: its case, its verdict, and for a case not
        accepted the fixed sentence of that verdict and the course's hint it got (``hidden_message``).

        Built anew from those alone, not by taking things out: nothing the program controls (its
        output, error output, a crash's text or exception name, a time, a file it wrote) is in it.
        Which of the instructor's texts shows may tell that the output matched a pattern, never the output.
        """
        return self.concealed_with_hint(self.hint)

    def concealed_with_hint(self, hint: str) -> CaseResult:
        """``concealed``, with ``hint`` ("" for none) as the course's hint."""
        hint = hint if self.verdict in HINT_VERDICTS else ""
        return CaseResult(case=self.case, verdict=self.verdict, message=hidden_message(self.verdict, hint), hint=hint)

    def concealed_for(self, problem: Optional[SourceProblem]) -> CaseResult:
        """``concealed`` for a case of a task result: when the file did not run at all (``problem``),
        what that problem says about the file (never about a case), and no hint about the logic; a
        case not run after two time-outs keeps its sentence (the names of those cases, and what to
        do: nothing the program said)."""
        if problem is not None:
            return CaseResult(case=self.case, verdict=self.verdict, message=problem.message)
        if self.verdict is Verdict.NOT_RUN:
            return CaseResult(case=self.case, verdict=self.verdict, message=self.message)
        return self.concealed()


# The one sentence a hidden case not accepted shows, by verdict; ``not_run`` says why it was not run.
_HIDDEN_SENTENCES = {
    verdict: f"This hidden case was not accepted: your program {verdict.what_happened}."
    for verdict in Verdict
    if verdict is not Verdict.ACCEPTED
}


def hidden_message(verdict: Verdict, hint: str = "") -> str:
    """The message of a hidden case with ``verdict``: "" when accepted, else its fixed sentence and,
    after a verdict a hint may explain (``HINT_VERDICTS``), the course's ``hint`` it was given (the
    course's text: which hint applies is decided by ``hints``, never by anything here)."""
    if verdict is Verdict.ACCEPTED:
        return ""
    sentence = _HIDDEN_SENTENCES[verdict]
    return f"{sentence} Hint: {hint}" if hint and verdict in HINT_VERDICTS else sentence


@dataclass(frozen=True)
class SourceProblem:
    """Why a submission was not run at all: it does not compile, or it breaks a rule."""

    verdict: Verdict
    message: str
    line: int = 0
    source_line: str = ""
    caret: int = 0


@dataclass(frozen=True)
class KnownMistake:
    """A known mistake a student's answers match (``grade/mistakes/known_mistakes.py`` decides): what the
    mistake is in words for the student and for the instructor, and on how many of the failing
    visible cases the answers are the known-wrong solution's (``matched`` of ``failing``)."""

    label: str  # the known-wrong solution's file name without .py
    student_text: str
    instructor_text: str
    matched: int
    failing: int


@dataclass(frozen=True)
class TaskResult:
    """All cases of one task for one submission file."""

    task: Task
    file: str
    cases: Tuple[CaseResult, ...]
    problem: Optional[SourceProblem] = None
    notes: Tuple[str, ...] = field(default=())
    mistake: Optional[KnownMistake] = None  # set after grading, from visible cases only

    def __post_init__(self) -> None:
        # Every task result holds its hidden cases concealed (``CaseResult.concealed``), whichever
        # path built it: what leaves grading for a hidden case is its name, verdict and fixed sentence.
        cases = tuple(case.concealed_for(self.problem) if case.case.hidden else case for case in self.cases)
        object.__setattr__(self, "cases", cases)

    @property
    def handed_in(self) -> bool:
        """False when the student handed in no file for this task (``file`` then names none)."""
        return self.problem is None or self.problem.verdict is not Verdict.NOT_HANDED_IN

    @property
    def verdict(self) -> Verdict:
        """``accepted`` only when every case is; otherwise the first case's verdict that is not."""
        for result in self.cases:
            if not result.accepted:
                return result.verdict
        return Verdict.ACCEPTED

    @property
    def score(self) -> float:
        """Points of the accepted cases (scaled to the task's total, when it sets one)."""
        return sum(self.task.points_of(r.case) for r in self.cases if r.accepted)

    @property
    def max_score(self) -> float:
        """What the task is worth."""
        return self.task.max_score

    def points_of(self, case: Case) -> float:
        """What ``case`` is worth in this task."""
        return self.task.points_of(case)
