"""Publishing the course: the edits in the course folder become what the portal grades, on purpose.

In: who publishes (an instructor's username, or the command's user) and the portal's settings (its
data folder, ``GRADER_DATA``; the course folder, ``GRADER_COURSE``). Out: a ``Published`` (the new
version, or why nothing was published), with the sentences to show; a line in the log either way.

A publish copies the course folder (``course_versions.stage``), loads the copy (a course that does
not load is refused with the loader's sentence: file, line, what is wrong), finds the tasks whose
files differ from the live version's, runs ``verify`` on those (``authoring.verify.verify_course``,
the code of ``python -m grader verify TASK...``) and refuses when it finds anything that falls
short, with verify's own sentences. Nothing differs: "nothing to publish". What is verified is the
copy that becomes the version, so an edit made meanwhile waits for the next publish.

``first_version`` publishes the folder as it is, without ``verify``, when the portal starts with no
version of it yet, so a portal that ran before publishing existed grades as it did.
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from django.conf import settings

from grader.course.loader import load_course
from grader.errors import CaseFileError, GraderError
from grader.model import Task
from grader.web.worker import course_versions as versions

log = logging.getLogger("grader.web.course")
FIRST = "the portal, at its first start"  # who published a first version


@dataclass(frozen=True)
class Published:
    """What a publish did: the ``version`` made (None: none), or the sentences of why not."""

    version: Optional[versions.Version] = None
    refused: Tuple[str, ...] = ()  # why it was refused (verify's findings, the loader's sentence)
    nothing: bool = False  # nothing differs from the live version

    def sentences(self) -> List[str]:
        if self.nothing:
            return ["Nothing to publish: the course folder's files are those of the live version."]
        if self.version is None:
            return ["Not published: the live version stays.", *self.refused]
        return [published_words(self.version)]


def published_words(version: versions.Version) -> str:
    """ "Version 3 is live: make_move changed, ui added." and the regrade it offers."""
    said = ", ".join(f"{task} {how}" for task, how in version.changed.items()) or "no task changed"
    regrade = [task for task, how in version.changed.items() if how != "removed"]
    offer = (
        f" Regrade {', '.join(regrade)} on /teach/ for the new version to grade earlier hand-ins." if regrade else ""
    )
    return f"Version {version.number} is live: {said}.{offer}"


def folder() -> Path:
    """Where the published versions are kept: ``DATA/course-versions``."""
    return Path(settings.GRADER_DATA) / "course-versions"


def source() -> Path:
    """The course folder instructors edit."""
    return Path(settings.GRADER_COURSE)


def live() -> Optional[versions.Version]:
    return versions.live(folder(), source())


def _uses(tasks: Dict[str, Task]) -> Dict[str, Tuple[str, ...]]:
    return {task_id: tuple(task.uses_files) for task_id, task in tasks.items()}


def load_sentence(error: BaseException, staged: Optional[Path] = None) -> str:
    """The loader's sentence for a course that does not load (the course folder's paths, not the copy's)."""
    if isinstance(error, CaseFileError):
        path = Path(error.path)
        path = path if path.is_absolute() or staged is None else staged / path  # (said as the folder's, below)
        where = f"{path}, line {error.line}" if error.line else str(path)
        said = f"{where}: {error.what}"
    elif isinstance(error, GraderError):
        said = str(error)
    else:
        said = f"the course could not be loaded ({type(error).__name__}: {error})"
    return said.replace(str(staged), str(source())) if staged else said


def _load(staged: Path) -> Dict[str, Task]:
    try:
        return load_course(staged)
    # SystemExit too: checkers.py is the course's code
    except (Exception, SystemExit, KeyboardInterrupt) as error:
        raise _Refused((f"The course does not load: {load_sentence(error, staged)}",)) from None


class _Refused(Exception):
    def __init__(self, sentences: Tuple[str, ...]) -> None:
        super().__init__(*sentences)
        self.sentences = sentences


