"""Hand-ins of one task that are much more alike than the class's usual, by copydetect's token
fingerprints (the ``web`` extra; imported only when asked, and its absence is a sentence).

In: a task's hand-ins (``HandIn``: whose, which submission, the file's digest and bytes) and the
task's stub (``exercises/<task>.py``, the boilerplate every hand-in starts from). Out: a
``TaskSimilarity`` (the pairs listed, the task's median, the hand-ins not compared and why, or why
the task says nothing) and, for one pair, each file's text with the stretches it shares with the
other (``matched``). copydetect turns each file into tokens (every name one token, comments left
out), keeps fingerprints of runs of ``NOISE`` tokens that are not in the stub, and measures what
share of a file's own fingerprinted code the other file also has.

The rule, said on the page (``RULE``): a file is compared when it has at least ``MIN_OWN`` tokens'
worth of fingerprinted code of its own (the stub's left out); a task whose reference solution has
less (or, without one, whose median hand-in has less) is too small to tell (two right answers of a
ten-line exercise look alike by necessity: a property of the task, not of who handed in); a pair is
listed when one of its files shares at least ``HIGH`` of its own code with the other AND that is
``MARGIN`` above the median of every pair of the task (so a task whose answers all look alike lists
nobody); with fewer than ``MIN_FILES`` files compared there is no usual to measure against.

Bounds: a file over ``MAX_BYTES`` or not UTF-8 is not compared (said, with the reason). Fingerprints
are kept by the file's digest and the stub's, and each pair's similarity by both digests, in this
process (``_Kept``, bounded): a new hand-in costs one fingerprint and a comparison with each other
file. ``compare_task`` stops at a ``deadline`` (``OutOfTime``) with what it did kept, so a page
that asks again carries on where it stopped.
"""

from __future__ import annotations

import hashlib
import io
import statistics
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Tuple, Union

# a file larger than this is not compared: tokenizing is about 3 ms per kB here, and a lab answer is
# a few kB (the portal stores up to 1 MiB, ``submission.files.MAX_SOURCE_BYTES``)
MAX_BYTES = 64 * 1024
NOISE = 25  # copydetect's default noise threshold: a shared run shorter than this many tokens is not counted
WINDOW = 1  # winnowing window (copydetect's default guarantee threshold 25 - NOISE + 1): every fingerprint kept
MIN_OWN = 200  # tokens of fingerprinted code of its own (the stub's left out) a file needs to be compared
HIGH = 0.75  # share of one file's own code the other has, at least, to be listed
MARGIN = 0.25  # and at least this much above the task's median pair
MIN_FILES = 3  # compared files a task needs for a median to mean "the class's usual"

RULE = (
    f"Each student's latest hand-in of a task is compared with every other student's, the exercise "
    f"stub's code left out and every name counted alike (so renaming variables changes nothing). A pair "
    f"is listed when at least {HIGH:.0%} of one file's own code is also in the other, and that is at "
    f"least {MARGIN * 100:.0f} points above the task's median pair. A task whose reference solution has "
    f"less than {MIN_OWN} tokens of its own code is too small to tell (short right answers look alike by "
    f"necessity), and so is a hand-in with less (the stub, or little more)."
)

PAIRS, TOO_SMALL, TOO_FEW, NOT_INSTALLED = "pairs", "too_small", "too_few", "not_installed"


class OutOfTime(Exception):
    """The deadline passed before the task was compared; what was done is kept for the next ask."""


@dataclass(frozen=True)
class HandIn:
    """One student's file of a task: its username, the submission's number, its digest and, when
    read, its bytes (None: not read, as its fingerprint is kept already)."""

    student: str
    number: int
    sha256: str
    data: Optional[bytes] = None


@dataclass(frozen=True)
class Pair:
    """Two students' hand-ins of one task and their similarity (0 to 1, the larger of the two shares)."""

    first: HandIn
    second: HandIn
    similarity: float


@dataclass(frozen=True)
class TaskSimilarity:
    """What the comparison says of one task: ``outcome`` (``PAIRS``: compared, with ``pairs`` the
    listed ones, maybe none; ``TOO_SMALL``, ``TOO_FEW``, ``NOT_INSTALLED``), the median pair
    (None when not compared), how many files were compared, and the hand-ins left out with why."""

    outcome: str
    pairs: Tuple[Pair, ...] = ()
    median: Optional[float] = None
    compared: int = 0
    skipped: Tuple[Tuple[str, str], ...] = field(default=())


@dataclass(frozen=True)
class Print:
    """A file's fingerprint (copydetect's ``CodeFingerprint``) and its text, or why it is not compared."""

    text: str = ""
    fingerprint: Any = None
    own: int = 0  # tokens of fingerprinted code that are not the stub's
    reason: str = ""


_detector: Union[None, Any, str] = None


