"""A submission as a program to run: its file and the exercise files it imports, staged and seeded.

A task's file may import the student's answers to earlier exercises (``task.uses_files``, its
companion files, from the same folder). ``companion_names`` says which files to read beside it;
``staged_program`` copies the bytes read into a private folder and yields the ``Program`` that runs
from there, seeded from those bytes (``content_seed``); ``run_seed`` is one run's seed from it.
"""

from __future__ import annotations

import hashlib
from contextlib import contextmanager
from typing import Iterator, List, Sequence, Tuple

from grader.model import Case, Task
from grader.run.execute import Program
from grader.submission.files import FileRead, Kind, staged


def companion_names(task: Task) -> List[str]:
    """The file names of the exercise files ``task``'s file may import, e.g. ``present_board.py``."""
    return [f"{name}.py" for name in task.uses_files]


@contextmanager
def staged_program(task: Task, data: bytes, companions: Sequence[FileRead], python: str) -> Iterator[Program]:
    """The submitted file (``data``) and its companions that could be read, staged in a private
    folder (removed afterwards), as the program to run there with ``python``.

    A companion bearing the task's own name is left out: the file itself is that module.
    """
    run_name = f"{task.id}.py"
    usable = [c for c in companions if c.kind is Kind.READ and c.name != run_name]
    with staged({run_name: data, **{c.name: c.data for c in usable}}) as folder:
        yield Program(
            python=python,
            script=folder / run_name,
            run_name=run_name,
            companions=tuple(folder / c.name for c in usable),
            own_modules=task.uses_files,
            seed=content_seed([(run_name, data), *((c.name, c.data) for c in usable)]),
            rules=task.rules,
        )


def content_seed(files: Sequence[Tuple[str, bytes]]) -> str:
    """A submission's seed: a digest of its files (names and bytes), so the same files always get it."""
    digest = hashlib.sha256()
    for name, data in files:
        digest.update(b"%d:%s%d:" % (len(name.encode()), name.encode(), len(data)) + data)
    return digest.hexdigest()


def run_seed(seed: str, case: Case, run_index: int) -> str:
    """One run's seed (``seeded_randomness``): the submission's, the case and the repeat's index.

    The same file gets the same randomness, hence the same marks, on every run and machine;
    repeats of a case each get their own.
    """
    text = f"{seed}\0{case.name}\0{case.input}\0{run_index}"
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
