"""One grading pass, shrinking included (every visible run of a hand-in before its first hidden
case): no row owes a second pass, so ``Submission.shrink_owed`` and its index go."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0011_shrink_later"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="submission", name="owes_shrink"),
        migrations.RemoveField(model_name="submission", name="shrink_owed"),
    ]
