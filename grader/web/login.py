"""Signing in and out, the first password change, how long a session lasts, and the headers every
page is served with.

In: requests. Out: Django's own auth views with the portal's templates, plus these rules:

- Sign-ins are held back by budgets of failures (``sign_in_limits``: per account, counted before
  the password is checked so that guesses sent together are counted one after another; per
  address, a high bound on wrong passwords only) and a browser that signed in to the account before
  has a budget of its own (``known_browsers``). A correct password is never refused because of
  other accounts' failures or the address's count; the owner, however many failures an attacker
  piled on the account, waits at most ``MAX_DELAY_S`` (60 s, said on the page) after the last one,
  and not at all at their own browser.

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

import time
from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect, render
from django.urls import reverse_lazy

from grader.web import known_browsers
from grader.web.models import ApiToken, FirstSignIn
from grader.web.sign_in_limits import MAX_DELAY_S, account_key, address_failed, give_back, reserve

SIGNED_IN_AT = "signed_in_at"  # the session's key: when its user signed in (seconds since the epoch)
PAGE_POLICY = (
    "default-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; script-src 'none'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


@dataclass(frozen=True)
class Held:
    """Why a sign-in is answered 429, and for how many seconds."""

    wait: int
    account: bool  # the account's delay (else: the address's bound)


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
        budgets = known_browsers.budgets(request, account_key(request.POST.get("username", "")))
        wait, self.reserved = reserve(budgets)
        if wait:  # unchecked and uncounted: checking would reveal a right password at full speed
            return _throttled(request, Held(wait, account=True))
        answer = super().post(request, *args, **kwargs)
        if request.user.is_authenticated:
            return answer
        wait = address_failed(request)
        return _throttled(request, Held(wait, account=False)) if wait else answer

    def form_valid(self, form):
        give_back(self.reserved)  # the password was right: the attempt counted in advance is no failure
        answer = super().form_valid(form)
        known_browsers.remember(answer, form.get_user())
        return answer


class FirstPassword(auth_views.PasswordChangeView):
    """Django's password change; done, the account is no longer on its one-time password."""

    template_name = "web/password_change.html"
    success_url = reverse_lazy("home")

    def form_valid(self, form):
        answer = super().form_valid(form)
        FirstSignIn.objects.filter(user=self.request.user).delete()
        # a new password ends what the old one made: another browser's session (Django) and the token
        ended = ApiToken.objects.filter(user=self.request.user).delete()[0]
        messages.success(
            self.request,
            "Your new password is set."
            + (" Your API token no longer works: make a new one on your account page." if ended else ""),
        )
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
