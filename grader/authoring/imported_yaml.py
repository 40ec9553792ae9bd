"""The text of an imported task's ``testcases/<task>.yaml``: a header comment, the task, its cases.

The header says where the task came from and lists the importer's notes (what was not carried
over), so they stay with the file. The task and its cases (plain dicts, as the loader reads them)
are written by ``yaml_writer`` (the one writer of YAML), multi-line texts as literal blocks (``|``).
Nothing here writes a file.
"""

from __future__ import annotations

import datetime
from typing import Any, Dict, List, Sequence

from grader.authoring.importing import Notes
from grader.authoring.yaml_writer import comment, new_file
from grader.course.limits import DEFAULT_LIMITS


def task_file_text(
    origin: str,
    task_id: str,
    task: Dict[str, Any],
    cases: List[Dict[str, Any]],
    notes: Notes,
    extra_header: Sequence[str] = (),
) -> str:
    """The whole file: header comment, task keys, cases."""
    largest = max((len(c["expected"].encode("utf-8")) for c in cases), default=0)
    if "output_limit" not in task and largest > DEFAULT_LIMITS.output_bytes // 2:
        task["output_limit"] = max(DEFAULT_LIMITS.output_bytes, 2 * largest)
        notes.add(
            f"output_limit was set to {task['output_limit']} bytes, twice the largest expected output, "
            f"because the default of {DEFAULT_LIMITS.output_bytes} bytes is too small for it."
        )
    today = datetime.date.today().isoformat()
    header = [" ".join(f"Imported from the {origin} on {today}; notes:{' none.' if not notes.items else ''}".split())]
    for note in notes.items:
        header += comment(note, "- ", "  ")
    for line in extra_header:
        header += comment(line, "", "  ")
    document = {"task": task_id, **task, "cases": cases}
    return new_file(document, header)
