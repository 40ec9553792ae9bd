"""Every YAML text the project writes, by ruamel.yaml's round-trip mode: one writer, read back by PyYAML.

Two uses: ``new_file`` writes a whole file from plain dicts and lists (an imported task, the student
kit's case files), a header comment on top; ``appended`` adds an item to a list of an existing
file's text (``add-case``), keeping what round-trip mode keeps: comments, key order, blank lines,
quoting and the file's indentation. Texts in, texts out: nothing here reads or writes a file.

The grader reads these files with PyYAML, which resolves plain scalars by YAML 1.1 (``yes``, ``off``,
``~``, ``0777``, ``1_000``, ``1:30`` are not texts there), while ruamel.yaml speaks YAML 1.2 by
default. So the writer resolves plain scalars with PyYAML's own table (``_PyYAMLResolver``): a text
that PyYAML would read as something else is quoted, and no ``%YAML`` directive is written. A plain
scalar of an existing file that PyYAML reads as a bool, number, null or date is written back as it
was spelled (``_Kept``), not as ruamel would spell the value (``yes`` stays ``yes``).

Multi-line texts are literal blocks (``|``) where PyYAML's emitter would write one (no control
characters or tabs, no trailing spaces on a line), double-quoted otherwise; a text holding a carriage
return or one of the line breaks NEL, LS or PS is always double-quoted, as a block or plain scalar
would read them back as line feeds. Numbers and null are written as PyYAML writes them.

What round-trip mode cannot keep: one indentation per file. The indentation of the list being
appended to (and of the first mapping nested in another) is used for the whole file, so a file
that indents its lists in two ways (``- a`` under one key, ``  - b`` under another) comes back with
every list indented the first way; the data does not change. Plain and double-quoted scalars spread
over several lines come back on one line, a comment on a ``---`` line or right after an item's dash
comes back on the line below it, spaces at the end of a line are dropped, an empty item's ``-`` gets a
space after it, a ``!!map`` or ``!!seq`` tag on a block collection is dropped, an explicit key
(``? cases``) comes back as a plain one, a flow-style list (``[...]``) comes back on one line (its
comments misplaced; an empty one, ``[]``, as a block list), double-quoted texts come back with
ruamel's escapes (``\\x07`` as ``\\a``, ``\\u00e9`` as ``é``), a block's indentation indicator may
change, and a final newline is added when the file had none. In each case the data reads back as it
was; a file whose data would not (a ``!!set``, ``!!pairs``) is refused by ``appended``.
"""

from __future__ import annotations

import io
import re
import sys
import textwrap
from typing import Any, Dict, List, Optional, Sequence, Tuple

import yaml as pyyaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import CommentMark, YAMLError
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.scalarstring import ScalarString, SingleQuotedScalarString
from ruamel.yaml.tokens import CommentToken

from grader.errors import UsageError

# Plain scalars that PyYAML reads as something other than a text: what the writer keeps as spelled.
_KEPT_TAGS = tuple(f"tag:yaml.org,2002:{name}" for name in ("bool", "int", "float", "null", "timestamp"))
# Line breaks that a block or plain scalar turns into line feeds: a text holding one is double-quoted,
# where they are escaped.
_OTHER_BREAKS = "\r\x85\u2028\u2029"
# The layout of the project's files (and of new ones): mappings by 2, list items "  - " under their key.
DEFAULT_INDENT = (2, 4, 2)


class _PyYAMLResolver(VersionedResolver):
    """Plain scalars resolved as PyYAML's SafeLoader resolves them (YAML 1.1, its own table), for
    reading and for deciding what must be quoted when writing."""

    _table = {first: list(pairs) for first, pairs in pyyaml.resolver.Resolver.yaml_implicit_resolvers.items()}

    @property
    def processing_version(self) -> Any:
        return (1, 1)  # what ruamel's constructors ask (octal 0777, sexagesimal 1:30)

    @property
    def versioned_resolver(self) -> Any:
        return self._table


class _Kept(str):
    """A plain scalar of an existing file that is not a text for PyYAML, written back as spelled."""

    tag = "tag:yaml.org,2002:str"


class _Constructor(RoundTripConstructor):
    pass


def _construct_kept(constructor: RoundTripConstructor, node: Any) -> Any:
    tag = str(getattr(node.tag, "value", node.tag))
    if node.style is not None:  # a quoted "yes" under !!bool: built as ruamel builds it
        return RoundTripConstructor.yaml_constructors[tag](constructor, node)
    kept = _Kept(node.value)
    kept.tag = tag
    return kept


for _tag in _KEPT_TAGS:
    _Constructor.add_constructor(_tag, _construct_kept)


