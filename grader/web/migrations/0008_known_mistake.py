"""The known mistake a graded submission's answers match (``Submission.mistake``), for the class
page's common mistakes; submissions graded before have none until they are graded again."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0007_waiting_bound"),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="mistake",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
