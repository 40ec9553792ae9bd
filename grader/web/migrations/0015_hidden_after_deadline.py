"""Hidden cases that wait for the deadline (issue 35, invariant 3): the course's choice of when they
run (``CourseSetting.hidden_results``) and which rows were graded on their public cases only
(``Submission.public_only``). A new course runs them after each student's deadline; a portal that
already holds hand-ins keeps running them at every hand-in, as it did (its instructor chooses on
``/teach/``): a class in the middle of a term does not lose the results it had."""

from django.db import migrations, models


def keep_what_a_running_course_had(apps, schema_editor):
    Submission = apps.get_model("portal", "Submission")
    CourseSetting = apps.get_model("portal", "CourseSetting")
    if Submission.objects.exists():
        CourseSetting.objects.update_or_create(pk=1, defaults={"hidden_results": "at_once"})


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0014_budgets"),
    ]

    operations = [
        migrations.AddField(
            model_name="coursesetting",
            name="hidden_results",
            field=models.CharField(
                choices=[("after_deadline", "after each student's deadline"), ("at_once", "at every hand-in")],
                default="after_deadline",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="submission",
            name="public_only",
            field=models.BooleanField(default=False),
        ),
        migrations.RunPython(keep_what_a_running_course_had, migrations.RunPython.noop),
    ]
