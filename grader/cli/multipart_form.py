"""The body of a hand-in as a browser sends a form with files: ``multipart/form-data``.

In: the form's text fields, and its files: each a field's name, the file's name and its bytes (a
field may come more than once, as ``also`` does). Out: the body and its Content-Type, for
``portal_client``'s ``POST /api/submissions``.
"""

from __future__ import annotations

import secrets
from typing import Mapping, Sequence, Tuple


def multipart(fields: Mapping[str, str], files: Sequence[Tuple[str, str, bytes]]) -> Tuple[str, bytes]:
    """A ``multipart/form-data`` body of the text ``fields`` and the ``files`` (field, file name,
    bytes), in that order, and its Content-Type.

    The files' bytes go in as they are; the boundary is random and checked not to occur in them.
    """
    boundary = f"nim-grader-{secrets.token_hex(16)}"
    while any(boundary.encode("ascii") in data for _, _, data in files):
        boundary = f"nim-grader-{secrets.token_hex(16)}"
    parts = []
    for name, value in fields.items():
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="{_quoted(name)}"\r\n\r\n'
        parts.append(head.encode("utf-8", "replace") + value.encode("utf-8", "replace") + b"\r\n")
    for field, filename, data in files:
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="{_quoted(field)}"; '
            f'filename="{_quoted(filename)}"\r\nContent-Type: application/octet-stream\r\n\r\n'
        )
        parts.append(head.encode("utf-8", "replace") + data + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode("ascii"))
    return f"multipart/form-data; boundary={boundary}", b"".join(parts)


def _quoted(name: str) -> str:
    # As browsers write a name in a form's header: a quote or a line break would end it early.
    return name.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")
