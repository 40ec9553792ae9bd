"""Comments on a submission (issue 37, "The roster changes during a term"): an instructor's or a
TA's remark its student reads on the submission's page, with no change of points. Dropping a
student and the TA role need no column of their own: Django's ``is_active`` and a group
(``enrolment``)."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0016_landing_outputs"),
    ]

    operations = [
        migrations.CreateModel(
            name="Comment",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("text", models.TextField()),
                ("made_by", models.CharField(blank=True, max_length=150)),
                ("made_at", models.DateTimeField()),
                (
                    "submission",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="comments", to="portal.submission"
                    ),
                ),
            ],
        ),
    ]
