"""What a teaching assistant would say, task by task: realistic wrong files (mutations of the reference
solutions, as students write them, none of them a file of ``solutions/wrong/``) and the sentence each
must get, and the misleading one it must not get on any case.

``test_diagnoses.py``, ``test_hints.py`` and ``test_mistake_corpus.py`` hold more; the known-wrong
solutions' own ``says``/``never-says`` lines are checked by ``test_submissions.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

import pytest
from support import mutate, solution

from grader.model import Verdict

TOGETHER = ("present_board", "make_move", "optimal_move", "ui")  # what working_game imports


@dataclass(frozen=True)
class Wrong:
    task: str
    name: str
    old: str
    new: str
    verdict: Verdict
    says: str  # in the first failing visible case's message
    never: Tuple[str, ...]  # in no case's message

    def text(self) -> str:
        return mutate(self.task, self.old, self.new)


FILES = (
    Wrong(
        "present_board",
        "prints the board instead of returning it",
        '    return "\\n".join(lines)',
        '    print("\\n".join(lines))',
        Verdict.WRONG_ANSWER,
        "Your function present_board prints its answer and returns nothing (None)",
        ("leftover debug prints", "printed 1 line after it"),
    ),
    Wrong(
        "present_board",
        "puts the space after each X",
        '" X" * size',
        '"X " * size',
        Verdict.PRESENTATION_ERROR,
        "the spacing differs on line 2",
        ("Hint:",),  # a spacing mistake is the whole story: no hint about the logic
    ),
    Wrong(
        "bitwise_xor",
        "pads the shorter list of bits at the end",
        "bits_a = [0] * (width - len(bits_a)) + bits_a",
        "bits_a = bits_a + [0] * (width - len(bits_a))",
        Verdict.WRONG_ANSWER,
        "put zeros in front of the shorter list of bits, not at the end",
        ("Two equal bits give 0", "0 XOR a number is that number"),
    ),
    Wrong(
        "bitwise_xor",
        "multiplies the bits (and, not xor)",
        "    if a == b:\n        return 0\n    return 1",
        "    return a * b",
        Verdict.WRONG_ANSWER,
        'expected "1", your program printed "2"',
        ("in front of the shorter list",),
    ),
    Wrong(
        "optimal_move",
        "answers the list index as the row",
        "return index + 1, board[index] - (board[index] ^ x)",
        "return index, board[index] - (board[index] ^ x)",
        Verdict.WRONG_ANSWER,
        "Did you return a list index (counted from 0) as the row?",
        ("r - (r ^ X) objects",),
    ),
    Wrong(
        "optimal_move",
        "answers the size to leave, not the objects to take",
        "return index + 1, board[index] - (board[index] ^ x)",
        "return index + 1, board[index] ^ x",
        Verdict.WRONG_ANSWER,
        "Take r - (r ^ X) objects from the good row",
        ("list index (counted from 0)",),
    ),
    Wrong(
        "optimal_move",
        "always takes the first good row",
        "index = random.choice(good_rows)",
        "index = good_rows[0]",
        Verdict.WRONG_ANSWER,
        "Choose at random among all the right answers",
        ("Rows count from 1", "is illegal"),
    ),
    Wrong(
        "working_game",
        "names the next player as the winner",
        'print(f"{name} wins!")',
        'print(f"{players[1 - turn]} wins!")',
        Verdict.WRONG_ANSWER,
        "Your program announced Bob as the winner, but Alice took the last object and wins.",
        ("Illegal move", "needs present_board.py"),
    ),
)


@pytest.mark.parametrize("wrong", FILES, ids=lambda w: f"{w.task}: {w.name}")
def test_a_realistic_wrong_file_gets_the_sentence_a_teaching_assistant_would_say(wrong, grade, tmp_path):
    for used in TOGETHER if wrong.task == "working_game" else ():
        (tmp_path / f"{used}.py").write_text(solution(used))  # the student's other files, all right
    result = grade(wrong.task, wrong.text())
    assert result.verdict is wrong.verdict
    first = next(c for c in result.cases if not c.accepted and not c.case.hidden)
    assert wrong.says in first.message
    for case in result.cases:
        for misleading in wrong.never:
            assert misleading not in case.message, f"{case.case.name}: {case.message}"
