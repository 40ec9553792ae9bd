"""The outputs a submission's page shows (issue 36, "Where students land"): each visible failing
case's input, expected and actual output, bounded, kept with the row at grading
(``landing.kept_outputs``). A row graded before keeps none: its page shows the cases without them
and links the full report."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0015_hidden_after_deadline"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="outputs",
            field=models.JSONField(blank=True, default=list),
        ),
    ]
