"""Joins the two migrations made side by side after 0016: the course's time zone (0017_timezone)
and the roster's comments (0017_roster). Neither touches what the other does; nothing to run."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("portal", "0017_timezone"), ("portal", "0017_roster")]
    operations: list = []
