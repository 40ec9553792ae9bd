"""Usernames are case-insensitive everywhere (docs/portal.md, "Accounts"): a roster's ``Zed`` signs
in as ``zed``, ``ZED`` or ``Zed``, counts its wrong passwords against one account, and ``users
import``, ``users token``, ``users password``, the instructor's pages and the API all find that one
account; accounts made before the rule that differ only in case keep their own exact names."""

from __future__ import annotations

import sys

import pytest

django = pytest.importorskip("django", reason="the portal needs the web extra (Django, Python 3.10+)")
if sys.version_info < (3, 10):
    pytest.skip("the portal needs Python 3.10 or later", allow_module_level=True)

from portal_client import api_get, api_hand_in, signed_in  # noqa: E402

from grader.errors import UsageError  # noqa: E402

# (the roster's name, another spelling a person takes for the same name)
SPELLINGS = [
    ("Zed", "zed"),
    ("Zed", "ZED"),
    ("zed", "Zed"),
    ("Straße", "STRASSE"),
    ("José", "josé"),
    ("Σίσυφος", "ΣΊΣΥΦΟΣ"),
    ("zed", "ＺＥＤ"),  # fullwidth, as a phone's keyboard may type it
]
IDS = [f"{kept}-as-{typed}" for kept, typed in SPELLINGS]


def _import(tmp_path, rows: str, header: str = "username,role"):
    from grader.web.site import roster

    path = tmp_path / "roster.csv"
    path.write_text(f"{header}\n{rows}", encoding="utf-8")
    return roster.import_roster(path)


def _usernames() -> set:
    from django.contrib.auth import get_user_model

    return set(get_user_model().objects.values_list("username", flat=True))


def _sign_in(name: str, password: str):
    from django.test import Client

    client = Client()
    return client, client.post("/login/", {"username": name, "password": password})


@pytest.mark.parametrize("kept, typed", SPELLINGS, ids=IDS)
def test_a_roster_name_signs_in_whatever_its_letter_case(tmp_path, kept, typed):
    ((made, password),) = _import(tmp_path, f"{kept},student\n").created
    client, answer = _sign_in(typed, password)
    assert answer.status_code == 302, answer.content.decode()[:400]
    assert answer.wsgi_request.user.get_username() == kept  # the account keeps its spelling
    assert _sign_in(typed, password + "x")[1].status_code == 200  # the password still has its case


@pytest.mark.parametrize("kept, typed", SPELLINGS, ids=IDS)
def test_every_spelling_counts_its_wrong_passwords_against_the_one_account(tmp_path, kept, typed):
    from django.contrib.auth import get_user_model

    from grader.web.site.sign_in_limits import account_key

    _import(tmp_path, f"{kept},student\n")
    own = f"user:{get_user_model().objects.get(username=kept).pk}"
    assert account_key(kept) == account_key(typed) == account_key(f"  {typed.upper()} ") == own
    # a name that is no account: one budget for all its spellings too, so case buys a guesser nothing
    assert account_key("Nobody") == account_key("NOBODY") == account_key("nobody") != own


@pytest.mark.parametrize("kept, typed", SPELLINGS, ids=IDS)
def test_importing_another_spelling_updates_the_account_never_makes_a_second(tmp_path, kept, typed):
    from django.contrib.auth import get_user_model

    _import(tmp_path, f"{kept},student\n")
    before = _usernames()
    if typed != "ＺＥＤ":  # (a roster never holds a fullwidth name: it is refused with a sentence)
        outcome = _import(tmp_path, f"{typed},instructor,Zed Zee\n", header="username,role,name")
        assert outcome.created == () and outcome.changed == (kept,)
        assert _usernames() == before
        account = get_user_model().objects.get(username=kept)
        assert account.is_staff and account.get_full_name() == "Zed Zee"


def test_two_roster_rows_differing_only_in_case_are_a_sentence_naming_both_lines(tmp_path):
    before = _usernames()
    with pytest.raises(UsageError) as refused:
        _import(tmp_path, "Zed,student\nann,student\nzed,student\n")
    said = str(refused.value)
    assert "lines 2 and 4" in said and "'Zed'" in said and "'zed'" in said, said
    assert _usernames() == before


@pytest.mark.parametrize("kept, typed", SPELLINGS, ids=IDS)
def test_users_token_and_users_password_find_the_account_and_name_it_as_it_is(tmp_path, kept, typed):
    from grader.web.site import roster

    _import(tmp_path, f"{kept},student\n")
    ((named, token),) = roster.new_tokens([typed])
    assert named == kept and token
    ((named, password),) = roster.new_passwords([typed, kept])  # one account named twice: one password
    assert named == kept
    assert _sign_in(typed, password)[1].status_code == 302


def test_the_instructors_pages_and_the_api_find_a_student_in_any_case(tmp_path):
    from django.contrib.auth import get_user_model

    from grader.web.models import Extension, FirstSignIn

    _import(tmp_path, "Zed,student\nteach_u,instructor\n")
    FirstSignIn.objects.all().delete()
    api_hand_in("Zed", "nim_sum", "def nim_sum(heaps):\n    return 0\n")
    teacher = signed_in("teach_u")
    page = teacher.get("/teach/class/ZED/index.html")
    assert page.status_code == 200 and "<h1>Zed</h1>" in page.content.decode()
    answer = teacher.post("/teach/class/zed/extension", {"task": "nim_sum", "deadline": "2031-01-01 12:00"})
    assert answer.status_code == 302 and answer["Location"] == "/teach/class/Zed/index.html"
    assert Extension.objects.filter(student__username="Zed", task="nim_sum").exists()
    assert [row["student"] for row in api_get("teach_u", "/api/submissions?student=zED")] == ["Zed"]
    reset = teacher.post("/account/", {"action": "reset", "username": "zed"})
    assert reset.status_code == 200 and "Zed" in reset.content.decode()
    assert FirstSignIn.objects.filter(user=get_user_model().objects.get(username="Zed")).exists()


def test_accounts_made_before_the_rule_that_differ_in_case_keep_their_exact_names(tmp_path):
    """Nothing lost: each of Kim and kim signs in by its exact name; KIM names both, so it signs
    in as neither, and the commands and pages say which two it names."""
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    for name in ("Kim", "kim"):  # made directly: from before the rule
        users.create_user(username=name, password=f"{name} horse battery")
    for name in ("Kim", "kim"):
        client, answer = _sign_in(name, f"{name} horse battery")
        assert answer.status_code == 302 and answer.wsgi_request.user.get_username() == name
    assert _sign_in("KIM", "Kim horse battery")[1].status_code == 200
    from grader.web.site import roster

    with pytest.raises(UsageError) as refused:
        roster.new_tokens(["KIM"])
    said = str(refused.value)
    assert "'Kim'" in said and "'kim'" in said and "exactly" in said, said
    users.create_user(username="teach_k", is_staff=True)
    reset = signed_in("teach_k").post("/account/", {"action": "reset", "username": "KIM"})
    assert reset.status_code == 400 and "&#x27;Kim&#x27; and &#x27;kim&#x27;" in reset.content.decode()
    assert _usernames() >= {"Kim", "kim"}
