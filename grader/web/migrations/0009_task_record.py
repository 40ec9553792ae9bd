"""The task record a graded submission keeps (``Submission.record``, ``report/records.py``): marks and
exports are read from it; rows graded before are read from their other columns."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0008_known_mistake"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="record",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
