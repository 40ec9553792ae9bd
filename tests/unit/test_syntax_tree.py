"""grader/submission/syntax_tree.py: a student's file read as a syntax tree, whatever it holds,
and never two parses at once in a process (CPython's tree builder shares a counter between threads)."""

from __future__ import annotations

import ast
import threading
import time

import pytest

from grader.submission import syntax_tree


@pytest.mark.parametrize(
    "source",
    [
        "def f(:\n",
        "x = 1\x00\n",
        "(" * 200_000,
        b"\xff\xfe not text",
        "a" + ".b" * 300_000,
        "1" + "+1" * 300_000,
        "f" + "()" * 300_000,
    ],
    ids=["syntax", "nul", "deep brackets", "not utf-8", "long chain", "long sum", "long calls"],
)
def test_a_file_that_cannot_be_a_tree_is_none_never_an_exception(source):
    # (the long ones killed the process on Python 3.9 and 3.10 with a segmentation fault: their
    # parser has no depth guard, and an ordinary thread's stack is too small for them)
    found = syntax_tree.parsed(source)
    assert found is None or isinstance(found, ast.Module)


def test_an_error_of_the_interpreters_own_is_none(monkeypatch):
    def broken(source):
        raise SystemError("AST constructor recursion depth mismatch (before=54, after=50)")

    monkeypatch.setattr(syntax_tree.ast, "parse", broken)
    found = syntax_tree.parsed("x = 1\n")
    monkeypatch.undo()
    assert found is None


def test_threads_parse_one_at_a_time(monkeypatch):
    real, inside, most = ast.parse, [0], [0]
    lock = threading.Lock()

    def watched(source):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        time.sleep(0.002)  # long enough for another thread to come in, were it let in
        try:
            return real(source)
        finally:
            with lock:
                inside[0] -= 1

    monkeypatch.setattr(syntax_tree.ast, "parse", watched)
    threads = [
        threading.Thread(target=lambda: [syntax_tree.parsed("x = [1, 2]\n") for _ in range(20)]) for _ in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    monkeypatch.undo()  # (pytest reads the failing line with ast.parse)
    assert most[0] == 1
