"""When two names are one folder on some disk, and a name for everyone in an export that no reader merges.

In: names (the portal's usernames, the folders of a class folder). Out:
- ``same_key``: NFKC, then Unicode case folding, then NFKC again: the key under which a person or a
  case-insensitive disk (macOS, Windows) takes two names for one (``Bob``, ``bob``, ``ＢＯＢ``;
  ``Straße`` and ``STRASSE``; ``José`` as one character or as ``e`` and an accent, which macOS's
  HFS+ decomposes).
- ``folder_key``: ``same_key`` without the trailing dots and spaces Windows drops from a name.
- ``on_every_disk``: why a name cannot be a folder on some common disk (a character Windows refuses,
  a name Windows keeps for a device, only dots, over 255 bytes), or "".
- ``distinct_names``: a name for each of many, no two with one key (``folder_key`` for folders),
  each the one it wants when it is free, else a plain form with ``~2``, ``~3``: the first by the
  caller's order keeps its own, so the same names give the same answer on every run and machine.

``grade`` (``classrun/folders.py``) and the portal's Gradescope zip (``web/usernames.py``) both
name their folders by it.
"""

from __future__ import annotations

import unicodedata
from typing import Dict, Hashable, Iterable, Optional, Sequence, Tuple, TypeVar

Who = TypeVar("Who", bound=Hashable)

# The longest folder name Linux and macOS keep (bytes of UTF-8; Windows counts UTF-16 units, fewer).
MOST_BYTES = 255
# Characters Windows refuses in a name (besides controls, which every name here has escaped).
WINDOWS_REFUSES = frozenset('<>:"/\\|?*')
# Names Windows gives to devices, whatever follows a dot: a folder ``nul`` cannot be made there.
DEVICES = frozenset({"con", "prn", "aux", "nul", *(f"com{n}" for n in range(10)), *(f"lpt{n}" for n in range(10))})


def same_key(name: str) -> str:
    """The key two names share when a person or a case-insensitive disk takes them for one."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def folder_key(folder: str) -> str:
    """The key under which two folder names are one folder on some disk (Windows also drops
    trailing dots and spaces)."""
    return same_key(folder).rstrip(". ")


def is_device(name: str) -> bool:
    """Whether Windows takes ``name`` (``con``, ``NUL.txt``, ``com1 ``) for a device."""
    return same_key(name).split(".")[0].rstrip(" ") in DEVICES


def on_every_disk(name: str) -> str:
    """Why ``name`` cannot be a folder of that name on every common disk, or "" when it can."""
    refused = sorted(WINDOWS_REFUSES.intersection(name) | {c for c in name if ord(c) < 0x20})
    if refused:
        return f"Windows refuses {' '.join(c if c.isprintable() else ascii(c)[1:-1] for c in refused)} in a name"
    if set(name) <= {"."}:
        return "a name of only dots is no folder"
    if is_device(name):
        return f"Windows keeps {name.split('.')[0]} for a device"
    if len(name.encode("utf-8", "surrogatepass")) > MOST_BYTES:
        return f"a folder name holds at most {MOST_BYTES} bytes"
    return ""


def _fit(base: str, suffix: str, most: Optional[int]) -> str:
    """``base`` cut (at a character) so that ``base + suffix`` holds at most ``most`` bytes."""
    if most is None:
        return base + suffix
    room = most - len(suffix.encode("utf-8"))
    return base.encode("utf-8", "surrogatepass")[:room].decode("utf-8", "ignore") + suffix


def distinct_names(
    wanted: Iterable[Tuple[Who, Optional[str], str]],
    key=folder_key,
    reserved: Iterable[str] = (),
    most_bytes: Optional[int] = MOST_BYTES,
) -> Dict[Who, str]:
    """A name for each ``who`` of ``wanted``, by who, no two with one ``key`` and none with a key of
    ``reserved`` (an export's own files).

    ``wanted``: (who, their own name or None when it may not be theirs, a plain form of it), in the
    order in which own names are given. First every own name that is free is kept; then each other
    who gets its plain form, or the plain form with ``~2``, ``~3``..., whichever is free first (in
    the same order). A name holds at most ``most_bytes`` bytes (the plain form is cut to fit its
    ``~N``); None: no bound (a name that is no folder's)."""
    order: Sequence[Tuple[Who, Optional[str], str]] = list(wanted)
    names: Dict[Who, str] = {}
    taken = {key(name) for name in reserved}
    for who, own, _ in order:
        fits = own is not None and (most_bytes is None or len(own.encode("utf-8", "surrogatepass")) <= most_bytes)
        if own is not None and fits and key(own) not in taken:
            names[who] = own
            taken.add(key(own))
    # The last number given to plain forms whose "~N" forms share keys (every one up to it is taken):
    # a class of 4,096 spellings of one name costs no more than 4,096 names.
    last: Dict[str, int] = {}
    for who, _, plain in order:
        if who in names:
            continue
        name = _fit(plain, "", most_bytes)
        if key(name) in taken:
            family = key(plain + "~")
            number = last.get(family, 1)
            while key(name) in taken:
                number += 1
                name = _fit(plain, f"~{number}", most_bytes)
            last[family] = number
        names[who] = name
        taken.add(key(name))
    return names
