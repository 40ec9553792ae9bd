"""The grader's own work on large hostile outputs, against the cost of splitting them into lines.

    python bench/bench_checkers.py [--rounds R] [--only NAME]

A program's output is untrusted and may be as large as its output limit allows (present_board's is
50 MB). Each shape below is an output a program could print, checked the way grading checks it;
the baseline is splitting what the check reads (the output, and the expected answer if any) into
lines, timed in the same process, so the ratio says how many such splits the check costs whatever
this machine's speed. Work linear in the output keeps
the ratio a small constant; work in n * m (output lines times expected lines) makes it grow into
the thousands. The best of ``--rounds`` rounds counts.

  short-lines          499,000 short lines against present_board's 10,000-row answer (10,001 lines)
  short-lines-largest  499,000 short lines against its largest answer (10,000 rows of 1000, 20 MB)
  near-misses          the 10,000-row answer 50 times over, each copy's last line wrong
  answer-at-the-end    489,000 lines of debug prints, then the 10,000-row answer
  answer-then-extra    the 10,000-row answer, then 489,000 lines of debug prints
  tokens               500,000 lines of 8 words against the 10,000-row answer's words
  first-difference     the largest answer with its last character wrong (what the report marks)
  game-one-line        the working_game session fed 2 MB of one line, 512 bytes at a time
  game-short-lines     the working_game session fed 2 MB of short lines, 512 bytes at a time
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from grader.check.text import check_text, check_tokens, first_difference  # noqa: E402
from grader.nim.game import nim_game  # noqa: E402

ROWS_10000 = (PROJECT / "testcases" / "present_board" / "rows_10000_expected.txt").read_text(encoding="utf-8")


def largest_answer() -> str:
    """present_board's largest answer: 10,000 rows of 1000 objects (about 20 MB)."""
    return "\n".join(["Nim:"] + [f"{row}:" + " X" * 1000 for row in range(1, 10001)]) + "\n"


def _feed(output: str, chunk: int = 512):
    """A check that feeds ``output`` to a fresh working_game session ``chunk`` characters at a time."""

    def check() -> None:
        session = nim_game(players=["Alice", "Bob"], board=[1, 2], human="script")
        for start in range(0, len(output), chunk):
            session.output(output[start : start + chunk])
        session.transcript  # noqa: B018 (what grading reads afterwards)

    return check


def shapes(only: str = ""):
    """(name, texts, check) for each shape: ``check()`` does the grader's work on the output, and
    ``texts`` are what it reads (the output, and the expected answer if any)."""
    largest = largest_answer()
    answer = ROWS_10000.rstrip("\n").split("\n")
    noise = "\n".join(f"x = {i % 97}" for i in range(489_000)) + "\n"
    short = "\n".join(f"{i % 10}:" for i in range(499_000)) + "\n"
    wrong_copy = "\n".join(answer[:-1] + ["oops"]) + "\n"
    table = [
        ("short-lines", lambda: short, ROWS_10000, lambda out, exp: check_text(out, exp, "", trailing_space=True)),
        ("short-lines-largest", lambda: short, largest, lambda out, exp: check_text(out, exp, "", trailing_space=True)),
        ("near-misses", lambda: wrong_copy * 50, ROWS_10000, lambda out, exp: check_text(out, exp, "")),
        ("answer-at-the-end", lambda: noise + ROWS_10000, ROWS_10000, lambda out, exp: check_text(out, exp, "")),
        ("answer-then-extra", lambda: ROWS_10000 + noise, ROWS_10000, lambda out, exp: check_text(out, exp, "")),
        ("tokens", lambda: "7 7 7 7 7 7 7 7\n" * 500_000, ROWS_10000, lambda out, exp: check_tokens(out, exp, "")),
        ("first-difference", lambda: largest[:-2] + "Y\n", largest, lambda out, exp: first_difference(exp, out)),
        ("game-one-line", lambda: "X " * 1_000_000, "", lambda out, exp: _feed(out)()),
        ("game-short-lines", lambda: "1: X X\n" * 300_000, "", lambda out, exp: _feed(out)()),
    ]
    for name, make, expected, check in table:
        if not only or name == only:
            output = make()
            yield (
                name,
                (output, expected),
                (lambda check=check, output=output, expected=expected: check(output, expected)),
            )


def best_of(rounds: int, work) -> float:
    """The least wall time of ``rounds`` calls of ``work()``, in seconds."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds per shape; the best counts (default 3)")
    parser.add_argument("--only", default="", help="one shape by name (default: all)")
    args = parser.parse_args()
    print(f"{'shape':<21} {'output':>9} {'split':>9} {'check':>9} {'check/split':>12}")
    for name, texts, check in shapes(args.only):
        split = best_of(args.rounds, lambda texts=texts: [text.split("\n") for text in texts])
        checked = best_of(args.rounds, check)
        size = f"{len(texts[0]) / 1e6:.1f} MB"
        print(f"{name:<21} {size:>9} {split * 1000:>7.1f}ms {checked * 1000:>7.0f}ms {checked / split:>11.1f}x")


if __name__ == "__main__":
    main()
