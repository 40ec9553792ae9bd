"""Every sentence the game's referee says is true of the transcript it says it of.

Each transcript below is fed to a ``NimGameSession`` by hand (no process). The sentence it ends
with is then read claim by claim ("Alice's move '2 1' was legal", "the game is over", "It is
Bob's turn", "expected [1, 1]", ...) and each claim is checked against a replay of the transcript
made here, apart from the referee: the board, whose turn it is, and what each line typed was. A
sentence with no claim this test can read fails too, so that a new sentence comes with its check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import pytest
from support import render

from grader.nim import game
from grader.nim import rules as nim
from grader.run.run_facts import RunResult

_PROMPT = ", make a move: "


def _shown(board) -> str:
    return render(board) + "\n"


@dataclass
class Replay:
    """The game as the transcript's lines up to ``upto`` show it, by the rules of Nim."""

    players: Tuple[str, str]
    board: List[int]
    upto: int
    turn: int = 0
    last_mover: str = ""
    typed: List[Tuple[str, str, Optional[bool]]] = field(default_factory=list)  # (who, text, legal)
    illegal_lines: List[int] = field(default_factory=list)
    prompt_lines: List[int] = field(default_factory=list)
    boards_shown: List[int] = field(default_factory=list)  # the lines "Nim:" is on
    winners: List[int] = field(default_factory=list)  # the lines a winner is announced on
    lines: List[str] = field(default_factory=list)  # the whole transcript

    @classmethod
    def of(cls, transcript: str, players, board, upto: int) -> Replay:
        replay = cls(tuple(players), list(board), upto, lines=transcript.split("\n"))
        for number, line in enumerate(transcript.split("\n")[:upto], start=1):
            if number <= 3:
                continue  # the setup: two names and the board
            replay.read(line, number)
        return replay

    def read(self, line: str, number: int) -> None:
        player = self.players[self.turn]
        moved = re.fullmatch(r"(.+?) removes (-?\d+) from row (-?\d+)", line.strip())
        if _PROMPT in line:
            self.prompt_lines.append(number)
            if number == self.upto:
                return  # the prompt the sentence is about: what was typed after it does not count
            text = line.split(_PROMPT, 1)[1]
            move = nim.parse_typed_move(text)
            legal = move is not None and nim.is_legal(self.board, move)
            self.typed.append((player, text, legal if move is not None else None))
            if legal:
                self.apply(player, move)
        elif line.strip() == "Nim:":
            self.boards_shown.append(number)
        elif line.strip().endswith("wins!"):
            self.winners.append(number)
        elif line.startswith("Illegal move"):
            self.illegal_lines.append(number)
        elif moved and moved.group(1) == player and nim.is_computer(player):
            move = (int(moved.group(3)), int(moved.group(2)))
            if nim.is_legal(self.board, move) and number < self.upto:
                self.apply(player, move)

    def apply(self, player: str, move) -> None:
        self.board = nim.apply(self.board, move)
        self.last_mover, self.turn = player, 1 - self.turn

    def typed_by(self, who: str, text: str) -> Optional[bool]:
        """Whether the last time ``who`` typed ``text`` it was legal (None: unreadable)."""
        found = [legal for player, typed, legal in self.typed if (player, typed) == (who, text)]
        assert found, f"{who} never typed {text!r}"
        return found[-1]


