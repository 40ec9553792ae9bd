"""How fast sign-ins may be tried: budgets of failures per account, per known browser and per address.

In: a sign-in's name, the client's address, the budgets it is counted against (``Budget``). Out:
whether it must wait and how long (``reserve``, ``address_wait``); its failures recorded.

Failed sign-ins are counted in the database (``FailedSignIn``: every web process sees them, a
restart forgets none):
- Per ACCOUNT, resolved as sign-in resolves it (Django's ``AuthenticationForm``: the name stripped
  and NFKC-normalised, then ``get_by_natural_key``, an exact, case-sensitive match), so ``ｂｏｂ``
  (fullwidth) and ``bob`` share one budget; a name that is no account is keyed by its normalised
  form, so guessing names is throttled alike. ``FREE_FAILURES`` failures within
  ``ACCOUNT_WINDOW_S`` cost nothing; after the n-th the budget waits
  ``min(2 ** (n - free), MAX_DELAY_S)`` seconds from that failure, and during the wait every
  sign-in counted against it is answered 429, unchecked (checking would tell a guesser whether the
  password was right, at full speed).
- An attempt is counted BEFORE its password is checked (``reserve``: the wait read and the failure
  written in one transaction, serialised per budget: SQLite's transactions are immediate, and on
  PostgreSQL an advisory lock per budget is taken), and the count is taken back when the password
  was right. So guesses sent at the same moment are counted one after another: a budget gets one
  checked guess per delay however many arrive together, from however many web processes.
- Per ADDRESS: ``MAX_ADDRESS_FAILURES`` within ``ADDRESS_WINDOW_S`` (50 in 5 minutes, a room's
  typos behind one NAT address); beyond it a WRONG password is answered 429, but the password is
  still checked: a right one signs in (``address_wait`` is read after the check).
"""

from __future__ import annotations

import hashlib
import math
import unicodedata
from dataclasses import dataclass
from datetime import timedelta
from typing import List, Sequence, Tuple

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone

from grader.web.models import FailedSignIn

FREE_FAILURES = 3
MAX_DELAY_S = 60
ACCOUNT_WINDOW_S = 3600
MAX_ADDRESS_FAILURES = 50
ADDRESS_WINDOW_S = 300
# The longest a username may be (Django's AuthenticationForm does not normalise longer ones).
_MAX_NAME = 150


@dataclass(frozen=True)
class Budget:
    """A key failures count against, and how many within ``ACCOUNT_WINDOW_S`` cost nothing."""

    key: str
    free: int = FREE_FAILURES


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def account_key(raw_name: str) -> str:
    """The key of the account a sign-in with ``raw_name`` would sign in as: ``user:ID``, or
    ``name:DIGEST`` of the normalised name when it is no account."""
    name = raw_name.strip()
    if len(name) <= _MAX_NAME:
        name = unicodedata.normalize("NFKC", name)
    if len(name) <= _MAX_NAME and "\x00" not in name:  # PostgreSQL refuses NUL in text
        users = get_user_model()
        try:
            return f"user:{users._default_manager.get_by_natural_key(name).pk}"
        except users.DoesNotExist:
            pass
    return "name:" + _digest(name)


def address_key(request) -> str:
    """The client's address (behind a reverse proxy, ``serve --proxy`` makes it the client's)."""
    return "addr:" + _digest(request.META.get("REMOTE_ADDR", ""))


def _budget_wait(budget: Budget, now) -> int:
    """Seconds the budget still waits after its latest failure (0: none)."""
    recent = list(
        FailedSignIn.objects.filter(key=budget.key, at__gt=now - timedelta(seconds=ACCOUNT_WINDOW_S))
        .order_by("-at")
        .values_list("at", flat=True)[: budget.free + 8]  # 2 ** 7 > MAX_DELAY_S: more change nothing
    )
    if len(recent) <= budget.free:
        return 0
    delay = min(2 ** (len(recent) - budget.free), MAX_DELAY_S)
    return max(0, math.ceil((recent[0] - now).total_seconds() + delay))


def _serialise(budgets: Sequence[Budget]) -> None:
    """Hold the budgets until the transaction ends (PostgreSQL: advisory locks, in one order so two
    holders never wait for each other; SQLite: its immediate transaction already holds everything)."""
    if connection.vendor != "postgresql":
        return
    numbers = sorted({int.from_bytes(hashlib.sha256(b.key.encode()).digest()[:8], "big", signed=True) for b in budgets})
    with connection.cursor() as cursor:
        for number in numbers:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [number])


def reserve(budgets: Sequence[Budget]) -> Tuple[int, List[int]]:
    """Either the seconds to wait (and nothing counted), or 0 and the ids of the failures counted
    in advance against every budget (``give_back`` them when the password was right)."""
    with transaction.atomic():
        _serialise(budgets)
        now = timezone.now()
        wait = max((_budget_wait(budget, now) for budget in budgets), default=0)
        if wait:
            return wait, []
        rows = [FailedSignIn.objects.create(key=budget.key, at=now) for budget in budgets]
    return 0, [row.pk for row in rows]


def give_back(ids: Sequence[int]) -> None:
    """The failures counted in advance for a sign-in whose password was right."""
    FailedSignIn.objects.filter(pk__in=list(ids)).delete()


def address_failed(request) -> int:
    """Count a wrong password against the client's address; the seconds its next wrong password
    must wait (0: the address is under its bound). Old failures are cleared as it goes."""
    now = timezone.now()
    key = address_key(request)
    FailedSignIn.objects.create(key=key, at=now)
    oldest = now - timedelta(seconds=max(ACCOUNT_WINDOW_S, ADDRESS_WINDOW_S))
    FailedSignIn.objects.filter(at__lt=oldest).delete()  # the table stays small
    recent = list(
        FailedSignIn.objects.filter(key=key, at__gt=now - timedelta(seconds=ADDRESS_WINDOW_S))
        .order_by("-at")
        .values_list("at", flat=True)[:MAX_ADDRESS_FAILURES]
    )
    if len(recent) < MAX_ADDRESS_FAILURES:
        return 0
    return max(1, math.ceil((recent[-1] - now).total_seconds() + ADDRESS_WINDOW_S))
