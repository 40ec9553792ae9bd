"""The other exercise files handed in with a task's own file (``working_game.py`` with its ``ui.py``...).

In: the task (its ``uses_files``: the exercise files its program imports) and the files sent with
its own, as (name, bytes) pairs, bytes None for a file over the grader's size limit (its bytes
not kept). Out: the files to store with the submission, in the order sent (``checked``), or the
status and sentence of a refusal (``Refusal``): 400 for a task that imports no other file, more
files than it imports, a name that is not ``<task>.py`` of a task it imports, a name sent twice,
or a file not to grade (not text, or another task's file: ``submission.wrong_file``); 413 for a
file over the limit. ``handin`` checks them before anything is stored, so a refused hand-in is
neither kept nor counted. Also: the names the pages and the API list for a submission.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from grader.model import Task
from grader.submission.files import MAX_SOURCE_BYTES
from grader.submission.wrong_file import refusal_in_course
from grader.web.models import SubmissionFile
from grader.web.worker.course_state import course

Sent = Union[Mapping[str, Optional[bytes]], Iterable[Tuple[str, Optional[bytes]]]]


@dataclass(frozen=True)
class Refusal:
    """Why the files sent with a task's own were refused: the HTTP status and the sentence."""

    status: int
    message: str


def names_taken(task: Task) -> List[str]:
    """The file names ``task`` takes with its own, in the order its case file lists them."""
    return [f"{used}.py" for used in task.uses_files if used != task.id]


def _takes(task: Task) -> str:
    """What ``task`` takes, as a sentence's start: "working_game takes its own file and ui.py"."""
    names = names_taken(task)
    if not names:
        return f"{task.id} takes its own file only ({task.id}.py), no other file with it"
    return f"{task.id} takes its own file and {', '.join(names)}"


def too_many(task: Task, count: int) -> Optional[str]:
    """The sentence refusing ``count`` files sent with ``task``'s own, or None when it takes that many."""
    names = names_taken(task)
    if count <= len(names):
        return None
    if not names:
        return f"{_takes(task)}: hand in each other file as its own task"
    return f"{_takes(task)}, at most {len(names)} other files; {count} were sent"


def checked(task: Task, sent: Sent) -> Union[Dict[str, bytes], Refusal]:
    """The files ``sent`` with ``task``'s own, by name in the order sent, or the ``Refusal`` of the
    first that cannot be handed in (see the module docstring)."""
    pairs = list(sent.items()) if isinstance(sent, Mapping) else list(sent)
    if not pairs:
        return {}
    refused = too_many(task, len(pairs))
    if refused is not None:
        return Refusal(400, refused)
    taken = names_taken(task)
    files: Dict[str, bytes] = {}
    for name, data in pairs:
        if name not in taken:
            return Refusal(400, f"{_takes(task)}; not {name or 'a file without a name'}")
        if name in files:
            return Refusal(400, f"{name} was sent twice: send each file once")
        if data is None or len(data) > MAX_SOURCE_BYTES:
            return Refusal(413, f"{name} is over the limit of {MAX_SOURCE_BYTES:,} bytes")
        # the same checks as the hand-in's own file: text, and the file of the task it is named after
        why = refusal_in_course(data, name[: -len(".py")], course())
        if why is not None:
            return Refusal(400, why)
        files[name] = data
    return files


def store(submission, files: Mapping[str, bytes]) -> None:
    """Keep ``files`` with ``submission`` (inside the transaction that writes its row)."""
    SubmissionFile.objects.bulk_create(
        [SubmissionFile(submission=submission, name=name, data=data) for name, data in files.items()]
    )


def names_by_submission(ids: Sequence[int]) -> Dict[int, List[str]]:
    """The names of the files handed in with each of the submissions ``ids`` (in the order sent;
    a submission with none is absent). One query, never the files' bytes."""
    found: Dict[int, List[str]] = {}
    rows = SubmissionFile.objects.filter(submission_id__in=list(ids)).order_by("id")
    for number, name in rows.values_list("submission_id", "name"):
        found.setdefault(number, []).append(name)
    return found


def file_names(submission, also: Optional[List[str]] = None) -> List[str]:
    """Every file handed in as ``submission``: its own first, then those sent with it (``also``
    when the caller already has them from ``names_by_submission``)."""
    if also is None:
        also = names_by_submission([submission.id]).get(submission.id, [])
    return [submission.file_name, *also]