def check_claims(message: str, replay: Replay) -> int:
    """Check each claim of ``message`` against ``replay``; how many claims were read."""
    claims = 0
    for who, text in re.findall(r"(\w+)'s move '([^']*)' was legal", message):
        claims += 1
        assert replay.typed_by(who, text) is True, f"{text!r} was not legal: {message}"
    for who, text in re.findall(r"(\w+)'s move '([^']*)' is illegal", message):
        claims += 1
        assert replay.typed_by(who, text) is False, f"{text!r} is not a readable illegal move: {message}"
    for who, text in re.findall(r"(\w+) typed '([^']*)', which is not a move", message):
        claims += 1
        assert replay.typed_by(who, text) is None, f"{text!r} is a move: {message}"
    for who in re.findall(r"(\w+) typed an empty line", message):
        claims += 1
        assert any(p == who and not t.strip() for p, t, _ in replay.typed), message
    for who, text in re.findall(r"the board after (\w+)'s move '([^']*)'", message):
        claims += 1
        assert replay.typed_by(who, text) is True, f"{text!r} was no move to show a board after: {message}"
    for who, text in re.findall(r"After (\w+)'s move '([^']*)' your program did not show", message):
        claims += 1
        assert replay.typed_by(who, text) is True, message
    if "did not announce the winner" in message:
        claims += 1
        assert not replay.winners and not any(replay.board), message
    if "the game is over" in message:
        claims += 1
        assert not any(replay.board), f"the board {replay.board} is not empty: {message}"
    if "the board is not empty" in message or "the board still has objects" in message:
        claims += 1
        assert any(replay.board), message
    for who in re.findall(r"It is (\w+)'s turn", message):
        claims += 1
        assert replay.players[replay.turn] == who, message
    for board in re.findall(r"expected (\[[\d, ]*\]), your program showed", message):
        claims += 1
        assert board == str(replay.board), message
    for who in re.findall(r"(\w+) took the last object", message):
        claims += 1
        assert replay.last_mover == who and not any(replay.board), message
    if "'Illegal move' twice for one move, without asking for a new move" in message:
        claims += 1
        assert len(replay.illegal_lines) >= 2, message
        assert not any(replay.illegal_lines[-2] < p <= replay.upto for p in replay.prompt_lines), message
    if "must print a line that starts with 'Illegal move' before asking again" in message:
        claims += 1
        last_typed = max(p for p in replay.prompt_lines if p < replay.upto)
        assert not any(last_typed < i < replay.upto for i in replay.illegal_lines), message
    if "the turn passed to" in message or "did not finish the game" in message:
        claims += 1  # who was to move: "It is"/"same player (X)" and "with X to move" below
    for who in re.findall(r"the same player \((\w+)\)|with (\w+) to move", message):
        assert replay.players[replay.turn] in who, message
    if "starting board" in message and ("before the first move" in message or "never showed" in message):
        claims += 1
        assert not any(n <= replay.upto for n in replay.boards_shown), message
    if "rows of the board must be numbered 1, 2, 3" in message:
        claims += 1
        display = replay.lines[replay.upto - 1 :]
        rows = [line.split(":")[0] for line in display[1:] if re.fullmatch(r"\d+:( X)*", line)]
        assert display[0] == "Nim:" and rows != [str(n) for n in range(1, len(rows) + 1)], message
    for board, total in re.findall(r"The board (\[[\d, ]*\]) has nim-sum (\d+)", message):
        claims += 1
        assert board == str(replay.board) and nim.nim_sum(replay.board) == int(total), message
    for taken, row, total in re.findall(r"removing (\d+) from row (\d+) leaves nim-sum (\d+)", message):
        claims += 1
        assert nim.nim_sum(nim.apply(replay.board, (int(row), int(taken)))) == int(total), message
    for taken, row in re.findall(r"that leaves nim-sum 0: remove (\d+) from row (\d+)", message):
        claims += 1
        assert nim.nim_sum(nim.apply(replay.board, (int(row), int(taken)))) == 0, message
    for row, rows in re.findall(r"row (-?\d+) does not exist \(rows count from 1 to (\d+)\)", message):
        claims += 1
        assert int(rows) == len(replay.board) and not 1 <= int(row) <= len(replay.board), message
    for row, size in re.findall(r"row (\d+) holds only (\d+) object", message):
        claims += 1
        assert replay.board[int(row) - 1] == int(size), message
    for who in re.findall(r"(\w+) is a human player", message):
        claims += 1
        assert who in replay.players and not nim.is_computer(who), message
    for who in re.findall(r"made a move for (\w+), who is not one of the players", message):
        claims += 1
        assert who not in replay.players, message
    if "After announcing the winner" in message:
        claims += 1
        assert replay.winners, message
    if "more than 20,000 lines" in message:
        claims += 1
        assert len(replay.lines) > 20_000, message
    return claims


def _session(players, board, lines):
    session = game.nim_game(players=list(players), board=list(board), human="script", lines=list(lines))
    assert [session.waiting() for _ in range(3)] == [players[0], players[1], " ".join(map(str, board))]
    return session


def _play(session, steps) -> None:
    """Feed ``steps``: ("out", text) is printed; ("ask", name) is a prompt answered from the script."""
    for kind, text in steps:
        if session.done():
            return
        if kind == "out":
            session.output(text)
        else:
            session.output(text + _PROMPT)
            session.waiting()


HUMANS = ("Alice", "Bob")
VS_COMPUTER = ("Alice", "Computer")
ASK_ALICE = ("ask", "Alice")
LOOP = [("out", "Illegal move, please enter row and amount\n")] * 3

