"""How many of a student's submissions may wait to be graded at once (``CourseSetting.max_waiting``):
a course that set its settings before keeps them, with the default bound."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0006_conceal_hidden_results"),
    ]

    operations = [
        migrations.AddField(
            model_name="coursesetting",
            name="max_waiting",
            field=models.PositiveIntegerField(default=10),
        ),
    ]
