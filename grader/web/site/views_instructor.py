"""The instructors' pages: the class, each student's history, the queue, regrades, the gradebook,
each task's limits and deadline, and whether marks come from the latest or the best submission.

In: requests of signed-in staff (``is_staff``; a student gets 403, a visitor the sign-in page):
instructors and TAs read every page, only instructors change anything (every POST here is
``enrolment.instructor_required``: a TA gets 403 with a sentence). Out: the class overview ``grade``
writes (``report.pages.class_html``), fed from everyone's latest (or best) graded submissions
(``class_marks``), served at ``/teach/class/`` so that its links to ``NAME/index.html`` open that
student's history; the queue (waiting, running, errors with their sentences); a regrade per task (a
page that says how many submissions it queues, then a POST, CSRF-protected, the API's regrade); the
gradebook CSV; the forms of the limits (one task's, or every task's at once), the marks, the bound
on each student's submissions waiting to be graded and the course's time zone (POST, CSRF-protected;
a bad value is a 400 page saying why, and nothing changes)."""

from __future__ import annotations

from datetime import datetime
from functools import wraps
from typing import Dict, Set

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.db import transaction
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from grader.report.exports import gradebook_csv
from grader.report.pages import class_html
from grader.safe_text import for_page, plural
from grader.web.enrolment import class_members, dropped_students, instructor_required, is_ta, left_out
from grader.web.local_time import course_zone, shown_time, store_zone, zone_name, zone_or_sentence
from grader.web.marks.class_marks import class_marks, counted_in_words, roster_people
from grader.web.marks.gradescope_export import gradescope_zip
from grader.web.marks.late_work import late_change_words, refresh_late
from grader.web.marks.policies import (
    marks_from,
    max_stored_bytes,
    max_waiting,
    parse_limits,
    parse_limits_for_all,
    parse_marks_from,
    parse_max_stored,
    parse_max_waiting,
    policies_by_task,
    policy_for,
    shown_deadline,
    store_limits,
    store_limits_for_all,
    store_marks_from,
    store_max_stored,
    store_max_waiting,
)
from grader.web.models import AT_ONCE, BEST, CHOSEN, DONE, ERROR, Extension, Submission, TaskPolicy
from grader.web.site.handin import only_latest, regrade_ids, regrade_words
from grader.web.site.handin import regrade as regrade_task
from grader.web.site.pages import REPORT_POLICY
from grader.web.site.similar_section import similar_hand_ins
from grader.web.worker import publishing
from grader.web.worker.course_state import course_problem, course_tasks
from grader.web.worker.hidden_results import hidden_results, parse_hidden_results, release_due, store_hidden_results
from grader.web.worker.queue import live_workers


