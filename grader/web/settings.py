"""Django's settings for a portal whose state lives in one folder (``--data``).

In: the data folder, the course folder, an optional database URL. Out: Django configured and set
up in this process (``configure``). The data folder is made 0700, and nothing planted in it is
adopted or waited on (``private_data``). The secret key
is made once and kept in ``DATA/secret_key`` (0600); the database is ``DATA/portal.sqlite3`` (0600;
WAL, immediate transactions, so that claiming a submission is one writer at a time) unless a URL
names another.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Optional
from urllib.parse import parse_qs, unquote, urlparse

from grader.errors import UsageError
from grader.submission.files import MAX_SOURCE_BYTES
from grader.web.private_files import private_file, private_folder

SECRET_FILE = "secret_key"
DATABASE_FILE = "portal.sqlite3"
# A web thread or a grader keeps its database connection this long: a new PostgreSQL connection
# per request costs a server process (a burst of uploads would spend its CPU on them).
KEEP_CONNECTIONS_S = 300
SESSION_AGE_S = 12 * 3600  # a lab day


def _secret_key(data: Path) -> str:
    """The portal's secret key, made on first start and kept readable by its owner only."""
    path = data / SECRET_FILE
    try:
        key = path.read_text(encoding="ascii").strip()
        if len(key) < 40:
            raise ValueError(key)
        return key
    except (UnicodeDecodeError, ValueError):
        raise UsageError(f"{path} holds no secret key the portal made: remove it, and a new one is made.") from None
    except FileNotFoundError:
        key = secrets.token_urlsafe(50)
        descriptor = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(descriptor, "w", encoding="ascii") as handle:
            handle.write(key + "\n")
        return key


def private_data(data: Path, db_url: Optional[str]) -> None:
    """``data`` made readable by the portal's user alone (0700), and its SQLite database 0600 (made
    empty so, before SQLite opens it: its -wal and -shm files take its mode), before anything in it
    is opened: a folder or file of another user, one others may write to, a link, or a named pipe,
    socket or device where a file belongs is refused with a sentence, never waited on (``private_files``).
    The check every start-up makes (``serve``, ``dispatch``, the WSGI module, ``users``)."""
    private_folder(data, top=True)
    if not db_url:
        private_file(data / DATABASE_FILE, create=True)
        for suffix in ("-wal", "-shm", "-journal"):
            private_file(data / (DATABASE_FILE + suffix))
    private_file(data / SECRET_FILE)


def database(data: Path, url: Optional[str]) -> dict:
    """Django's DATABASES entry: SQLite in ``data`` by default, or the database a URL names."""
    if not url:
        return {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": str(data / DATABASE_FILE),
            # one writer at a time from the start of a transaction: a claim never races another
            "OPTIONS": {"transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;", "timeout": 30},
            "CONN_MAX_AGE": KEEP_CONNECTIONS_S,
            "CONN_HEALTH_CHECKS": True,
        }
    parsed = urlparse(url)
    if parsed.scheme not in ("postgresql", "postgres"):
        raise UsageError(f"--db {url}: only postgresql://user@host/name URLs are understood (or none, for SQLite).")
    try:
        import psycopg  # noqa: F401  (Django's PostgreSQL driver)
    except ImportError:
        needed = "--db postgresql://...: the portal needs the psycopg driver: pip install 'psycopg[binary]'."
        raise UsageError(needed) from None
    query = parse_qs(parsed.query)
    name = unquote(parsed.path.lstrip("/"))
    if not name:
        raise UsageError(f"--db {url}: name the database after the host (postgresql://user@host/name).")
    try:
        port = parsed.port
    except ValueError:
        raise UsageError(f"--db {url}: the port is not a number.") from None
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": unquote(parsed.username or ""),
        "PASSWORD": unquote(parsed.password or ""),
        # ?host=/run/postgresql: a Unix socket's folder, as libpq writes it
        "HOST": query.get("host", [unquote(parsed.hostname or "")])[0],
        "PORT": query.get("port", [str(port or "")])[0],
        "CONN_MAX_AGE": KEEP_CONNECTIONS_S,
        "CONN_HEALTH_CHECKS": True,
    }


