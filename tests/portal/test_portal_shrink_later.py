"""Shrinking off the portal's critical path: a hand-in is graded and its result written without
shrinking, the row owing a shrink pass; when nothing waits to be claimed, a second pass with
shrinking replaces the report and record (with the smaller failing input) when the marks are the
same, and leaves the first result when they differ, when it fails, or when the row was regraded
meanwhile. Hand-ins are graded before any shrink pass; ``check`` still shrinks at once."""

from __future__ import annotations

import logging
import sys
from dataclasses import replace

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_hand_in, set_up_portal, signed_in  # noqa: E402
from support import COURSE, PROJECT, solution  # noqa: E402

# A known-wrong nim_sum (it adds the rows): wrong on the random boards, and on smaller ones too.
ADDS = (PROJECT / "solutions" / "wrong" / "nim_sum" / "adds_the_rows.py").read_text(encoding="utf-8")
SMALLER = "A smaller input that fails too:"  # what ``verdicts.with_smaller_input`` adds to a message
LOOKING = "is being looked for"  # what the submission's page says while a shrink pass is owed


@pytest.fixture(scope="module", autouse=True)
def roster(tmp_path_factory):
    set_up_portal(tmp_path_factory.mktemp("portal"), "username,role\nshr_ann,student\nshr_ben,student\n")


@pytest.fixture(scope="module")
def grading(context):
    """This machine's portal grading on the session's runner (its cases two at a time)."""
    from grader.web.grading_backends import LocalGrading, grading_context

    return LocalGrading(replace(grading_context(context.runner, COURSE), case_jobs=2))


class Recorded:
    """A backend around ``inner`` that records each unit it grades as (student, shrink); a shrink
    pass calls ``on_shrink`` first and grades ``shrunk_files`` in place of the unit's, if given."""

    where = "this machine"

    def __init__(self, inner, on_shrink=None, shrunk_files=None) -> None:
        self.inner, self.on_shrink, self.shrunk_files = inner, on_shrink, shrunk_files
        self.answered = inner.answered
        self.calls = []

    def grade(self, work, shrink=False):
        self.calls.append((work.student, shrink))
        if shrink and self.on_shrink is not None:
            self.on_shrink()
        if shrink and self.shrunk_files is not None:
            work = replace(work, files=self.shrunk_files)
        return self.inner.grade(work, shrink=shrink)


def row(number):
    from grader.web.models import Submission

    return Submission.objects.get(id=number)


def marks(kept):
    """What a shrink pass never changes: the verdict, the score, each case's verdict, when graded."""
    return (kept.verdict, kept.score, kept.max_score, [(c["name"], c["verdict"]) for c in kept.results], kept.graded_at)


def messages(kept):
    """Every case message the row keeps: in its results and in its task record."""
    return [c["message"] for c in kept.results] + [c["message"] for c in kept.record["cases"]]


def graded_once(grading, text=ADDS, user="shr_ann"):
    """``user`` hands ``text`` in as nim_sum.py and the queue is graded (no shrink pass); the row."""
    from grader.web.dispatcher import drain

    number = api_hand_in(user, "nim_sum", text)
    assert drain(grading, "first") == 1
    return row(number)


def test_the_first_result_has_no_smaller_input_and_the_idle_pass_adds_it_with_the_same_marks(grading):
    from grader.web.dispatcher import drain

    first = graded_once(grading)
    assert first.status == "done" and first.verdict != "accepted" and first.shrink_owed
    assert not any(SMALLER in m for m in messages(first)) and SMALLER not in first.report
    page = signed_in("shr_ann").get(f"/submissions/{first.id}/").content.decode()
    assert LOOKING in page and 'http-equiv="refresh"' not in page  # the result is there: no refresh
    right = graded_once(grading, solution("nim_sum"), "shr_ben")
    assert right.verdict == "accepted" and not right.shrink_owed  # nothing failed: nothing to shrink

    assert drain(grading, "idle", shrinks=True) == 0  # the shrink pass grades no hand-in
    second = row(first.id)
    assert not second.shrink_owed and marks(second) == marks(first)
    assert any(SMALLER in m for m in messages(second)) and SMALLER in second.report
    assert (second.status, second.error, second.graded_by) == ("done", "", "first")
    assert LOOKING not in signed_in("shr_ann").get(f"/submissions/{first.id}/").content.decode()
    assert row(right.id).report == right.report  # owed nothing: untouched


