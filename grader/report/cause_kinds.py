"""What several failing cases have in common beyond their literal messages: the kind of mistake.

One mistake fails many cases, each message with its own numbers and texts: a leftover debug print
("the first is "[3, 4]"", "the first is "[7]""), a row number one too high on every board, the same
crash with a different value each time. In: one failing case of a task (a ``CaseResult``, hidden
cases concealed) and its message's core (``causes.split_message``). Out: ``kind`` — a key that the
cases of one kind share (None when the case shows too little to tell, as a hidden case does), and
``sentence`` — for the cases of one kind, one sentence true of every one of them:

- extra lines: the expected answer is whole inside the output, with lines before or after it;
- numbers off: the output has the expected lines but for numbers in them, each that differs off by
  the same amount (every row number one too high);
- the same crash: one exception at one line of one file, whatever its text (said with the rest of
  the messages, when that differs only in values);
- the same sentence: messages whose first sentences are equal but for their numbers and quoted
  texts, said with those left out ("…"; the whole message when the rest differs only so too).
"""

from __future__ import annotations

import re
from typing import List, Optional, Sequence, Tuple

from grader.check.text import find_lines, quote, significant_lines
from grader.model import CaseResult, Verdict

# A message in tokens: a quoted text, a list and a number may differ between cases of one kind, the rest not.
_TOKEN = re.compile(r'"[^"]*"|(?<!\w)\'[^\']*\'(?!\w)|\[[^\[\]\n]*\]|[0-9]+|\s+|[^\W\d_]+|.', re.S)
_CRASH = re.compile(r"Your program crashed with [\w.]+(?P<text> \(.*?\))? on line [0-9]+(?: of [^\s:]+\.py)?", re.S)
_NUMBER = re.compile(r"(-?[0-9]+)")
_TEXT = "text"  # a crash's own text, the only variable token that is neither a quote nor a number
Kind = Tuple[object, ...]


def kind(case: CaseResult, core: str) -> Optional[Kind]:
    """The kind of ``case``'s failure (``core``: its message without what is its alone), or None."""
    if case.case.hidden or case.verdict is Verdict.NOT_RUN:
        return None  # a hidden case's message is its verdict's fixed sentence: nothing more to tell
    if case.verdict is Verdict.WRONG_ANSWER and not case.game and case.expected:
        if _extra_lines(case) is not None:
            return ("extra lines",)
        shift = _number_shift(case)
        if shift is not None:
            return ("numbers off", shift[0])
    crash = _CRASH.match(core)
    if crash:  # one exception at one line (of one file), whatever its own text says
        return (
            "crash",
            core[: crash.start("text")] + core[crash.end("text") : crash.end()]
            if crash.group("text")
            else crash.group(),
        )
    return ("sentence", tuple(_template(_tokens(first_sentence(core)))))


def sentence(key: Kind, members: Sequence[Tuple[CaseResult, str]]) -> str:
    """One sentence true of every case of kind ``key`` (``members``: each case and its core)."""
    first = members[0][0]
    if key[0] == "extra lines":
        extras = [_extra_lines(case) or (0, 0, "") for case, _ in members]  # (each has them: its kind)
        places = {_place(before, after) for before, after, _ in extras}
        where = places.pop() if len(places) == 1 else "before or after the answer"
        return (
            f"Your program prints extra lines {where}: the answer is there in each of these cases, with "
            f"more around it (in “{first.case.name}” the first extra line is {quote(extras[0][2])}). "
            "Leftover debug prints? Print only the answer."
        )
    if key[0] == "numbers off":
        amount = int(str(key[1]))
        how = f"{'one' if abs(amount) == 1 else abs(amount)} too {'high' if amount > 0 else 'low'}"
        shift = _number_shift(first)
        line, want, got = shift[1] if shift else (0, "", "")
        return (
            f"Your output has the expected lines but for numbers in them: each number that differs is {how} "
            f"(in “{first.case.name}”, line {line}: expected {quote(want)}, your program printed {quote(got)})."
        )
    said = [_tokens(core) for _, core in members]
    if len({tuple(_template(tokens)) for tokens in said}) == 1:
        return _merged(said)
    # the rest of the messages differs in more than values: said in each case, with its own words
    if key[0] == "crash":
        return f"{key[1]}."
    return _merged([_tokens(first_sentence(core)) for _, core in members])