def staff_required(view):
    """The view for instructors; the sign-in page for visitors, 403 for students."""

    @wraps(view)
    def checked(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not request.user.is_staff:
            return render(request, "web/forbidden.html", status=403)
        return view(request, *args, **kwargs)

    return checked


def _pending():
    return Submission.objects.filter(pending=True).select_related("student").defer("data", "report")


@staff_required
def teach(request, problem: str = "", status: int = 200):
    """The instructor's start: each task with its limits and regrade button, the students, the
    queue's size, where marks come from; ``problem`` is why a form was refused; a course whose files
    stopped loading is said with its file, line and problem; the similar hand-ins (``views_similar``)."""
    tasks = course_tasks()
    policies = policies_by_task()
    counts: Dict[str, Set[str]] = {task_id: set() for task_id in tasks}
    dropped = left_out()
    for task_id, student in Submission.objects.values_list("task", "student__username"):
        if student not in dropped:
            counts.setdefault(task_id, set()).add(student)
    zone = course_zone()
    shown = publishing.shown(tasks)
    context = {
        "tasks": [
            {
                "task": task,
                "count": len(counts.get(task.id, ())),
                "policy": policies.get(task.id) or policy_for(task.id),  # unset: the defaults
                "deadline": shown_deadline(policies.get(task.id), zone),
            }
            for task in tasks.values()
        ],
        "marks_from": marks_from(),
        "time_zone": zone_name(zone),
        "hidden_results": hidden_results(),
        "public_only": Submission.objects.filter(public_only=True, status=DONE).count(),
        "max_waiting": max_waiting(),
        "max_stored_mib": max_stored_bytes() // (1024 * 1024),
        "problem": problem,
        "course_problem": course_problem(),
        "publishing": shown,
        "published": shown_time(datetime.fromisoformat(shown.version.published_at), zone) if shown.version else "",
        "students": class_members(),
        "dropped": dropped_students(),
        "is_ta": is_ta(request.user),
        "waiting": _pending().count(),
        "errors": Submission.objects.filter(status=ERROR).count(),
        "similar": similar_hand_ins(),
    }
    return render(request, "web/teach.html", context, status=status)


@require_POST
@instructor_required
def limits(request, task_id: str):
    """Set a task's minimum interval, maximum count and deadline; back to the instructor's page."""
    if task_id not in course_tasks():
        raise Http404("no such task")
    parsed = parse_limits(request.POST)
    if isinstance(parsed, str):
        return teach(request, problem=f"{task_id}: {parsed}; nothing was changed.", status=400)
    with transaction.atomic():  # one transaction: a hand-in meanwhile waits on the policy's row lock
        store_limits(task_id, parsed)
        changed = late_change_words(*refresh_late([task_id]))
    release_due()  # a deadline now past: the hidden cases that waited for it run
    messages.success(request, f"{task_id}: limits and deadline saved.{changed}")
    return redirect("teach")


@require_POST
@instructor_required
def limits_all(request):
    """Set the same interval, count and/or deadline on every task, checked as ``limits`` checks one
    task's: all of them, or, with the sentence saying why, none."""
    fields = parse_limits_for_all(request.POST)
    if isinstance(fields, str):
        return teach(request, problem=f"Every task: {fields}; nothing was changed.", status=400)
    tasks = course_tasks()
    with transaction.atomic():
        store_limits_for_all(list(tasks), fields)
        changed = late_change_words(*refresh_late(list(tasks)))
    release_due()
    messages.success(request, f"Every task ({plural(len(tasks), 'task')}): limits and deadline saved.{changed}")
    return redirect("teach")


@require_POST
@instructor_required
def marks(request):
    """Set whether marks come from each student's latest or best graded submission."""
    choice, problem = parse_marks_from(request.POST.get("marks_from", ""))
    if choice is None:
        return teach(request, problem=f"{problem[0].upper()}{problem[1:]}; nothing was changed.", status=400)
    store_marks_from(choice)
    messages.success(request, f"Marks now come from each student's {choice} graded submission.")
    return redirect("teach")


@require_POST
@instructor_required
def waiting_bound(request):
    """Set how many of a student's submissions may wait to be graded at once and, when the form
    sends it, how many MiB their hand-ins may keep (0 or empty: no bound); both or neither."""
    bound = parse_max_waiting(request.POST.get("max_waiting", ""))
    stored = parse_max_stored(request.POST["max_stored_mib"]) if "max_stored_mib" in request.POST else None
    for wrong in (bound, stored):
        if isinstance(wrong, str):
            return teach(request, problem=f"{wrong[0].upper()}{wrong[1:]}; nothing was changed.", status=400)
    assert isinstance(bound, int)
    store_max_waiting(bound)
    said = f"at most {bound} of a student's submissions" if bound else "any number of a student's submissions"
    kept = ""
    if isinstance(stored, int):
        store_max_stored(stored)
        kept = f" A student's hand-ins may keep {f'{stored} MiB' if stored else 'any number of bytes'}."
    messages.success(request, f"Now {said} may wait to be graded at once.{kept}")
    return redirect("teach")


@require_POST
@instructor_required
def time_zone(request):
    """Set the course's time zone (an IANA name, checked against this machine's time zone
    database): deadlines are written and every time shown in it from now on. Deadlines already set
    keep their moment, and the sentence says how many are now shown in the new zone."""
    name, problem = zone_or_sentence(request.POST.get("time_zone", ""))
    if not name:
        return teach(request, problem=f"{problem[0].upper()}{problem[1:]}; nothing was changed.", status=400)
    store_zone(name)
    kept = TaskPolicy.objects.exclude(deadline=None).count() + Extension.objects.count()
    keep = "keeps its" if kept == 1 else "keep their"
    moved = f" {plural(kept, 'deadline')} already set {keep} moment, now shown in {name} time." if kept else ""
    messages.success(request, f"The course's time zone is {name}: deadlines are written and times shown in it.{moved}")
    return redirect("teach")


@require_POST
@instructor_required
def hidden(request):
    """Set when hidden cases run: after each student's deadline, or at every hand-in (the rows
    graded on their public cases whose hidden cases may now run are graded again in full)."""
    choice, problem = parse_hidden_results(request.POST.get("hidden_results", ""))
    if choice is None:
        return teach(request, problem=f"{problem[0].upper()}{problem[1:]}; nothing was changed.", status=400)
    owed = store_hidden_results(choice)
    when = "at every hand-in" if choice == AT_ONCE else "after each student's deadline"
    again = f" {plural(owed, 'submission')} graded on the public cases only will be graded again in full."
    again = again if owed else ""
    messages.success(request, f"Hidden cases now run {when}.{again}")
    return redirect("teach")


@staff_required
def class_page(request):
    """The class overview a class run writes, from everyone's latest (or best) graded submissions,
    with each student's name from the roster beside their username."""
    tasks = list(course_tasks().values())
    found, tallies = class_marks(tasks)
    back = (("/teach/", "← The class"),)  # not in ``grade``'s own overview, a file among files
    names = {username: name for username, (name, _) in roster_people().items() if name}
    page = class_html(found, tallies, tasks, f"live from the portal: {counted_in_words()}", back, names)
    response = HttpResponse(page, content_type="text/html; charset=utf-8")
    response["Content-Security-Policy"] = REPORT_POLICY
    return response


@staff_required
def queue(request):
    """What waits for grading, what is being graded and by which dispatcher (those alive now), and
    what the grader could not grade."""
    pending = list(_pending().order_by("id")[:500])
    running = [row for row in pending if row.claimed_at is not None]
    workers = [
        {"worker": worker, "grading": [row for row in running if row.claimed_by == name]}
        for name, worker in live_workers().items()
    ]
    context = {
        "waiting": [row for row in pending if row.claimed_at is None],
        "running": running,
        "workers": workers,
        "errors": [  # each with its sentence, which may quote a program, as ``safe_text`` shows it
            {"row": row, "error": for_page(row.error or "")}
            for row in Submission.objects.filter(status=ERROR)
            .select_related("student")
            .defer("data", "report")
            .order_by("-id")[:200]
        ],
    }
    return render(request, "web/queue.html", context)


@require_POST
@instructor_required
def publish(request):
    """Publish the course folder's edits (``publishing``: verify on the changed tasks first), then back
    to /teach/, which says the version now live or why the live one stays. A regrade is offered there,
    never run."""
    outcome = publishing.publish(request.user.username)
    say = messages.success if outcome.version is not None else messages.info if outcome.nothing else messages.error
    for sentence in outcome.sentences():  # verify's findings one by one, each with its file and line
        say(request, sentence)
    return redirect("teach")


@require_http_methods(["GET", "POST"])
@instructor_required
def regrade(request, task_id: str):
    """Two steps, as no script may ask: a GET (or a POST without ``confirm``) shows how many
    submissions a regrade of the task would queue (each student's latest and the one that counts;
    under "best", every graded one too), with the button that POSTs ``confirm``; that POST grades
    them again, then back to the instructor's page."""
    tasks = course_tasks()
    if task_id not in tasks:
        raise Http404("no such task")
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        queued = regrade_task(task_id, by=request.user.username)
        messages.success(
            request,
            f"{task_id}: {regrade_words(queued, task_id)} queued for grading again (old results stay until then).",
        )
        return redirect("teach")
    count = len(regrade_ids(task_id))
    latest = "each student's latest" if only_latest(task_id) else "each student's latest and the one that counts"
    which = {
        BEST: "every graded one of each student, as the best counts",
        CHOSEN: "each student's latest and the one they chose",
    }.get(marks_from(), latest)
    context = {"task": tasks[task_id], "count": count, "said": regrade_words(count, task_id), "which": which}
    return render(request, "web/regrade.html", context)


@staff_required
def gradebook(request):
    """The gradebook CSV of everyone's latest (or best) graded submissions, as ``grade`` writes it,
    with the roster's ``name`` and ``email`` as its last two columns; with ``?lms=1``, as
    ``gradebook-lms.csv``: the Points Possible row first after the header, for an LMS import."""
    tasks = list(course_tasks().values())
    found, _ = class_marks(tasks)
    lms = request.GET.get("lms") == "1"
    text = gradebook_csv(found, tasks, roster_people(), points_possible=lms)
    response = HttpResponse(text, content_type="text/csv; charset=utf-8")
    name = "gradebook-lms.csv" if lms else "gradebook.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@staff_required
def gradescope(request):
    """Every student's Gradescope ``results.json`` in a zip, from their latest (or best) graded work."""
    response = HttpResponse(gradescope_zip(list(course_tasks().values())), content_type="application/zip")
    response["Content-Disposition"] = 'attachment; filename="gradescope.zip"'
    return response
