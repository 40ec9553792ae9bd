"""The grader's player for ``working_game``: types the human moves, checks every rule it sees.

A ``NimGameSession`` is an interactive session (see ``execute.Session``): it reads the program's
output as it comes, types the setup lines, answers each ``make a move`` prompt for the human player
(from a script, at random with a seed, or perfectly), and notices a program that waits without
asking or never ends. What the transcript shows goes to its ``Referee`` (``game_referee``), which
keeps the board and stops the game at the first broken rule of the transcript in the spec.
Afterwards ``outcome()`` says whether the game was played right. ``validate_game_options`` checks a
case's options when the course is loaded. The output is untrusted and may be megabytes: the session
keeps it in pieces and counts its lines as they come, so its work is linear in the output.
"""

from __future__ import annotations

import random
import re
import time
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

from grader.check.guard import INT_DIGITS
from grader.check.text import quote
from grader.model import Verdict
from grader.nim import rules as nim
from grader.nim.game_referee import Problem, Referee
from grader.run.execute import END_OF_INPUT, EndOfInput
from grader.run.run_facts import RunResult

_ROW = re.compile(r"([0-9]+):((?: X)*)")
_COMPUTER_MOVE = re.compile(r"(?P<name>.+?) removes (?P<elements>-?[0-9]+) from row (?P<row>-?[0-9]+)\W*")
_WINNER = re.compile(r"(?P<name>.+?) wins!?")
HUMAN_MODES = ("script", "random", "perfect")
# The lines a game's transcript may have: a game on the largest board a case sets prints a few
# hundred; past this the program is stopped (each line is checked against the rules as it comes).
MAX_LINES = 20_000
# How long a program may wait for input it did not ask for before the grader stops it, in seconds.
PATIENCE_S = 1.0
THEN_MODES = ("eof", "random", "perfect")
# The forms a player may type (spec: parse_move), used when the grader makes up a move.
_FORMS = ("{} {}", "{},{}", "{}, {}")
_PROMPT = "make a move"  # what a line that asks the human player for a move contains


def validate_game_options(options: Mapping[str, Any]) -> Optional[str]:
    """A sentence saying what is wrong with a case's game options, or None."""
    players, board = options.get("players"), options.get("board")
    if not (isinstance(players, list) and len(players) == 2 and all(isinstance(p, str) and p.strip() for p in players)):
        return "'players' must be a list of two names, e.g. [Alice, Computer]"
    if len(set(players)) != 2:
        return "the two players need different names"
    if not (isinstance(board, list) and board and all(type(h) is int and h >= 0 for h in board)):
        return "'board' must be a list of whole numbers of 0 or more, e.g. [3, 4, 5]"
    if not any(board):
        return "'board' needs at least one object"
    if options.get("human", "random") not in HUMAN_MODES:
        return f"'human' must be one of {', '.join(HUMAN_MODES)}"
    if options.get("then", "eof") not in THEN_MODES:
        return f"'then' must be one of {', '.join(THEN_MODES)}"
    if not all(isinstance(line, str) for line in options.get("lines", ())):
        return "'lines' must be a list of texts (each what a player types), in quotes"
    if options.get("lines") and options.get("human", "random") != "script":
        return "'lines' goes with human: script"
    return None


def nim_game(
    *,
    players: list,
    board: list,
    human: str = "random",
    lines: Sequence[str] = (),
    then: str = "eof",
    seed: int = 0,
) -> NimGameSession:
    """The ``nim_game`` interactive checker: a new session for one run of one case."""
    return NimGameSession(tuple(players), tuple(board), human, tuple(lines), then, seed)


