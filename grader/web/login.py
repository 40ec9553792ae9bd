"""Signing in and out, the first password change, and the headers every page is served with.

In: requests. Out: Django's own auth views with the portal's templates, plus three rules:
- failed sign-ins are counted per username and per address in the database (``FailedSignIn``:
  every web process sees them, a restart forgets none); after ``MAX_FAILURES`` within
  ``WINDOW_S`` the sign-in page answers 429 and says when to try again;
- an account still on the one-time password ``users import`` printed (``FirstSignIn``) is led to
  the change-password page before any other page (``FirstPasswordMiddleware``);
- every HTML answer carries a Content-Security-Policy (``PAGE_POLICY``: the portal's own pages
  and forms, inline style, no script) unless the view set a stricter one (reports).
"""

from __future__ import annotations

import hashlib
import math
from datetime import timedelta

from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils import timezone

from grader.web.models import FailedSignIn, FirstSignIn

MAX_FAILURES = 5
WINDOW_S = 300
PAGE_POLICY = (
    "default-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; script-src 'none'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


def _keys(request) -> list:
    """Keys of the failures that count against this attempt: its username's and its address's
    digests (the address is the client's; behind a reverse proxy, ``serve --proxy`` makes it so)."""
    username = request.POST.get("username", "").strip().lower()
    address = request.META.get("REMOTE_ADDR", "")
    return [
        "user:" + hashlib.sha256(username.encode("utf-8", "surrogatepass")).hexdigest()[:32],
        "addr:" + hashlib.sha256(address.encode("utf-8", "surrogatepass")).hexdigest()[:32],
    ]


def _wait(keys) -> int:
    """Seconds until a sign-in may be tried again (0: now)."""
    now = timezone.now()
    waits = []
    for key in keys:
        recent = list(
            FailedSignIn.objects.filter(key=key, at__gt=now - timedelta(seconds=WINDOW_S))
            .order_by("-at")
            .values_list("at", flat=True)[:MAX_FAILURES]
        )
        if len(recent) >= MAX_FAILURES:
            waits.append((recent[-1] - now).total_seconds() + WINDOW_S)
    return max(1, math.ceil(max(waits))) if waits else 0


def _failed(keys) -> None:
    now = timezone.now()
    FailedSignIn.objects.bulk_create([FailedSignIn(key=key, at=now) for key in keys])
    FailedSignIn.objects.filter(at__lt=now - timedelta(seconds=WINDOW_S)).delete()  # the table stays small


class SignIn(auth_views.LoginView):
    """Django's sign-in, refused with 429 (and when to retry) after too many failures."""

    template_name = "web/login.html"
    redirect_authenticated_user = True

    def post(self, request, *args, **kwargs):
        keys = _keys(request)
        wait = _wait(keys)
        if wait:
            response = render(request, "web/throttled.html", {"wait": wait}, status=429)
            response["Retry-After"] = str(wait)
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        _failed(_keys(self.request))
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
