"""The account page (``/account/``): a user makes or revokes their own API token (for ``submit``
and scripts), and an instructor gives a student a new one-time password.

In: a signed-in user's requests; POSTs (CSRF-protected) with ``action`` ``token`` (a new token,
shown once: the previous one stops working), ``revoke`` (no token), or, for instructors, ``reset``
with a student's ``username``, in any letter case (as ``users password`` does: a one-time password shown once, the old
password, token and sessions ended, the password change at the next sign-in). Out: the page, with
what was made shown once and never cached; a refused form is the page again with a sentence (400,
or 403 for a student asking for an instructor's action); nothing changes then.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from grader.web.enrolment import TA_REFUSED, is_instructor
from grader.web.models import ApiToken
from grader.web.site.roster import new_passwords, new_token
from grader.web.usernames import accounts_named, ambiguity


def _page(request, status: int = 200, **shown):
    """The account page; ``shown`` holds what is shown once (a token, a one-time password) or
    ``problem``, the sentence saying why a form was refused."""
    token = ApiToken.objects.filter(user=request.user).first()
    context = {"token_made": token.created if token else None, "portal": request.build_absolute_uri("/"), **shown}
    response = render(request, "web/account.html", context, status=status)
    if shown:  # a secret shown once stays out of every cache
        response["Cache-Control"] = "no-store"
    return response


def _reset(request):
    """An instructor's reset of a student's password: the page with the one-time password."""
    if not is_instructor(request.user):  # (a TA changes no account: ``enrolment``)
        why = TA_REFUSED if request.user.is_staff else ""
        return render(request, "web/forbidden.html", {"why": why}, status=403)
    name = request.POST.get("username", "").strip()
    accounts = accounts_named(name)  # (letter case aside: zed is Zed)
    if len(accounts) > 1:
        return _page(request, 400, problem=ambiguity(name, [account.username for account in accounts]))
    if not accounts:
        shown = name if len(name) <= 150 else name[:150] + "..."  # a username is at most 150 characters
        return _page(request, 400, problem=f"There is no account named {shown!r}: check the username.")
    target = accounts[0]
    if target.is_staff:
        problem = (
            f"{target.username} is an instructor: an instructor's password is reset on the server "
            f"(python -m grader users password {target.username})."
        )
        return _page(request, 400, problem=problem)
    ((_, password),) = new_passwords([target.username])
    return _page(request, reset=(target.username, password))


@login_required
@require_http_methods(["GET", "POST"])
def account(request):
    """The page, and its three forms' actions."""
    if request.method == "GET":
        return _page(request)
    action = request.POST.get("action", "")
    if action == "token":
        return _page(request, token=new_token(request.user))
    if action == "revoke":
        ended = ApiToken.objects.filter(user=request.user).delete()[0]
        messages.success(request, "Your API token is revoked." if ended else "You had no API token.")
        return redirect("account")
    if action == "reset":
        return _reset(request)
    return _page(request, 400, problem="That form is not one of this page's: reload the page and try again.")