def _extra_lines(case: CaseResult) -> Optional[Tuple[int, int, str]]:
    """(lines before the answer, lines after it, the first extra line) when the expected answer is
    whole inside the output with more lines around it, else None (as the text checker finds it)."""
    got, want = significant_lines(case.actual), significant_lines(case.expected)
    if not want or len(got) <= len(want):
        return None
    start = find_lines(got, want)
    if start < 0:
        return None
    after = len(got) - start - len(want)
    return start, after, got[0] if start else got[start + len(want)]


def _place(before: int, after: int) -> str:
    if before and after:
        return "before and after the answer"
    return "before the answer" if before else "after the answer"


def _number_shift(case: CaseResult) -> Optional[Tuple[int, Tuple[int, str, str]]]:
    """(the amount, (line, expected line, printed line) of the first that differs) when the output's
    lines are the expected ones but for numbers, each that differs off by that same amount."""
    got, want = significant_lines(case.actual), significant_lines(case.expected)
    if len(got) != len(want):
        return None
    amounts, first = set(), None
    for number, (mine, theirs) in enumerate(zip(got, want), start=1):
        if mine == theirs:
            continue
        my_parts, their_parts = _NUMBER.split(mine), _NUMBER.split(theirs)
        if len(my_parts) != len(their_parts) or my_parts[0::2] != their_parts[0::2]:
            return None  # more than numbers differ
        amounts |= {int(a) - int(b) for a, b in zip(my_parts[1::2], their_parts[1::2]) if a != b}
        first = first or (number, theirs, mine)
    if len(amounts) != 1 or first is None:
        return None
    return amounts.pop(), first


def _tokens(core: str) -> List[Tuple[str, str]]:
    """``core`` as (kind, text) tokens: "quote", "number", a crash's own ``_TEXT``, or "" (fixed)."""
    crash = _CRASH.match(core)
    spans = [(0, len(core))]
    if crash and crash.group("text"):
        spans = [(0, crash.start("text")), (crash.start("text"), crash.end("text")), (crash.end("text"), len(core))]
    tokens: List[Tuple[str, str]] = []
    for index, (start, end) in enumerate(spans):
        if len(spans) == 3 and index == 1:
            tokens.append((_TEXT, core[start:end]))
            continue
        for token in _TOKEN.findall(core[start:end]):
            kind_of = "number" if token.isdigit() else "quote" if token[:1] in "\"'[" and len(token) > 1 else ""
            tokens.append((kind_of, token))
    return tokens


def _template(tokens: List[Tuple[str, str]]) -> List[str]:
    return [f"<{kind_of}>" if kind_of else text for kind_of, text in tokens]


def _merged(messages: List[List[Tuple[str, str]]]) -> str:
    """The messages of one template as one: each token all of them share, and "…" where they differ
    (a crash's own text, which differs, is left out)."""
    said = []
    for position in zip(*messages):
        texts = {text for _, text in position}
        kind_of = position[0][0]
        if len(texts) == 1:
            said.append(texts.pop())
        elif kind_of == "quote":
            said.append(position[0][1][0] + "…" + position[0][1][-1])
        elif kind_of == "number":
            said.append("…")
    return "".join(said)


def first_sentence(text: str) -> str:
    """``text`` up to the end of its first sentence: a full stop, question or exclamation mark
    followed by a space, outside double quotes (a quoted output may hold ". ")."""
    quoted = False
    for index, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif char in ".?!" and not quoted and text[index + 1 : index + 2] == " ":
            return text[: index + 1]
    return text
