"""``check --watch``: grade again whenever a watched file is saved, by polling the files' stamps.

In: the files, a function that grades them and returns the exit status, and the stamps they had
when it last graded. Out: the status of the last grading, when Ctrl-C stops the watching.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Dict, Optional, Sequence, Tuple

from grader.safe_text import for_terminal

Stamps = Dict[Path, Optional[Tuple[int, int]]]


def stamps(files: Sequence[Path]) -> Stamps:
    """Each file's modification time and size (None when it cannot be read)."""
    found: Dict[Path, Optional[Tuple[int, int]]] = {}
    for path in files:
        try:
            info = path.stat()
            found[path] = (info.st_mtime_ns, info.st_size)
        except OSError:
            found[path] = None
    return found


def watch(
    files: Sequence[Path],
    grade_all: Callable[[], int],
    seen: Stamps,
    poll_s: float = 0.3,
    rounds: Optional[int] = None,
) -> int:
    """Call ``grade_all()`` again whenever one of ``files`` differs from ``seen`` (their stamps);
    stop on Ctrl-C (or after ``rounds``). Returns the status of the last grading."""
    status, done = 0, 0
    try:
        while rounds is None or done < rounds:
            time.sleep(poll_s)
            now = stamps(files)
            if now == seen:
                continue
            seen = now
            time.sleep(poll_s)  # let the editor finish writing
            changed = ", ".join(for_terminal(str(p)) for p in files)
            print(f"\n--- {time.strftime('%H:%M:%S')}: grading {changed} again ---", flush=True)
            status = grade_all()
            done += 1
    except KeyboardInterrupt:
        print("Stopped watching.")
    return status