def detector() -> Union[Any, str]:
    """copydetect's module, or the sentence saying why it cannot be used (imported once, lazily:
    it brings numpy and matplotlib, a second or more)."""
    global _detector
    if _detector is None:
        try:
            import copydetect

            _detector = copydetect
        except ImportError:
            _detector = "copydetect is not installed here: install the web extra (pip install 'nim-grader[web]')."
        except Exception as error:  # a broken install (numpy, matplotlib) must not break the page
            _detector = f"copydetect could not be loaded ({type(error).__name__}: {error})."
    return _detector


class _Kept:
    """A bounded map kept in this process, oldest dropped first: at most ``bound`` entries and, where
    each has a weight, at most ``heavy`` in all (the newest always kept); safe across the server's threads."""

    def __init__(self, bound: int, heavy: int = 0):
        self.bound, self.heavy, self.weight, self.lock = bound, heavy, 0, threading.Lock()
        self.found: OrderedDict = OrderedDict()

    def get(self, key):
        with self.lock:
            if key in self.found:
                self.found.move_to_end(key)
                return self.found[key][0]
            return None

    def put(self, key, value, weight: int = 0) -> None:
        with self.lock:
            if key in self.found:
                self.weight -= self.found.pop(key)[1]
            self.found[key] = (value, weight)
            self.weight += weight
            while len(self.found) > 1 and (len(self.found) > self.bound or (self.heavy and self.weight > self.heavy)):
                self.weight -= self.found.popitem(last=False)[1][1]

    def clear(self) -> None:
        with self.lock:
            self.found.clear()
            self.weight = 0


# A fingerprint takes about 16 bytes of memory per byte of its file (a 10 kB working_game: 155 kB),
# so the files kept are bounded by their text: 8 MiB of text, about 130 MiB in all, for 800 lab files
# of 10 kB (a class of 90 on every task); a larger class is fingerprinted again as it is compared.
_prints = _Kept(4096, heavy=8 * 1024 * 1024)  # (file digest, stub digest) → Print
_shares = _Kept(50_000)  # (digest, digest, stub digest) → similarity (about 500 bytes each)
_stubs = _Kept(64)  # stub digest → the stub's fingerprints (copydetect's boilerplate hashes)


def forget() -> None:
    """Drop everything kept (for tests that change what copydetect is)."""
    global _detector
    for kept in (_prints, _shares, _stubs):
        kept.clear()
    _detector = None


def stub_digest(stub: str) -> str:
    return hashlib.sha256(stub.encode("utf-8", "surrogatepass")).hexdigest()


def _boilerplate(cd, stub: str):
    key = stub_digest(stub)
    found = _stubs.get(key)
    if found is None:
        import numpy

        hashes = cd.CodeFingerprint("stub.py", NOISE, 1, language="python", fp=io.StringIO(stub)).hashes
        found = numpy.unique(numpy.array(sorted(hashes), dtype=numpy.int64))
        _stubs.put(key, found)
    return found


def known(sha256: str, stub: str) -> bool:
    """Whether the file of this digest is fingerprinted already against this stub (its bytes need no reading)."""
    return _prints.get((sha256, stub_digest(stub))) is not None


def fingerprint(hand_in: HandIn, stub: str) -> Print:
    """The file's ``Print`` against the stub: kept by both digests; made from ``hand_in.data``."""
    key = (hand_in.sha256, stub_digest(stub))
    found = _prints.get(key)
    if found is not None:
        return found
    cd = detector()
    data = hand_in.data or b""
    if isinstance(cd, str):
        return Print(reason=cd)
    if len(data) > MAX_BYTES:
        made = Print(reason=f"its file has {len(data):,} bytes, over the {MAX_BYTES:,} compared")
    else:
        try:
            text = data.decode("utf-8").replace("\r\n", "\n")
        except UnicodeDecodeError:
            made = Print(reason="its file is not UTF-8 text")
        else:
            try:
                made = _made(cd, text, stub)
            except Exception as error:  # copydetect's own failure on an odd file: said, the rest compared
                made = Print(reason=f"copydetect could not read it ({type(error).__name__})")
    _prints.put(key, made, weight=len(made.text) + 1)
    return made


def _made(cd, text: str, stub: str) -> Print:
    made = cd.CodeFingerprint(
        "hand_in.py", NOISE, WINDOW, boilerplate=_boilerplate(cd, stub), language="python", fp=io.StringIO(text)
    )
    return Print(text=text, fingerprint=made, own=int(made.token_coverage))


def _share(first: HandIn, one: Print, second: HandIn, other: Print, stub: str) -> float:
    """The pair's similarity: the larger share of one file's own code that the other also has."""
    key = (*sorted((first.sha256, second.sha256)), stub_digest(stub))
    found = _shares.get(key)
    if found is None:
        cd: Any = detector()  # a module here: a file has a fingerprint only when it loaded
        _, shares, _ = cd.compare_files(one.fingerprint, other.fingerprint)
        found = float(min(1.0, max(shares)))
        _shares.put(key, found)
    return found