TRANSCRIPTS = {
    # an unreadable move refused in a loop that never asks again (each was once "was legal")
    "words refused in a loop": (HUMANS, [1, 2], ["two one"], [("out", _shown([1, 2])), ASK_ALICE, *LOOP]),
    "an empty line refused in a loop": (HUMANS, [1, 2], [""], [("out", _shown([1, 2])), ASK_ALICE, *LOOP]),
    "one number refused in a loop": (HUMANS, [1, 2], ["1"], [("out", _shown([1, 2])), ASK_ALICE, *LOOP]),
    "a row out of range refused in a loop": (HUMANS, [1, 2], ["5 1"], [("out", _shown([1, 2])), ASK_ALICE, *LOOP]),
    "a legal move refused": (HUMANS, [1, 2], ["2, 1"], [("out", _shown([1, 2])), ASK_ALICE, ("out", "Illegal move\n")]),
    "a second refusal after a legal move": (
        HUMANS,
        [1, 2],
        ["x", "2 1"],
        [("out", _shown([1, 2])), ASK_ALICE, LOOP[0], ASK_ALICE, ("out", _shown([1, 1])), LOOP[0]],
    ),
    "Illegal move after the game": (
        HUMANS,
        [1],
        ["1 1"],
        [("out", _shown([1])), ASK_ALICE, ("out", _shown([0]) + "Alice wins!\n"), LOOP[0]],
    ),
    "asked again without Illegal move after words": (
        HUMANS,
        [1, 2],
        ["two one", "2 1"],
        [("out", _shown([1, 2])), ASK_ALICE, ASK_ALICE],
    ),
    "asked again without Illegal move after an empty line": (
        HUMANS,
        [1, 2],
        ["  ", "2 1"],
        [("out", _shown([1, 2])), ASK_ALICE, ASK_ALICE],
    ),
    "asked again without Illegal move after too many": (
        HUMANS,
        [1, 2],
        ["1 3", "2 1"],
        [("out", _shown([1, 2])), ASK_ALICE, ASK_ALICE],
    ),
    "the turn passes to the computer after an illegal move": (
        VS_COMPUTER,
        [1, 2, 3],
        ["0 1"],
        [("out", _shown([1, 2, 3])), ASK_ALICE, ("out", "Illegal move.\nComputer removes 2 from row 3\n")],
    ),
    "the computer moves without Illegal move after words": (
        VS_COMPUTER,
        [1, 2, 3],
        ["zero"],
        [("out", _shown([1, 2, 3])), ASK_ALICE, ("out", "Computer removes 2 from row 3\n")],
    ),
    "the other human asked after an illegal move": (
        HUMANS,
        [1, 2],
        ["5 1"],
        [("out", _shown([1, 2])), ASK_ALICE, LOOP[0], ("ask", "Bob")],
    ),
    "the board changed by a refused move": (
        HUMANS,
        [2, 1],
        ["2 2"],
        [("out", _shown([2, 1])), ASK_ALICE, ("out", _shown([2, 0]))],
    ),
    "the board changed by a refused move after Illegal move": (
        HUMANS,
        [2, 1],
        ["2 2"],
        [("out", _shown([2, 1])), ASK_ALICE, LOOP[0], ("out", _shown([2, 0]))],
    ),
    "the wrong board after a legal move": (
        HUMANS,
        [1, 2],
        ["2 1"],
        [("out", _shown([1, 2])), ASK_ALICE, ("out", _shown([1, 2]))],
    ),
    "the board not shown after a move": (HUMANS, [1, 2], ["2 1"], [("out", _shown([1, 2])), ASK_ALICE, ("ask", "Bob")]),
    "the wrong winner": (
        HUMANS,
        [1],
        ["1 1"],
        [("out", _shown([1])), ASK_ALICE, ("out", _shown([0]) + "Bob wins!\n")],
    ),
    "a winner on a board that is not empty": (
        HUMANS,
        [1, 2],
        ["2 1"],
        [("out", _shown([1, 2])), ASK_ALICE, ("out", _shown([1, 1]) + "Alice wins!\n")],
    ),
    "asked for a move after the game": (
        HUMANS,
        [1],
        ["1 1", "1 1"],
        [("out", _shown([1])), ASK_ALICE, ("out", _shown([0]) + "Alice wins!\n"), ("ask", "Bob")],
    ),
    "a computer move after the game": (
        ("Computer", "Alice"),
        [1],
        [],
        [
            ("out", _shown([1]) + "Computer removes 1 from row 1\n" + _shown([0]) + "Computer wins!\n"),
            ("out", "Computer removes 1 from row 1\n"),
        ],
    ),
    "the computer moves before the starting board": (
        ("Computer", "Alice"),
        [1, 2],
        [],
        [("out", "Computer removes 1 from row 1\n" + _shown([0, 3]))],
    ),
    "rows numbered from 0": (HUMANS, [1, 2], [], [("out", "Nim:\n0: X\n1: X X\n"), ASK_ALICE]),
    "the computer does not leave nim-sum 0": (
        VS_COMPUTER,
        [1, 2],
        ["1 1"],
        [("out", _shown([1, 2])), ASK_ALICE, ("out", _shown([0, 2]) + "Computer removes 1 from row 2\n")],
    ),
    "the computer takes from a row that does not exist": (
        ("Computer", "Alice"),
        [1, 2],
        [],
        [("out", _shown([1, 2]) + "Computer removes 1 from row 3\n")],
    ),
    "the computer takes more than the row holds": (
        ("Computer", "Alice"),
        [1, 2],
        [],
        [("out", _shown([1, 2]) + "Computer removes 3 from row 2\n")],
    ),
    "a move printed for the human": (HUMANS, [1, 2], [], [("out", _shown([1, 2]) + "Alice removes 1 from row 1\n")]),
    "the computer asked for a move": (
        ("Computer", "Alice"),
        [1, 2],
        [],
        [("out", _shown([1, 2])), ("ask", "Computer")],
    ),
    "far too many lines": (HUMANS, [1, 2], [], [("out", _shown([1, 2]) + "thinking...\n" * 20_001)]),
    "a move made for a name that is not a player": (
        HUMANS,
        [1, 2],
        [],
        [("out", _shown([1, 2]) + "Computer removes 1 from row 1\n")],
    ),
}


