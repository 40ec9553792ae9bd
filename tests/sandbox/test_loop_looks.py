"""What a look at a program past its time limit reports, and an exception's words, on every Python.

``child_program`` runs in the program's own process: here a child Python runs a loop that never
ends, is looked at five times, each once the one before is recorded (SIGUSR1, as
``capture.ask_for_stack`` does), and its records are read back. Each look must find the loop on
the same line with the same values, whatever instruction the signal came at (3.9 and 3.10 run a
handler between any two instructions) and whether it came in code the loop calls from outside the
student's folder (a task's rule checks). In: nothing; out: asserts.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LOOKS = 5  # a round's looks (3.9 once found a later one a line past the loop's top: 1 round in 5)

LOOKER = textwrap.dedent(
    """
    import os, signal, sys, threading, time
    sys.path[:0] = [{root!r}, {library!r}]
    channel = os.open({channel!r}, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(channel, 3)
    from grader.run.child import child_program

    child_program.watch_for_stack()

    def looks_recorded():
        with open({channel!r}, "rb") as records:
            return records.read().count(b'{{"state"')

    def look():
        # each look once the one before is recorded (at most 10 s): a loaded machine's scheduling
        # never gives one up, as a look that comes while the one before still waits is
        for seen in range({looks}):
            time.sleep(0.05)
            os.kill(os.getpid(), signal.SIGUSR1)
            waited = time.monotonic()
            while looks_recorded() == seen and time.monotonic() - waited < 10:
                time.sleep(0.01)
        os._exit(0)

    threading.Thread(target=look, daemon=True).start()
    child_program.run({program!r}, {folder!r})
    """
)

# A loop of several lines whose way out depends on values, calling code outside the folder.
PROGRAM = textwrap.dedent(
    """
    from helper import checked

    def count(board):
        i = 0
        while i < len(board):
            if checked(board[i]) > 0:
                i = i + 1
            k = abs(i)
        return k

    count([1, 0, 2])
    """
)
HELPER = "def checked(value):\n    total = value\n    total = total + 0\n    return total\n"


@pytest.mark.parametrize("round", range(3))
def test_every_look_at_a_loop_that_never_ends_finds_it_at_the_same_line_with_the_same_values(tmp_path, round):
    folder, library = tmp_path / "program", tmp_path / "library"
    folder.mkdir()
    library.mkdir()
    (folder / "count.py").write_text(PROGRAM)
    (library / "helper.py").write_text(HELPER)
    channel = tmp_path / "channel"
    looker = LOOKER.format(
        root=str(ROOT),
        library=str(library),
        channel=str(channel),
        program=str(folder / "count.py"),
        folder=str(folder),
        looks=LOOKS,
    )
    subprocess.run([sys.executable, "-c", looker], timeout=30, check=True)
    looks = [json.loads(line)["state"] for line in channel.read_text().splitlines() if line.startswith('{"state"')]
    assert len(looks) == LOOKS, channel.read_text()
    innermost = {(look[0][0], look[0][1], look[0][3]) for look in looks}
    assert len(innermost) == 1, looks
    assert looks[0][0][:3] == ["count.py", 6, "count"]  # the top of its loop
