"""Runners around the session's real runner, for tests that count or script the programs run:
``CountingRunner`` counts the runs of the real one; ``ScriptedRunner`` runs nothing and answers
from a list, for run orders that chance would rarely give."""

from __future__ import annotations

import threading

from grader.run.run_facts import RunResult


class CountingRunner:
    """The real runner, counting the programs it runs (from several threads)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.runs = 0
        self._lock = threading.Lock()

    def run(self, program, stdin, limits):
        with self._lock:
            self.runs += 1
        return self.inner.run(program, stdin, limits)

    def interact(self, program, session, limits):
        with self._lock:
            self.runs += 1
        return self.inner.interact(program, session, limits)

    def protections(self, python):
        return self.inner.protections(python)


class ScriptedRunner:
    """Answers run number i with ``answers[i]`` (the last one again past the end) without running
    anything, and counts the runs."""

    def __init__(self, answers) -> None:
        self.answers = list(answers)
        self.runs = 0
        self._lock = threading.Lock()

    def run(self, program, stdin, limits):
        with self._lock:
            answer = self.answers[min(self.runs, len(self.answers) - 1)]
            self.runs += 1
        out = (answer + "\n").encode()
        return RunResult(
            exit_code=0, signal=None, stdout=out, stderr=b"", stdout_bytes=len(out), stderr_bytes=0, time_s=0.001
        )
