"""Real-style mistakes of one class of issue 36 (see the package's docstring)."""

from __future__ import annotations

from real_mistakes import RealMistake  # noqa: F401  (the entries to come)

FILES: tuple = ()
