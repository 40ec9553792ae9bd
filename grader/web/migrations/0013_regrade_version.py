"""A regrade is a version, not a flag: ``Submission.wanted`` (gradings asked for), ``claimed_wanted``
(what the attempt holding the row saw) and ``graded`` (what the result shown answers); ``pending``
stays, as wanted > graded, checked by the database. A row graded already answers its one hand-in
(graded 1); one owed (handed in, or regraded before this) owes one more (graded 0); one being
graded now is held for its one hand-in (claimed_wanted 1)."""

from django.db import migrations, models


def versions(apps, schema_editor):
    Submission = apps.get_model("portal", "Submission")
    Submission.objects.filter(pending=False).update(graded=1)
    Submission.objects.filter(claimed_at__isnull=False).update(claimed_wanted=1)
    if schema_editor.connection.vendor == "postgresql":
        # the updates queued the deferred foreign-key checks, and PostgreSQL alters no table with
        # checks pending in its transaction: run them now
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0012_one_pass"),
    ]

    operations = [
        migrations.AddField(model_name="submission", name="wanted", field=models.PositiveIntegerField(default=1)),
        migrations.AddField(
            model_name="submission", name="claimed_wanted", field=models.PositiveIntegerField(default=0)
        ),
        migrations.AddField(model_name="submission", name="graded", field=models.PositiveIntegerField(default=0)),
        migrations.RunPython(versions, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="submission",
            constraint=models.CheckConstraint(
                condition=models.Q(("pending", True), ("wanted__gt", models.F("graded")))
                | models.Q(("pending", False), ("wanted__lte", models.F("graded"))),
                name="pending_is_owed",
            ),
        ),
    ]
