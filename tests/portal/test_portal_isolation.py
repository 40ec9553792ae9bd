"""The portal tier's isolation (tests/portal/conftest.py): what a module's set-up writes is there
for each of its tests and gone for every other module, and what a test writes is gone for the next
test, with no sweep of its own."""

from __future__ import annotations

import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_hand_in, set_up_portal  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def roster(tmp_path_factory):
    set_up_portal(tmp_path_factory.mktemp("portal"), "username,role\niso_ann,student\niso_teach,instructor\n")


def accounts() -> set:
    from django.contrib.auth import get_user_model

    return set(get_user_model().objects.values_list("username", flat=True))


def test_only_this_modules_accounts_are_there_and_a_test_hands_in():
    from grader.web.models import Submission

    assert accounts() == {"iso_ann", "iso_teach"}, "another module's accounts were left in the database"
    assert not Submission.objects.exists()
    api_hand_in("iso_ann", "nim_sum", "print(0)\n")
    assert Submission.objects.count() == 1


def test_the_next_test_sees_the_modules_accounts_and_none_of_the_hand_in():
    from grader.web.models import Submission

    assert accounts() == {"iso_ann", "iso_teach"}
    assert not Submission.objects.exists(), "the earlier test's hand-in was left in the database"
