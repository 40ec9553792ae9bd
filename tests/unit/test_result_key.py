"""The key of a task's results holds everything that decides them, by construction: every field of
every dataclass it is made of, at any depth, changed in turn to another valid value, changes the key
(but the few ``NOT_DECIDING`` names, which must not). A field added later to Case, Task, Limits,
Rule, a hint, the grading context or the protections is walked here without anyone listing it, so
one the key misses fails this test."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import typing
from pathlib import Path, PurePath

import pytest

from grader.check.registry import CheckerRegistry
from grader.grade.grading import GradingContext
from grader.grade.result_key import (
    NOT_DECIDING,
    canonical,
    digest,
    grader_fingerprint,
    result_key,
    run_key,
    run_parts,
    task_digest,
)
from grader.model import Case, Generated, Hint, Limits, Mistake, Rule, Task, Verdict, When
from grader.run.sandbox import Protections
from grader.submission.files import FileRead, Kind


class FakeRunner:
    """A runner that runs nothing: only what it says of its protections counts for a key."""

    def __init__(self, protections: typing.Optional[Protections] = None) -> None:
        self.given = protections or Protections()

    def protections(self, python):
        return self.given


# Every field set, and every optional one present, so that the walk reaches each nested value.
CASE = Case(
    name="a case",
    input="3 4 5\n",
    expected=("2\n",),
    checker="text",
    checker_options={"ignore_case": True, "board": [1, 2.5, None, "x"]},
    limits=Limits(),
    hidden=True,
    hint="a hint",
    points=2.0,
    line=12,
    repeat=3,
    min_distinct=2,
    mistakes=(Mistake("a known mistake", output="3\n", pattern="^3", accepted=("first",)),),
    generated=Generated("random_board", '{"rows": 3}', "{rows}\n"),
    hints=(
        Hint(
            "a hint tied to a failure",
            When(
                (Verdict.WRONG_ANSWER,),
                output="1",
                pattern="p",
                exception="KeyError",
                accepted=("a",),
                exception_text="t",
            ),
        ),
    ),
)
TASK = Task(
    id="nim_sum",
    title="Nim sum",
    cases=(CASE,),
    rules=(Rule("operator", "^", "use a loop", 1),),
    source="testcases/nim_sum.yaml",
    uses_files=("present_board",),
    total=10.0,
)
MAIN = FileRead("nim_sum.py", Kind.READ, data=b"print(1)\n", reason="")
COMPANIONS = (FileRead("present_board.py", Kind.REFUSED, data=b"", reason="It is a link."),)
CONTEXT = GradingContext(checkers=CheckerRegistry(), python="python3", runner=FakeRunner(), course=None)


def _types(annotation) -> typing.List[type]:
    """The dataclass types an annotation holds (inside Optional, Tuple and the like)."""
    if dataclasses.is_dataclass(annotation):
        return [annotation]
    return [found for inner in typing.get_args(annotation) for found in _types(inner)]


def _hints(kind: type) -> dict:
    return typing.get_type_hints(kind)


def every_field(*kinds: type) -> typing.Set[typing.Tuple[type, str]]:
    """Every (class, field) of ``kinds`` and of the dataclasses their fields hold, at any depth."""
    seen: typing.Set[type] = set()
    todo = list(kinds)
    while todo:
        kind = todo.pop()
        if kind not in seen:
            seen.add(kind)
            todo += [inner for annotation in _hints(kind).values() for inner in _types(annotation)]
    return {(kind, found.name) for kind in seen for found in dataclasses.fields(kind)}


def other(value, annotation):
    """Another valid value of ``annotation`` than ``value``."""
    options = [a for a in typing.get_args(annotation) if a is not type(None)]
    if value is None:
        return sample(options[0])
    if isinstance(value, bool):
        return not value
    if isinstance(value, enum.Enum):
        return next(member for member in type(value) if member is not value)
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 0.5
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, bytes):
        return value + b"x"
    if isinstance(value, tuple):
        item = (typing.get_args(annotation) or (str,))[0]
        return (other(value[0], item), *value[1:]) if value else (sample(item),)
    if isinstance(value, typing.Mapping):
        return {**value, "another_option": 1}
    if isinstance(value, PurePath):
        return value / "x"
    if dataclasses.is_dataclass(value):
        first = dataclasses.fields(value)[0]
        return dataclasses.replace(
            value, **{first.name: other(getattr(value, first.name), _hints(type(value))[first.name])}
        )
    raise AssertionError(f"no other value known for {value!r}")


def sample(annotation):
    """A valid value of ``annotation`` (for an optional field left empty)."""
    options = [a for a in typing.get_args(annotation) if a is not type(None)]
    if options and typing.get_origin(annotation) is typing.Union:
        return sample(options[0])
    if dataclasses.is_dataclass(annotation):
        return annotation(
            **{
                f.name: sample(_hints(annotation)[f.name])
                for f in dataclasses.fields(annotation)
                if f.default is dataclasses.MISSING
            }
        )
    return {str: "s", int: 1, float: 1.0, bool: True, bytes: b"b"}[annotation]


def variants(value):
    """(class, field), ``value`` with that field changed: every field of ``value`` and, inside it,
    of every dataclass it holds (the first of a tuple), at any depth."""
    hints = _hints(type(value))
    for found in dataclasses.fields(value):
        current = getattr(value, found.name)
        yield (type(value), found.name), dataclasses.replace(value, **{found.name: other(current, hints[found.name])})
        for label, changed in _deeper(current):
            yield label, dataclasses.replace(value, **{found.name: changed})


def _deeper(current):
    if dataclasses.is_dataclass(current):
        yield from variants(current)
    elif isinstance(current, tuple) and current:
        for label, changed in _deeper(current[0]):
            yield label, (changed, *current[1:])


def key_of(task=TASK, main=MAIN, companions=COMPANIONS, shown="ann/nim_sum.py", context=CONTEXT, interpreter="3.11"):
    run = run_key(run_parts(context, interpreter))
    return result_key(run, task_digest(task, context), main, companions, shown)


def _check(walked, key, base_key):
    changed_not, left_out_changed = [], []
    for label, value in walked:
        kind, name = label
        if name in NOT_DECIDING.get(kind, {}):
            if key(value) != base_key:
                left_out_changed.append(label)
        elif key(value) == base_key:
            changed_not.append(label)
    assert not changed_not, f"fields that decide a result but leave the key as it was: {changed_not}"
    assert not left_out_changed, f"fields said to decide nothing that change the key: {left_out_changed}"


def test_every_field_of_the_task_at_any_depth_is_in_the_key():
    base = key_of()
    walked = list(variants(TASK))
    assert {label for label, _ in walked} == every_field(Task)  # the walk reached them all
    assert every_field(Task) >= {(Case, "limits"), (Limits, "time_s"), (Rule, "target"), (When, "accepted")}
    _check(walked, lambda task: key_of(task=task), base)


def test_every_field_of_the_files_as_read_and_their_shown_name_is_in_the_key():
    base = key_of()
    walked = list(variants(MAIN))
    assert {label for label, _ in walked} == every_field(FileRead)
    _check(walked, lambda main: key_of(main=main), base)
    _check(((label, (changed,)) for label, changed in variants(COMPANIONS[0])), lambda c: key_of(companions=c), base)
    assert key_of(companions=()) != base
    assert key_of(shown="ben/nim_sum.py") != base  # a traceback names the file as shown
    assert key_of(interpreter="3.11 with numpy") != base


def test_every_protection_is_in_the_key():
    base = key_of()
    walked = list(variants(Protections()))
    assert {label for label, _ in walked} == every_field(Protections)
    _check(walked, lambda given: key_of(context=dataclasses.replace(CONTEXT, runner=FakeRunner(given))), base)


def test_every_setting_of_the_grading_context_is_in_the_key_but_what_stands_in_for_it():
    base = key_of()
    stand_ins = {
        "checkers": CheckerRegistry(),
        "runner": FakeRunner(),  # the same protections: a runner is keyed by what it gives
        "course": Path("elsewhere"),
    }
    hints = _hints(GradingContext)
    walked = []
    for found in dataclasses.fields(GradingContext):
        current = getattr(CONTEXT, found.name)
        value = stand_ins[found.name] if found.name in stand_ins else other(current, hints[found.name])
        walked.append(((GradingContext, found.name), dataclasses.replace(CONTEXT, **{found.name: value})))
    _check(walked, lambda context: key_of(context=context), base)


def test_the_courses_checkers_and_the_tasks_stub_are_in_the_key(tmp_path):
    course = tmp_path / "course"
    (course / "exercises").mkdir(parents=True)
    context = dataclasses.replace(CONTEXT, course=course)
    keys = [key_of(context=context)]
    (course / "checkers.py").write_text("def register(registry):\n    pass\n")
    keys.append(key_of(context=context))
    (course / "checkers.py").write_text("def register(registry):\n    pass  # changed\n")
    keys.append(key_of(context=context))
    (course / "exercises" / "nim_sum.py").write_text("def nim_sum(board):\n    pass\n")
    keys.append(key_of(context=context))
    assert len(set(keys)) == len(keys)


def test_the_graders_source_is_in_the_key(tmp_path):
    package = tmp_path / "grader"
    (package / "grade").mkdir(parents=True)
    (package / "grade" / "verdicts.py").write_text("A = 1\n")
    prints = [grader_fingerprint(package)]
    (package / "grade" / "verdicts.py").write_text("A = 2\n")  # changed
    prints.append(grader_fingerprint(package))
    (package / "grade" / "verdicts.py").rename(package / "grade" / "verdict.py")  # renamed
    prints.append(grader_fingerprint(package))
    (package / "check.py").write_text("")  # added, empty
    prints.append(grader_fingerprint(package))
    assert len(set(prints)) == len(prints)
    assert grader_fingerprint() == grader_fingerprint()  # the installed grader's: the same twice


SCALARS = [None, True, False, 0, 1, -1, 1.0, -0.0, 0.0, "1", "", b"1", Verdict.ACCEPTED, "accepted", Path("p")]
VALUES = SCALARS + [(), [], {}, (1,), [1], {"1": 1}, {1: "1"}, frozenset({1}), (1.0,), ((),), [()], {"": None}]


@pytest.mark.parametrize("value", VALUES)
def test_values_of_different_types_or_contents_are_told_apart(value):
    same = [o for o in VALUES if type(o) is type(value) and o == value and repr(o) == repr(value)]
    assert [o for o in VALUES if canonical(o) == canonical(value)] == same


def test_mappings_and_sets_do_not_depend_on_their_order_and_nesting_is_not_flattened():
    assert canonical({"a": 1, "b": [2, 3]}) == canonical({"b": [2, 3], "a": 1})
    assert canonical({"b", "a"}) == canonical({"a", "b"})
    assert canonical((("a", "b"), "c")) != canonical(("a", ("b", "c")))
    assert canonical(["ab", "c"]) != canonical(["a", "bc"])
    assert canonical(datetime.date(2024, 1, 2)) != canonical("2024-01-02")
    assert digest("a", "b") != digest("ab") and digest("a", "b") == digest("a", "b")


class Unknown:
    pass


@pytest.mark.parametrize("value", [Unknown(), lambda: 1, object(), 1j, bytearray(b"x")])
def test_a_type_the_key_does_not_know_stops_it_with_a_sentence(value):
    with pytest.raises(TypeError, match="cannot key a value of type .* say in grader/grade/result_key.py"):
        canonical(value)
    with pytest.raises(TypeError):  # inside a case's options as anywhere else
        key_of(task=dataclasses.replace(TASK, cases=(dataclasses.replace(CASE, checker_options={"x": value}),)))
