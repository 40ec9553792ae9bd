"""``python -m grader serve`` and ``dispatch``: the site, its grading, or both.

In: a ``Plan`` (the data folder, created and its database made ready or migrated on start; the
course; where to listen; whether to serve the site, grade, or both; where grading runs). Out: a
WSGI server (waitress: a pure-Python production server, threads, no native code) and/or the
dispatcher's grading threads, until SIGTERM or Ctrl-C stops them cleanly. ``serve`` alone is the
default for one machine: its grading runs in a ``dispatch`` process of its own, which it starts
and stops (``grading_process``); ``serve --no-grading`` (or several web processes of a WSGI
server, ``grader.web.wsgi``) with one ``dispatch`` splits them across machines.
"""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

from grader.errors import UsageError
from grader.web.settings import configure
from grader.web.worker.grading_process import grading_apart, parent_gone

log = logging.getLogger("grader.web.server")


@dataclass(frozen=True)
class Plan:
    """What one process of the portal does, and with what."""

    data: Path
    course: Path
    db_url: Optional[str] = None
    web: bool = True  # serve the site
    grading: bool = True  # grade what is handed in
    host: str = "127.0.0.1"
    port: int = 8000
    proxy: Optional[str] = None  # the reverse proxy whose X-Forwarded-For and -Proto are believed
    names: tuple = ()  # the names the site is reached by, besides ``host``
    workers: Optional[int] = None  # submissions graded at once (None: see ``default_workers``)
    dask: Optional[str] = None  # the Dask scheduler's address
    allow_unprotected: bool = False
    parent: Optional[int] = None  # the ``serve`` whose grading this ``dispatch`` is: it ends with it


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


# A class behind one server: 300 browsers that each keep a few connections open (keep-alive) must
# not fill it. waitress serves every connection from one loop and hands whole requests to its
# threads, so an idle or slow connection costs a file descriptor, not a thread.
CONNECTION_LIMIT = 1000  # waitress's default of 100 is reached by a class's browsers alone
IDLE_TIMEOUT_S = 60  # a connection silent this long is closed (waitress's default: 120)
CLEANUP_S = 10  # how often idle connections are looked for
MAX_BODY_BYTES = 4 * 1024 * 1024  # a hand-in is far smaller (Django refuses beyond its own limit)
MAX_HEADER_BYTES = 64 * 1024
# descriptors beyond the connections: the database, the logs, the sandbox's runs, a margin
SPARE_FILES = 200


def server_limits() -> dict:
    """waitress's settings for a class: the connections it holds, how long an idle one stays, the
    size of a request; ``poll`` rather than ``select``, which cannot watch descriptors past 1024."""
    return {
        "connection_limit": CONNECTION_LIMIT,
        "channel_timeout": IDLE_TIMEOUT_S,
        "cleanup_interval": CLEANUP_S,
        "max_request_body_size": MAX_BODY_BYTES,
        "max_request_header_size": MAX_HEADER_BYTES,
        "asyncore_use_poll": True,
        "threads": 8,
    }


