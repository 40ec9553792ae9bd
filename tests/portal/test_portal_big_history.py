"""Pages under a big history (issue 35, invariant 2): the student's own pages, her record, the
class page and the gradebook read a bounded number of submission rows per student and task, the
marks picked among a few candidates the database finds; the marks are those the one rule
(``counting.pick``) gives over every row, whatever the history, the late rules and the choices."""

from __future__ import annotations

import random
import sys
from contextlib import contextmanager

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import signed_in  # noqa: E402

HISTORY = 400  # graded hand-ins of one task by one student: four times the default count
BULKY = "x" * 4000  # a long message in each case's record, as a program's output makes it


@pytest.fixture(scope="module", autouse=True)
def people(tmp_path_factory):
    from django.contrib.auth import get_user_model
    from portal_client import set_up_portal

    set_up_portal(tmp_path_factory.mktemp("roster"), "username,role\nann,student\nben,student\nteach,instructor\n")
    return {name: get_user_model().objects.get(username=name) for name in ("ann", "ben", "teach")}


def record(task, score, max_score=10.0):
    cases = [{"name": f"case {n}", "verdict": "wrong_answer", "message": BULKY, "hidden": False} for n in range(5)]
    return {"format": 1, "task": task, "file": f"{task}.py", "verdict": "wrong_answer", "score": score,
            "max_score": max_score, "cases": cases, "notes": []}  # fmt: skip


def history(student, task, count, seed=0, late_share=0.0, chosen=()):
    """``count`` graded rows of ``student``'s ``task``, oldest first, random scores (some equal)."""
    from django.utils import timezone

    from grader.web.models import DONE, Submission

    chance = random.Random(seed)
    now = timezone.now()
    rows = []
    for number in range(count):
        score = float(chance.choice([0, 2, 5, 5, 7, 10]))
        rows.append(
            Submission(
                student=student,
                task=task,
                file_name=f"{task}.py",
                data=b"#",
                sha256="",
                submitted_at=now,
                status=DONE,
                pending=False,
                graded=1,
                score=score,
                max_score=10.0,
                verdict="wrong_answer",
                late=chance.random() < late_share,
                chosen=number in chosen,
                record=record(task, score),
            )  # fmt: skip
        )
    return Submission.objects.bulk_create(rows)


@contextmanager
def rows_read():
    """Counts the submission rows Django makes from the database (``Model.from_db``) meanwhile."""
    from grader.web.models import Submission

    read = {"rows": 0}
    original = Submission.from_db.__func__

    def counting(cls, db, field_names, values):
        read["rows"] += 1
        return original(cls, db, field_names, values)

    Submission.from_db = classmethod(counting)
    try:
        yield read
    finally:
        del Submission.from_db


@pytest.mark.parametrize(
    "path",
    ["/", "/tasks/nim_sum/", "/teach/class/ann/index.html", "/teach/class/", "/teach/gradebook.csv"],
    ids=["home", "task", "record", "class", "gradebook"],
)
def test_a_page_reads_a_bounded_number_of_rows_whatever_the_history(people, path):
    history(people["ann"], "nim_sum", HISTORY)
    history(people["ben"], "nim_sum", 3, seed=1)
    client = signed_in("teach" if path.startswith("/teach/") else "ann")
    with rows_read() as read:
        answer = client.get(path)
    assert answer.status_code == 200
    # a page of 50 and a few candidates per student and task, never the history's 400
    assert read["rows"] <= 80, f"{path} read {read['rows']} submission rows"


def test_the_history_is_listed_a_page_at_a_time_and_numbered_as_handed_in(people):
    made = history(people["ann"], "nim_sum", 120)
    client = signed_in("ann")

    def listed(page, number):  # the line of hand-in #number in the page's list
        return f'data-label="Submission"><a href="/submissions/{made[number - 1].id}/">#{number}</a>' in page

    first = client.get("/tasks/nim_sum/").content.decode()
    assert listed(first, 120) and listed(first, 71) and not listed(first, 70)
    older = made[70].id  # the oldest on the first page
    assert f'href="?before={older}"' in first
    second = client.get(f"/tasks/nim_sum/?before={older}").content.decode()
    assert listed(second, 70) and listed(second, 21) and not listed(second, 120) and not listed(second, 20)
    third = client.get(f"/tasks/nim_sum/?before={made[20].id}").content.decode()
    assert listed(third, 1) and listed(third, 20) and "?before=" not in third
    assert client.get("/tasks/nim_sum/?before=not-a-number").status_code == 200


@pytest.mark.parametrize("marks_from", ["latest", "best", "chosen"])
@pytest.mark.parametrize("late_rule", ["accept", "penalty", "not_counted"])
def test_the_marks_picked_among_the_candidates_are_the_rules_over_every_row(people, marks_from, late_rule):
    """Random histories: ``counted_work`` (candidates found in the database) against ``pick`` over
    every row, for each course rule and late rule."""
    from grader.counting import BEST, Graded, LateRule, pick, standing
    from grader.web.marks.class_marks import counted_work
    from grader.web.models import CourseSetting, Submission, TaskPolicy

    CourseSetting.objects.update_or_create(pk=1, defaults={"marks_from": marks_from})
    TaskPolicy.objects.update_or_create(task="nim_sum", defaults={"late_rule": late_rule, "late_penalty": 100})
    TaskPolicy.objects.update_or_create(task="bin_num", defaults={"late_rule": late_rule, "late_penalty": 30})
    for seed in range(6):
        chance = random.Random(seed)
        for name in ("ann", "ben"):
            for task in ("nim_sum", "bin_num"):
                count = chance.randint(1, 25)
                history(people[name], task, count, seed=seed * 7 + len(name), late_share=chance.random(),
                        chosen=set(chance.sample(range(count), chance.randint(0, 2))))  # fmt: skip
        found = counted_work()
        for name in ("ann", "ben"):
            for task in ("nim_sum", "bin_num"):
                rows = Submission.objects.filter(student=people[name], task=task).order_by("id")
                graded = [Graded(r.id, r.score or 0.0, r.late, r.chosen) for r in rows]
                rule = LateRule(late_rule, 100 if task == "nim_sum" else 30)
                counts = pick(graded, marks_from, rule)
                shown = counts if counts is not None else graded[-1]
                got = found[(name, task)]
                assert got.row.id == shown.number, (seed, name, task)
                assert got.standing == standing(graded, counts, rule, None)
                top = pick(graded, BEST, rule)
                if got.better is not None:
                    assert got.better.id == top.number
        Submission.objects.all().delete()
