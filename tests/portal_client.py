"""The portal's pages and API through Django's test client, in this process (the module's fixture
has called ``server.prepare``): a signed-in user, a file handed in through the API or the page."""

from __future__ import annotations

import io


def signed_in(name: str):
    """A test client signed in as ``name`` (without the sign-in page)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username=name))
    return client


def page_hand_in(client, task: str, text=None, upload=None):
    """``client`` hands in through the task's page: pasted ``text``, an ``upload``, or both."""
    data = {}
    if text is not None:
        data["text"] = text
    if upload is not None:
        data["file"] = upload
    return client.post(f"/tasks/{task}/", data)


def api_hand_in(user: str, task: str, text: str) -> int:
    """``user`` hands ``text`` in as ``task``.py through the API (with a new token); the new row's id."""
    from django.test import Client

    from grader.web.models import FirstSignIn
    from grader.web.site import roster as accounts

    FirstSignIn.objects.filter(user__username=user).delete()  # (no token works before a chosen password)
    ((_, token),) = accounts.new_tokens([user])
    upload = io.BytesIO(text.encode())
    upload.name = f"{task}.py"
    answer = Client().post("/api/submissions", {"task": task, "file": upload}, HTTP_AUTHORIZATION=f"Token {token}")
    return answer.json()["id"]


def api_get(user: str, path: str):
    """``user`` asks the API for ``path`` (with a new token); the answer's JSON."""
    from django.test import Client

    from grader.web.models import FirstSignIn
    from grader.web.site import roster as accounts

    FirstSignIn.objects.filter(user__username=user).delete()  # (no token works before a chosen password)
    ((_, token),) = accounts.new_tokens([user])
    return Client().get(path, HTTP_AUTHORIZATION=f"Token {token}").json()


def set_up_portal(folder, roster_csv: str) -> None:
    """Import ``roster_csv`` (written into ``folder``, a module's own) into the session's portal
    (``django_site``) and mark every password as chosen, so no page leads to the password change."""
    from grader.web.models import FirstSignIn
    from grader.web.site import roster as accounts

    path = folder / "roster.csv"
    path.write_text(roster_csv)
    accounts.import_roster(path)
    FirstSignIn.objects.all().delete()
