"""Accounts from the instructor's roster, API tokens and one-time passwords (``users import``,
``users token``, ``users password``, and the ``/account/`` page).

In: a CSV with a header row holding at least ``username`` and ``role`` (``student`` or
``instructor``), optionally ``name`` (at most 150 characters; kept as the account's first and last
name) and ``email`` (checked by Django's validator; a bad one is a sentence naming its line, and
nothing is imported). A re-import sets them again where the roster has the column (an empty cell
clears it) and keeps them where it has none. Out: the accounts created or updated (never
duplicated), and for each new one the sentence that tells its owner how to sign in the first time:
a one-time password they change at once (``FirstSignIn`` marks it). Tokens are printed once and kept hashed.

A roster is clean before anything of it is imported (``usernames``): every name can be typed at the
sign-in page as it is, and no two names, in the roster or among the existing accounts, are one
student to a person or a case-insensitive disk (``Bob`` and ``bob``, ``ｂｏｂ`` and ``bob``); a name
that breaks either is a sentence naming its line (and the other name), and nothing is imported.
"""

from __future__ import annotations

import csv
import io
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import List, Sequence, Tuple

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction

from grader.errors import UsageError
from grader.web.models import ApiToken, FirstSignIn
from grader.web.usernames import same_key, shown, sign_in_problem

ROLES = ("student", "instructor")
_LINE = " line"  # a row's line in the file, kept beside its cells (a header is stripped: no column has this name)
MAX_ROSTER_BYTES = 4 * 1024 * 1024
MAX_NAME = 150  # Django's first_name and last_name hold 150 each: a name this long fits either way
MAX_EMAIL = 254  # Django's EmailField


@dataclass(frozen=True)
class RosterOutcome:
    created: Tuple[Tuple[str, str], ...]  # (username, first password)
    updated: Tuple[str, ...]


def _rows(path: Path) -> List[dict]:
    try:
        if path.stat().st_size > MAX_ROSTER_BYTES:
            raise UsageError(
                f"{path}: a roster of more than {MAX_ROSTER_BYTES // (1024 * 1024)} MiB is not a class list."
            )
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise UsageError(f"{path}: cannot be read ({error.strerror or error}).") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: is not UTF-8 text; save the roster as CSV (UTF-8).") from None
    reader = csv.DictReader(io.StringIO(text))
    fields = {name.strip().lower() for name in reader.fieldnames or ()}
    missing = [name for name in ("username", "role") if name not in fields]
    if missing:
        raise UsageError(
            f"{path}: the header row must name {' and '.join(missing)} (it has: {', '.join(sorted(fields))})."
        )
    rows = []
    for line, row in enumerate(reader, start=2):
        clean = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items() if isinstance(v, str)}
        # (Django's own username rule, and what its sign-in form reads: accounts are made directly)
        problem = sign_in_problem(clean.get("username", ""))
        if problem:
            raise UsageError(f"{path}, line {line}: {problem}")
        if clean.get("role", "").lower() not in ROLES:
            raise UsageError(f"{path}, line {line}: the role must be student or instructor, not {clean.get('role')!r}.")
        problem = _name_or_email_problem(clean)
        if problem:
            raise UsageError(f"{path}, line {line}: {problem}")
        clean[_LINE] = str(line)
        rows.append(clean)
    return rows


def _apart(path: Path, rows: List[dict]) -> None:
    """``UsageError`` naming both names when two rows, or a row and an existing account of another
    name, are one student under ``same_key``; an existing account's own name updates it."""
    seen: dict = {}
    for row in rows:
        name, line = row["username"], row[_LINE]
        other = seen.setdefault(same_key(name), row)
        if other is not row and other["username"] == name:
            raise UsageError(f"{path}, lines {other[_LINE]} and {line} both name {shown(name)}: remove one of them.")
        if other is not row:
            raise UsageError(
                f"{path}, lines {other[_LINE]} and {line}: the usernames {shown(other['username'])} and {shown(name)} "
                f"{_ONE}: give one of them another name."
            )
    existing: dict = {}
    for name in get_user_model().objects.values_list("username", flat=True):
        existing.setdefault(same_key(name), set()).add(name)
    for row in rows:
        name = row["username"]
        others = existing.get(same_key(name), set())
        if others and name not in others:
            other = sorted(others)[0]
            raise UsageError(
                f"{path}, line {row[_LINE]}: the username {shown(name)} and the existing account {shown(other)} "
                f"{_ONE}: write {shown(other)} to update that account, or give the new one another name."
            )


