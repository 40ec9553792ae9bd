"""Accounts from the instructor's roster, API tokens and one-time passwords (``users import``,
``users token``, ``users password``, and the ``/account/`` page).

In: a CSV with a header row holding at least ``username`` and ``role`` (``student``, ``ta``, a
teaching assistant who sees everything an instructor sees but changes nothing, or ``instructor``:
``enrolment``), optionally ``name`` (at most 150 characters; kept as the account's first and last
name) and ``email`` (checked by Django's validator; a bad one is a sentence naming its line, and
nothing is imported). A re-import sets them again where the roster has the column (an empty cell
clears it) and keeps them where it has none. Out: the accounts created, changed or left as they
were (never duplicated), and for each new one the sentence that tells its owner how to sign in the
first time: a one-time password they change at once (``FirstSignIn`` marks it); with ``passwords``,
those are written instead to a new CSV file only its owner may read (``username,name,email,password``,
for a mail merge), in the import's transaction: no file, no accounts. Tokens are printed once and
kept hashed.

An import never drops nor restores anyone: a student missing from the roster stays as they were,
and a dropped student the roster names stays dropped (``RosterOutcome.dropped``: the command says
so; /teach/ restores them).

Usernames are case-insensitive (``usernames.accounts_named``): a roster's ``zed`` updates the
account ``Zed`` (which keeps its spelling), and every command here finds an account so.

A roster is clean before anything of it is imported (``usernames``): every name can be typed at the
sign-in page as it is, and no two names in the roster are one student to a person or a
case-insensitive disk (``Bob`` and ``bob``, ``ｂｏｂ`` and ``bob``); a name that breaks either, or
that names two existing accounts made before this rule (``Kim`` and ``kim``), is a sentence naming
its line (and the other names), and nothing is imported.
"""

from __future__ import annotations

import csv
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction

from grader.course.roster_file import ROLES, roster_rows
from grader.errors import UsageError
from grader.safe_text import for_spreadsheet
from grader.web.enrolment import end_sessions, role_of, set_role
from grader.web.models import ApiToken, FirstSignIn
from grader.web.usernames import accounts_named, ambiguity, same_key, shown, sign_in_problem

_LINE = " line"  # a row's line in the file, kept beside its cells (a header is stripped: no column has this name)
MAX_NAME = 150  # Django's first_name and last_name hold 150 each: a name this long fits either way
MAX_EMAIL = 254  # Django's EmailField


@dataclass(frozen=True)
class RosterOutcome:
    created: Tuple[Tuple[str, str], ...]  # (username, first password)
    changed: Tuple[str, ...]  # existing accounts whose role, name or email the roster changed
    unchanged: Tuple[str, ...]  # existing accounts the roster named as they were
    # accounts the roster names that an instructor dropped: they stay dropped (restored on /teach/ only)
    dropped: Tuple[str, ...] = ()

    @property
    def updated(self) -> Tuple[str, ...]:
        """Every existing account the roster named (changed or not)."""
        return self.changed + self.unchanged


def _rows(path: Path) -> List[dict]:
    rows = []
    for line, clean in roster_rows(path, str(path)):
        # (Django's own username rule, and what its sign-in form reads: accounts are made directly)
        problem = sign_in_problem(clean.get("username", ""))
        if problem:
            raise UsageError(f"{path}, line {line}: {problem}")
        if clean.get("role", "").lower() not in ROLES:
            role = clean.get("role")
            raise UsageError(f"{path}, line {line}: the role must be student, ta or instructor, not {role!r}.")
        problem = _name_or_email_problem(clean)
        if problem:
            raise UsageError(f"{path}, line {line}: {problem}")
        clean[_LINE] = str(line)
        rows.append(clean)
    return rows


def _apart(path: Path, rows: List[dict]) -> Dict[str, str]:
    """The existing account each row names, by the row's username (``usernames.accounts_named``:
    letter case aside); ``UsageError`` naming both when two rows are one student under
    ``same_key``, or naming the accounts when a row names several (made before the rule)."""
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
    existing: dict = {}  # (one query for the roster, not one a row)
    for name in get_user_model().objects.values_list("username", flat=True):
        existing.setdefault(same_key(name), set()).add(name)
    targets = {}
    for row in rows:
        name = row["username"]
        others = sorted(existing.get(same_key(name), ()))
        if name in others or len(others) == 1:
            targets[name] = name if name in others else others[0]
        elif others:
            raise UsageError(f"{path}, line {row[_LINE]}: {ambiguity(name, others)}")
    return targets


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


