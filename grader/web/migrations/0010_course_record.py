"""The course record's rules: a per-task late rule and penalty, students' extensions, instructors'
adjustments with a comment, a submission a student chose to count, and the other files handed in with a
submission (graded together)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("portal", "0009_task_record"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="chosen",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="taskpolicy",
            name="late_penalty",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="taskpolicy",
            name="late_rule",
            field=models.CharField(
                choices=[
                    ("accept", "late work counts in full"),
                    ("penalty", "late work loses a share of its points"),
                    ("not_counted", "late work is graded but does not count"),
                ],
                default="accept",
                max_length=12,
            ),
        ),
        migrations.AlterField(
            model_name="coursesetting",
            name="marks_from",
            field=models.CharField(
                choices=[
                    ("latest", "each student's latest graded submission"),
                    ("best", "each student's best graded submission"),
                    ("chosen", "the graded submission each student chose (their latest until they choose)"),
                ],
                default="latest",
                max_length=8,
            ),
        ),
        migrations.CreateModel(
            name="Adjustment",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("task", models.CharField(max_length=64)),
                ("points", models.FloatField()),
                ("comment", models.TextField()),
                ("made_by", models.CharField(blank=True, max_length=150)),
                ("made_at", models.DateTimeField()),
                (
                    "student",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="adjustments",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("student", "task"), name="one_adjustment_per_task")],
            },
        ),
        migrations.CreateModel(
            name="Extension",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("task", models.CharField(max_length=64)),
                ("deadline", models.DateTimeField()),
                ("granted_by", models.CharField(blank=True, max_length=150)),
                ("granted_at", models.DateTimeField()),
                (
                    "student",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="extensions",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("student", "task"), name="one_extension_per_task")],
            },
        ),
        migrations.CreateModel(
            name="SubmissionFile",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=255)),
                ("data", models.BinaryField()),
                (
                    "submission",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="companions", to="portal.submission"
                    ),
                ),
            ],
            options={
                "constraints": [models.UniqueConstraint(fields=("submission", "name"), name="one_file_per_name")],
            },
        ),
    ]
