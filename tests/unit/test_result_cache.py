"""The results cache gives back exactly what it was given, and a case's key what decides it."""

from dataclasses import replace

from grader.classrun.result_cache import ResultCache, case_fingerprint, case_key
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
        cache.store(keyed)
    with ResultCache(tmp_path / "cache.sqlite") as cache:
        for key, result in keyed:
            assert cache.known([(key, CASE)]) == {CASE.name: result}


def test_a_damaged_entry_is_not_a_result(tmp_path):
    with ResultCache(tmp_path / "cache.sqlite") as cache:
        cache.store([("key", RESULTS[1])])
        cache._db.execute("UPDATE results SET result = ?", (b"not a stored result",))
        cache._db.commit()
        assert cache.known([("key", CASE)]) == {}


def test_a_case_key_changes_with_what_decides_the_case_and_not_with_its_line():
    def key(case):
        return case_key("run", "submission", case_fingerprint(case))

    assert key(replace(CASE, line=40)) == key(CASE)
    assert key(replace(CASE, expected=("3\n",))) != key(CASE)
    assert key(replace(CASE, input="3 4 6\n")) != key(CASE)
    assert key(replace(CASE, limits=Limits(time_s=1.0))) != key(CASE)
    assert case_key("run", "another submission", case_fingerprint(CASE)) != key(CASE)
