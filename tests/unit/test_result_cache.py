"""The results cache gives back exactly what it was given, a task's results all together or not at
all (what decides a key: tests/unit/test_result_key.py)."""

from dataclasses import replace

from grader.classrun.result_cache import ResultCache
from grader.model import Case, CaseResult, Difference, Limits, Verdict

CASE = Case(name="a case", input="3 4 5\n", expected=("2\n",), checker="text", checker_options={}, limits=Limits())

RESULTS = [
    # a right answer: the expected answer is the output, kept once
    CaseResult(CASE, Verdict.ACCEPTED, "", 0.01, actual="2\n" * 50_000, expected="2\n" * 50_000),
    # a wrong one, with text beyond ASCII, a line break in the message, and what it wrote on stderr
    CaseResult(
        CASE,
        Verdict.WRONG_ANSWER,
        "Line 1: expected « 2 »,\nyour program printed « 3 ».",
        0.5,
        actual="3 → ✓\n",
        stderr="Traceback…\n\tline 4\n",
        expected="2\n",
        difference=Difference(1, 1),
        actual_note="only the start is shown",
    ),
    # nothing at all, and an expected answer that is empty too
    CaseResult(CASE, Verdict.NO_OUTPUT, "Your program printed nothing.", 0.0),
    # a game's transcript
    CaseResult(CASE, Verdict.ACCEPTED, "", 1.0, actual="> 1 2\n< 0 1\n", expected="", game=True),
]


def test_every_result_comes_back_as_it_was_stored(tmp_path):
    keyed = [(f"key{number}", result) for number, result in enumerate(RESULTS)]
    with ResultCache(tmp_path / "cache.sqlite") as cache:
        for key, result in keyed:
            cache.store(key, [result])
    with ResultCache(tmp_path / "cache.sqlite") as cache:
        for key, result in keyed:
            assert cache.known(key, [CASE]) == {CASE.name: result}


def test_a_damaged_entry_is_not_a_result(tmp_path):
    with ResultCache(tmp_path / "cache.sqlite") as cache:
        cache.store("key", [RESULTS[1]])
        cache._db.execute("UPDATE results SET result = ?", (b"not a stored result",))
        cache._db.commit()
        assert cache.known("key", [CASE]) == {}


def test_a_task_is_found_whole_or_not_at_all(tmp_path):
    """A case's result depends on the task's other cases in the same grading (hints after earlier
    cases, not_run after two time-outs, a rule broken in one case): never one case of a task alone."""
    other = replace(CASE, name="another case")
    with ResultCache(tmp_path / "cache.sqlite") as cache:
        cache.store("key", [RESULTS[0], replace(RESULTS[1], case=other)])
        assert set(cache.known("key", [CASE, other])) == {CASE.name, other.name}
        added = replace(CASE, name="a case added since")
        assert cache.known("key", [CASE, other, added]) == {}  # (a changed task has another key anyway)
        assert cache.known("another key", [CASE, other]) == {}
        cache._db.execute("DELETE FROM results WHERE rowid = (SELECT MIN(rowid) FROM results)")
        cache._db.commit()
        assert cache.known("key", [CASE, other]) == {}
