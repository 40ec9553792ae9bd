"""Reading course files: YAML whose mappings know their lines, within limits of size and depth.

A course folder may come from anywhere (an import, a colleague's archive), so a test case file that
is huge, nested thousands of levels deep, or that names a file outside the course folder is refused
before it costs minutes, gigabytes or a secret. ``read_yaml`` raises ``CaseFileError`` with the file
and line; ``read_text`` raises ``CourseFileLimit`` with a sentence, and the loader adds the file,
line and key of the case that named the file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, Dict

import yaml

from grader.errors import CaseFileError

# A test case file is a few hundred kB at most; long inputs and answers go in files of their own.
MAX_YAML_BYTES = 8 * 1024 * 1024
# A case is a handful of levels deep (the file, its cases, a case, its checker_options, a board).
MAX_YAML_DEPTH = 64
# A file named by input_file or expected_file: present_board's largest answers are about 20 MB.
MAX_DATA_BYTES = 64 * 1024 * 1024


class CourseFileLimit(Exception):
    """A course file that is not read: ``str(error)`` is the sentence saying why."""


def read_text(path: Path, limit: int) -> str:
    """The UTF-8 text of ``path`` (line ends as ``Path.read_text`` gives them).

    Raises ``CourseFileLimit`` when it is not a regular file or is larger than ``limit`` bytes
    (both checked before anything is read), OSError and UnicodeDecodeError as reading does.
    """
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise CourseFileLimit("it is not a regular file")
    if info.st_size > limit:
        raise CourseFileLimit(f"it is {_mib(info.st_size)}, more than the {_mib(limit)} such a file may be")
    with open(path, encoding="utf-8") as handle:
        text = handle.read(limit + 1)
    if len(text) > limit:  # it grew while being read
        raise CourseFileLimit(f"it is more than the {_mib(limit)} such a file may be")
    return text


def inside(target: Path, course: Path) -> bool:
    """True when ``target``, with every symbolic link followed, is in the folder ``course``."""
    try:
        return target.resolve().is_relative_to(course.resolve())
    except (OSError, RuntimeError):  # a link that loops
        return False


def _mib(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MiB" if size % (1024 * 1024) else f"{size // 1024 // 1024} MiB"


class DepthLimit:
    """A mix-in for a PyYAML loader: composing stops at ``MAX_YAML_DEPTH`` levels.

    PyYAML's composer recurses once per level (100,000 nested brackets end in RecursionError, with no
    file or line); its parser does not. The depth is counted as nodes are composed, so the composer
    never goes deeper than the limit, and the error has the line where the limit was passed.
    """

    _depth = 0

    def compose_node(self, parent, index):
        if self._depth >= MAX_YAML_DEPTH:
            mark = self.peek_event().start_mark
            raise CaseFileError(
                self.name,
                mark.line + 1,
                f"lists and mappings are nested here more than {MAX_YAML_DEPTH} levels deep; a test case needs "
                "a handful",
            )
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class LineMapping(dict):
    """A YAML mapping that remembers the line of each key (1-based) and its own first line."""

    line = 0
    key_lines: Dict[str, int]


class _LineLoader(DepthLimit, yaml.SafeLoader):
    """SafeLoader whose mappings remember lines and reject a key that appears twice (and nesting
    deeper than ``MAX_YAML_DEPTH``)."""

    def construct_mapping(self, node, deep=False):
        self.flatten_mapping(node)
        result = LineMapping()
        result.line = node.start_mark.line + 1
        result.key_lines = {}
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=deep)
            line = key_node.start_mark.line + 1
            if not isinstance(key, str):
                raise CaseFileError(self.name, line, f"the key {key!r} must be a word")
            if key in result:
                raise CaseFileError(self.name, line, f"the key '{key}' appears twice in the same mapping")
            result[key] = self.construct_object(value_node, deep=deep)
            result.key_lines[key] = line
        return result


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _LineLoader.construct_mapping)


def read_yaml(path: Path, shown: str) -> Any:
    """Parse one YAML file safely (mappings are ``LineMapping``); every problem is a ``CaseFileError``
    naming ``shown`` and the line where there is one.

    A file larger than ``MAX_YAML_BYTES`` is not read, nor one nested deeper than ``MAX_YAML_DEPTH``.
    """
    try:
        text = read_text(path, MAX_YAML_BYTES)
    except CourseFileLimit as error:
        raise CaseFileError(
            shown,
            None,
            f"the file is not read: {error} (long inputs and answers go in files of their own, named by "
            "input_file or expected_file)",
        ) from None
    except UnicodeDecodeError:
        raise CaseFileError(shown, None, "the file is not UTF-8 text") from None
    except OSError as error:
        raise CaseFileError(shown, None, f"cannot read the file ({error.strerror})") from None
    try:
        loader = _LineLoader(text)
    except yaml.reader.ReaderError as error:  # a control character: the reader checks the whole text first
        line = text.count("\n", 0, error.position) + 1
        what = f"the character U+{error.character:04X} is not allowed in YAML (a control character)"
        raise CaseFileError(shown, line, f"{what}: remove it, or write it as an escape in double quotes") from None
    loader.name = shown
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        mark_line = mark.line + 1 if mark else None
        what = error.problem or "invalid YAML"
        context = f" ({error.context})" if error.context else ""
        raise CaseFileError(shown, mark_line, f"YAML syntax error: {what}{context}") from None
    except yaml.YAMLError as error:
        raise CaseFileError(shown, None, f"YAML error: {error}") from None
    finally:
        loader.dispose()