def raise_file_limit(needed: int = CONNECTION_LIMIT + SPARE_FILES) -> str:
    """Raise this process's limit of open files (RLIMIT_NOFILE) towards ``needed``, up to the hard
    limit; a warning to print when even that is too low, else ""."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    if soft != resource.RLIM_INFINITY and soft < needed:
        return (
            f"warning: this process may open {soft} files, fewer than the {needed} that {CONNECTION_LIMIT} connections "
            f"need: raise the limit (systemd: LimitNOFILE={needed} or more; a shell: ulimit -n {needed})."
        )
    return ""


def _http_server(plan: Plan):
    from django.core.wsgi import get_wsgi_application
    from waitress.server import create_server

    try:
        return create_server(
            get_wsgi_application(), host=plan.host, port=plan.port, **server_limits(), **proxy_options(plan.proxy)
        )
    except OSError as error:
        raise UsageError(
            f"cannot listen on {plan.host}:{plan.port} ({error.strerror or error}): is another server there?"
        ) from None


def default_workers() -> int:
    """Submissions graded at once on this machine: twice its cores. A grader thread spends about
    half its time in its own Python (starting runs, checking answers) while no program runs, so
    one per core leaves cores idle (bench/bench_portal_burst.py: 300 hand-ins in 60 s on 2 cores
    were graded at 3.4 a second with 2 threads, 4.9 with 4)."""
    return 2 * (os.cpu_count() or 1)


@contextlib.contextmanager
def dispatching(plan: Plan) -> Iterator:
    """The dispatcher grading for the portal while the block runs (here, or on Dask); refused
    where the sandbox lacks a protection, unless the plan allows it."""
    from grader.run.forkserver import best_runner
    from grader.web.worker.course_state import CourseUnavailable, course, course_tasks
    from grader.web.worker.dispatcher import Dispatcher
    from grader.web.worker.grading_backends import DaskGrading, backend, grading_context

    try:  # loaded now: the last good course from here on, when its files break later
        course_tasks()
    except CourseUnavailable:
        pass  # (said in the log; a submission graded meanwhile says it too)
    with best_runner(private=(plan.data, plan.course)) as runner:
        problem = unprotected_problem(runner.protections(sys.executable), plan.allow_unprotected)
        if problem:
            raise UsageError(problem)
        grading = backend(plan.dask, grading_context(runner, course()))
        try:
            workers = plan.workers or (
                max(1, grading.threads()) if isinstance(grading, DaskGrading) else default_workers()
            )
            dispatcher = Dispatcher(grading, workers=workers)
            dispatcher.start()
            try:
                yield dispatcher
            finally:
                dispatcher.stop()
        finally:
            grading.close()


def run(plan: Plan, stop: Optional[threading.Event] = None) -> int:
    """Serve and/or grade as ``plan`` says until ``stop`` is set (or SIGTERM / Ctrl-C); the exit status."""
    prepare(plan.data, plan.course, plan.db_url, (plan.host, *plan.names))
    from grader.web import logs

    kind = "serve" if plan.web and plan.grading else "serve --no-grading" if plan.web else "dispatch"
    folder = logs.setup(plan.data, kind)
    stop = stop or threading.Event()
    with contextlib.ExitStack() as stack:
        server = _http_server(plan) if plan.web else None  # a port in use is said before anything starts
        if server is not None:
            stack.callback(server.close)
        # serve's grading runs apart from its web process (``grading_process``); dispatch grades here
        apart = stack.enter_context(grading_apart(plan)) if plan.grading and server is not None else ""
        dispatcher = stack.enter_context(dispatching(plan)) if plan.grading and server is None else None
        if server is not None:
            threading.Thread(target=server.run, name="portal-http", daemon=True).start()
            doing = f"Serving the portal on http://{plan.host}:{server.effective_port}/"
            doing += " (grading in a process of its own)" if apart else " (no grading here: python -m grader dispatch)"
        else:
            assert dispatcher is not None  # (a plan without the web server grades: Plan)
            doing = f"Grading for the portal ({dispatcher.workers} at once, {dispatcher.grading.where})"
        warning = raise_file_limit() if server is not None else ""
        if warning:
            print(warning, file=sys.stderr, flush=True)
            log.warning("%s", warning)
        log.info("%s (data in %s, course %s)", doing, plan.data, plan.course)
        print(f"{doing} (data in {plan.data}, logs in {folder}); Ctrl-C stops.", flush=True)
        previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            while not stop.wait(0.5):
                if parent_gone(plan.parent):
                    log.warning("the serve that started this dispatch has ended: stopping")
                    break
        except KeyboardInterrupt:
            pass
        finally:
            signal.signal(signal.SIGTERM, previous)
    log.info("%s stopped (pid %d)", kind, os.getpid())
    return 0