def verify_findings(staged: Path, tasks: Tuple[str, ...]) -> Tuple[str, ...]:
    """What ``verify`` finds falls short in ``tasks`` of the course at ``staged`` ("task: sentence")."""
    from grader.authoring.mistake_signatures import store_signatures
    from grader.authoring.verify import verify_course
    from grader.course.course_checkers import course_checkers
    from grader.course.layout import Course
    from grader.grade.grading import GradingContext
    from grader.run.forkserver import best_runner

    # the context of ``python -m grader verify`` (cli/grading_setup), its programs kept from the
    # copy and from the portal's data folder
    with best_runner(private=(staged, Path(settings.GRADER_DATA))) as runner:
        context = GradingContext(
            checkers=course_checkers(staged),
            python=sys.executable,
            jobs=max(1, os.cpu_count() or 1),
            course=staged,
            task_ids=Course(staged).task_ids(),
            runner=runner,
        )
        report = verify_course(staged, context, only=tasks)
    store_signatures(staged, report.signatures)  # (the portal's grading recognises them at once)
    return tuple(f"{f.task_id}: {f.what}".replace(str(staged), str(source())) for f in report.findings)


def publish(by: str) -> Published:
    """Publish the course folder as the next version (module docstring); ``by`` names who asked."""
    store = folder()
    with versions.Lock(store):
        staged: Optional[Path] = None
        try:
            staged = versions.stage(store, source())
            tasks = _load(staged)
            digests = versions.task_digests(versions.course_files(staged), _uses(tasks))
            current = live()
            changed = versions.differences(digests, current.digests if current else {})
            if not changed:
                versions.discard(staged)
                log.info(
                    "publish by %s: nothing to publish (version %s is live)", by, current.number if current else "-"
                )
                return Published(nothing=True)
            checked = tuple(task for task, how in changed.items() if how != "removed")
            findings = verify_findings(staged, checked) if checked else ()
            if findings:
                raise _Refused(("verify found what falls short:", *findings))
            when = datetime.now(timezone.utc).isoformat(timespec="seconds")
            version = versions.commit(store, staged, source(), by, when, changed, digests)
        except (_Refused, GraderError) as refusal:
            if staged is not None:
                versions.discard(staged)
            said = refusal.sentences if isinstance(refusal, _Refused) else (str(refusal),)
            log.warning("publish by %s refused: %s", by, " ".join(said))
            return Published(refused=said)
        except BaseException:
            if staged is not None:
                versions.discard(staged)
            raise
    log.info("publish by %s: version %d is live (%s)", by, version.number, _listed(version.changed))
    return Published(version=version)


def _listed(changed: Dict[str, str]) -> str:
    return ", ".join(f"{task} {how}" for task, how in changed.items())


def first_version() -> Optional[versions.Version]:
    """The live version, the course folder published as it is (no ``verify``) when it has none yet;
    None when there is none and the folder does not load (the caller says the loader's sentence)."""
    current = live()
    if current is not None:
        return current
    store = folder()
    with versions.Lock(store):
        current = live()  # (another process may have published it while this one waited)
        if current is not None:
            return current
        staged = versions.stage(store, source())
        try:
            tasks = load_course(staged)
        except BaseException:
            versions.discard(staged)
            raise
        digests = versions.task_digests(versions.course_files(staged), _uses(tasks))
        when = datetime.now(timezone.utc).isoformat(timespec="seconds")
        version = versions.commit(store, staged, source(), FIRST, when, {}, digests)
    log.warning(
        "no published version of the course %s yet: published it as it is as version %d; later edits wait "
        "until an instructor publishes them (python -m grader publish, or /teach/)",
        source(),
        version.number,
    )
    return version


def waiting(tasks: Dict[str, Task]) -> Dict[str, str]:
    """The tasks whose files in the course folder differ from the live version's ({}: none), the
    live version's ``tasks`` saying which tasks each imports; ``GraderError`` for a file that cannot
    be published."""
    return versions.waiting(folder(), source(), _uses(tasks))


@dataclass(frozen=True)
class Shown:
    """What /teach/ says of publishing: the live version, what waits, and why the folder cannot be read."""

    version: Optional[versions.Version]
    waiting: Dict[str, str] = field(default_factory=dict)
    problem: str = ""


def shown(tasks: Dict[str, Task]) -> Shown:
    """What /teach/ says, for the live version's ``tasks``."""
    try:
        return Shown(live(), waiting(tasks))
    except GraderError as error:
        return Shown(live(), {}, str(error))
    except OSError as error:
        return Shown(live(), {}, f"the course folder cannot be read ({error.strerror or error}).")