def configure(data: Path, course: Path, db_url: Optional[str] = None, hosts: tuple = ()) -> None:
    """Configure and set up Django for this process (once: a second call changes nothing)."""
    import django
    from django.conf import settings

    if settings.configured:
        return
    private_data(data, db_url)
    settings.configure(
        SECRET_KEY=_secret_key(data),
        DEBUG=False,
        ALLOWED_HOSTS=["127.0.0.1", "localhost", "testserver", *hosts],
        INSTALLED_APPS=[
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.sessions",
            "django.contrib.messages",
            "grader.web",
        ],
        MIDDLEWARE=[
            "grader.web.logs.AccessLog",  # outermost: it sees every answer, errors included
            "grader.web.site.failures.ApiErrors",
            "grader.web.site.failures.RefuseNul",
            "grader.web.local_time.ZoneMiddleware",  # every page's times in the course's zone
            "django.middleware.security.SecurityMiddleware",
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.middleware.common.CommonMiddleware",
            "django.middleware.csrf.CsrfViewMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
            "django.contrib.messages.middleware.MessageMiddleware",
            "django.middleware.clickjacking.XFrameOptionsMiddleware",
            "grader.web.site.login.SessionAgeMiddleware",
            "grader.web.site.login.FirstPasswordMiddleware",
            "grader.web.site.login.PolicyMiddleware",
        ],
        ROOT_URLCONF="grader.web.urls",
        # logging is the portal's own (``logs``, set up by serve, dispatch and the WSGI module):
        # Django's setup, run again by get_wsgi_application, must not replace its handlers
        LOGGING_CONFIG=None,
        DATABASES={"default": database(data, db_url)},
        TEMPLATES=[
            {
                "BACKEND": "django.template.backends.django.DjangoTemplates",
                "APP_DIRS": True,
                "OPTIONS": {
                    "context_processors": [
                        "django.template.context_processors.request",
                        "django.contrib.auth.context_processors.auth",
                        "django.contrib.messages.context_processors.messages",
                        "grader.web.local_time.zone_context",
                    ]
                },
            }
        ],
        DEFAULT_AUTO_FIELD="django.db.models.BigAutoField",
        USE_TZ=True,
        TIME_ZONE="UTC",  # stored and compared in UTC; shown in the course's zone (``local_time``)
        LOGIN_URL="/login/",
        LOGIN_REDIRECT_URL="/",
        MESSAGE_STORAGE="django.contrib.messages.storage.session.SessionStorage",
        SESSION_COOKIE_HTTPONLY=True,
        # shared lab PCs: a session ends with the browser, and on the server after a lab day at most
        SESSION_EXPIRE_AT_BROWSER_CLOSE=True,
        SESSION_COOKIE_AGE=SESSION_AGE_S,
        # a username is found whatever its letter case (usernames.find_account): ZED signs in as Zed
        AUTHENTICATION_BACKENDS=["grader.web.site.login.CaseFreeBackend"],
        # every password a person chooses (/password/) is checked: length, common lists, the username
        AUTH_PASSWORD_VALIDATORS=[
            {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
            {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
            {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
            {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
            # the same checks on the password as NFKC reads it, and no blank padding
            {"NAME": "grader.web.site.password_rules.NormalisedPasswordValidator"},
            # no word plus a year or a number (nimlab2024, Summer2023!)
            {"NAME": "grader.web.site.password_rules.WordAndNumberValidator"},
        ],
        SESSION_COOKIE_SAMESITE="Lax",
        CSRF_COOKIE_SAMESITE="Lax",
        # behind a reverse proxy with TLS (docs/portal.md): cookies only over HTTPS
        SESSION_COOKIE_SECURE=os.environ.get("NIM_GRADER_HTTPS") == "1",
        CSRF_COOKIE_SECURE=os.environ.get("NIM_GRADER_HTTPS") == "1",
        SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https") if os.environ.get("NIM_GRADER_HTTPS") else None,
        # an upload is read into memory up to the grader's own limit, refused beyond it (413)
        DATA_UPLOAD_MAX_MEMORY_SIZE=2 * MAX_SOURCE_BYTES + 65536,
        FILE_UPLOAD_MAX_MEMORY_SIZE=2 * MAX_SOURCE_BYTES,
        GRADER_DATA=str(data),
        GRADER_COURSE=str(course),
    )
    django.setup()
