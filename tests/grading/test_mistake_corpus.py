"""How often is the known-mistake diagnosis right? Measured on realistic wrong files that are not
in ``solutions/wrong/`` (``mistake_corpus.py``), against the signatures of the course's own
known-wrong solutions.

Precision: of the diagnoses given, the share naming the mistake the file makes. Recall: of the
files that make a known mistake, the share diagnosed with it. A wrong diagnosis is worse than none:
the test fails on any; recall is printed (run with -s) and kept in docs/instructors.md.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Dict, Optional

import pytest
from mistake_corpus import CORPUS
from support import PROJECT

from grader.authoring.mistake_signatures import visible_only
from grader.course.loader import load_course
from grader.grade.grading import grade_file
from grader.grade.mistakes.known_mistakes import match_mistake

TASKS = sorted({entry.task for entry in CORPUS})


@pytest.fixture(scope="module")
def diagnoses(tmp_path_factory, context, mistake_signatures) -> Dict[str, Optional[str]]:
    """Each corpus file's diagnosis (the matched known-wrong solution's label, or None), by name."""
    folder = tmp_path_factory.mktemp("corpus")
    tasks = load_course(PROJECT)
    found: Dict[str, Optional[str]] = {}
    signatures = mistake_signatures(*TASKS)
    context = replace(context, jobs=2, shrink=False)  # the diagnosis reads outputs, never a shrunk input
    for entry in CORPUS:
        path = folder / entry.name / f"{entry.task}.py"
        path.parent.mkdir()
        path.write_text(entry.text(), encoding="utf-8")
        # only the visible cases: a diagnosis reads nothing else, and it is twice as fast
        result = grade_file(visible_only(tasks[entry.task]), path, context)
        mistake = match_mistake(result, signatures[entry.task])
        found[entry.name] = mistake.label if mistake else None
    return found


def test_the_corpus_is_realistic():
    """At least 12 files over several tasks, some making no known mistake, none a known-wrong copy."""
    assert len(CORPUS) >= 12 and len(TASKS) >= 3
    assert any(entry.mistake is None for entry in CORPUS)
    known = {p.read_text(encoding="utf-8") for p in (PROJECT / "solutions" / "wrong").rglob("*.py")}
    assert not [entry.name for entry in CORPUS if entry.text() in known]


def test_no_diagnosis_is_wrong_and_most_known_mistakes_are_found(diagnoses):
    given = {name: label for name, label in diagnoses.items() if label is not None}
    truth = {entry.name: entry.mistake for entry in CORPUS}
    right = [name for name, label in given.items() if truth[name] == label]
    making = [entry.name for entry in CORPUS if entry.mistake is not None]
    found = [name for name in making if diagnoses[name] == truth[name]]
    precision = len(right) / len(given) if given else 1.0
    recall = len(found) / len(making)
    print(
        f"\nknown-mistake diagnosis on {len(CORPUS)} wrong files: precision {precision:.0%} "
        f"({len(right)} of {len(given)} diagnoses right), recall {recall:.0%} ({len(found)} of {len(making)} "
        f"files making a known mistake diagnosed)"
    )
    for entry in CORPUS:
        print(f"  {entry.task}/{entry.name}: makes {entry.mistake or 'none known'}; diagnosed {diagnoses[entry.name]}")
    wrong = {name: (truth[name], label) for name, label in given.items() if truth[name] != label}
    assert not wrong, f"wrong diagnoses (file: (its mistake, the diagnosis)): {wrong}"
    assert recall >= 0.5, "the diagnosis found fewer than half of the known mistakes"