class NimGameSession:
    """One game against the student's program (see the module docstring)."""

    def __init__(
        self,
        players: Tuple[str, str],
        board: Sequence[int],
        human: str,
        lines,
        then: str,
        seed: int,
        clock=time.monotonic,
    ):
        self.referee = Referee(players, board)
        self.mode = human
        self.script = list(lines)
        self.then = then
        self.rng = random.Random(seed)
        self.setup = [players[0], players[1], " ".join(map(str, board))]
        self._transcript: List[str] = []  # what a terminal shows, in pieces (joined when read)
        self._newlines = 0  # line ends in the transcript so far
        self._partial: List[str] = []  # output after the last newline, in pieces
        self._tail = ""  # the partial line's last characters, to find the prompt across pieces
        self._asks = False  # the partial line contains "make a move"
        self.display: Optional[List[Tuple[int, int]]] = None  # rows of a board display being read
        self.display_line = 0
        self.prompt_pending = False
        self.input_ended = False
        self.waited_without_prompt = False
        self.waiting_since: Optional[float] = None  # when the program began waiting without a prompt
        self.clock = clock
        self.prompt_line: Optional[Tuple[str, int]] = None  # the last "make a move" line since input

    @property
    def problem(self) -> Optional[Problem]:
        """The first broken rule seen so far (None while all is right)."""
        return self.referee.problem

    @property
    def winner(self) -> str:
        """The winner the program announced, rightly ("" until then)."""
        return self.referee.winner

    @property
    def moves(self) -> int:
        """The legal moves made so far."""
        return self.referee.moves

    # -- the Session protocol ------------------------------------------------------------------

    def output(self, text: str) -> None:
        """Take new output: complete lines are events; a partial line may be a prompt."""
        self._transcript.append(text)
        self.waiting_since = None
        if "\n" not in text:
            self._add_partial(text)
            return
        first, *rest = text.split("\n")
        complete = [self.partial + first, *rest[:-1]]
        base = self._newlines
        self._newlines += len(complete)
        if self._newlines > MAX_LINES and not self.problem:  # the grader's work stays bounded too
            self.referee.fail(
                f"Your program printed more than {MAX_LINES:,} lines, far more than a game of Nim needs: is "
                "something printed in a loop that never ends?",
                MAX_LINES,
                Verdict.OUTPUT_LIMIT_EXCEEDED,
            )
        self._clear_partial()
        self._add_partial(rest[-1])
        for offset, line in enumerate(complete):
            if self.problem:
                return
            self._line(line, base + offset + 1)

    def waiting(self) -> Union[str, EndOfInput, None]:
        """The program waits for input: type the next setup line or the human's move."""
        if self.problem:
            return None
        if self.setup:
            return self._type(self.setup.pop(0))
        # A line that mentions "make a move" is the prompt only if the program then waits for input
        # (an explanation printed earlier is not); the prompt may end without a newline.
        if self._asks:
            self.prompt_line = (self.partial, self._current_line())
        if self.prompt_line is not None and not self.prompt_pending:
            self._end_display()
            line, number = self.prompt_line
            self.prompt_line = None
            if not self.problem and self.referee.prompt(line, number):
                self.prompt_pending = True  # a right prompt: the human's move is typed below
        if self.problem:
            return None
        if not self.prompt_pending:
            self.waited_without_prompt = True
            now = self.clock()
            if self.waiting_since is None:
                self.waiting_since = now
            elif now - self.waiting_since >= PATIENCE_S:
                self.referee.fail(self._unasked_input_message(), self._current_line(), Verdict.TIME_LIMIT_EXCEEDED)
            return None
        self.prompt_pending = False
        typed = self._human_move()
        if typed is None:
            self.input_ended = True
            if self.partial:
                self._transcript.append("\n")
                self._newlines += 1
            self._clear_partial()
            return END_OF_INPUT
        self.referee.typed(typed)
        return self._type(typed)

    def done(self) -> bool:
        """Stop the program at the first broken rule."""
        return self.problem is not None

    # -- after the run -------------------------------------------------------------------------

    @property
    def transcript(self) -> str:
        """What a terminal would have shown: output with each typed line echoed after its prompt."""
        return _joined(self._transcript)

    @property
    def partial(self) -> str:
        """The output after the last newline (where a prompt waits for its answer)."""
        return _joined(self._partial)

    def outcome(self, run: RunResult) -> Optional[Problem]:
        """The first broken rule, or a problem with how the game ended; None when all was right.

        Call after the run; ``run`` gives the exit status and what was printed to stderr.
        """
        if self.problem:
            return self.problem
        if self.partial.strip():  # a last line printed without a newline still counts
            self._line(self.partial, self._current_line())
        self._end_display()
        if self.problem:
            return self.problem
        last = max(self._newlines + (1 if self.partial else 0), 1)
        if run.timed_out:
            return Problem(self._timeout_message(run), last, Verdict.TIME_LIMIT_EXCEEDED)
        if self.input_ended:
            # (reported by the process that ran it, never read from its stderr); another crash is
            # not about the end of the input: grading explains it from its traceback
            if run.crash is not None and run.crash.exception == "EOFError":
                return Problem(
                    "When the input ended, your program crashed instead of ending quietly. "
                    "Catch EOFError around input() and end the game.",
                    last,
                    Verdict.RUNTIME_ERROR,
                )
            return None
        if run.exit_code != 0:
            return None  # a crash: grading explains it from the traceback
        return self.referee.end_problem(last)

    def _unasked_input_message(self) -> str:
        if self.referee.winner:
            return (
                "After announcing the winner your program waits for more input. It must end by itself "
                "when the game is over."
            )
        return (
            f"Your program waited for input for {PATIENCE_S:g} second without asking for it with a prompt "
            "that contains 'make a move', so a player would not know it is their turn. Ask with "
            "input(name + ', make a move: ')."
        )

    def _timeout_message(self, run: RunResult) -> str:
        if self.referee.winner:
            return "After announcing the winner your program kept running. It must end by itself when the game is over."
        if run.waiting_for_input and (self.waited_without_prompt or not self.prompt_pending):
            return (
                "Your program is waiting for input, but it did not ask for it with a prompt that "
                "contains 'make a move'. Ask with input(name + ', make a move: ')."
            )
        # what the transcript shows, no guess at why: slow work (a companion's optimal_move) and
        # a loop that never ends both look like this from outside
        if not any(self.referee.board):
            return (
                "The board is empty, but your program did not announce the winner: it was still running "
                "at the time limit, not waiting for input."
            )
        return (
            "Your program did not finish the game: it was still running at the time limit, not waiting "
            f"for input, with {self.referee.player()} to move."
        )

    # -- events ------------------------------------------------------------------------------------

    def _current_line(self) -> int:
        return self._newlines + 1

    def _add_partial(self, text: str) -> None:
        """More of the line being printed; notes whether it now contains the prompt's words."""
        seen = self._tail + text
        self._asks = self._asks or _PROMPT in seen
        self._tail = seen[-(len(_PROMPT) - 1) :]
        if text:
            self._partial.append(text)

    def _clear_partial(self) -> None:
        self._partial, self._tail, self._asks = [], "", False

    def _type(self, line: str) -> str:
        self.waiting_since = None
        self._transcript.append(line + "\n")
        self._newlines += 1
        self._clear_partial()
        self.prompt_line = None
        return line

    def _line(self, line: str, number: int) -> None:
        stripped = line.strip()
        display_row = _ROW.fullmatch(stripped)
        if self.display is not None and display_row:
            shown = nim.read_whole(display_row.group(1))  # None (too many digits) counts as out of order, as it is
            self.display.append((-1 if shown is None else shown, len(display_row.group(2)) // 2))
            return
        self._end_display()
        if self.problem:
            return
        if stripped == "Nim:":
            self.display, self.display_line = [], number
        elif _PROMPT in line:
            self.prompt_line = (line, number)
        elif stripped.startswith("Illegal move"):
            self.referee.illegal(number)
        elif _COMPUTER_MOVE.fullmatch(stripped):
            move = _COMPUTER_MOVE.fullmatch(stripped)
            assert move is not None  # (just matched)
            name = move.group("name").strip()
            row, elements = nim.read_whole(move.group("row")), nim.read_whole(move.group("elements"))
            if row is None or elements is None:
                self.referee.fail(
                    f"The move {quote(stripped)} is illegal: it has a number of more than {INT_DIGITS:,} digits, "
                    "and no row or heap is that large.",
                    number,
                )
            else:
                self.referee.computer_move(name, (row, elements), number)
        else:
            winner = _WINNER.fullmatch(stripped)
            if winner and winner.group("name").strip() in self.referee.players:
                self.referee.announced(winner.group("name").strip(), number)

    def _end_display(self) -> None:
        """A board display has ended (with the line before): the referee checks it."""
        if self.display is None:
            return
        rows, self.display = self.display, None
        self.referee.board_shown(rows, self.display_line)

    # -- the human player ----------------------------------------------------------------------

    def _human_move(self) -> Optional[str]:
        mode = self.mode
        if mode == "script":
            if self.script:
                return self.script.pop(0)
            mode = self.then
        if mode == "eof":
            return None
        board = self.referee.board
        if mode == "perfect" and nim.winning_moves(board):
            move = self.rng.choice(nim.winning_moves(board))
        else:
            row = self.rng.choice([r for r, size in enumerate(board, start=1) if size])
            move = (row, self.rng.randint(1, board[row - 1]))
        return self.rng.choice(_FORMS).format(*move)


def _joined(pieces: List[str]) -> str:
    """The pieces of a text as one string; they are kept joined, so reading again costs nothing."""
    if len(pieces) > 1:
        pieces[:] = ["".join(pieces)]
    return pieces[0] if pieces else ""
