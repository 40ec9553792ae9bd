"""The portal tier: the portal's pages, API and queue through Django's test client, in this process,
on the session's one Django configuration (``django_site`` in tests/conftest.py).

Each module runs inside a transaction of its own, and each test inside one more: what a module's
set-up writes (its roster) is rolled back when the module ends, what a test writes when the test
ends, as Django's ``TestCase`` does with ``setUpTestData``. No module sees another's rows, and no
test needs to sweep up after itself. A module whose tests need rows other connections can see
(grading threads, a Dask cluster, a command in another process) says so with
``pytestmark = pytest.mark.committed``: its writes are committed, and emptied when it ends.
"""

from __future__ import annotations

import pytest


def _committed(request) -> bool:
    return request.node.get_closest_marker("committed") is not None


@pytest.fixture(scope="module", autouse=True)
def _module_transaction(request, django_site, every_task_signed):
    """The module's set-up and tests in one transaction, rolled back at its end (or, for a
    ``committed`` module, committed and then emptied). The known mistakes' signatures are made
    before the first (grading makes what is missing, inside whichever test grades first)."""
    from django.db import transaction

    if _committed(request):
        _hidden_results(request)
        yield
        empty_portal()
        return
    with transaction.atomic():
        _hidden_results(request)
        yield
        transaction.set_rollback(True)


def _hidden_results(request) -> None:
    """Hidden cases run at every hand-in, as these modules' courses expect, unless the module says
    ``pytestmark = pytest.mark.hidden_wait`` (it tests the course's default: after the deadline)."""
    from grader.web.models import AT_ONCE, CourseSetting

    if request.node.get_closest_marker("hidden_wait") is None:
        CourseSetting.objects.update_or_create(pk=1, defaults={"hidden_results": AT_ONCE})


@pytest.fixture(autouse=True)
def _test_transaction(request, _module_transaction):
    """Each test in a savepoint of the module's transaction, rolled back at its end."""
    from django.db import transaction

    if _committed(request):
        yield
        return
    with transaction.atomic():
        yield
        transaction.set_rollback(True)


def empty_portal() -> None:
    """Every row a test can make, gone: the accounts and what hangs on them (submissions and their
    files, tokens, extensions, adjustments, first sign-ins), limits, settings, sign-in records and
    workers."""
    from django.contrib.auth import get_user_model

    from grader.web import models

    kept = (models.Submission, models.TaskPolicy, models.CourseSetting, models.FailedSignIn, models.Worker)
    for model in kept:
        model.objects.all().delete()
    get_user_model().objects.all().delete()
