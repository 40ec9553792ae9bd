"""Signing in and out, the first password change, how long a session lasts, and the headers every
page is served with.

In: requests. Out: Django's own auth views with the portal's templates, plus these rules:

- Failed sign-ins are counted in the database (``FailedSignIn``: every web process sees them, a
  restart forgets none) against two keys: the ACCOUNT the name signs in as, and the ADDRESS.
  The account is resolved as sign-in resolves it (Django's ``AuthenticationForm``: the name
  stripped and NFKC-normalised, then ``get_by_natural_key``, an exact, case-sensitive match), so
  ``ｂｏｂ`` (fullwidth) and ``bob`` share one budget; a name that is no account is keyed by its
  normalised form, so guessing names is throttled alike.
- Per account: ``FREE_FAILURES`` failures within ``ACCOUNT_WINDOW_S`` cost nothing; after the
  n-th, the account waits ``min(2 ** (n - FREE_FAILURES), MAX_DELAY_S)`` seconds from that
  failure. During the wait every sign-in to the account is answered 429 with ``Retry-After``,
  unchecked and uncounted (checking would tell a guesser whether the password was right, at full
  speed). So a guesser gets a few tries, then at most one a minute per account, from any number of
  addresses; and the owner, however many failures an attacker piled on, waits at most
  ``MAX_DELAY_S`` (60 s, said on the page) after the last one.
- Per address: ``MAX_ADDRESS_FAILURES`` failures within ``ADDRESS_WINDOW_S`` (50 in 5 minutes, a
  room's worth of typos behind one NAT address). Beyond it a WRONG password from that address is
  answered 429 with ``Retry-After`` instead of the form, but the password is still checked: a right
  one signs in. A correct password is never refused because of other accounts' failures or the
  address's count.

- A browser that signed in to the account before has a budget of its own (``known_browsers``: a
  signed cookie picks it), with the same delays: an attacker who keeps guessing a named account
  from anywhere else keeps only the account's shared budget in its delay, never the owner's own
  browser.

The trade-off: refusing unchecked is the only thing that slows a guesser, and whoever shares the
owner's address (a lab's NAT) can cause it; so the one unchecked refusal is per budget and short.
The cost is the guessing rate: about 60 guesses an hour per account (and per stolen cookie),
against passwords Django's validators keep out of the common lists. An attacker who keeps guessing
one named account keeps its shared budget in its delay: its owner, at a browser that never signed
in to it (a new lab PC), waits up to a minute and races the attacker's next try.

Also: an account still on the one-time password ``users import`` or ``users password`` printed
(``FirstSignIn``) is led to the change-password page before any other page
(``FirstPasswordMiddleware``); a session ends with the browser (no Max-Age) and, on the server,
``SESSION_COOKIE_AGE`` after it was signed in, whatever was done since (``SessionAgeMiddleware``);
every HTML answer carries a Content-Security-Policy (``PAGE_POLICY``: the portal's own pages and
forms, inline style, no script) unless the view set a stricter one (reports).
"""

from __future__ import annotations

import hashlib
import math
import time
import unicodedata
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils import timezone

from grader.web import known_browsers
from grader.web.models import FailedSignIn, FirstSignIn

