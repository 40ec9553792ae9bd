"""Default budgets (issue 35): each task's hand-ins per student in total and in any hour, and the
bytes a student's hand-ins keep (``Submission.stored_bytes``, their file and the files sent with
them, filled in here for the rows already kept; ``CourseSetting.max_stored_mib``). A task whose
limits an instructor set keeps them; the hourly budget is new, so it starts at its default."""

from django.db import migrations, models
from django.db.models import OuterRef, Subquery, Sum, Value
from django.db.models.functions import Coalesce, Length


def stored_bytes(apps, schema_editor):
    """Each row's bytes kept: its file's and those of the files sent with it (in the database)."""
    Submission = apps.get_model("portal", "Submission")
    SubmissionFile = apps.get_model("portal", "SubmissionFile")
    others = (
        SubmissionFile.objects.filter(submission=OuterRef("pk"))
        .values("submission")
        .annotate(total=Sum(Length("data")))
        .values("total")
    )
    Submission.objects.update(stored_bytes=Coalesce(Length("data"), Value(0)) + Coalesce(Subquery(others), Value(0)))


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0013_regrade_version"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="stored_bytes",
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.RunPython(stored_bytes, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="taskpolicy",
            name="max_count",
            field=models.PositiveIntegerField(blank=True, default=100, null=True),
        ),
        migrations.AddField(
            model_name="taskpolicy",
            name="max_per_hour",
            field=models.PositiveIntegerField(blank=True, default=20, null=True),
        ),
        migrations.AddField(
            model_name="coursesetting",
            name="max_stored_mib",
            field=models.PositiveIntegerField(default=16),
        ),
    ]
