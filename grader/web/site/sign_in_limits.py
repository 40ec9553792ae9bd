"""How fast passwords may be tried: budgets of failures per account and address, per known browser,
and per address.

In: a password check's account name, the client's address, the budgets it is counted against
(``Budget``). Out: whether it must wait and how long (``reserve``), its failures recorded, and
the budgets a right password resets (``settle``); the address's bound (``address_failed``).

Every password check counts here, the sign-in page's and ``/password/``'s old password alike.
Failures are kept in the database (``FailedSignIn``: every web process sees them, a restart
forgets none):

- Per ACCOUNT AND ADDRESS (``pair_budget``): the account as sign-in resolves the name (Django's
  ``AuthenticationForm``: stripped, NFKC-normalised, then ``usernames.find_account``, so ``ｂｏｂ``
  and ``BOB`` count as ``bob``; a name that is no account, as its normalised self under
  ``same_key``, so guessing names, in any letter case, is throttled alike), the address as the
  client's (an IPv6 address by its /64 network: one subscriber's).
  ``FREE_FAILURES`` failures within ``WINDOW_S`` cost nothing; after the n-th the pair waits
  ``min(2 ** (n - free), longest)`` seconds from that failure, and meanwhile every check counted
  against it is answered 429 unchecked (checking would tell a guesser whether the password was
  right, at full speed). ``longest`` is ``MAX_DELAY_S`` (a minute), or ``ATTACKED_DELAY_S`` (an
  hour) while the account is under attack (below).
- Per ACCOUNT, from everywhere (the account's own key, a tally): more than ``ACCOUNT_FREE``
  failures within ``WINDOW_S`` put the account under attack. The tally never refuses a check: a
  new address always gets its password checked, so the owner, at a browser and an address that
  did not fail, gets in whatever an attacker does elsewhere; it only makes each pair's delays grow
  to an hour, so that one address gets a few dozen checked guesses a day, not one a minute.
- A RIGHT password gives back its own count and resets the budgets marked ``resets`` (the pair's
  and the account's tally; a known browser's own): the owner's typos and the attack are forgiven
  at the owner's word, so a lock-out an attacker keeps up ends with the owner's next sign-in.
- An attempt is counted BEFORE its password is checked (``reserve``: the waits read and the
  failures written in one transaction, serialised per budget: SQLite's transactions are immediate,
  and on PostgreSQL an advisory lock per key is taken), so guesses sent at the same moment are
  counted one after another, from however many web processes.
- Per ADDRESS, over all accounts: ``MAX_ADDRESS_FAILURES`` within ``ADDRESS_WINDOW_S`` (50 in 5
  minutes, a room's typos behind one NAT address); beyond it a WRONG password is answered 429, but
  the password is still checked: a right one signs in (``address_failed`` is called after the check).

What still crosses: an attacker who shares the owner's address (a lab's NAT) and keeps guessing
keeps that pair in its delay, so the owner at a browser new to the account on that address waits
(up to an hour while the account is under attack); from any other address, or at a browser that
signed in before (``known_browsers``), the owner gets in at once. An attacker with many addresses
gets each address's few dozen: 37 checked guesses on its first day at an account, then 24 a day.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import unicodedata
from dataclasses import dataclass
from datetime import timedelta
from typing import Optional, Sequence, Tuple

from django.db import connection, transaction
from django.utils import timezone

from grader.web.models import FailedSignIn
from grader.web.usernames import find_account, same_key

FREE_FAILURES = 3
MAX_DELAY_S = 60  # a pair's longest delay: a room's typos never wait longer
ATTACKED_DELAY_S = 3600  # ... while its account is under attack
ACCOUNT_FREE = 10  # failures against an account from everywhere before it is under attack
WINDOW_S = 24 * 3600  # failures older than this count for nothing
MAX_ADDRESS_FAILURES = 50
ADDRESS_WINDOW_S = 300
# The longest a username may be (Django's AuthenticationForm does not normalise longer ones).
_MAX_NAME = 150


@dataclass(frozen=True)
class Budget:
    """A key failures count against: how many within ``window`` seconds cost nothing, the longest
    delay (``attacked``: while the account is under attack; 0: the same), whether a right password
    resets it."""

    key: str
    free: int = FREE_FAILURES
    window: int = 3600
    longest: int = MAX_DELAY_S
    attacked: int = 0
    resets: bool = True


@dataclass(frozen=True)
class Reservation:
    """A check counted in advance (``ids``, against ``keys``), or the seconds it must wait (``wait``)."""

    wait: int
    ids: Tuple[int, ...] = ()
    keys: Tuple[str, ...] = ()  # the keys a right password resets


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def account_key(raw_name: str) -> str:
    """The key of the account a sign-in with ``raw_name`` would sign in as: ``user:ID``, or
    ``name:DIGEST`` of the normalised name under ``same_key`` when it is no account (so ``NOBODY``
    and ``nobody`` share one budget, as ``ZED`` and ``zed`` share the account ``Zed``'s)."""
    name = raw_name.strip()
    if len(name) <= _MAX_NAME:
        name = unicodedata.normalize("NFKC", name)
        found = find_account(name)  # (the sign-in's own rule: login.CaseFreeBackend)
        if found is not None:
            return f"user:{found.pk}"
        return "name:" + _digest(same_key(name))
    return "name:" + _digest(name)


def client_address(request) -> str:
    """The client's address as the budgets know it: an IPv4 address, or an IPv6 address's /64
    network (one subscriber's: an attacker holds all of it); behind a reverse proxy, ``serve
    --proxy`` has made it the client's."""
    raw = request.META.get("REMOTE_ADDR", "")
    try:
        found = ipaddress.ip_address(raw)
    except ValueError:
        return raw[:100]
    if isinstance(found, ipaddress.IPv6Address):
        if found.ipv4_mapped is not None:
            return str(found.ipv4_mapped)
        return str(ipaddress.ip_network(f"{found}/64", strict=False))
    return str(found)


def address_key(request) -> str:
    """The key of the client's address, over all accounts."""
    return "addr:" + _digest(client_address(request))


def pair_budget(request, account: str) -> Budget:
    """The budget of checks of ``account`` (``account_key``) from the client's address."""
    key = "pair:" + _digest(account + "@" + client_address(request))
    return Budget(key, window=WINDOW_S, attacked=ATTACKED_DELAY_S)


def _budget_wait(budget: Budget, now, attacked: bool) -> int:
    """Seconds the budget still waits after its latest failure (0: none)."""
    longest = budget.attacked if attacked and budget.attacked else budget.longest
    recent = list(
        FailedSignIn.objects.filter(key=budget.key, at__gt=now - timedelta(seconds=budget.window))
        .order_by("-at")
        .values_list("at", flat=True)[: budget.free + longest.bit_length() + 1]  # more change nothing
    )
    if len(recent) <= budget.free:
        return 0
    delay = min(2 ** (len(recent) - budget.free), longest)
    return max(0, math.ceil((recent[0] - now).total_seconds() + delay))


def _under_attack(tally: str, now) -> bool:
    """Whether the account has failed more than ``ACCOUNT_FREE`` times within ``WINDOW_S``."""
    recent = FailedSignIn.objects.filter(key=tally, at__gt=now - timedelta(seconds=WINDOW_S))
    return recent[: ACCOUNT_FREE + 1].count() > ACCOUNT_FREE


def _serialise(keys: Sequence[str]) -> None:
    """Hold the keys until the transaction ends (PostgreSQL: advisory locks, in one order so two
    holders never wait for each other; SQLite: its immediate transaction already holds everything)."""
    if connection.vendor != "postgresql":
        return
    numbers = sorted({int.from_bytes(hashlib.sha256(k.encode()).digest()[:8], "big", signed=True) for k in keys})
    with connection.cursor() as cursor:
        for number in numbers:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [number])


