"""What the process running a program reported on its channel (``child_program``), read as facts.

In: the bytes of a run's report channel (untrusted: the program could write there too) and the run
folder. Out: ``ChildRecords``, the crash (exception type, its text, the frames in the student's
files), a rule broken while running, the frames of the stack written at the time limit, and the
looks at it there (``samples``: the state records when the program answered each look with one,
else the stack dumps alone). Every failure to read is absorbed: a line that is not a well-formed
record is left out.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

from grader.run.run_facts import ChildCrash, Frame, RuleBreak, StackSample

# faulthandler's stack dump at the time limit: "Current thread 0x... (most recent call first):",
# then frames, newest first: '  File "/tmp/.../run-x/nim_sum.py", line 12 in nim_sum'
_DUMP_START = re.compile(r"^(Timeout \(|Current thread 0x|Stack \()")
_OTHER_THREAD = re.compile(r"^Thread 0x")
_DUMP_FRAME = re.compile(r'^  File "(?P<file>[^"]+)", line (?P<line>\d{1,9}) in (?P<where>.{1,200})$')
_MAX_FRAMES = 12
_MAX_NAME = 200
_MAX_TEXT = 2000
_MAX_SAMPLES = 4


@dataclass(frozen=True)
class ChildRecords:
    """The facts of one run's channel: its crash, a rule broken, the stack at the time limit
    (innermost student frame first)."""

    crash: Optional[ChildCrash] = None
    rule: Optional[RuleBreak] = None
    stack: Tuple[Frame, ...] = ()
    samples: Tuple[StackSample, ...] = ()


def _text(value: str) -> str:
    """``value`` as text any page or file can hold: a lone surrogate (JSON can carry one, "\\ud800")
    becomes "?"."""
    return value.encode("utf-8", "replace").decode("utf-8") if any("\ud800" <= c <= "\udfff" for c in value) else value


def _name(value) -> str:
    """A file or function name from a record: text without line breaks, bounded; "" otherwise."""
    if not isinstance(value, str) or len(value) > _MAX_NAME or "\n" in value or "\r" in value:
        return ""
    return _text(value)


def _frame(item) -> Optional[Frame]:
    if not (isinstance(item, list) and len(item) == 3):
        return None
    file, line, function = _name(item[0]), item[1], _name(item[2])
    if not file or type(line) is not int or not 0 <= line < 10**9:
        return None
    return Frame(file=file, line=line, function=function)


def _crash(value) -> Optional[ChildCrash]:
    if not isinstance(value, dict):
        return None
    kind, text, frames = value.get("type"), value.get("text", ""), value.get("frames", [])
    if not _name(kind) or not isinstance(text, str) or not isinstance(frames, list):
        return None
    read = [_frame(item) for item in frames[-_MAX_FRAMES:]]
    return ChildCrash(
        exception=_name(kind),
        builtin=value.get("builtin") is True,
        text=_text(text[:_MAX_TEXT]),
        frames=tuple(f for f in read if f is not None),
    )


def _rule(value) -> Optional[RuleBreak]:
    index, file, line = value.get("rule"), _name(value.get("file", "")), value.get("line", 0)
    if type(index) is not int or type(line) is not int or not (0 <= index < 1000 and 0 <= line < 10**9):
        return None
    return RuleBreak(index=index, file=file, line=line)


def _state(value) -> Optional[StackSample]:
    """A state record's frames (innermost first) with their fingerprints; None when malformed."""
    if not isinstance(value, list):
        return None
    frames, states = [], []
    for item in value[:_MAX_FRAMES]:
        frame = _frame(item[:3]) if isinstance(item, list) and len(item) == 4 else None
        state = item[3] if frame is not None else None
        if frame is None or not isinstance(state, str) or len(state) > 32:
            return None
        frames.append(frame)
        states.append(state)
    return StackSample(frames=tuple(frames), states=tuple(states))


def _samples(dumps: List[Tuple[Frame, ...]], states: List[StackSample]) -> Tuple[StackSample, ...]:
    """The looks at the program: its state records when each look got one, else its stack dumps."""
    if len(states) >= max(len(dumps), 2):
        return tuple(states[:_MAX_SAMPLES])
    return tuple(StackSample(frames=dump) for dump in dumps[:_MAX_SAMPLES])


def _in_folder(path: str, folder: str) -> str:
    prefix = folder.rstrip("/") + "/"
    return path[len(prefix) :] if folder and path.startswith(prefix) else ""


def read_records(data: bytes, folder: str) -> ChildRecords:
    """The records in ``data`` (the channel of a run in ``folder``): the last crash and the first rule
    broken that are well formed, and the student's frames of the last stack dump."""
    crash: Optional[ChildCrash] = None
    rule: Optional[RuleBreak] = None
    stack: List[Frame] = []
    dumps: List[Tuple[Frame, ...]] = []
    states: List[StackSample] = []
    in_dump = False
    for raw in data.decode("utf-8", "replace").splitlines():
        if raw.startswith("{"):
            in_dump = False
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError):
                continue
            if not isinstance(value, dict):
                continue
            if "crash" in value:
                crash = _crash(value["crash"]) or crash
            elif "rule" in value and rule is None:
                rule = _rule(value)
            elif "state" in value and len(states) < _MAX_SAMPLES:
                sample = _state(value["state"])
                states += [sample] if sample is not None else []
            continue
        if _DUMP_START.match(raw):
            in_dump, stack = True, []
            dumps.append(())
            continue
        if _OTHER_THREAD.match(raw):  # another thread's stack: the program's own is the current one
            in_dump = False
            continue
        frame = _DUMP_FRAME.match(raw) if in_dump else None
        name = _name(_in_folder(frame.group("file"), folder)) if frame else ""
        if frame and name and len(stack) < _MAX_FRAMES:
            stack.append(Frame(file=name, line=int(frame.group("line")), function=_name(frame.group("where"))))
            dumps[-1] = tuple(stack)
    return ChildRecords(crash=crash, rule=rule, stack=tuple(stack), samples=_samples(dumps, states))
