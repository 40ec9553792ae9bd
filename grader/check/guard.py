"""Checkers that never raise: output a checker cannot read is the student's wrong answer.

A program's output is untrusted. A number of 5,000 digits (Python refuses ``int()`` of more than
4,300), brackets nested 200,000 deep (``RecursionError``) or an output too large to hold twice
(``MemoryError``) can make any parse fail, in a generic checker, a Nim checker or a course's own.
The registry wraps every checker it hands out: ``GuardedChecker`` turns any exception into a
``wrong_answer`` outcome whose message says what it can (``unreadable_reason``); ``GuardedSession``
does the same for an interactive session (it then asks for the program to be stopped, and its
``outcome`` is that wrong answer). Out: results, never an exception out of grading.
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass
from typing import Any, Callable, Optional

from grader.check.patterns import PatternTimeout
from grader.model import CheckOutcome, Verdict

# The most digits Python's int() reads from text (3.11+ refuses more; earlier versions read any).
_get_digit_limit = getattr(sys, "get_int_max_str_digits", None)
INT_DIGITS = (_get_digit_limit() if _get_digit_limit else 0) or 4300


def unreadable_reason(error: BaseException) -> str:
    """What made an output unreadable, as the end of a sentence ("it holds a number of more than
    4,300 digits"), or "" when the error says nothing a student could use."""
    if isinstance(error, RecursionError):
        return "it has brackets nested too deeply to read (lists inside lists, hundreds of levels deep)"
    if isinstance(error, MemoryError):
        return "it is too large to read"
    if isinstance(error, ValueError) and "integer string conversion" in str(error):
        return f"it holds a number of more than {INT_DIGITS:,} digits"
    if isinstance(error, PatternTimeout):
        return str(error)
    return ""


def unreadable_message(
    error: BaseException,
    what: str = "Your output could not be read as an answer",
    advice: str = "Print only the answer, in the form the task asks for.",
) -> str:
    """The sentences for a student: ``what`` could not be read because of ``error``, and ``advice``."""
    reason = unreadable_reason(error)
    if reason:
        return f"{what}: {reason}. {advice}"
    return f"{what} (reading it stopped with {type(error).__name__}). {advice}"


class GuardedChecker:
    """A checker ``function(actual, expected, case_input, **options)`` whose calls never raise.

    Its signature (the options the loader checks) is the wrapped function's.
    """

    def __init__(self, function: Callable[..., CheckOutcome]) -> None:
        functools.update_wrapper(self, function)
        self.function = function

    def __call__(self, actual: str, expected: str, case_input: str, **options: Any) -> CheckOutcome:
        try:
            return self.function(actual, expected, case_input, **options)
        except Exception as error:  # any failure to read untrusted output is the student's answer
            return CheckOutcome(Verdict.WRONG_ANSWER, unreadable_message(error))


@dataclass(frozen=True)
class SessionFailure:
    """What an interactive session could not read: the sentence and the transcript line (1-based)."""

    message: str
    line: int
    verdict: Verdict = Verdict.WRONG_ANSWER


_SESSION_WHAT = "The grader could not read what your program printed"


class GuardedSession:
    """An interactive session (``run.streams.Session``) whose calls never raise.

    The first exception from the session is kept as a ``SessionFailure``: from then on the session
    takes no more output, types nothing, asks for the program to be stopped (``done``), and its
    ``outcome`` is that wrong answer. Anything else (``problem``, ``winner``...) is the session's.
    """

    def __init__(self, inner) -> None:
        self.inner = inner
        self.failure: Optional[SessionFailure] = None

    def failed(self, error: BaseException) -> None:
        """Record ``error`` as the session's failure (the first one counts); the run loop calls it too."""
        if self.failure is None:
            message = unreadable_message(error, _SESSION_WHAT, "Print only the lines the task asks for.")
            self.failure = SessionFailure(message, self._last_line())

    def _last_line(self) -> int:
        try:
            return self.inner.transcript.count("\n") + 1
        except Exception:  # the transcript itself is broken: point at its start
            return 1

    def output(self, text: str) -> None:
        """Hand ``text`` to the session, unless it has failed."""
        if self.failure is None:
            try:
                self.inner.output(text)
            except Exception as error:
                self.failed(error)

    def waiting(self):
        """The session's reply to a program waiting for input (None once it has failed)."""
        if self.failure is None:
            try:
                return self.inner.waiting()
            except Exception as error:
                self.failed(error)
        return None

    def done(self) -> bool:
        """True once the program should be stopped: the session says so, or it has failed."""
        if self.failure is None:
            try:
                return bool(self.inner.done())
            except Exception as error:
                self.failed(error)
        return True

    @property
    def transcript(self) -> str:
        """The session's transcript ("" when even that cannot be had)."""
        try:
            return self.inner.transcript
        except Exception:
            return ""

    def outcome(self, run):
        """The failure, or the session's own outcome of ``run`` (a failure when that raises)."""
        if self.failure is None:
            try:
                return self.inner.outcome(run)
            except Exception as error:
                self.failed(error)
        return self.failure

    def __getattr__(self, name: str):
        if name == "inner":  # not set yet (an object being copied): no session to ask
            raise AttributeError(name)
        return getattr(self.inner, name)


class GuardedSessions:
    """An interactive checker's factory ``function(**options) -> session`` whose sessions never raise.

    The factory's own errors (options the loader accepted but it cannot use) are the grader's and
    pass through; its signature is the wrapped factory's.
    """

    def __init__(self, factory: Callable[..., Any]) -> None:
        functools.update_wrapper(self, factory)
        self.factory = factory

    def __call__(self, **options: Any) -> GuardedSession:
        return GuardedSession(self.factory(**options))