def reserve(budgets: Sequence[Budget], tally: Optional[str] = None) -> Reservation:
    """Either the seconds to wait (and nothing counted), or the failures counted in advance against
    every budget and the account's ``tally`` (``settle`` them when the password was right)."""
    keys = [budget.key for budget in budgets] + ([tally] if tally else [])
    with transaction.atomic():
        _serialise(keys)
        now = timezone.now()
        attacked = tally is not None and _under_attack(tally, now)
        wait = max((_budget_wait(budget, now, attacked) for budget in budgets), default=0)
        if wait:
            return Reservation(wait)
        rows = FailedSignIn.objects.bulk_create([FailedSignIn(key=key, at=now) for key in keys])
        ids = tuple(row.pk for row in rows)
    if None in ids:  # a backend that does not say the new rows' ids
        ids = tuple(FailedSignIn.objects.filter(key__in=keys, at=now).values_list("pk", flat=True))
    resets = tuple(budget.key for budget in budgets if budget.resets) + ((tally,) if tally else ())
    return Reservation(0, ids, resets)


def settle(reservation: Reservation) -> None:
    """The password was right: its count given back, and the budgets that reset emptied."""
    FailedSignIn.objects.filter(pk__in=list(reservation.ids)).delete()
    FailedSignIn.objects.filter(key__in=list(reservation.keys)).delete()


def address_failed(request) -> int:
    """Count a wrong password against the client's address; the seconds its next wrong password
    must wait (0: the address is under its bound)."""
    now = timezone.now()
    key = address_key(request)
    FailedSignIn.objects.create(key=key, at=now)
    recent = list(
        FailedSignIn.objects.filter(key=key, at__gt=now - timedelta(seconds=ADDRESS_WINDOW_S))
        .order_by("-at")
        .values_list("at", flat=True)[:MAX_ADDRESS_FAILURES]
    )
    forget_old()
    if len(recent) < MAX_ADDRESS_FAILURES:
        return 0
    return max(1, math.ceil((recent[-1] - now).total_seconds() + ADDRESS_WINDOW_S))


def forget_old() -> None:
    """Failures older than every window, deleted (the table stays small)."""
    FailedSignIn.objects.filter(at__lt=timezone.now() - timedelta(seconds=WINDOW_S)).delete()
