"""The text of an imported task's ``testcases/<task>.yaml``: a header comment, the task, its cases.

The header says where the task came from and lists the importer's notes (what was not carried
over), so they stay with the file. The task and its cases (plain dicts, as the loader reads them)
are written by PyYAML, multi-line texts as literal blocks (``|``): ``yaml_text`` and ``comment``,
which the student kit's case files share. Nothing here writes a file.
"""

from __future__ import annotations

import datetime
import textwrap
from typing import Any, Dict, List, Sequence

import yaml

from grader.authoring.importing import Notes
from grader.course.limits import DEFAULT_LIMITS


class _Dumper(yaml.SafeDumper):
    """safe_dump with indented lists and multi-line texts as literal blocks (``|``)."""

    def increase_indent(self, flow: bool = False, indentless: bool = False):
        return super().increase_indent(flow, False)


def _represent_text(dumper: yaml.SafeDumper, value: str):
    # A literal block is the nicest to read; PyYAML falls back to a quoted style by itself when
    # the text cannot be one (trailing spaces on a line, control characters, ...). But it writes
    # the Unicode line breaks (NEL, LS, PS) as they are, in blocks and in plain or single-quoted
    # texts, and reads them back as line feeds: such a text is double-quoted, where they are escaped.
    if any(char in value for char in "\x85\u2028\u2029"):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_text)


def yaml_text(document: Dict[str, Any]) -> str:
    """``document`` (plain dicts, lists, texts, numbers) as YAML, keys in their order, lists indented
    and multi-line texts as literal blocks; every text reads back exactly as it was."""
    return yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=4096)


def comment(text: str, first: str, rest: str) -> List[str]:
    """``text`` wrapped as YAML comment lines (no line breaks can slip out of the comment)."""
    flat = " ".join(text.split())
    lines = textwrap.wrap(
        flat, width=100, initial_indent=first, subsequent_indent=rest, break_long_words=False, break_on_hyphens=False
    )
    return lines or [first.rstrip()]


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
    header = [" ".join(f"# Imported from the {origin} on {today}; notes:{' none.' if not notes.items else ''}".split())]
    for note in notes.items:
        header += comment(note, "# - ", "#   ")
    for line in extra_header:
        header += comment(line, "# ", "#   ")
    document = {"task": task_id, **task, "cases": cases}
    return "\n".join(header) + "\n" + yaml_text(document)