def import_roster(path: Path, passwords: Optional[Path] = None) -> RosterOutcome:
    """Create or update every account of the roster at ``path``, in one transaction; with
    ``passwords``, the new accounts' one-time passwords written to that new file (``private_file``)
    before the transaction ends (the file is removed and nothing imported if anything fails)."""
    rows = _rows(path)
    handle = private_file(passwords) if passwords else None
    try:
        with transaction.atomic():
            outcome = _import_rows(path, rows)
            if handle is not None:
                _write_passwords(handle, outcome.created)
    except BaseException:
        if handle is not None and passwords is not None:
            handle.close()
            passwords.unlink(missing_ok=True)  # (ours: made just now, and it holds no password that works)
        raise
    return outcome


def _import_rows(path: Path, rows: List[dict]) -> RosterOutcome:
    users = get_user_model()
    created, changed, unchanged, dropped = [], [], [], []
    targets = _apart(path, rows)  # (inside: an account made meanwhile by another import is seen)
    for row in rows:
        user, new = users.objects.get_or_create(username=targets.get(row["username"], row["username"]))
        role = row["role"].lower()
        before = (role_of(user), user.email, user.first_name, user.last_name)
        if "email" in row:
            user.email = row["email"]
        if "name" in row:
            first, _, last = row["name"].partition(" ")
            user.first_name, user.last_name = first, last.strip()
        if not user.is_active:  # dropped on /teach/: the roster names them, but only /teach/ restores them
            dropped.append(user.username)
        if new:
            password = printable_secret(9)
            user.set_password(password)
            created.append((user.username, password))
            user.save()  # the printed password is for once: the first sign-in asks for one of their own
            set_role(user, role)
            FirstSignIn.objects.get_or_create(user=user)
        elif before != (role, user.email, user.first_name, user.last_name):
            changed.append(user.username)
            user.save()
            set_role(user, role)
        else:
            unchanged.append(user.username)
    return RosterOutcome(tuple(created), tuple(changed), tuple(unchanged), tuple(dropped))


PASSWORD_COLUMNS = ("username", "name", "email", "password")


def private_file(path: Path):
    """``path`` made anew, readable and writable by its owner only (0600), open for text; a
    ``UsageError`` when it exists (no earlier list of passwords is overwritten) or cannot be made."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise UsageError(
            f"{path} exists already: the passwords are written to a new file only, so that no earlier "
            "list is overwritten; name another file, or move that one away first."
        ) from None
    except OSError as error:
        raise UsageError(f"{path}: cannot be made ({error.strerror or error}).") from None
    os.fchmod(descriptor, 0o600)  # (whatever the umask allowed)
    return os.fdopen(descriptor, "w", encoding="utf-8", newline="")


def _write_passwords(handle, created: Sequence[Tuple[str, str]]) -> None:
    """``username,name,email,password`` for each new account, written and flushed to disk."""
    people = {
        u.username: (u.get_full_name(), u.email)
        for u in get_user_model().objects.filter(username__in=[name for name, _ in created])
    }
    writer = csv.writer(handle)
    writer.writerow(PASSWORD_COLUMNS)
    for username, password in created:
        name, email = people[username]
        writer.writerow([for_spreadsheet(cell) for cell in (username, name, email, password)])
    handle.flush()
    os.fsync(handle.fileno())
    handle.close()


def printable_secret(nbytes: int) -> str:
    """``secrets.token_urlsafe(nbytes)`` that does not start with ``-``: a token or password is
    pasted after an option (``submit --token TOKEN``), where a leading dash reads as another option.
    Drawing again costs the secret less than a bit (1 in 64 draws)."""
    while True:
        secret = secrets.token_urlsafe(nbytes)
        if not secret.startswith("-"):
            return secret


def _users(usernames: Sequence[str]) -> list:
    """The accounts named (``usernames.accounts_named``: letter case aside), each once, in the
    order named; ``UsageError`` naming those that do not exist, or a name that names several."""
    found: dict = {}
    unknown = []
    for name in usernames:
        accounts = accounts_named(name)
        if len(accounts) > 1:
            raise UsageError(ambiguity(name, [account.username for account in accounts]))
        if accounts:
            found.setdefault(accounts[0].pk, accounts[0])
        else:
            unknown.append(name)
    if unknown:
        raise UsageError(f"no such user: {', '.join(unknown)} (import the roster first: python -m grader users import)")
    return list(found.values())


def new_passwords(usernames: Sequence[str]) -> List[Tuple[str, str]]:
    """A new one-time password for each user named (one who forgot theirs, or whose account may be
    in other hands; their work stays): (username, password). The old password, API token and
    sessions stop working; the next sign-in leads to the password change, as a first one does."""
    found = _users(usernames)
    issued = []
    with transaction.atomic():
        for user in found:
            password = printable_secret(9)
            user.set_password(password)
            user.save()
            FirstSignIn.objects.get_or_create(user=user)
            ApiToken.objects.filter(user=user).delete()
            issued.append((user.username, password))
        end_sessions(found)
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
        for user in found:
            issued.append((user.username, new_token(user)))
    return issued