def compare_task(
    hand_ins: List[HandIn],
    stub: str,
    deadline: float,
    read: Callable[[List[HandIn]], List[HandIn]],
    reference: Optional[str] = None,
):
    """The task's ``TaskSimilarity`` from every student's hand-in of it (one each), its stub and
    its reference solution (None: the course has none); ``read`` gives the hand-ins whose
    fingerprint is not kept their bytes. Raises ``OutOfTime`` past ``deadline``
    (``time.monotonic()``), what was done kept."""
    cd = detector()
    if isinstance(cd, str):
        return TaskSimilarity(NOT_INSTALLED)
    if reference is not None:  # the task's size first: a tiny task's hand-ins are not even read
        data = reference.encode("utf-8", "surrogatepass")
        if fingerprint(HandIn("", 0, hashlib.sha256(data).hexdigest(), data), stub).own < MIN_OWN:
            return TaskSimilarity(TOO_SMALL)
    unread = [h for h in hand_ins if not known(h.sha256, stub)]
    by_number = {h.number: h for h in read(unread)} if unread else {}
    prints: List[Tuple[HandIn, Print]] = []
    for hand_in in hand_ins:
        if time.monotonic() > deadline:
            raise OutOfTime
        source = by_number.get(hand_in.number, hand_in)
        if source.data is None and not known(source.sha256, stub):  # dropped from what is kept meanwhile
            source = read([source])[0]
        prints.append((hand_in, fingerprint(source, stub)))
    skipped = [(h.student, p.reason) for h, p in prints if p.reason]
    sizes = [p.own for _, p in prints if not p.reason]
    if reference is None and sizes and statistics.median(sizes) < MIN_OWN:
        return TaskSimilarity(TOO_SMALL, skipped=tuple(skipped))
    small = [h.student for h, p in prints if not p.reason and p.own < MIN_OWN]
    skipped += [(name, f"less than {MIN_OWN} tokens of its own code (the stub, or little more)") for name in small]
    compared = [(h, p) for h, p in prints if not p.reason and p.own >= MIN_OWN]
    if len(compared) < MIN_FILES:
        return TaskSimilarity(TOO_FEW, compared=len(compared), skipped=tuple(skipped))
    pairs = []
    for i, (first, one) in enumerate(compared):
        if time.monotonic() > deadline:
            raise OutOfTime
        for second, other in compared[i + 1 :]:
            pairs.append(Pair(first, second, _share(first, one, second, other, stub)))
    median = statistics.median(p.similarity for p in pairs)
    listed = [p for p in pairs if p.similarity >= HIGH and p.similarity - median >= MARGIN]
    listed.sort(key=lambda p: (-p.similarity, p.first.student, p.second.student))
    return TaskSimilarity(PAIRS, tuple(listed), median, len(compared), tuple(skipped))


@dataclass(frozen=True)
class Matched:
    """One pair's view: each file's text and its stretches shared with the other (start, end) in
    the text's characters, and the pair's similarity; or ``reason`` why it cannot be shown marked."""

    texts: Tuple[str, str] = ("", "")
    spans: Tuple[Tuple[Tuple[int, int], ...], Tuple[Tuple[int, int], ...]] = ((), ())
    similarity: float = 0.0
    reason: str = ""


def matched(first: HandIn, second: HandIn, stub: str) -> Matched:
    """The two files (with their bytes) side by side: the stretches each shares with the other."""
    one, other = fingerprint(first, stub), fingerprint(second, stub)
    for hand_in, made in ((first, one), (second, other)):
        if made.reason:
            return Matched(reason=f"{hand_in.student}'s hand-in is not compared: {made.reason}.")
    cd: Any = detector()  # a module here: both files have a fingerprint
    _, shares, slices = cd.compare_files(one.fingerprint, other.fingerprint)
    spans = tuple(_spans(found, len(made.text)) for found, made in zip(slices, (one, other)))
    return Matched((one.text, other.text), (spans[0], spans[1]), float(min(1.0, max(shares))))


def _spans(slices, length: int) -> Tuple[Tuple[int, int], ...]:
    """copydetect's 2×N array of starts and ends as ordered, merged (start, end) pairs within the text."""
    if len(slices) < 2:
        return ()
    found = sorted((max(0, int(s)), min(length, int(e))) for s, e in zip(slices[0], slices[1]))
    merged: List[List[int]] = []
    for start, end in found:
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple((s, e) for s, e in merged)


def lines_marked(text: str, spans: Tuple[Tuple[int, int], ...]) -> List[List[Tuple[str, bool]]]:
    """``text`` as lines, each a list of (piece, shared?) from ``spans`` (ordered, apart): what a
    page shows, to be escaped there (the text is the student's)."""
    pieces, at = [], 0
    for start, end in spans:
        pieces += [(text[at:start], False), (text[start:end], True)]
        at = end
    pieces.append((text[at:], False))
    lines: List[List[Tuple[str, bool]]] = [[]]
    for piece, shared in pieces:
        for n, part in enumerate(piece.split("\n")):
            if n:
                lines.append([])
            if part:
                lines[-1].append((part, shared))
    if text.endswith("\n"):
        lines.pop()
    return lines


def percent(share: Optional[float]) -> str:
    return "" if share is None else f"{share:.0%}"
