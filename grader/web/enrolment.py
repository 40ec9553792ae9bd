"""Who is in the class, and who may change it: the one answer every page and export asks.

In: the accounts. Out:

- ``class_members()``: the usernames of the class, the students every listing, statistic and
  export counts (gradebook and LMS CSV, class overview with its pass rates, "Students who need help
  first" and "Common mistakes", Gradescope zip, the students list on /teach/): accounts that are
  neither staff nor dropped. ``in_class(username)`` answers for one.
- Dropping a student (``drop``) sets Django's ``is_active`` False: Django's sign-in (``login``) and
  every session of theirs stop at once, their API token is refused (``api``), and they leave every
  listing above; their hand-ins, results, extensions and adjustments stay untouched, listed on
  /teach/ under "Dropped students" (``dropped_students``), and ``restore`` brings all of it back as
  it was. Instructors and TAs cannot be dropped (they are not students).
- The roles: a student (not staff), an instructor (staff), a TA (staff, and in the ``TA_GROUP``
  group of Django's auth). A TA sees every page an instructor sees and may comment on a
  submission, but changes nothing of the course, its policies, the roster, points, regrades or
  publishing: ``instructor_required`` answers a TA's POST with 403 and a sentence, on the server.
"""

from __future__ import annotations

from functools import wraps
from typing import List

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import render

TA_GROUP = "teaching assistants"
STUDENT, TA, INSTRUCTOR = "student", "ta", "instructor"
DROPPED_SENTENCE = (
    "This account was dropped from the class: it can no longer sign in or hand in. Its work is kept; "
    "ask the course's instructor if this is a mistake."
)
TA_REFUSED = (
    "Teaching assistants see the class and comment on submissions, but only an instructor may change "
    "the course, its deadlines and budgets, the roster, points, regrades or what is published."
)


def class_members() -> List[str]:
    """The usernames of the class (students not dropped), sorted."""
    users = get_user_model().objects.filter(is_staff=False, is_active=True)
    return sorted(users.values_list("username", flat=True))


def left_out() -> set:
    """The usernames no listing of the class shows although they may hold hand-ins: the dropped."""
    return set(get_user_model().objects.filter(is_active=False).values_list("username", flat=True))


def in_class(username: str) -> bool:
    """Whether ``username`` is a student of the class now (not staff, not dropped)."""
    return get_user_model().objects.filter(username=username, is_staff=False, is_active=True).exists()


def dropped_students() -> List[str]:
    """The usernames of the dropped students, sorted."""
    users = get_user_model().objects.filter(is_staff=False, is_active=False)
    return sorted(users.values_list("username", flat=True))


def drop(user) -> str:
    """Drop ``user`` from the class (their work kept) and end their sessions; the sentence saying
    what happened (or why nothing did: an instructor or TA, or one dropped already)."""
    if user.is_staff:
        return f"{user.username} is not a student (an instructor or TA): nothing was changed."
    if not user.is_active:
        return f"{user.username} was dropped already: nothing was changed."
    user.is_active = False
    user.save(update_fields=["is_active"])
    end_sessions([user])
    return f"{user.username} is dropped: gone from the gradebook, the statistics and the exports; their work is kept."


def restore(user) -> str:
    """Bring a dropped ``user`` back, with every hand-in and result as it was; the sentence."""
    if user.is_active:
        return f"{user.username} is in the class already: nothing was changed."
    user.is_active = True
    user.save(update_fields=["is_active"])
    return f"{user.username} is back in the class, with every hand-in and result as it was."


def end_sessions(users) -> int:
    """Sign ``users`` out everywhere: delete their sessions (Django keeps them by key, not by user,
    so every live session is read). Returns how many ended."""
    from django.contrib.sessions.models import Session
    from django.utils import timezone

    ids = {str(user.pk) for user in users}
    ended = [
        session.pk
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if str(session.get_decoded().get("_auth_user_id")) in ids
    ]
    Session.objects.filter(pk__in=ended).delete()
    return len(ended)


def is_ta(user) -> bool:
    """Whether ``user`` is a teaching assistant (staff in the ``TA_GROUP``)."""
    return bool(user.is_authenticated and user.is_staff and user.groups.filter(name=TA_GROUP).exists())


def is_instructor(user) -> bool:
    """Whether ``user`` may change the course: staff and not a TA."""
    return bool(user.is_authenticated and user.is_staff and not is_ta(user))


def role_of(user) -> str:
    """``student``, ``ta`` or ``instructor``."""
    return INSTRUCTOR if is_instructor(user) else TA if is_ta(user) else STUDENT


def set_role(user, role: str) -> None:
    """Make the saved ``user`` a student, TA or instructor (``role``, lower case)."""
    group, _ = Group.objects.get_or_create(name=TA_GROUP)
    if user.is_staff != (role != STUDENT):
        user.is_staff = role != STUDENT
        user.save(update_fields=["is_staff"])
    if role == TA:
        user.groups.add(group)
    else:
        user.groups.remove(group)


def instructor_required(view):
    """The view for instructors only: a visitor gets the sign-in page, a student or a TA a 403
    page saying why (the check every changing POST of /teach/ goes through, whatever the page shows)."""

    @wraps(view)
    def checked(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_instructor(request.user):
            why = TA_REFUSED if request.user.is_staff else ""
            return render(request, "web/forbidden.html", {"why": why}, status=403)
        return view(request, *args, **kwargs)

    return checked
