"""Errors that stop the grader from doing its job, each with a sentence a person can act on.

A student's wrong answer is never one of these: it is a result (see ``model.CaseResult``).
"""

from __future__ import annotations


class GraderError(Exception):
    """The grader cannot do its job; ``str(error)`` is the whole message for a person."""


class UsageError(GraderError):
    """Bad arguments: a path that does not exist, a file that names no task, ..."""


class CaseFileError(GraderError):
    """A test case file that does not validate.

    Carries the file, the line (1-based, or None when unknown) and what is wrong, and formats
    them as ``file, line N: what``.
    """

    def __init__(self, path: str, line: int | None, what: str) -> None:
        self.path = path
        self.line = line
        self.what = what
        where = f"{path}, line {line}" if line else path
        super().__init__(f"{where}: {what}")
