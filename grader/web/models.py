"""What the portal keeps: submissions (the queue's truth), API tokens, per-task rules, course settings.

A ``Submission`` row is written, with the file's bytes, before the upload is answered; grading
claims it (``status`` queued → running, ``attempt`` + 1) and writes its result only for the
attempt that claimed it (``dispatcher``). What grading it owes is a count (``wanted``, ``graded``),
never a flag a late result could clear. Instructors are users with ``is_staff``.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models

from grader.counting import ACCEPT, BEST, CHOSEN, LATEST, NOT_COUNTED, PENALTY

QUEUED, RUNNING, DONE, ERROR = "queued", "running", "done", "error"
STATUSES = [(s, s) for s in (QUEUED, RUNNING, DONE, ERROR)]


class Submission(models.Model):
    """One file handed in for one task, and what grading made of it."""

    student = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")
    task = models.CharField(max_length=64)
    file_name = models.CharField(max_length=255)
    data = models.BinaryField()
    sha256 = models.CharField(max_length=64)
    submitted_at = models.DateTimeField()
    late = models.BooleanField(default=False)
    status = models.CharField(max_length=8, choices=STATUSES, default=QUEUED)
    # Gradings asked for: 1 when handed in, + 1 at each regrade (the old results stay shown until
    # the new ones land). ``claimed_wanted`` is what ``wanted`` was when the attempt holding the row
    # claimed it; ``graded`` what it was when the result shown was claimed. Grading is owed while
    # wanted > graded, so only a grading started after a regrade satisfies it (``queue``).
    wanted = models.PositiveIntegerField(default=1)
    claimed_wanted = models.PositiveIntegerField(default=0)
    graded = models.PositiveIntegerField(default=0)
    # wanted > graded, kept as a column for the queue's index: written only in the statements that
    # change ``wanted`` or ``graded``, and the database refuses a row where it says otherwise
    pending = models.BooleanField(default=True)
    attempt = models.PositiveIntegerField(default=0)  # how many times grading claimed it
    claimed_at = models.DateTimeField(null=True, blank=True)  # set while an attempt holds it
    claimed_by = models.CharField(max_length=200, blank=True)  # the dispatcher (``Worker.name``) holding it
    graded_at = models.DateTimeField(null=True, blank=True)
    graded_by = models.CharField(max_length=200, blank=True)  # the dispatcher that wrote the result
    cases = models.CharField(max_length=64, blank=True)  # digest of the whole task graded against (result_key.digest)
    verdict = models.CharField(max_length=32, null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    max_score = models.FloatField(null=True, blank=True)
    results = models.JSONField(null=True, blank=True)  # [{"name", "verdict", "message", "hidden"}...]
    notes = models.JSONField(default=list, blank=True)  # sentences on the file as a whole (the report's notes)
    report = models.TextField(blank=True)  # the task's page, as check writes it
    # the known mistake its answers match ({"label", "student", "instructor", "matched", "failing"}, {} for none)
    mistake = models.JSONField(default=dict, blank=True)
    # the task record (``report/records.py``) every mark and export of this row is read from
    record = models.JSONField(default=dict, blank=True)
    # its visible failing cases' input, expected and actual output as its page shows them, bounded
    # (``graded_row.kept_outputs``): what a student lands on after handing in, as the report keeps them
    outputs = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    # the student chose this one to count for the task (where the course lets students choose)
    chosen = models.BooleanField(default=False)
    # bytes this hand-in keeps: its file and the files sent with it (the student's storage budget)
    stored_bytes = models.PositiveBigIntegerField(default=0)
    # graded on its public cases only: its hidden cases wait for its student's deadline (``hidden_results``)
    public_only = models.BooleanField(default=False)

    class Meta:
        indexes = [
            models.Index(fields=["pending", "claimed_at", "id"]),
            models.Index(fields=["student", "task", "id"]),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(pending=True, wanted__gt=models.F("graded"))
                | models.Q(pending=False, wanted__lte=models.F("graded")),
                name="pending_is_owed",
            ),
        ]

    @staticmethod
    def digest(data: bytes) -> str:
        return hashlib.sha256(data).hexdigest()


class ApiToken(models.Model):
    """A user's API token, kept as its SHA-256 only (a new one replaces the old)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_token")
    digest = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now=True)

    @staticmethod
    def digest_of(token: str) -> str:
        return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


LATE_RULES = [
    (ACCEPT, "late work counts in full"),
    (PENALTY, "late work loses a share of its points"),
    (NOT_COUNTED, "late work is graded but does not count"),
]


