"""What ``check`` grades: the (task, file) pairs for the paths named on its command line.

Links in a student's work are not followed: a folder named must be a folder itself, and an exercise
file that is a link, a FIFO or a folder is still listed, so that grading can say why it cannot be used.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from grader.errors import UsageError
from grader.model import Task
from grader.safe_text import for_terminal


def collect_submissions(
    paths: Sequence[str], tasks: Dict[str, Task], forced: Optional[str]
) -> Tuple[List[Tuple[Task, Path]], List[str]]:
    """(task, file) pairs to grade, and notes about files skipped in folders.

    A named file that is no task is an error; in a folder such files are skipped with a note. Links
    are not followed: a folder named here must be a folder itself, and an exercise file that is a
    link, a FIFO or a folder is still listed, so that grading reports why it cannot be used.
    """
    if forced is not None and forced not in tasks:
        raise UsageError(f"--task {forced}: no such task; the tasks are: {', '.join(sorted(tasks))}.")
    pairs, notes = [], []
    for text in paths:
        path = Path(text)
        shown = for_terminal(text)
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            raise UsageError(f"{shown}: no such file or folder.") from None
        except OSError as error:
            raise UsageError(f"{shown}: cannot be examined ({error.strerror or error}).") from None
        if stat.S_ISDIR(mode):
            found = sorted(_entries(path))
            matched = [(tasks[forced or p.stem], p) for p in found if p.suffix == ".py" and (forced or p.stem in tasks)]
            if not matched:
                names = ", ".join(t + ".py" for t in sorted(tasks))
                raise UsageError(f"{shown}: no exercise files in this folder (looked for {names}).")
            skipped = [for_terminal(p.name) for p in found if p.suffix == ".py" and not forced and p.stem not in tasks]
            if skipped:
                notes.append(f"{shown}: skipped {', '.join(skipped)} (not exercise names)")
            pairs.extend(matched)
        elif stat.S_ISLNK(mode) and path.is_dir():
            raise UsageError(
                f"{shown} is a symbolic link to a folder, and the grader does not follow links in a student's "
                "work: name the folder itself."
            )
        else:  # a file, or something that grading will refuse with a sentence (a link, a FIFO)
            task_id = forced or path.stem
            if task_id not in tasks:
                raise UsageError(
                    f"{shown}: the file name names no task. Name it after its task "
                    f"({', '.join(t + '.py' for t in sorted(tasks))}) or pass --task."
                )
            pairs.append((tasks[task_id], path))
    return pairs, notes


def _entries(folder: Path) -> List[Path]:
    """The entries of ``folder`` (of any kind), or a UsageError that says why it cannot be listed."""
    try:
        with os.scandir(folder) as entries:
            return [folder / entry.name for entry in entries]
    except OSError as error:
        raise UsageError(f"{for_terminal(str(folder))}: cannot be listed ({error.strerror or error}).") from None
