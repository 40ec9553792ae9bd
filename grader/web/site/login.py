"""Signing in and out, the first password change, how long a session lasts, and the headers every
page is served with.

In: requests. Out: Django's own auth views with the portal's templates, plus these rules:

- Every password check (the sign-in page's, and the old password at ``/password/``) is counted
  against the budgets of ``sign_in_limits`` before the password is checked: the account's at the
  client's address (short growing delays, refused unchecked meanwhile), the account's tally from
  everywhere (which never refuses, only lengthens every address's delays while the account is
  under attack), and a browser that signed in to the account before has budgets of its own
  (``known_browsers``). A right password resets the budgets it was counted against. So the owner,
  at a browser and an address that did not fail, always gets in at once, however long an attacker
  keeps on elsewhere; one address gets a few dozen checked guesses a day; and beyond a high bound,
  an address's wrong passwords are answered 429 (a right one still signs in).

The trade-off: refusing unchecked is the only thing that slows a guesser, and whoever shares the
owner's address (a lab's NAT) can cause it for that address; so the owner's way out is another
address or a browser they signed in with before, both of which the attacker's failures never reach.

Also: an account still on the one-time password ``users import`` or ``users password`` printed
(``FirstSignIn``) is led to the change-password page before any other page
(``FirstPasswordMiddleware``; its API token is refused too: ``api``); the sign-in with that
password proves it, so for ``PROOF_S`` after it (``PASSWORD_PROVED`` in the session, kept on the
server) ``/password/`` asks only for the new password; without that proof (a direct visit, later,
or an account that chose its password already) it asks for the current one too. Each sign-in deletes the
sessions and failures that have expired (``clear_expired``, so the tables stay the size of what is
live, with no schedule of their own to run); usernames are read as ``usernames.find_account``
reads them, so ``ZED`` signs in as ``Zed`` (``CaseFreeBackend``); a session ends with the browser
(no Max-Age) and, on the server,
``SESSION_COOKIE_AGE`` after it was signed in, whatever was done since (``SessionAgeMiddleware``);
every HTML answer carries a Content-Security-Policy (``PAGE_POLICY``: the portal's own pages and
forms, inline style, no script) unless the view set a stricter one (reports).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from importlib import import_module

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.forms import AuthenticationForm, SetPasswordForm
from django.contrib.auth.password_validation import password_validators_help_texts
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect, render
from django.urls import reverse_lazy

from grader.web.enrolment import DROPPED_SENTENCE
from grader.web.logs import address, event
from grader.web.models import ApiToken, FirstSignIn
from grader.web.site import known_browsers
from grader.web.site.sign_in_limits import Reservation, account_key, address_failed, forget_old, reserve, settle
from grader.web.usernames import find_account

SIGNED_IN_AT = "signed_in_at"  # the session's key: when its user signed in (seconds since the epoch)
PASSWORD_PROVED = "password_proved_at"  # ... when its user signed in with the one-time password
PROOF_S = 600  # how long that sign-in stands for the current password at /password/
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
    context = {"wait": held.wait, "account": held.account}
    response = render(request, "web/throttled.html", context, status=429)
    response["Retry-After"] = str(held.wait)
    return response


def _reserve(request, account: str) -> Reservation:
    """A password check of ``account`` (``account_key``) counted in advance, or the wait."""
    return reserve(*known_browsers.budgets(request, account))


class CaseFreeBackend(ModelBackend):
    """Django's password check of the account ``usernames.find_account`` finds (letter case aside)."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        user = find_account(username)
        if user is None:
            get_user_model()().set_password(password)  # (as Django does: a hash's time either way)
            return None
        # A dropped student's right password is answered with why they cannot sign in
        # (``SignInForm.confirm_login_allowed``), not as a wrong password; no session restores them
        # (``get_user`` keeps Django's check of ``is_active``).
        return user if user.check_password(password) else None


class SignInForm(AuthenticationForm):
    """Django's sign-in form, saying why a dropped student's account cannot sign in."""

    error_messages = {**AuthenticationForm.error_messages, "inactive": DROPPED_SENTENCE}


