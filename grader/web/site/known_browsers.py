"""Browsers that signed in to an account before: their own sign-in budget, out of an attacker's reach.

In: a sign-in's request and the account its name resolves to; a successful sign-in's answer. Out:
the budgets its failures count against (``budgets``), and the cookie that marks the browser
(``remember``).

Why: the delay that keeps guessing slow is per account and address, so anyone who keeps guessing a
named student's password from the student's own address (a lab's NAT) keeps that pair in its delay.
A browser that signed in to the account before carries a signed cookie (``KNOWN_COOKIE``: the
account, a random number and a digest of the account's password hash, signed with the portal's
secret key); its sign-ins count against a budget of their own (``known:`` the number's digest),
with the same growing delays, so the owner at their own browser gets in whatever an attacker does,
wherever. All the account's known browsers together share one more budget (``known-all:``, ten
failures free, then the same delays): a cookie copied from a shared lab PC, or several, buys a
guesser a handful of checked guesses, not a budget each. The cookie signs nobody in: it only picks
the budget. A new password (``users password``, a reset, a change) makes every such cookie of the
account worthless. A browser that never signed in (a lab PC the student has not used) counts
against the account's budget at its address and the account's tally
(``sign_in_limits.pair_budget``).
"""

from __future__ import annotations

import hashlib
import secrets
from typing import List, Optional, Tuple

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing

from grader.web.site.sign_in_limits import Budget, pair_budget

KNOWN_COOKIE = "nim_known_browser"
KNOWN_DAYS = 120  # a term
KNOWN_ALL_FREE = 10  # failures all the account's known browsers together make before theirs wait too
_SALT = "grader.web.site.known_browsers"


def _password_mark(user) -> str:
    """What changes whenever the account's password does (so a new password forgets its browsers)."""
    return hashlib.sha256(user.password.encode("utf-8")).hexdigest()[:16]


def _known_number(request, user_id: int) -> Optional[str]:
    """The random number of this browser's cookie when it is a valid one for ``user_id``, else None."""
    raw = request.COOKIES.get(KNOWN_COOKIE, "")
    if not raw or len(raw) > 500:
        return None
    try:
        found = signing.loads(raw, salt=_SALT, max_age=KNOWN_DAYS * 86400)
    except signing.BadSignature:  # forged, altered or expired: an unknown browser
        return None
    if not isinstance(found, dict) or found.get("u") != user_id or not isinstance(found.get("n"), str):
        return None
    user = get_user_model()._default_manager.filter(pk=user_id).first()
    if user is None or found.get("p") != _password_mark(user):
        return None
    return found["n"]


def budgets(request, account: str) -> Tuple[List[Budget], Optional[str]]:
    """The budgets a password check's failures count against, and the account's tally (None: none).
    A browser new to the account: the account's budget at the client's address, and the tally
    (``sign_in_limits``). A browser that signed in to that account before: its own
    (``known:...``) and the bound shared by all the account's known browsers
    (``known-all:user:ID``, with ``KNOWN_ALL_FREE`` free failures, which the owner's right password
    does not reset), so that cookies copied from several browsers give no more than a few checked
    guesses more than one."""
    number = _known_number(request, int(account[len("user:") :])) if account.startswith("user:") else None
    if number is None:
        return [pair_budget(request, account)], account
    own = "known:" + hashlib.sha256(number.encode("ascii")).hexdigest()[:32]
    return [Budget(own), Budget("known-all:" + account, KNOWN_ALL_FREE, resets=False)], None


def remember(response, user) -> None:
    """Mark the browser that just signed in as ``user`` as known to that account (a new number each time)."""
    value = signing.dumps({"u": user.pk, "n": secrets.token_urlsafe(18), "p": _password_mark(user)}, salt=_SALT)
    response.set_cookie(
        KNOWN_COOKIE,
        value,
        max_age=KNOWN_DAYS * 86400,
        path="/login/",  # sent to the sign-in page only
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