@pytest.mark.parametrize("name", TRANSCRIPTS)
def test_every_claim_of_the_referees_sentence_is_true_of_the_transcript(name):
    players, board, lines, steps = TRANSCRIPTS[name]
    session = _session(players, board, lines)
    _play(session, steps)
    problem = session.problem or session.outcome(_ran())
    assert problem is not None, f"{name}: the referee found nothing wrong in\n{session.transcript}"
    replay = Replay.of(session.transcript, players, board, problem.line)
    assert check_claims(problem.message, replay) > 0, f"no claim read in: {problem.message}"


def test_a_refusal_repeated_without_a_prompt_is_said_as_such():
    players, board, lines, steps = TRANSCRIPTS["words refused in a loop"]
    session = _session(players, board, lines)
    _play(session, steps)
    assert session.problem.message.startswith(
        "Your program printed 'Illegal move' twice for one move, without asking for a new move in between. "
        "Alice typed 'two one', which is not a move"
    )
    assert session.problem.line == 9  # the second "Illegal move" (after the board and the prompt), the fault


def test_a_human_move_said_again_in_the_computers_words_is_another_line():
    session = _session(HUMANS, [1, 2], ["2 1", "1 1", "2 1"])
    _play(
        session,
        [("out", _shown([1, 2])), ASK_ALICE, ("out", "Alice removes 1 from row 2\n" + _shown([1, 1])), ("ask", "Bob")],
    )
    assert session.problem is None, session.problem


TIMED_OUT = {
    "with objects left": (
        ["2 1"],
        [("out", _shown([1, 2])), ASK_ALICE, ("out", _shown([1, 1]))],
        "did not finish the game: it was still running at the time limit, not waiting for input, with Bob to move",
    ),
    "on the empty board": (
        ["1 1", "2 2"],
        [("out", _shown([1, 2])), ASK_ALICE, ("out", _shown([0, 2])), ("ask", "Bob"), ("out", _shown([0, 0]))],
        "The board is empty, but your program did not announce the winner",
    ),
}


@pytest.mark.parametrize("name", TIMED_OUT)
def test_a_time_out_says_what_the_transcript_shows_and_no_guess(name):
    lines, steps, words = TIMED_OUT[name]
    session = _session(HUMANS, [1, 2], lines)
    _play(session, steps)
    problem = session.outcome(_ran(timed_out=True))
    assert words in problem.message and "loop" not in problem.message
    replay = Replay.of(session.transcript, HUMANS, [1, 2], problem.line)
    assert check_claims(problem.message, replay) > 0


def _ran(timed_out: bool = False) -> RunResult:
    return RunResult(
        exit_code=None if timed_out else 0,
        signal=None,
        stdout=b"",
        stderr=b"",
        stdout_bytes=0,
        stderr_bytes=0,
        time_s=0.1,
        timed_out=timed_out,
    )
