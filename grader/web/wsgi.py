"""The portal as a WSGI application, for a server of several web processes (gunicorn, uWSGI,
``waitress-serve``), with one ``python -m grader dispatch`` grading beside them.

In: the environment: ``NIM_GRADER_DATA`` (the data folder: its secret key; the SQLite database
unless ``NIM_GRADER_DB`` names another), ``NIM_GRADER_COURSE`` (default: this project),
``NIM_GRADER_ALLOWED_HOSTS`` (the site's names, comma-separated), ``NIM_GRADER_HTTPS=1`` behind a
proxy with TLS, ``NIM_GRADER_PROXY`` (the reverse proxy's address: its ``X-Forwarded-For`` and
``X-Forwarded-Proto`` are believed, as ``serve --proxy`` does; from anyone else they are dropped,
so the sign-in limits count each student's own address). Out: ``application``, whose access and
error logs go to ``DATA/logs/`` (``logs``). It never
migrates (several processes would race to): the database must be made ready first by
``dispatch``, ``serve`` or ``users import``, and a process started before that says so.

    NIM_GRADER_DATA=/srv/nim-portal gunicorn -w 4 -b 127.0.0.1:8000 grader.web.wsgi:application
"""

from __future__ import annotations

import os
from pathlib import Path

from grader.course.layout import Course
from grader.errors import UsageError
from grader.web.settings import configure
from grader.web.site.forwarded import ForwardedBy


def _application():
    data = os.environ.get("NIM_GRADER_DATA")
    if not data:
        raise UsageError("set NIM_GRADER_DATA to the portal's data folder (as given to serve --data).")
    course = Path(os.environ.get("NIM_GRADER_COURSE") or Path(__file__).resolve().parents[2])
    if not Course(course).is_course():
        raise UsageError(f"NIM_GRADER_COURSE={course}: not a course folder (testcases/, solutions/, exercises/).")
    names = tuple(n.strip() for n in os.environ.get("NIM_GRADER_ALLOWED_HOSTS", "").split(",") if n.strip())
    configure(Path(data).resolve(), course, os.environ.get("NIM_GRADER_DB") or None, names)
    from grader.web import logs

    logs.setup(Path(data).resolve(), "wsgi")  # DATA/logs/, shared with the other processes of the portal
    from django.core.wsgi import get_wsgi_application
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        raise UsageError(
            f"the portal's database ({data}) is not ready: start python -m grader dispatch (or serve) once, "
            "which makes it ready, before the web processes."
        )
    connection.close()  # each web process opens its own
    return ForwardedBy(get_wsgi_application(), os.environ.get("NIM_GRADER_PROXY", "").strip())


application = _application()