class SignIn(auth_views.LoginView):
    """Django's sign-in, held back by the budgets of ``sign_in_limits``, with a 429 page that says
    when to try again."""

    template_name = "web/login.html"
    authentication_form = SignInForm
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        typed = request.POST.get("username", "")
        self.reserved = _reserve(request, account_key(typed))
        if self.reserved.wait:  # unchecked and uncounted: checking would reveal a right password at full speed
            event("sign-in-held", user=typed, address=address(request), wait=self.reserved.wait)
            return _throttled(request, Held(self.reserved.wait, account=True))
        answer = super().post(request, *args, **kwargs)
        if request.user.is_authenticated:
            return answer
        event("sign-in-failed", user=typed, address=address(request))  # the name typed, never the password
        wait = address_failed(request)
        return _throttled(request, Held(wait, account=False)) if wait else answer

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        refused = [error.code for error in context["form"].non_field_errors().as_data()]
        context["dropped"] = DROPPED_SENTENCE if "inactive" in refused else ""
        return context

    def form_valid(self, form):
        settle(self.reserved)  # the password was right: no failure, and its budgets start afresh
        answer = super().form_valid(form)
        known_browsers.remember(answer, form.get_user())
        if FirstSignIn.objects.filter(user=form.get_user()).exists():  # (the session is the new one)
            self.request.session[PASSWORD_PROVED] = int(time.time())
        return answer


def _proved(request) -> bool:
    """Whether this session signed in with the one-time password within ``PROOF_S`` (and the
    account is still on it): the current password need not be typed again."""
    at = request.session.get(PASSWORD_PROVED)
    fresh = isinstance(at, int) and 0 <= time.time() - at <= PROOF_S
    return fresh and FirstSignIn.objects.filter(user=request.user).exists()


def password_rules() -> list:
    """The rules a new password must keep, as the validators say them, each once."""
    return list(dict.fromkeys(password_validators_help_texts()))


class FirstPassword(auth_views.PasswordChangeView):
    """Django's password change, its old password checked under the sign-in's budgets; done, the
    account is no longer on its one-time password."""

    template_name = "web/password_change.html"
    success_url = reverse_lazy("home")
    reserved = None

    def get_form_class(self):
        return SetPasswordForm if _proved(self.request) else super().get_form_class()

    def get_context_data(self, **kwargs):
        return super().get_context_data(**kwargs, asks_current=not _proved(self.request), rules=password_rules())

    def post(self, request, *args, **kwargs):
        if _proved(request):  # no password is checked here: nothing to count
            return super().post(request, *args, **kwargs)
        self.reserved = _reserve(request, f"user:{request.user.pk}")
        if self.reserved.wait:  # unchecked, as at the sign-in page
            return _throttled(request, Held(self.reserved.wait, account=True))
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        if self.reserved is None:
            pass
        elif "old_password" not in form.errors:
            settle(self.reserved)  # the old password was right (the new one was refused)
        else:
            event("password-check-failed", user=self.request.user.username, address=address(self.request))
            wait = address_failed(self.request)
            if wait:
                return _throttled(self.request, Held(wait, account=False))
        return super().form_invalid(form)

    def form_valid(self, form):
        if self.reserved is not None:
            settle(self.reserved)
        answer = super().form_valid(form)
        FirstSignIn.objects.filter(user=self.request.user).delete()
        self.request.session.pop(PASSWORD_PROVED, None)
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
    """``user_logged_in``'s receiver: the session remembers when it began (``SessionAgeMiddleware``),
    and what has expired is cleared (``clear_expired``)."""
    if request is not None and hasattr(request, "session"):
        request.session[SIGNED_IN_AT] = int(time.time())
    clear_expired()


def clear_expired() -> None:
    """Delete the sessions past their end (Django's ``clearsessions``) and the failed sign-ins older
    than every budget's window. Run at each sign-in: sessions are made by sign-ins, so the table
    holds at most what the sign-ins of one session age left, whether or not anything else runs."""
    import_module(settings.SESSION_ENGINE).SessionStore.clear_expired()
    forget_old()


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