class _Representer(RoundTripRepresenter):
    pass


def _represent_kept(representer: RoundTripRepresenter, data: _Kept) -> Any:
    return representer.represent_scalar(data.tag, str(data))


def _represent_text(representer: RoundTripRepresenter, data: str) -> Any:
    style: Optional[str] = None  # plain or quoted, as the emitter sees fit
    if any(char in data for char in _OTHER_BREAKS):
        style = '"'
    elif "\n" in data and _block_is_exact(data):
        style = "|"
    return representer.represent_scalar("tag:yaml.org,2002:str", data, style=style)


def _block_is_exact(text: str) -> bool:
    """True when PyYAML's emitter would write ``text`` as a block: no control characters or tabs, no
    trailing spaces on a line. (ruamel's emitter writes a block whenever one is asked for.)"""
    return pyyaml.emitter.Emitter(io.StringIO(), allow_unicode=True).analyze_scalar(text).allow_block


def _represent_float(representer: RoundTripRepresenter, data: float) -> Any:
    """A number as PyYAML writes it (``1.0e-06``: its YAML 1.1 floats need the dot)."""
    if data != data:
        value = ".nan"
    elif data in (float("inf"), float("-inf")):
        value = ".inf" if data > 0 else "-.inf"
    else:
        value = repr(data).lower()
        if "." not in value and "e" in value:
            value = value.replace("e", ".0e", 1)
    return representer.represent_scalar("tag:yaml.org,2002:float", value)


_Representer.add_representer(_Kept, _represent_kept)
_Representer.add_representer(float, _represent_float)
_Representer.add_representer(
    type(None), lambda representer, data: representer.represent_scalar("tag:yaml.org,2002:null", "null")
)
_Representer.add_representer(str, _represent_text)


def _yaml(indent: Tuple[int, int, int] = DEFAULT_INDENT) -> YAML:
    writer = YAML(typ="rt", pure=True)
    writer.Resolver = _PyYAMLResolver
    writer.Constructor = _Constructor
    writer.Representer = _Representer
    writer.preserve_quotes = True
    # A key twice in one mapping: PyYAML keeps the last value, round-trip mode the first, so the file
    # is refused rather than rewritten with the other value.
    writer.allow_duplicate_keys = False
    writer.allow_unicode = True
    writer.width = sys.maxsize  # no line folded: a long text stays on its line
    mapping, sequence, offset = indent
    writer.indent(mapping=mapping, sequence=sequence, offset=offset)
    return writer


def _dumped(writer: YAML, document: Any) -> str:
    stream = io.StringIO()
    writer.dump(document, stream)
    return stream.getvalue()


def quoted(text: str) -> str:
    """``text``, to be written in single quotes when it is one line (as the course's files write every
    input and answer, so that ``5`` stays a text to the eye too); a text the emitter cannot single-quote
    exactly is double-quoted, a multi-line one is left to the writer's choice."""
    if "\n" in text or any(char in text for char in _OTHER_BREAKS):
        return text
    return SingleQuotedScalarString(text)


# -- a new file ---------------------------------------------------------------------------------


def comment(text: str, first: str, rest: str) -> List[str]:
    """``text`` wrapped as comment lines (without their ``#``), the first line starting ``first``
    and the others ``rest``; no line break can slip out of the comment."""
    flat = " ".join(text.split())
    lines = textwrap.wrap(
        flat, width=98, initial_indent=first, subsequent_indent=rest, break_long_words=False, break_on_hyphens=False
    )
    return [line.rstrip() for line in lines] or [first.rstrip()]


def new_file(document: Dict[str, Any], header: Sequence[str] = ()) -> str:
    """``document`` (plain dicts, lists, texts, numbers) as the text of a file: the ``header`` lines
    as a comment on top (every line of them a comment line, even an empty one), keys in their order,
    list items indented under their key, multi-line texts as literal blocks where exact. Every value
    reads back (by PyYAML) exactly as it was."""
    lines = [line for text in header for line in text.splitlines() or [""]]
    # a character PyYAML refuses anywhere in a file (a control character) is written as its escape
    shown = (pyyaml.reader.Reader.NON_PRINTABLE.sub(lambda found: ascii(found.group())[1:-1], line) for line in lines)
    return "".join(f"# {line}".rstrip() + "\n" for line in shown) + _dumped(_yaml(), _commented(document))


