"""``python -m grader serve``: the site and its grading in one process, for one machine.

In: the data folder (created, and its database made ready or migrated, on start), the course,
where to listen. Out: a WSGI server (waitress: a pure-Python production server, threads, no
native code) and the dispatcher's grading threads, until SIGTERM or Ctrl-C stops both cleanly.
"""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path
from typing import Optional

from grader.errors import UsageError
from grader.web.settings import configure


def prepare(data: Path, course: Path, db_url: Optional[str] = None, hosts: tuple = ()) -> None:
    """Configure Django for ``data`` and bring its database to the current schema."""
    configure(data, course, db_url, hosts)
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def proxy_options(proxy: Optional[str]) -> dict:
    """waitress's settings for a reverse proxy at ``proxy`` (None: no proxy; forwarded headers are
    dropped, so nobody can claim another address to dodge the sign-in limits)."""
    if not proxy:
        return {"clear_untrusted_proxy_headers": True}
    return {
        "trusted_proxy": proxy,
        "trusted_proxy_count": 1,
        "trusted_proxy_headers": {"x-forwarded-for", "x-forwarded-proto"},
        "clear_untrusted_proxy_headers": True,
    }


def unprotected_problem(protections, allowed: bool) -> Optional[str]:
    """Why the portal may not grade here, or None: without every protection of the sandbox, a
    student's program could read what the portal keeps (every submission, the secret key)."""
    missing = protections.missing() + ([protections.note] if protections.note else [])
    if not missing or allowed:
        return None
    return (
        "the sandbox lacks some of its protections here: " + "; ".join(missing) + ". A student's program "
        "could then read the portal's data (every student's files, its secret key). Run serve as root on "
        "Linux with bubblewrap installed (Debian: apt-get install bubblewrap), or pass --allow-unprotected "
        "for a trial with what is available."
    )


def serve(
    data: Path,
    course: Path,
    host: str,
    port: int,
    db_url: Optional[str],
    workers: Optional[int],
    allow_unprotected: bool = False,
    stop=None,
    dask: Optional[str] = None,
    proxy: Optional[str] = None,
    names: tuple = (),
) -> int:
    """Serve until ``stop`` is set (or SIGTERM / Ctrl-C); returns the exit status. ``workers``:
    submissions graded at once (None: 2 here, or as many as the Dask cluster's threads); ``proxy``:
    the reverse proxy's address, whose X-Forwarded-For and -Proto are believed (from no one else);
    ``names``: the names the site is reached by, besides ``host``."""
    prepare(data, course, db_url, (host, *names))
    from django.core.wsgi import get_wsgi_application
    from waitress.server import create_server

    from grader.run.forkserver import best_runner
    from grader.web.course_state import course
    from grader.web.dispatcher import Dispatcher
    from grader.web.grading_backends import backend, grading_context

    stop = stop or threading.Event()
    try:
        server = create_server(get_wsgi_application(), host=host, port=port, threads=8, **proxy_options(proxy))
    except OSError as error:
        raise UsageError(
            f"cannot listen on {host}:{port} ({error.strerror or error}): is another server there?"
        ) from None
    with best_runner() as runner:
        protections = runner.protections(sys.executable)
        problem = unprotected_problem(protections, allow_unprotected)
        if problem:
            server.close()
            raise UsageError(problem)
        grading = backend(dask, grading_context(runner, course()))
        if workers is None:
            workers = max(1, grading.threads()) if dask else 2
        dispatcher = Dispatcher(grading, workers=workers)
        dispatcher.start()
        serving = threading.Thread(target=server.run, name="portal-http", daemon=True)
        serving.start()
        print(
            f"Serving the portal on http://{host}:{server.effective_port}/ (data in {data}); Ctrl-C stops.", flush=True
        )
        previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            while not stop.wait(0.5):
                pass
        except KeyboardInterrupt:
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)
            server.close()
            dispatcher.stop()
            grading.close()
    return 0
