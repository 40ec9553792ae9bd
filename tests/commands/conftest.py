"""The commands tier: ``python -m grader`` end to end (check, grade, verify, kit, add-case, import,
submit), in this process through ``main`` or in a process of its own.

What a command says of known mistakes depends on the signatures kept under ``$XDG_CACHE_HOME``
(``check`` reads them, ``grade`` and ``verify`` make what is missing): they are made once, before
the tier's first test, so no test's words or time depend on which test ran first."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session", autouse=True)
def _signatures_made_first(every_task_signed):
    return every_task_signed