def test_a_hand_in_waiting_is_graded_before_any_shrink_pass(grading):
    from grader.web import queue
    from grader.web.dispatcher import drain

    owed = graded_once(grading)
    waiting = api_hand_in("shr_ben", "nim_sum", solution("nim_sum"))
    assert queue.claim_shrink() is None and row(owed.id).shrink_owed  # a row waits: no shrink pass yet
    recorded = Recorded(grading)
    assert drain(recorded, "idle", shrinks=True) == 1
    assert recorded.calls == [("shr_ben", False), ("shr_ann", True)]
    assert row(waiting).verdict == "accepted" and any(SMALLER in m for m in messages(row(owed.id)))


def test_a_shrink_pass_whose_marks_differ_leaves_the_first_result(grading):
    from grader.web.dispatcher import drain

    first = graded_once(grading)
    # a flaky program: right this time (the pass grades the reference solution in its place)
    flaky = Recorded(grading, shrunk_files={"nim_sum.py": solution("nim_sum").encode()})
    drain(flaky, "idle", shrinks=True)
    assert flaky.calls == [("shr_ann", True)]
    kept = row(first.id)
    assert (kept.report, kept.record, kept.results) == (first.report, first.record, first.results)
    assert marks(kept) == marks(first) and not kept.shrink_owed and (kept.status, kept.error) == ("done", "")


def test_a_failed_shrink_pass_is_logged_and_the_row_keeps_its_result(grading, caplog):
    from grader.web.dispatcher import drain

    first = graded_once(grading)

    def fails():
        raise RuntimeError("the cluster went away")

    with caplog.at_level(logging.ERROR, logger="grader.web.dispatcher"):
        drain(Recorded(grading, on_shrink=fails), "idle", shrinks=True)
    assert "its shrink pass failed" in caplog.text
    kept = row(first.id)
    assert kept.report == first.report and not kept.shrink_owed and (kept.status, kept.error) == ("done", "")


def test_a_row_regraded_during_its_shrink_pass_keeps_the_regrades_result_which_owes_one_again(grading):
    from grader.web.dispatcher import drain, shrink_pass
    from grader.web.handin import regrade

    first = graded_once(grading)
    regraded = Recorded(grading, on_shrink=lambda: regrade("nim_sum"))  # an instructor, meanwhile
    assert shrink_pass(regraded)
    kept = row(first.id)
    assert kept.pending and not kept.shrink_owed and kept.report == first.report  # the pass wrote nothing
    assert drain(grading, "again") == 1  # the regrade's own pass: no shrinking, owed again
    again = row(first.id)
    assert again.shrink_owed and again.graded_by == "again" and not any(SMALLER in m for m in messages(again))
    drain(grading, "idle", shrinks=True)
    assert any(SMALLER in m for m in messages(row(first.id)))


def test_a_dask_cluster_is_asked_to_shrink_in_the_second_pass_only(context, monkeypatch):
    distributed = pytest.importorskip("distributed", reason="the Dask backend needs the dask extra")
    from grader.grade.unit_of_work import StudentWork
    from grader.web.grading_backends import DaskGrading, grading_context

    asked = []

    class Client:  # a scheduler that says what each unit's worker was told
        def __init__(self, address, timeout):
            pass

        def submit(self, function, setup, work, pure):
            asked.append(setup.shrink)
            return self

        def result(self):
            return ()

        def release(self):
            pass

    monkeypatch.setattr(distributed, "Client", Client)
    dask = DaskGrading("tcp://scheduler:8786", grading_context(context.runner, COURSE))
    work = StudentWork(student="shr_ann", tasks=(), files={}, known={})
    dask.grade(work)
    dask.grade(work, shrink=True)
    assert asked == [False, True]


def test_check_still_shrinks_at_once(tmp_path, course, context):
    from grader.grade.grading import grade_file

    path = tmp_path / "nim_sum.py"
    path.write_text(ADDS, encoding="utf-8")
    result = grade_file(course["nim_sum"], path, replace(context, jobs=2))  # check's context shrinks
    assert any(SMALLER in case.message for case in result.cases)