def _commented(value: Any) -> Any:
    if isinstance(value, dict):
        return CommentedMap((key, _commented(item)) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return CommentedSeq(_commented(item) for item in value)
    return value


# -- an item appended to a file ------------------------------------------------------------------


def appended(text: str, key: str, item: Dict[str, Any], shown: str, blank_line: Optional[bool] = None) -> str:
    """``text`` with ``item`` added at the end of the list under the top-level ``key``.

    The rest of the file keeps its comments, key order, blank lines and quoting. The new item goes
    right after the list's last item; the blank lines and comments that followed that item stay
    where they were (before the next key, or at the end of the file). The new item follows a blank
    line when most items of the list do (or as ``blank_line`` says). The file's line ends (those of
    its first line: Windows, or carriage returns alone), a byte order mark, and a ``...`` ending the
    document with what follows it are kept. Raises ``UsageError`` when the file has no such list,
    a key twice in a mapping, or is not YAML that PyYAML or round-trip mode reads.
    """
    first_break = re.search("\r\n|\r|\n", text)
    line_break = first_break.group() if first_break else "\n"
    mark = "\ufeff" if text.startswith("\ufeff") else ""  # a byte order mark stays in front
    # every line break a line feed while the file is read (they are all one to YAML, outside of escapes)
    text = text[len(mark) :].replace("\r\n", "\n").replace("\r", "\n")
    try:
        nodes = pyyaml.compose(text, Loader=pyyaml.SafeLoader)
        before = pyyaml.safe_load(text)
        ends = [e.start_mark for e in pyyaml.parse(text) if isinstance(e, pyyaml.DocumentEndEvent) and e.explicit]
    except pyyaml.YAMLError as error:
        raise UsageError(f"{shown} is not a YAML file the grader reads ({_why(error)}).") from None
    # a ... ending the document and what follows it (comments round-trip mode drops) are kept as they are
    end = ends[0].index if ends and ends[0] is not None else len(text)
    text, tail = text[:end], text[end:]
    items = _list_node(nodes, key)
    if nodes is None or items is None:
        raise UsageError(f"{shown} has no list of {key}, so nothing can be appended to it.")
    writer = _yaml(_indentation(text, nodes, items))
    writer.explicit_start = text.startswith("---")  # a file that starts its document with --- keeps it
    try:
        document = writer.load(text)
    except YAMLError as error:
        raise UsageError(f"{shown} cannot be rewritten with the new item ({_why(error)}): add it by hand.") from None
    target = document[key]
    if blank_line is None:
        blank_line = _blank_separated(text, items)
    new = _commented(item)
    keys = list(document)
    # Comments after the last item stay where they are: before the next key, or, when the list
    # ends the file, above the new item (which is added at the end, as an instructor appends one).
    if target and not items.flow_style and keys.index(key) + 1 < len(keys):
        _put_before_key(document, keys[keys.index(key) + 1], _take_following(target))
    target.append(new)
    if blank_line and len(target) > 1 and not items.flow_style:
        new.yaml_set_start_comment("\n")  # a comment of no lines: the blank line before the item
    _keep_anchors(document)
    written = _dumped(writer, document)
    if not _reads_back(before, written, key, item):
        why = "round-trip mode would change what the file holds (a !!set or !!pairs, say)"
        raise UsageError(f"{shown} cannot be rewritten with the new item: {why}: add it by hand.")
    # ruamel writes the blank lines among comments as line feeds whatever its line_break: every line
    # break is made the file's own here (a carriage return in a text is written as the escape \r)
    return mark + (written + tail).replace("\r\n", "\n").replace("\n", line_break)


def _reads_back(before: Any, written: str, key: str, item: Dict[str, Any]) -> bool:
    """PyYAML reads ``written`` as ``before`` with ``item`` last in ``key`` (by reprs: a NaN is one)."""
    after = pyyaml.safe_load(written)
    try:
        new = after[key].pop()
    except (TypeError, KeyError, AttributeError, IndexError):
        return False
    return repr(new) == repr(item) and repr(after) == repr(before)


def _why(error: Any) -> str:
    """A reader's error in one line: what is wrong, and where."""
    problem = getattr(error, "problem", None) or (str(error).strip().splitlines() or [type(error).__name__])[0]
    problem = str(problem).split(" with value ")[0]  # a duplicate key's values can be long
    mark = getattr(error, "problem_mark", None)
    return f"{problem} on line {mark.line + 1}" if mark is not None else str(problem)


def _take_following(items: CommentedSeq) -> str:
    """The blank lines and comments after the list's last item, taken from it: ruamel keeps them
    with that item (so a new item would go below them), in the comment token of the last value
    written in the item (after its end-of-line comment, if any). Each line ends with a line feed."""
    holder, slot, place = _last_slot(items[-1]) or (items, len(items) - 1, 0)
    entry = holder.ca.items.get(slot)
    if not entry or entry[place] is None:
        return ""
    token = entry[place]
    if _is_block(holder[slot]):  # after a block text: every line of the token is one of them
        following, entry[place] = token.value, None
    elif token.value.startswith("#"):  # an end-of-line comment stays with its value
        cut = token.value.index("\n") + 1
        token.value, following = token.value[:cut], token.value[cut:]
    else:
        following, entry[place] = token.value[1:], None  # after a plain value: its line's end first
    return following


def _put_before_key(document: CommentedMap, next_key: Any, following: str) -> None:
    """``following`` among the comments before ``next_key``, where the file shows them."""
    if not following:
        return
    before = document.ca.items.setdefault(next_key, [None, [], None, None])
    if before[1] is None:
        before[1] = []
    before[1][:0] = [CommentToken(line + "\n", CommentMark(0)) for line in following.split("\n")[:-1]]


def _is_block(value: Any) -> bool:
    """A text of the file that is written as a block (``|`` or ``>``)."""
    return isinstance(value, ScalarString) and getattr(value, "style", None) in ("|", ">")


def _last_slot(value: Any) -> Optional[Tuple[Any, Any, int]]:
    """(collection, key or index, place of the comment token in its entry) of the last value written
    in ``value``, or None when ``value`` is not a collection."""
    if isinstance(value, dict) and value:
        key = list(value)[-1]
        return _last_slot(value[key]) or (value, key, 2)
    if isinstance(value, list) and value:
        return _last_slot(value[-1]) or (value, len(value) - 1, 0)
    return None


def _keep_anchors(value: Any) -> None:
    """Anchors no alias names are written back too (ruamel would leave them out)."""
    name = getattr(getattr(value, "anchor", None), "value", None)
    if name is not None and hasattr(value, "yaml_set_anchor"):
        value.yaml_set_anchor(name, always_dump=True)
    if isinstance(value, dict):
        for item in value.values():
            _keep_anchors(item)
    elif isinstance(value, list):
        for item in value:
            _keep_anchors(item)


def _list_node(root: Any, key: str) -> Optional[pyyaml.SequenceNode]:
    if not isinstance(root, pyyaml.MappingNode):
        return None
    found = next((value for name, value in root.value if name.value == key), None)
    return found if isinstance(found, pyyaml.SequenceNode) else None


def _indentation(text: str, root: pyyaml.Node, items: pyyaml.SequenceNode) -> Tuple[int, int, int]:
    """(mapping, sequence, offset) as ruamel's ``indent`` takes them, from the file's own layout:
    the list ``items`` (under a top-level key, column 0) gives the dash's offset and the column of its
    items' keys; the first nested block mapping gives the mapping indent."""
    mapping, sequence, offset = DEFAULT_INDENT
    if not items.flow_style and items.value:
        # the column of the first dash (the list's node starts at its anchor or tag, when it has one)
        dash = text.rfind("-", 0, items.value[0].start_mark.index)
        offset = dash - (text.rfind("\n", 0, dash) + 1)
        first = items.value[0]
        block = isinstance(first, pyyaml.MappingNode) and first.value and not first.flow_style
        column = _keys_column(first) if block else offset + 2  # a flow mapping's keys are inside its braces
        sequence = max(column, offset + 2)
    found = _nested_mapping_indent(root)
    if found:
        mapping = found
    return mapping, sequence, offset


def _keys_column(mapping: pyyaml.MappingNode) -> int:
    """The column of a block mapping's keys (its node starts at its anchor or tag, when it has one)."""
    return mapping.value[0][0].start_mark.column


def _nested_mapping_indent(node: pyyaml.Node) -> int:
    """How far the file's first block mapping nested in a mapping is indented from its key."""
    if isinstance(node, pyyaml.MappingNode) and not node.flow_style:
        for name, value in node.value:
            if isinstance(value, pyyaml.MappingNode) and not value.flow_style and value.value:
                return _keys_column(value) - name.start_mark.column
            found = _nested_mapping_indent(value)
            if found:
                return found
    if isinstance(node, pyyaml.SequenceNode):
        for value in node.value:
            found = _nested_mapping_indent(value)
            if found:
                return found
    return 0


def _blank_separated(text: str, items: pyyaml.SequenceNode) -> bool:
    """True when most items of the list follow a blank line, as in optimal_move.yaml."""
    gaps = []
    for item in items.value[1:]:
        start = text.rfind("\n", 0, item.start_mark.index) + 1
        previous = text.rfind("\n", 0, max(start - 1, 0)) + 1
        gaps.append(start > 0 and not text[previous:start].strip())
    return bool(gaps) and sum(gaps) * 2 >= len(gaps)
