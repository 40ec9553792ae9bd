"""The course's time zone (issue 37, "Times are local"), and a deadline's minute made whole.

A course had none: it stays in UTC until an instructor sets one on /teach/. A deadline written
23:59 now means on time up to and including 23:59:59 (``local_time``): it is stored as its minute's
last instant. Each deadline and extension already stored moves to the end of its minute (UTC, as
it was written), and the hand-ins of that last minute that were marked late are on time now, as
every page says. Going back leaves the deadlines where they are: the older code reads them as
deadlines a minute later, shown as the same minute.
"""

from django.db import migrations, models


def _end_of_minute(moment):
    return moment.replace(second=59, microsecond=999_999)


def whole_minutes(apps, schema_editor):
    TaskPolicy = apps.get_model("portal", "TaskPolicy")
    Extension = apps.get_model("portal", "Extension")
    Submission = apps.get_model("portal", "Submission")
    for policy in TaskPolicy.objects.exclude(deadline=None):
        moved = _end_of_minute(policy.deadline)
        if moved == policy.deadline:
            continue
        TaskPolicy.objects.filter(pk=policy.pk).update(deadline=moved)
        extended = Extension.objects.filter(task=policy.task).values_list("student_id", flat=True)
        rows = Submission.objects.filter(task=policy.task, late=True, submitted_at__lte=moved)
        rows.exclude(student_id__in=list(extended)).update(late=False)
    for extension in Extension.objects.all():
        moved = _end_of_minute(extension.deadline)
        if moved == extension.deadline:
            continue
        Extension.objects.filter(pk=extension.pk).update(deadline=moved)
        rows = Submission.objects.filter(task=extension.task, student_id=extension.student_id)
        rows.filter(late=True, submitted_at__lte=moved).update(late=False)


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0016_landing_outputs"),
    ]

    operations = [
        migrations.AddField(
            model_name="coursesetting",
            name="time_zone",
            field=models.CharField(default="UTC", max_length=64),
        ),
        migrations.RunPython(whole_minutes, migrations.RunPython.noop),
    ]
