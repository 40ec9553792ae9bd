"""The records a program's process writes on its channel: read as facts, whatever a program writes
there itself (forged, flooded, with lone surrogates), never the grader's failure.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from support import PROJECT

from grader.run.child_records import read_records

SURROGATE_RAISE = 'raise ValueError("bad \\ud800 text")\n'
FORGED = (
    "import os\n"
    'os.write(3, b\'{"crash": {"type": "X\\\\ud800", "builtin": true, "text": "\\\\udc80", "frames": '
    '[["nim_sum.py\\\\ud800", 1, "f"]]}}\\n\')\n'
    "raise SystemExit(1)\n"
)
FLOOD = (
    "import os\nos.set_blocking(3, False)\ntry:\n    while True:\n        os.write(3, b'{' * 65536)\n"
    "except OSError:\n    pass\nprint(0)\n"
)


def test_a_record_is_read_whatever_it_holds():
    data = (
        b'{"crash": {"type": "V\\ud800", "builtin": true, "text": "bad \\ud800", "frames": [["a.py", 3, "f"]]}}\n'
        b'{"rule": "x"}\n{"crash": [1, 2]}\n' + b"[" * 100_000 + b"\n"
        b'{"rule": 1, "file": "a.py", "line": 99999999999}\n'
    )
    records = read_records(data, "/run")
    assert records.crash.exception == "V?" and records.crash.text == "bad ?"
    assert records.crash.frames[0].line == 3
    assert records.rule is None  # no well-formed rule record
    assert read_records(b"\xff\xfe garbage", "/run").crash is None


@pytest.mark.parametrize("source", [SURROGATE_RAISE, FORGED, FLOOD], ids=["surrogate", "forged", "flood"])
def test_check_grades_a_program_that_writes_odd_records(tmp_path, source):
    path = tmp_path / "nim_sum.py"
    path.write_text(source, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "grader", "check", str(path), "--report", str(tmp_path / "r"), "--json"],
        cwd=PROJECT,
        capture_output=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr.decode(errors="replace")[-2000:]
    assert (tmp_path / "r" / "nim_sum.html").is_file()
