"""The same file gets the same marks on every run: every source of randomness a program sees is
seeded from the submission, the case and the repeat (``seeded_randomness``, ``submitted_program.run_seed``)."""

from __future__ import annotations

import sys

from support import PROJECT, solution

from grader.cli.main import main
from grader.course.course_checkers import course_checkers
from grader.grade.grading import GradingContext, grade_file
from grader.model import Limits, Verdict
from grader.run.execute import Program, SubprocessRunner
from grader.run.forkserver import best_runner

# Every kind of randomness a program may reach for, printed.
EVERY_SOURCE = (
    "import os, random, secrets, uuid\n"
    "print(random.random(), random.randrange(10**9))\n"
    "print(random.Random().random(), random.SystemRandom().random())\n"
    "print(os.urandom(8).hex(), secrets.token_hex(8), uuid.uuid4())\n"
    "print(sorted({'alpha', 'beta', 'gamma', 'delta'}, key=hash) == list({'alpha', 'beta', 'gamma', 'delta'}))\n"
    "print(list({'alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'}))\n"
)

# Right on a case half of the time, by chance.
COIN_FLIPPER = solution("nim_sum").replace(
    'if __name__ == "__main__":',
    "import random as _random\n\n\n"
    "if __name__ == \"__main__\" and _random.random() < 0.5:\n    print('0 0 0')\nelif True:",
)


def _printed(runner, seed: str, tmp_path) -> bytes:
    script = tmp_path / "every_source.py"
    script.write_text(EVERY_SOURCE)
    result = runner.run(Program(sys.executable, script, "every_source.py", seed=seed), b"", Limits(time_s=10))
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_every_source_of_randomness_follows_the_seed_in_both_runners(tmp_path):
    with best_runner() as forked, SubprocessRunner() as fresh:
        first = _printed(forked, "a", tmp_path)
        assert _printed(forked, "a", tmp_path) == first  # a second run of the same seed
        assert _printed(fresh, "a", tmp_path) == first  # a new interpreter: the same streams
        other = _printed(forked, "b", tmp_path)
    assert other != first
    # each line draws on a different source, and each changes with the seed (set order aside)
    assert all(a != b for a, b in list(zip(first.splitlines(), other.splitlines()))[:3])


def test_the_same_file_gets_the_same_marks_twice_and_repeats_differ(tmp_path, course):
    path = tmp_path / "nim_sum.py"
    path.write_text(COIN_FLIPPER)
    graded = []
    for _ in range(2):  # two gradings, each with a runner (and fork server) of its own
        with best_runner() as runner:
            context = GradingContext(
                checkers=course_checkers(PROJECT), python=sys.executable, runner=runner, course=PROJECT
            )
            graded.append(grade_file(course["nim_sum"], path, context))
    verdicts = [[case.verdict for case in result.cases] for result in graded]
    assert verdicts[0] == verdicts[1]
    assert [c.actual for c in graded[0].cases] == [c.actual for c in graded[1].cases]
    # the coin still falls both ways across the cases: each case (and repeat) has its own stream
    assert Verdict.ACCEPTED in verdicts[0] and Verdict.WRONG_ANSWER in verdicts[0]


def test_two_fresh_gradings_of_a_class_give_identical_gradebooks(tmp_path, course_without_known_wrong):
    for name in ("ann", "ben", "cat"):
        folder = tmp_path / "class" / name
        folder.mkdir(parents=True)
        (folder / "nim_sum.py").write_text(COIN_FLIPPER + f"\n# {name}\n")  # each file its own
        (folder / "exclusive_or.py").write_text(solution("exclusive_or"))
    books = []
    for run in ("first", "second"):
        out = tmp_path / run
        course = ["--course", str(course_without_known_wrong)]
        main(["grade", str(tmp_path / "class"), "--out", str(out), *course, "--no-cache", "--allow-unprotected"])
        books.append((out / "gradebook.csv").read_bytes())
    assert books[0] == books[1]
    assert books[0].count(b"\n") == 4  # the header and three students
