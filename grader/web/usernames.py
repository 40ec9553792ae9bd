"""What a username may be, when two are one, and the folder each student gets in an export.

In: usernames (from a roster, or the accounts already in the database). Out:
- ``sign_in_problem``: the sentence saying why a name could never be typed at the sign-in page,
  or "". The sign-in form (Django's ``AuthenticationForm``) strips the name and reads it as NFKC
  makes it (``ｂｏｂ``, fullwidth, is read as ``bob``; ``ﬁ`` as ``fi``), then looks for that exact
  name: an account whose name NFKC changes can never sign in. Whitespace and control or invisible
  characters are refused by the character rule (Django's ``UnicodeUsernameValidator``: letters,
  digits and ``@ . + - _``).
- ``same_key`` (``report/export_names.py``'s, which ``grade`` shares): the key under which two
  names are one student to a person or a disk: NFKC, then Unicode case folding, then NFKC again
  (``Bob``, ``bob``, ``ＢＯＢ``; ``Straße`` and ``STRASSE``). A case-insensitive file system (macOS,
  Windows) keeps one folder of a zip for such names.
- ``export_folders``: a folder name for every username, no two the same as a disk compares them
  (``same_key``, and Windows drops a name's trailing dots) and each one plain folder name (never
  ``..``, a separator, a control character, or a name Windows keeps for a device: ``con``, ``nul``),
  so an export unpacked on any disk keeps every student apart, even for accounts that predate the
  roster's rules.
- ``accounts_named`` / ``find_account``: the one rule every place that reads a typed username
  follows (the sign-in page, its budgets, ``users import``, ``users token``, ``users password``,
  the instructor's pages, the API's ``?student=``): the account of exactly that name, else the
  accounts whose name is the same under ``same_key`` (``zed``, ``ZED`` and ``Zed`` are the account
  ``Zed``). An account keeps the spelling it was made with. Two accounts that predate the roster's
  rule and differ only in case (``Kim`` and ``kim``) each keep their exact name; another spelling
  (``KIM``) names both, so it finds none (``find_account``), and the commands say which two
  (``ambiguity``): nothing of either account is lost or merged.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Dict, Iterable, List, Optional

from grader.report.export_names import distinct_names, is_device
from grader.report.export_names import same_key as same_key  # (the roster's, from here)

MAX_USERNAME = 150  # Django's username field
# Django's UnicodeUsernameValidator's characters: \w is Unicode letters, digits and _, so no
# whitespace, control, format (invisible) or combining character passes.
_CHARACTERS = re.compile(r"[\w.@+-]+")
_NOT_ALLOWED = re.compile(r"[^\w.@+-]")
_MAX_FOLDER = 100  # of a folder made from a name that breaks the rules (before its ``~N``)


def sign_in_problem(name: str) -> str:
    """Why ``name`` cannot be an account's name (it could not sign in, or names no folder), or ""."""
    if not name:
        return "the username is empty."
    typed = unicodedata.normalize("NFKC", name)
    if typed != name and len(name) <= MAX_USERNAME and (_keeps_characters(typed) or _keeps_characters(name)):
        return (  # (said first: "write" names a name that keeps the rules, e.g. é for e and its accent)
            f"the username {shown(name)} could never sign in: the sign-in page reads what is typed as {typed!r} "
            "(wide, ligature, accent or other compatibility characters are read as their plain form): "
            f"write {shown(typed)}."
        )
    if not _keeps_characters(name) or len(name) > MAX_USERNAME:
        named = shown(name) if len(name) <= 40 else shown(name[:40]) + "..."
        return (
            f"the username {named} may hold only letters, digits and @ . + - _ (at most {MAX_USERNAME}; no space, "
            "no invisible character; not only dots): it is typed at the sign-in page and names the student's "
            "folder in exports."
        )
    return ""


def shown(name: str) -> str:
    """``name`` quoted, and with its code points when it holds others than ASCII (``é`` may be one
    character or two; ``ｂ`` and ``b`` look alike)."""
    return repr(name) if name.isascii() else f"{name!r} ({ascii(name)})"


def _keeps_characters(name: str) -> bool:
    return bool(_CHARACTERS.fullmatch(name)) and set(name) != {"."}


def _own_folder(name: str) -> bool:
    """Whether ``name`` may be a folder of its own name: it keeps the rules and names no device."""
    return not sign_in_problem(name) and not is_device(name)


def _plain(name: str) -> str:
    """A folder name made from a name that may not be its own: its NFKC form with every character
    outside the rule's set as ``_``, at most ``_MAX_FOLDER`` characters, and ``_`` before it when
    it would be only dots or a device's name."""
    plain = _NOT_ALLOWED.sub("_", unicodedata.normalize("NFKC", name))[:_MAX_FOLDER]
    only_dots = set(plain) <= {"."}  # (or empty)
    return "_" + plain if only_dots or is_device(plain) else plain


def export_folders(usernames: Iterable[str], reserved: Iterable[str] = ()) -> Dict[str, str]:
    """A folder name for each of ``usernames``, by username (``export_names.distinct_names``). A name
    that keeps the rules, names no device and is the first (in code point order) of its folder key
    is its own folder; any other gets its plain form with ``~2``, ``~3``... (``~`` is in no username
    that keeps the rules, so it takes no one's name; a device's name gets ``_`` before it: ``_con``).
    No folder is one of ``reserved`` (the export's own files)."""
    wanted = [(name, name if _own_folder(name) else None, _plain(name)) for name in sorted(set(usernames))]
    return distinct_names(wanted, reserved=reserved)


def accounts_named(name: str) -> List:
    """The accounts ``name`` names: ``[the account]`` of exactly that name if there is one, else
    every account whose name is ``name`` under ``same_key`` (none, one, or, for accounts made
    before the roster's rule, several), ordered by username. A name with NUL (which PostgreSQL
    refuses in text) names none."""
    from django.contrib.auth import get_user_model

    users = get_user_model().objects
    if not name or "\x00" in name:
        return []
    exact = users.filter(username=name).first()
    if exact is not None:
        return [exact]
    # (no database compares as same_key does: SQLite's iexact folds ASCII only, and none folds ß to ss;
    # a class's usernames are read in one query, far cheaper than the password hash each sign-in costs)
    key = same_key(name)
    ids = [pk for pk, username in users.values_list("pk", "username") if same_key(username) == key]
    return list(users.filter(pk__in=ids).order_by("username")) if ids else []


def find_account(name: str) -> Optional[Any]:
    """The one account ``name`` names (``accounts_named``), or None (no account, or several)."""
    found = accounts_named(name)
    return found[0] if len(found) == 1 else None


def ambiguity(name: str, usernames: Iterable[str]) -> str:
    """The sentence saying that ``name`` names several accounts, ``usernames`` (made before
    usernames were one rule), and how to name one."""
    names = " and ".join(shown(username) for username in usernames)
    return (
        f"{shown(name)} names the accounts {names}, which differ only in letter case (or the width of their "
        "characters; they were made before usernames were case-insensitive): write one of them exactly."
    )
