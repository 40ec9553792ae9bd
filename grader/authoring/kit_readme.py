"""The student kit's README.md: what is in the kit, how to check one's work there, how to hand it in.

In: what the kit holds of each task (``KitTask``), the portal's address when the course team gave one,
whether the course has checkers of its own, and the file name of the grader's wheel when the kit has
it. Out: the Markdown text. Nothing here reads or writes a file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence

from grader.safe_text import plural

MARKER = "nim-grader-kit.json"  # the file that says a folder is a kit (student_kit reads and writes it)


@dataclass(frozen=True)
class KitTask:
    """One task as the kit has it: its id and title, its public and hidden cases, whether its stub is
    in the kit and whether the course shares a ``total`` out over its cases."""

    id: str
    title: str
    public: int
    hidden: int
    stub: bool
    total: bool


def _cell(text: str) -> str:
    """``text`` as one cell of a Markdown table: one line, its bars escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _install(wheel: Optional[str]) -> List[str]:
    """How students get the grader: from the kit's wheel, or as the course team says."""
    if not wheel:
        return [
            "You need Python 3.9 or newer and the grader, nim-grader: install it as your course team says "
            "(this kit does not include it).",
            "",
        ]
    return [
        "You need Python 3.9 or newer. The grader, nim-grader, is in this folder as a wheel: install it "
        "once, in this folder (in a virtual environment if your Python asks for one; pip fetches what the "
        "grader needs, PyYAML, ruamel.yaml, Jinja2 and regex):",
        "",
        "```sh",
        f"python3 -m pip install {wheel}",
        "```",
        "",
    ]


def readme_text(tasks: Sequence[KitTask], server: Optional[str], checkers: bool, wheel: Optional[str] = None) -> str:
    """The README's Markdown for a kit of ``tasks``; ``server`` is the portal's address (None: the
    text says to ask for it); ``checkers``: the kit has the course's ``checkers.py``; ``wheel``: the
    file name of the grader's wheel in the kit (None: the text says to install the grader as the
    course team says)."""
    graded = [task for task in tasks if task.public]
    example = next((task.id for task in graded if task.stub), graded[0].id if graded else "nim_sum")
    hidden = sum(task.hidden for task in tasks)
    address = server or "URL"
    lines: List[str] = [
        "# The exercises, and checking them before you hand them in",
        "",
        "This folder holds what you need to do the lab's exercises and check them on your own computer:",
        "",
        "| folder or file | what |",
        "|---|---|",
        "| `exercises/` | the exercise files to fill in, one per task |",
        "| `testcases/` | the public test cases of each task, graded here as the portal grades them |",
    ]
    if checkers:
        lines.append("| `checkers.py` | how the course checks some answers; `check` uses it |")
    if wheel:
        lines.append(f"| `{wheel}` | the grader, nim-grader, to install once (below) |")
    lines += [
        f"| `{MARKER}` | says that this folder is a kit of public cases; `check` reads it, so leave it here |",
        "",
        "## The exercises",
        "",
        "| task | file | what | public cases | hidden cases on the portal |",
        "|---|---|---|---|---|",
    ]
    for task in tasks:
        stub = f"`exercises/{task.id}.py`" if task.stub else f"none given: write `exercises/{task.id}.py`"
        public = str(task.public) if task.public else "none: hand it in to have it graded"
        lines.append(f"| `{task.id}` | {stub} | {_cell(task.title)} | {public} | {task.hidden} |")
    lines += [
        "",
        "## Checking your work here",
        "",
        *_install(wheel),
        "Fill in the files of `exercises/` and keep them together there, since later exercises import your "
        "earlier ones. Each file ends with a main block that the grader talks to: leave it as it is. Then, "
        "in this folder:",
        "",
        "```sh",
        f"python3 exercises/{example}.py test                # run the examples in the file",
        f"python3 -m grader check exercises/{example}.py     # grade one exercise on its public cases",
        "python3 -m grader check exercises/                # grade every exercise",
        f"python3 -m grader check exercises/{example}.py --watch   # grade again every time you save",
        "```",
        "",
        "(`check` finds the cases from this folder or from `exercises/`; from anywhere else add "
        "`--course` and the path of this folder.) The terminal shows a short table; `report/index.html` "
        "shows, for every case, what your program printed next to what was expected, with the first "
        "difference highlighted, and a sentence on what to fix. The same file always gets the same "
        "result, even where your program chooses at random.",
        "",
        "## Handing in",
        "",
        f"On the portal: open {address} in a browser, sign in, and hand in each file for its task "
        f"(`{example}.py` for `{example}`); the results show as soon as it is graded. Or from the terminal, "
        "with the token your course team gives you:",
        "",
        "```sh",
        "export NIM_GRADER_TOKEN=YOUR-TOKEN    # on Windows: set NIM_GRADER_TOKEN=YOUR-TOKEN",
        f"python3 -m grader submit exercises/{example}.py --server {address} --wait",
        "```",
        "",
        "`--wait` waits for the results and prints the same table as `check`; without it you get the "
        "submission's address, to look at later.",
    ]
    if server is None:
        lines += ["", "URL is the portal's address: your course team gives it to you."]
    lines += ["", "## Your marks come from the portal", ""]
    if hidden:
        lines.append(
            f"The portal grades what you hand in on these public cases and also on {plural(hidden, 'hidden case')}, "
            "which this kit does not have: a program that passes every case here can still fail there, so "
            "test it on more boards of your own. The portal shows a hidden case's name, verdict and hint, "
            "never its input or answer."
        )
    else:
        lines.append("The portal grades what you hand in again, on the same cases as this kit.")
    if any(task.total for task in tasks):
        shared = ", ".join(f"`{task.id}`" for task in tasks if task.total)
        lines += [
            "",
            f"Some tasks ({shared}) are worth a fixed total, shared out over all their cases, hidden ones "
            "included: the scores `check` shows here share it out over the public cases only.",
        ]
    lines += ["", "The scores `check` shows here are a guide: your marks are the ones the portal gives.", ""]
    return "\n".join(lines)
