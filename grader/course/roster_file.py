"""A class list as a CSV file (``username,role[,name,email]``), read the one way both its readers
need: ``users import`` (``web/site/roster.py``) and ``grade --roster`` (``classrun/class_roster.py``).

In: the file's path and how to name it in a sentence. Out: its rows after the header, each with its
line number and its cells by column name (names and cells stripped, names lower-case); a
``UsageError`` saying what is wrong with the file as a whole: too large, unreadable, not UTF-8, not
CSV, a header without ``username`` and ``role``. What each row must hold is its reader's to say.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Dict, List, Tuple

from grader.errors import UsageError

MAX_ROSTER_BYTES = 4 * 1024 * 1024  # more is no class list
ROLES = ("student", "ta", "instructor")


def roster_rows(path: Path, shown: str) -> List[Tuple[int, Dict[str, str]]]:
    """(line, cells by column) of each row of the roster at ``path`` that is not blank; ``shown`` is
    how a sentence names the file (``--roster roster.csv``)."""
    try:
        if path.stat().st_size > MAX_ROSTER_BYTES:
            raise UsageError(
                f"{shown}: a roster of more than {MAX_ROSTER_BYTES // (1024 * 1024)} MiB is not a class list."
            )
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise UsageError(f"{shown}: cannot be read ({error.strerror or error}).") from None
    except UnicodeDecodeError:
        raise UsageError(f"{shown}: is not UTF-8 text; save the roster as CSV (UTF-8).") from None
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as error:
        raise UsageError(f"{shown}: is not a CSV file ({error}).") from None
    header = [cell.strip().lower() for cell in rows[0]] if rows else []
    missing = [column for column in ("username", "role") if column not in header]
    if missing:
        raise UsageError(
            f"{shown}: the header row must name {' and '.join(missing)} (it has: {', '.join(sorted(set(header)))}); "
            "a roster is username,role[,name,email]."
        )
    found = []
    for line, row in enumerate(rows[1:], start=2):
        if any(cell.strip() for cell in row):
            found.append((line, {name: cell.strip() for name, cell in zip(header, row) if name}))
    return found
