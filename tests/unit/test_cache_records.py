"""The results cache keeps a case result in the one record of a case (``report/records.py``): what
it stores holds the task record's fields for that case, and every field of the result, hidden cases
included, comes back exactly as it was given, whole (no message cut, no time left out)."""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import fields, replace

from grader.classrun.result_cache import ResultCache, entry_key
from grader.model import Case, CaseResult, Difference, Limits, Task, TaskResult, Verdict
from grader.report.records import case_from_record, case_record, kept_case_record, task_record

SHOWN = Case(name="shown", input="3 4 5\n", expected=("2\n",), checker="text", checker_options={}, limits=Limits())
HIDDEN = replace(SHOWN, name="hidden", hidden=True, points=2.5)
LONG = "a message a program made long " * 40

# One result per case, each setting every field a result can hold to something not its default.
RESULTS = [
    CaseResult(
        SHOWN,
        Verdict.WRONG_ANSWER,
        "Line 1: expected « 2 »,\nyour program printed « \udcff ».",  # a byte no UTF-8 decodes
        0.123456789,
        actual="3 → ✓\n\udc80\x00\r\n",
        stderr="Traceback…\n\tline 4\n\udcfe",
        expected="2\n",
        difference=Difference(1, 3),
        actual_note="only the start is shown",
        hint="add, do not xor",
    ),
    # a hidden case as the cache may be given it: nothing concealed (the cache is the instructor's)
    CaseResult(
        HIDDEN,
        Verdict.TIME_LIMIT_EXCEEDED,
        LONG,
        2.75,
        actual="> 1 2\n< 0 1\n",
        stderr="killed",
        expected="> 1 2\n",
        difference=Difference(2, 0),
        actual_note="the transcript",
        game=True,
        hint="a loop that never ends",
    ),
    # a right output kept once, and a result with every field at its default
    CaseResult(SHOWN, Verdict.ACCEPTED, "", 0.5, actual="2\n" * 1000, expected="2\n" * 1000),
    CaseResult(HIDDEN, Verdict.NO_OUTPUT, ""),
]


def stored_entry(path, key, case):
    """The JSON line of the cache's entry of ``case`` under ``key``, as a dict."""
    with sqlite3.connect(str(path)) as db:
        (blob,) = db.execute("SELECT result FROM results WHERE key = ?", (entry_key(key, case.name),)).fetchone()
    entry = zlib.decompress(blob)
    return json.loads(entry[: entry.index(b"\n")])


def test_the_round_trip_covers_every_field_of_a_case_result():
    # a field added to CaseResult must be kept by kept_case_record, or named here as not kept
    # the case is the caller's; the choices, the failure's key, a conjecture and the advice kept
    # aside are gone once graded
    not_kept = {"case", "hint_choices", "failure", "conjecture", "advice"}
    kept = {field.name for field in fields(CaseResult)} - not_kept
    for name in kept:  # so that the round trip below shows each one survives
        assert any(getattr(r, name) != getattr(CaseResult(r.case, Verdict.ACCEPTED, ""), name) for r in RESULTS), name
    assert kept <= set(kept_case_record(RESULTS[0]))


def test_every_result_comes_back_from_the_cache_as_it_was_given(tmp_path):
    keyed = [(f"key{number}", result) for number, result in enumerate(RESULTS)]
    with ResultCache(tmp_path / "cache.sqlite") as cache:
        for key, result in keyed:
            cache.store(key, [result])
    with ResultCache(tmp_path / "cache.sqlite") as cache:
        for key, result in keyed:
            back = cache.known(key, [result.case])[result.case.name]
            assert back == result
            assert (back.message, back.time_s, back.stderr) == (result.message, result.time_s, result.stderr)


def test_the_stored_form_of_a_case_is_its_record_and_what_the_cache_adds(tmp_path):
    with ResultCache(tmp_path / "cache.sqlite") as cache:
        for number, result in enumerate(RESULTS):
            cache.store(f"key{number}", [result])
    for number, result in enumerate(RESULTS):
        stored = stored_entry(tmp_path / "cache.sqlite", f"key{number}", result.case)["record"]
        record = case_record(result, result.case.points)
        assert {name: stored[name] for name in record} == record
        whole = kept_case_record(result)
        assert stored == {name: value for name, value in whole.items() if name not in ("actual", "stderr", "expected")}


def test_a_task_record_writes_its_cases_as_case_record_does():
    task = Task(id="nim_sum", title="Nim sum", cases=(SHOWN, HIDDEN))
    result = TaskResult(task=task, file="nim_sum.py", cases=(RESULTS[0], RESULTS[1]))
    for chars in (None, 40):
        written = task_record(result, chars)["cases"]
        assert written == [case_record(case, result.points_of(case.case), chars) for case in result.cases]
    hidden = task_record(result)["cases"][1]
    assert hidden["time_s"] is None and hidden["message"].startswith("This hidden case")  # concealed


def test_a_kept_record_of_a_hidden_case_keeps_what_the_task_record_leaves_out():
    whole = kept_case_record(RESULTS[1])
    assert whole["time_s"] is None and whole["hidden_time_s"] == 2.75  # the record's field stays as it is
    assert whole["message"] == LONG and whole["actual"] == RESULTS[1].actual
    assert case_from_record(json.loads(json.dumps(whole)), HIDDEN) == RESULTS[1]
    assert len(case_record(RESULTS[1], 2.5, 40)["message"]) < len(LONG)  # cut in a record only when asked


def test_an_entry_of_the_former_form_reads_as_nothing(tmp_path):
    result = RESULTS[0]
    header = {"verdict": "wrong_answer", "message": "m", "time_s": 0.1, "lengths": [0, 0, 0], "same": True}
    old = zlib.compress(json.dumps(header).encode("ascii") + b"\n", 1)
    with ResultCache(tmp_path / "cache.sqlite") as cache:
        cache._db.execute("INSERT INTO results (key, result) VALUES (?, ?)", (entry_key("key", result.case.name), old))
        cache._db.commit()
        assert cache.known("key", [result.case]) == {}


def test_an_entry_with_a_verdict_the_grader_does_not_know_is_run_again(tmp_path):
    with ResultCache(tmp_path / "cache.sqlite") as cache:
        cache.store("key", [RESULTS[0]])
        entry = zlib.decompress(cache._db.execute("SELECT result FROM results").fetchone()[0])
        changed = entry.replace(b'"verdict": "wrong_answer"', b'"verdict": "made up"', 1)
        assert changed != entry
        cache._db.execute("UPDATE results SET result = ?", (zlib.compress(changed),))
        cache._db.commit()
        assert cache.known("key", [SHOWN]) == {}
