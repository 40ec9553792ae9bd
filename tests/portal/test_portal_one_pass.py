"""The portal grades a hand-in in one pass, shrinking included: the first result already shows the
smaller failing input, and every visible run (shrinking too) ends before the first hidden case
(``grade/hand_in.py``), so no later run of the hand-in can print what a hidden case left behind."""

from __future__ import annotations

import sys
import threading
from dataclasses import replace

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_hand_in, set_up_portal, signed_in  # noqa: E402
from support import COURSE, PROJECT  # noqa: E402

# A known-wrong nim_sum (it adds the rows): wrong on the random boards, and on smaller ones too.
ADDS = (PROJECT / "solutions" / "wrong" / "nim_sum" / "adds_the_rows.py").read_text(encoding="utf-8")
SMALLER = "A smaller input that fails too:"  # what ``verdicts.with_smaller_input`` adds to a message


@pytest.fixture(scope="module", autouse=True)
def roster(tmp_path_factory):
    set_up_portal(tmp_path_factory.mktemp("portal"), "username,role\none_ann,student\n")


class OrderProbe:
    """The session's runner, noting each run's input in the order the runs start."""

    def __init__(self, inner) -> None:
        self.inner, self.inputs, self._lock = inner, [], threading.Lock()

    def run(self, program, stdin, limits):
        with self._lock:
            self.inputs.append(stdin.decode("utf-8", "replace"))
        return self.inner.run(program, stdin, limits)

    def protections(self, python):
        return self.inner.protections(python)


def test_the_first_result_shows_the_smaller_input_and_no_visible_run_follows_a_hidden_one(context):
    from grader.web.models import Submission
    from grader.web.worker.course_state import course_tasks as COURSE_TASKS  # noqa: N812
    from grader.web.worker.dispatcher import drain
    from grader.web.worker.grading_backends import LocalGrading, grading_context

    probe = OrderProbe(context.runner)
    grading = LocalGrading(replace(grading_context(probe, COURSE), case_jobs=2))
    number = api_hand_in("one_ann", "nim_sum", ADDS)
    assert drain(grading, "one") == 1
    kept = Submission.objects.get(id=number)
    assert kept.status == "done" and kept.verdict != "accepted"
    assert any(SMALLER in case["message"] for case in kept.results) and SMALLER in kept.report
    page = signed_in("one_ann").get(f"/submissions/{number}/").content.decode()
    assert SMALLER in page and "as soon as it is graded" not in page

    hidden = {case.input for case in COURSE_TASKS()["nim_sum"].cases if case.hidden}
    kinds = ["hidden" if text in hidden else "visible" for text in probe.inputs]
    first_hidden = kinds.index("hidden")
    assert "visible" not in kinds[first_hidden:], "a visible run came after a hidden one"