FREE_FAILURES = 3
MAX_DELAY_S = 60
ACCOUNT_WINDOW_S = 3600
MAX_ADDRESS_FAILURES = 50
ADDRESS_WINDOW_S = 300
# The longest a username may be (Django's AuthenticationForm does not normalise longer ones).
_MAX_NAME = 150
SIGNED_IN_AT = "signed_in_at"  # the session's key: when its user signed in (seconds since the epoch)
PAGE_POLICY = (
    "default-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; script-src 'none'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


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


@dataclass(frozen=True)
class Held:
    """Why a sign-in is answered 429, and for how many seconds."""

    wait: int
    account: bool  # the account's delay (else: the address's bound)


def _account_wait(key: str, now) -> int:
    """Seconds the account still waits after its latest failure (0: none)."""
    recent = list(
        FailedSignIn.objects.filter(key=key, at__gt=now - timedelta(seconds=ACCOUNT_WINDOW_S))
        .order_by("-at")
        .values_list("at", flat=True)[: FREE_FAILURES + 8]  # 2 ** 7 > MAX_DELAY_S: more change nothing
    )
    if len(recent) <= FREE_FAILURES:
        return 0
    delay = min(2 ** (len(recent) - FREE_FAILURES), MAX_DELAY_S)
    return max(0, math.ceil((recent[0] - now).total_seconds() + delay))


def _address_wait(key: str, now) -> int:
    """Seconds until the address is back under its bound (0: it is under it)."""
    recent = list(
        FailedSignIn.objects.filter(key=key, at__gt=now - timedelta(seconds=ADDRESS_WINDOW_S))
        .order_by("-at")
        .values_list("at", flat=True)[:MAX_ADDRESS_FAILURES]
    )
    if len(recent) < MAX_ADDRESS_FAILURES:
        return 0
    return max(1, math.ceil((recent[-1] - now).total_seconds() + ADDRESS_WINDOW_S))


def _failed(keys) -> None:
    now = timezone.now()
    FailedSignIn.objects.bulk_create([FailedSignIn(key=key, at=now) for key in keys])
    oldest = now - timedelta(seconds=max(ACCOUNT_WINDOW_S, ADDRESS_WINDOW_S))
    FailedSignIn.objects.filter(at__lt=oldest).delete()  # the table stays small


def _throttled(request, held: Held):
    context = {"wait": held.wait, "account": held.account, "longest": MAX_DELAY_S}
    response = render(request, "web/throttled.html", context, status=429)
    response["Retry-After"] = str(held.wait)
    return response


class SignIn(auth_views.LoginView):
    """Django's sign-in, held back per account (short, growing delays) and per address (wrong
    passwords only), with a 429 page that says when to try again."""

    template_name = "web/login.html"
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        account = account_key(request.POST.get("username", ""))
        self.keys = (known_browsers.budget_key(request, account), address_key(request))
        wait = _account_wait(self.keys[0], timezone.now())
        if wait:  # unchecked and uncounted: checking would reveal a right password at full speed
            return _throttled(request, Held(wait, account=True))
        answer = super().post(request, *args, **kwargs)
        if request.user.is_authenticated:
            return answer
        wait = _address_wait(self.keys[1], timezone.now())
        return _throttled(request, Held(wait, account=False)) if wait else answer

    def form_valid(self, form):
        answer = super().form_valid(form)
        known_browsers.remember(answer, form.get_user())
        return answer

    def form_invalid(self, form):
        _failed(self.keys)
        return super().form_invalid(form)


class FirstPassword(auth_views.PasswordChangeView):
    """Django's password change; done, the account is no longer on its one-time password."""

    template_name = "web/password_change.html"
    success_url = reverse_lazy("home")

    def form_valid(self, form):
        answer = super().form_valid(form)
        FirstSignIn.objects.filter(user=self.request.user).delete()
        messages.success(self.request, "Your new password is set.")
        return answer


sign_out = auth_views.LogoutView.as_view(next_page=reverse_lazy("login"))

# Pages an account on its one-time password may still open.
_FIRST_PASSWORD_OPEN = ("/password/", "/logout/", "/login/")


def mark_signed_in(sender, request=None, user=None, **kwargs) -> None:
    """``user_logged_in``'s receiver: the session remembers when it began (``SessionAgeMiddleware``)."""
    if request is not None and hasattr(request, "session"):
        request.session[SIGNED_IN_AT] = int(time.time())


class SessionAgeMiddleware:
    """Ends a session ``SESSION_COOKIE_AGE`` after its sign-in, however active (a shared lab PC
    left signed in ends with the lab day), and one that does not say when it began."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and not request.path.startswith(("/api/", "/healthz")):
            began = request.session.get(SIGNED_IN_AT)
            if not isinstance(began, int) or time.time() - began > settings.SESSION_COOKIE_AGE:
                logout(request)
                messages.info(request, "Your session has ended: sign in again.")
                return redirect_to_login(request.get_full_path())
        return self.get_response(request)


class FirstPasswordMiddleware:
    """Leads an account still on its one-time password to the change-password page first."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        if (
            user is not None
            and user.is_authenticated
            and not request.path.startswith(("/api/", "/healthz"))
            and request.path not in _FIRST_PASSWORD_OPEN
            and FirstSignIn.objects.filter(user=user).exists()
        ):
            return redirect("password_change")
        return self.get_response(request)


class PolicyMiddleware:
    """A Content-Security-Policy on every HTML answer that has none of its own."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.get("Content-Type", "").startswith("text/html") and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = PAGE_POLICY
        response.setdefault("X-Content-Type-Options", "nosniff")
        response.setdefault("Referrer-Policy", "same-origin")
        return response