class SubmissionFile(models.Model):
    """Another exercise file handed in with a submission (``working_game.py`` with its ``ui.py``...):
    graded together with the submission's own file, in place of the student's earlier hand-ins."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="companions")
    name = models.CharField(max_length=255)  # "<task>.py" of a task the submission's task uses
    data = models.BinaryField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["submission", "name"], name="one_file_per_name")]


# A task's budgets when no instructor set them (a task with no ``TaskPolicy`` row has these too): a
# new course is safe without configuration. Enough for a student who hands in after every change in
# a lab session, few enough that no script can hand in thousands of probes (docs/portal.md).
MAX_COUNT_PER_TASK = 100  # hand-ins of one task by one student
MAX_PER_HOUR = 20  # hand-ins of one task by one student in any hour


class TaskPolicy(models.Model):
    """How often a task may be handed in, and until when it counts as on time. An unsaved
    ``TaskPolicy(task=...)`` is the policy of a task no instructor set: the defaults."""

    task = models.CharField(max_length=64, unique=True)
    min_interval_s = models.PositiveIntegerField(default=0)  # between two submissions of one student
    # per student; None: no limit
    max_count = models.PositiveIntegerField(null=True, blank=True, default=MAX_COUNT_PER_TASK)
    # per student in any 60 minutes (a sliding window); None: no limit
    max_per_hour = models.PositiveIntegerField(null=True, blank=True, default=MAX_PER_HOUR)
    deadline = models.DateTimeField(null=True, blank=True)  # later ones are graded and marked late
    late_rule = models.CharField(max_length=12, choices=LATE_RULES, default=ACCEPT)
    late_penalty = models.PositiveSmallIntegerField(default=0)  # percent of a late submission's points taken


MARKS_FROM = [
    (LATEST, "each student's latest graded submission"),
    (BEST, "each student's best graded submission"),
    (CHOSEN, "the graded submission each student chose (their latest until they choose)"),
]


# Submissions of one student that may wait to be graded (queued or being graded) at once, unless
# the course sets another bound: enough for ``submit`` to hand in every exercise file of the lab in
# one go, few enough that a flood of hand-ins is refused before it fills the queue.
MAX_WAITING = 10

# Bytes one student's hand-ins may keep, files sent with them included, unless the course sets
# another bound: thousands of lab files of a few kB, but not a flood of 1 MiB ones (16 MiB a student).
MAX_STORED_MIB = 16

# When a task's hidden cases run: after each student's deadline (a new course's choice: until then
# nothing a program does in a hidden case, its verdict or its time, can reach the student), or at
# every hand-in (``hidden_results``).
AFTER_DEADLINE, AT_ONCE = "after_deadline", "at_once"
HIDDEN_RESULTS = [
    (AFTER_DEADLINE, "after each student's deadline"),
    (AT_ONCE, "at every hand-in"),
]


class CourseSetting(models.Model):
    """The course's settings, one row (``pk`` 1; none yet means the defaults): which of a student's
    graded submissions of a task the class page and the gradebooks count, how many of a
    student's submissions may wait to be graded at once (0: no bound), and how many MiB one
    student's hand-ins may keep (0: no bound), and when hidden cases run; the course's time zone
    (an IANA name: deadlines are written and times shown in it, ``local_time``)."""

    marks_from = models.CharField(max_length=8, choices=MARKS_FROM, default=LATEST)
    max_waiting = models.PositiveIntegerField(default=MAX_WAITING)
    max_stored_mib = models.PositiveIntegerField(default=MAX_STORED_MIB)
    hidden_results = models.CharField(max_length=16, choices=HIDDEN_RESULTS, default=AFTER_DEADLINE)
    time_zone = models.CharField(max_length=64, default="UTC")


class Extension(models.Model):
    """A student's own deadline for a task, in place of the task's: their hand-ins are late only after it."""

    student = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="extensions")
    task = models.CharField(max_length=64)
    deadline = models.DateTimeField()
    granted_by = models.CharField(max_length=150, blank=True)
    granted_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["student", "task"], name="one_extension_per_task")]


class Adjustment(models.Model):
    """An instructor's change to a student's counted points on a task, with the comment the student
    reads: added to whatever submission counts (the task's points stay between 0 and its total)."""

    student = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="adjustments")
    task = models.CharField(max_length=64)
    points = models.FloatField()
    comment = models.TextField()
    made_by = models.CharField(max_length=150, blank=True)
    made_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["student", "task"], name="one_adjustment_per_task")]


class FirstSignIn(models.Model):
    """An account still signing in with the one-time password ``users import`` printed: until its
    owner chooses a password of their own, every page leads to the change-password page."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="first_sign_in")


class Worker(models.Model):
    """A dispatcher that grades for the portal, as it last said it was alive (``seen_at``, every few
    seconds while it runs): the queue page lists those seen lately, and what each is grading."""

    name = models.CharField(max_length=200, unique=True)  # host, process id and start time
    threads = models.PositiveIntegerField(default=1)  # submissions it grades at once
    where = models.CharField(max_length=200, blank=True)  # this machine, or the Dask scheduler's address
    started_at = models.DateTimeField()
    seen_at = models.DateTimeField()


class FailedSignIn(models.Model):
    """One failed sign-in, counted against a username's and an address's digest (``login``): kept
    in the database so that every web process sees it and a restart forgets none."""

    key = models.CharField(max_length=80, db_index=True)
    at = models.DateTimeField(db_index=True)


def hold(student) -> None:
    """Make this transaction the only one handing in for ``student`` until it ends. PostgreSQL: lock
    the student's row (READ COMMITTED reads, after the lock, what the one before wrote). SQLite has
    no row locks and needs none: the transaction is immediate, so it already is the only writer."""
    list(get_user_model().objects.select_for_update().filter(pk=student.pk).values_list("pk", flat=True))


class Comment(models.Model):
    """A remark of an instructor or TA on a submission, which its student reads on the submission's
    page: points stay as they are (an adjustment changes points; a comment only speaks)."""

    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="comments")
    text = models.TextField()
    made_by = models.CharField(max_length=150, blank=True)
    made_at = models.DateTimeField()
