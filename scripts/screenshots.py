"""Screenshots of a sample report, for reviewers: every page at desktop and phone widths.

    python scripts/screenshots.py [OUT_DIR]

Grades a folder of typical wrong submissions (made from the reference solutions), writes the
report to OUT_DIR/report and PNG screenshots to OUT_DIR (default: ./screenshots, not committed).
Needs Chromium (Debian package ``chromium``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
SIZES = {"desktop": "1280,1400", "phone": "390,1400"}
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]
# (task, text in the reference solution, what a student wrote instead)
MISTAKES = [
    ("nim_sum", "total = total ^ row", "total = total + row"),
    ("make_move", "    new_board = list(board)\n", "    new_board = list(board)\n    print('debug', board)\n"),
    ("bitwise_xor", "    bits_a = numeral_binary(a)\n", "    return a ^ b\n    bits_a = numeral_binary(a)\n"),
    ("optimal_move", "index = random.choice(good_rows)", "index = good_rows[0]"),
    ("working_game", "continue  # the same player is asked again", "turn = 1 - turn\n                continue"),
]


def sample_submission(folder: Path) -> None:
    """The reference solutions, with one typical mistake in each of a few tasks."""
    for path in (PROJECT / "solutions").glob("*.py"):
        shutil.copy(path, folder / path.name)
    for task, old, new in MISTAKES:
        target = folder / f"{task}.py"
        text = target.read_text(encoding="utf-8")
        target.write_text(text.replace(old, new, 1), encoding="utf-8")


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots").resolve()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("Chromium is not installed (Debian: apt-get install chromium).", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        sample_submission(Path(work))
        subprocess.run(
            [sys.executable, "-m", "grader", "check", work, "--report", str(out / "report")],
            cwd=PROJECT,
            check=False,
        )
        with tempfile.TemporaryDirectory() as profile:
            for page in sorted((out / "report").glob("*.html")):
                for label, size in SIZES.items():
                    png = out / f"{page.stem}-{label}.png"
                    subprocess.run(
                        [
                            chromium,
                            *FLAGS,
                            f"--user-data-dir={profile}",
                            f"--window-size={size}",
                            f"--screenshot={png}",
                            page.as_uri(),
                        ],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        check=False,
                    )
                    print(png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
