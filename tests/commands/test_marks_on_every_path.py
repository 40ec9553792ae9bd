"""One file, the same marks on every path: ``check``, ``grade`` and the portal apply one rule (after
a task's second time-out its other cases are not run), and ``--all`` runs every case on both
commands."""

from __future__ import annotations

import json
import sys

from support import PROJECT, course_of, gradebook_students, mutate

from grader.cli.main import main

# exclusive_or loops when its first bit is 0 (cases "0 0" and the hidden "0 1"), and is right otherwise
LOOPS = mutate("exclusive_or", "    if a == b:\n", "    while a == 0:\n        pass\n    if a == b:\n")
TASK = "exclusive_or"


def one_task_course(tmp_path):
    """A course of exclusive_or alone (a class run starts by reading every task's known mistakes)."""
    course = tmp_path / "course"
    return course if course.exists() else course_of(course, [TASK])


def check_score(tmp_path, *options) -> float:
    path = tmp_path / "mine" / f"{TASK}.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(LOOPS, encoding="utf-8")
    out = tmp_path / "check.json"
    with out.open("w") as sink:
        stdout, sys.stdout = sys.stdout, sink
        try:
            main(
                [
                    "check",
                    str(path),
                    "--json",
                    "--report",
                    str(tmp_path / "report"),
                    "--course",
                    str(one_task_course(tmp_path)),
                    *options,
                ]
            )
        finally:
            sys.stdout = stdout
    return json.loads(out.read_text())["tasks"][0]["score"]


def grade_score(tmp_path, *options) -> float:
    room = tmp_path / "class"
    (room / "ann").mkdir(parents=True, exist_ok=True)
    (room / "ann" / f"{TASK}.py").write_text(LOOPS, encoding="utf-8")
    out = tmp_path / ("out" + "".join(options))
    main(
        ["grade", str(room), "--out", str(out), "--course", str(PROJECT), "--allow-unprotected", "--no-cache", *options]
    )
    (row,) = gradebook_students((out / "gradebook.csv").read_text(encoding="utf-8"))
    return float(row[TASK])


def test_check_and_grade_give_a_looping_file_the_same_marks_and_all_runs_every_case(tmp_path):
    quick = check_score(tmp_path)
    assert quick == grade_score(tmp_path)
    everything = check_score(tmp_path, "--all")
    assert everything == grade_score(tmp_path, "--all")
    assert quick < everything  # the rule matters here: the cases after the second time-out earn nothing


def test_the_portal_gives_the_same_marks_as_check(tmp_path, django_site, grade_queue):
    from django.db import transaction
    from portal_client import api_hand_in

    from grader.web.models import AT_ONCE, CourseSetting, Submission
    from grader.web.site import roster as accounts

    roster = tmp_path / "roster.csv"
    roster.write_text("username,role\nsam,student\n")
    with transaction.atomic():  # the session's one portal: nothing of this test stays for others
        accounts.import_roster(roster)
        # the marks once every case ran (before the deadline a hand-in runs its public cases only)
        CourseSetting.objects.update_or_create(pk=1, defaults={"hidden_results": AT_ONCE})
        number = api_hand_in("sam", TASK, LOOPS)
        grade_queue()
        assert Submission.objects.get(id=number).score == check_score(tmp_path)
        transaction.set_rollback(True)
