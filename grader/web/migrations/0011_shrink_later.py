"""Shrinking off the critical path: a submission graded without shrinking whose failure shrinking
applies to owes a second pass (``Submission.shrink_owed``), found through an index of those rows only."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0010_course_record"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="shrink_owed",
            field=models.BooleanField(default=False),
        ),
        migrations.AddIndex(
            model_name="submission",
            index=models.Index(condition=models.Q(("shrink_owed", True)), fields=["id"], name="owes_shrink"),
        ),
    ]