_ONE = (
    "are one student to a person and to a case-insensitive disk (the Gradescope zip's folders): they differ "
    "only in letter case or in the width or form of their characters"
)


def _name_or_email_problem(row: dict) -> str:
    """The sentence saying what is wrong with a roster row's ``name`` or ``email``, or ""."""
    name, email = row.get("name", ""), row.get("email", "")
    if len(name) > MAX_NAME:
        return f"the name {name[:40]!r}... is longer than {MAX_NAME} characters."
    if email:
        try:
            if len(email) > MAX_EMAIL:
                raise ValidationError("too long")
            validate_email(email)
        except ValidationError:
            return f"{email[:60]!r} is not an email address (like ann@example.org, at most {MAX_EMAIL} characters)."
    return ""


def import_roster(path: Path) -> RosterOutcome:
    """Create or update every account of the roster at ``path``, in one transaction."""
    users = get_user_model()
    created, updated = [], []
    rows = _rows(path)
    with transaction.atomic():
        _apart(path, rows)  # (inside: an account made meanwhile by another import is seen)
        for row in rows:
            user, new = users.objects.get_or_create(username=row["username"])
            user.is_staff = row["role"].lower() == "instructor"
            if "email" in row:
                user.email = row["email"]
            if "name" in row:
                first, _, last = row["name"].partition(" ")
                user.first_name, user.last_name = first, last.strip()
            if new:
                password = printable_secret(9)
                user.set_password(password)
                created.append((user.username, password))
            else:
                updated.append(user.username)
            user.save()
            if new:  # the printed password is for once: the first sign-in asks for one of their own
                FirstSignIn.objects.get_or_create(user=user)
    return RosterOutcome(tuple(created), tuple(updated))


def printable_secret(nbytes: int) -> str:
    """``secrets.token_urlsafe(nbytes)`` that does not start with ``-``: a token or password is
    pasted after an option (``submit --token TOKEN``), where a leading dash reads as another option.
    Drawing again costs the secret less than a bit (1 in 64 draws)."""
    while True:
        secret = secrets.token_urlsafe(nbytes)
        if not secret.startswith("-"):
            return secret


def _users(usernames: Sequence[str]) -> dict:
    """The accounts named, by username; ``UsageError`` naming those that do not exist."""
    found = {u.username: u for u in get_user_model().objects.filter(username__in=list(usernames))}
    unknown = [name for name in usernames if name not in found]
    if unknown:
        raise UsageError(f"no such user: {', '.join(unknown)} (import the roster first: python -m grader users import)")
    return found


def end_sessions(users) -> int:
    """Sign ``users`` out everywhere: delete their sessions (Django keeps them by key, not by user,
    so every live session is read). Returns how many ended."""
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    ids = {str(user.pk) for user in users}
    ended = [
        session.pk
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if str(session.get_decoded().get("_auth_user_id")) in ids
    ]
    Session.objects.filter(pk__in=ended).delete()
    return len(ended)


def new_passwords(usernames: Sequence[str]) -> List[Tuple[str, str]]:
    """A new one-time password for each user named (one who forgot theirs, or whose account may be
    in other hands; their work stays): (username, password). The old password, API token and
    sessions stop working; the next sign-in leads to the password change, as a first one does."""
    found = _users(usernames)
    issued = []
    with transaction.atomic():
        for name in usernames:
            password = printable_secret(9)
            found[name].set_password(password)
            found[name].save()
            FirstSignIn.objects.get_or_create(user=found[name])
            ApiToken.objects.filter(user=found[name]).delete()
            issued.append((name, password))
        end_sessions(found.values())
    return issued


def new_token(user) -> str:
    """A new API token for ``user`` (the previous one stops working), to be shown once."""
    token = printable_secret(32)
    ApiToken.objects.update_or_create(user=user, defaults={"digest": ApiToken.digest_of(token)})
    return token


def new_tokens(usernames: Sequence[str]) -> List[Tuple[str, str]]:
    """A new API token for each user named (the previous one stops working): (username, token)."""
    found = _users(usernames)
    issued = []
    with transaction.atomic():
        for name in usernames:
            issued.append((name, new_token(found[name])))
    return issued
