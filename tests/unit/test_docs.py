"""The documentation keeps to what it shows: README.md is a front page of at most 200 lines that
keeps the test command CI runs, every ``python -m grader`` command in a code block of README.md and
docs/*.md parses with the grader's own parser, and every relative link leads to a file (and a
heading) that exists."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest

from grader.cli.main import _parser

PROJECT = Path(__file__).resolve().parents[2]
PAGES = [PROJECT / "README.md", *sorted((PROJECT / "docs").glob("*.md"))]
FENCE = re.compile(r"^\s*(```|~~~)")
GRADER = re.compile(r"python3?(\.\d+)? -m grader(\s|$)")
INTERPRETER = re.compile(r"(.*[/=])?python3?(\.\d+)?")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _name(page: Path) -> str:
    return page.relative_to(PROJECT).as_posix()


def _lines_outside_and_inside_code(text: str) -> Iterator[Tuple[int, str, bool]]:
    """Each line with its number and whether it lies in a fenced code block (fences excluded)."""
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        yield number, line, inside


def _commands(page: Path) -> Iterator[Tuple[int, str]]:
    """Every logical line of a code block that runs the grader: continuation backslashes joined,
    with the number of its first line."""
    pending: List[str] = []
    first = 0
    for number, line, inside in _lines_outside_and_inside_code(page.read_text(encoding="utf-8")):
        if not inside:
            pending = []
            continue
        if not pending:
            first = number
        if line.rstrip().endswith("\\"):
            pending.append(line.rstrip()[:-1])
            continue
        logical = " ".join([*pending, line])
        pending = []
        if GRADER.search(logical):
            yield first, logical


def _grader_arguments(command: str) -> List[str]:
    """The arguments after ``python -m grader``: shell words, up to a pipe, a redirection, ``&&``
    or ``;``, without a ``#`` comment; a synopsis's ``[--option VALUE]`` brackets dropped."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars="|&;<>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    words = list(lexer)
    for index in range(len(words) - 2):
        if INTERPRETER.fullmatch(words[index]) and words[index + 1 : index + 3] == ["-m", "grader"]:
            arguments = []
            for word in words[index + 3 :]:
                if word and set(word) <= set("|&;<>"):
                    break
                word = word.strip("[]")
                if word:
                    arguments.append(word)
            return arguments
    raise AssertionError(f"no python -m grader in {command!r}")


def _shown_commands():
    return [
        pytest.param(page, number, command, id=f"{_name(page)}:{number}")
        for page in PAGES
        for number, command in _commands(page)
    ]


def test_the_readme_is_a_front_page_that_keeps_the_test_command():
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200, "README.md is longer than 200 lines"
    assert "python3 -m tox -p auto" in readme, "the Quick start's test command (CI runs it) left README.md"


def test_each_docs_page_says_who_it_is_for_and_leads_back_to_the_readme():
    for page in PAGES[1:]:
        head = page.read_text(encoding="utf-8").split("\n\n", 2)[1]
        assert head.startswith("For ") and "(../README.md)" in head, _name(page)


def _inline_commands(page: Path) -> Iterator[Tuple[int, str]]:
    """Every ``python -m grader ...`` in inline code outside code blocks (a span may wrap a line)."""
    lines = [
        "" if inside else line for _, line, inside in _lines_outside_and_inside_code(page.read_text(encoding="utf-8"))
    ]
    text = "\n".join(lines)
    for match in re.finditer(r"`(python3? -m grader\b[^`]*)`", text):
        yield text.count("\n", 0, match.start()) + 1, match.group(1).replace("\n", " ")


def _shown_inline_commands():
    return [
        pytest.param(page, number, command, id=f"{_name(page)}:{number}")
        for page in PAGES
        for number, command in _inline_commands(page)
    ]


def test_the_pages_show_commands():
    assert len(_shown_commands()) >= 10 and len(_shown_inline_commands()) >= 10


@pytest.mark.parametrize("page, number, command", _shown_commands())
def test_every_grader_command_shown_parses(page, number, command):
    arguments = _grader_arguments(command)
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
        try:
            _parser().parse_args(arguments)
        except SystemExit as stop:
            if stop.code:
                pytest.fail(f"{_name(page)}:{number}: {command.strip()}\n{errors.getvalue().strip()}")


@pytest.mark.parametrize("page, number, command", _shown_inline_commands())
def test_every_grader_command_named_in_the_text_is_known(page, number, command):
    """In running text a command may be named without all it needs (`python -m grader kit`, or
    `python3 -m grader COMMAND --help`), but never with a subcommand or an option that does not exist."""
    arguments = _grader_arguments(command)
    if not arguments or arguments[0].isupper():
        return
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
        try:
            _parser().parse_args(arguments)
        except SystemExit as stop:
            said = errors.getvalue()
            if stop.code and ("invalid choice" in said or "unrecognized arguments" in said):
                pytest.fail(f"{_name(page)}:{number}: {command.strip()}\n{said.strip()}")


def test_a_wrong_command_would_be_caught():
    """The check above is no formality: an unknown subcommand or option fails it."""
    for command in ("python -m grader chek x.py", "python3 -m grader check x.py --jsn | less"):
        with contextlib.redirect_stderr(io.StringIO()), pytest.raises(SystemExit):
            _parser().parse_args(_grader_arguments(command))
    assert _grader_arguments("python -m grader kit out/ [--course DIR] > log  # note") == [
        "kit",
        "out/",
        "--course",
        "DIR",
    ]


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text without Markdown, lower case, punctuation dropped,
    spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set:
    anchors, seen = set(), {}
    for _, line, inside in _lines_outside_and_inside_code(page.read_text(encoding="utf-8")):
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if inside or not match:
            continue
        slug = _slug(match.group(1))
        anchors.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return anchors


def _links(page: Path) -> Iterator[Tuple[int, str]]:
    for number, line, inside in _lines_outside_and_inside_code(page.read_text(encoding="utf-8")):
        if inside:
            continue
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if not re.match(r"[a-z][a-z0-9+.-]*:", target):
                yield number, target


def test_every_relative_link_leads_to_a_file_and_heading_that_exist():
    broken = []
    for page in PAGES:
        for number, target in _links(page):
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{_name(page)}:{number}: {target} (no such file)")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{_name(page)}:{number}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_the_slugs_are_githubs():
    assert _slug("Random answers: `repeat` and `min_distinct`") == "random-answers-repeat-and-min_distinct"
    assert _slug("Hints: tied to the failures they explain") == "hints-tied-to-the-failures-they-explain"
    assert _slug("The instructors' pages") == "the-instructors-pages"
    assert _slug("Checking the suite: `python -m grader verify`") == "checking-the-suite-python--m-grader-verify"
