"""The grader's player for ``working_game``: types the human moves, checks every rule it sees.

A ``NimGameSession`` is an interactive session (see ``execute.Session``): it reads the program's
output as it comes, answers each ``make a move`` prompt for the human player (from a script, at
random with a seed, or perfectly), keeps its own board, and stops at the first broken rule of the
transcript in the spec. Afterwards ``outcome()`` says whether the game was played right.
"""

from __future__ import annotations

import random
import re
import time
from dataclasses import dataclass
from typing import Any, List, Mapping, Optional, Sequence, Tuple, Union

from grader.model import RunResult, Verdict
from grader.nim import rules as nim
from grader.run.execute import END_OF_INPUT, EndOfInput

_ROW = re.compile(r"([0-9]+):((?: X)*)")
_COMPUTER_MOVE = re.compile(r"(?P<name>.+?) removes (?P<elements>-?[0-9]+) from row (?P<row>-?[0-9]+)\W*")
_WINNER = re.compile(r"(?P<name>.+?) wins!?")
HUMAN_MODES = ("script", "random", "perfect")
# How long a program may wait for input it did not ask for before the grader stops it, in seconds.
PATIENCE_S = 1.0
THEN_MODES = ("eof", "random", "perfect")
# The forms a player may type (spec: parse_move), used when the grader makes up a move.
_FORMS = ("{} {}", "{},{}", "{}, {}")


@dataclass(frozen=True)
class Problem:
    """A broken rule: the sentence for the student and the transcript line (1-based) it is on."""

    message: str
    line: int
    verdict: Verdict = Verdict.WRONG_ANSWER


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
    lines: list = (),
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
        self.players = players
        self.board: List[int] = list(board)
        self.start_board = tuple(board)
        self.mode = human
        self.script = list(lines)
        self.then = then
        self.rng = random.Random(seed)
        self.setup = [players[0], players[1], " ".join(map(str, board))]
        self.text = ""  # the transcript as a terminal shows it
        self.partial = ""  # output after the last newline
        self.turn = 0
        self.display: Optional[List[Tuple[int, int]]] = None  # rows of a board display being read
        self.display_line = 0
        self.seen_start = False
        self.need_display = False
        self.pending_illegal = False
        self.after_illegal = False
        self.prompt_pending = False
        self.last_mover = ""
        self.last_move = ""
        self.winner = ""
        self.input_ended = False
        self.waited_without_prompt = False
        self.waiting_since: Optional[float] = None  # when the program began waiting without a prompt
        self.clock = clock
        self.typed_any = False
        self.prompt_line: Optional[Tuple[str, int]] = None  # the last "make a move" line since input
        self.problem: Optional[Problem] = None
        self.moves = 0

    # -- the Session protocol ------------------------------------------------------------------

    def output(self, text: str) -> None:
        """Take new output: complete lines are events; a partial line may be a prompt."""
        self.text += text
        self.partial += text
        self.waiting_since = None
        *complete, self.partial = self.partial.split("\n")
        base = self.text.count("\n") - len(complete)
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
        if "make a move" in self.partial:
            self.prompt_line = (self.partial, self._current_line())
        if self.prompt_line is not None and not self.prompt_pending:
            self._end_display()
            line, number = self.prompt_line
            self.prompt_line = None
            if not self.problem:
                self._prompt(line, number)
        if self.problem:
            return None
        if not self.prompt_pending:
            self.waited_without_prompt = True
            now = self.clock()
            if self.waiting_since is None:
                self.waiting_since = now
            elif now - self.waiting_since >= PATIENCE_S:
                self.problem = Problem(self._unasked_input_message(), self._current_line(), Verdict.TIME_LIMIT_EXCEEDED)
            return None
        self.prompt_pending = False
        typed = self._human_move()
        if typed is None:
            self.input_ended = True
            self.text += "\n" if self.partial else ""
            self.partial = ""
            return END_OF_INPUT
        self._typed(typed)
        return self._type(typed)

    def done(self) -> bool:
        """Stop the program at the first broken rule."""
        return self.problem is not None

    # -- after the run -------------------------------------------------------------------------

    @property
    def transcript(self) -> str:
        """What a terminal would have shown: output with each typed line echoed after its prompt."""
        return self.text

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
        last = max(self.text.count("\n") + (1 if self.partial else 0), 1)
        if run.timed_out:
            return Problem(self._timeout_message(run), last, Verdict.TIME_LIMIT_EXCEEDED)
        if self.input_ended:
            if "Traceback (most recent call last)" in run.stderr.decode("utf-8", "replace"):
                return Problem(
                    "When the input ended, your program crashed instead of ending quietly. "
                    "Catch EOFError around input() and end the game.",
                    last,
                    Verdict.RUNTIME_ERROR,
                )
            return None
        if run.exit_code != 0:
            return None  # a crash: grading explains it from the traceback
        if not self.seen_start:
            return Problem("Your program never showed the starting board (a line 'Nim:' then the rows).", last)
        if self.need_display:
            return Problem(f"After {self.last_move} your program did not show the board.", last)
        if not self.winner:
            if any(self.board):
                return Problem("Your program ended before the game was over: the board still has objects on it.", last)
            return Problem(
                f"The board is empty but your program did not announce the winner: print "
                f"'{self.last_mover} wins!' ({self.last_mover} took the last object).",
                last,
            )
        return None

    def _unasked_input_message(self) -> str:
        if self.winner:
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
        if self.winner:
            return "After announcing the winner your program kept running. It must end by itself when the game is over."
        if run.waiting_for_input and (self.waited_without_prompt or not self.prompt_pending):
            return (
                "Your program is waiting for input, but it did not ask for it with a prompt that "
                "contains 'make a move'. Ask with input(name + ', make a move: ')."
            )
        return (
            "Your program stopped printing and did not end. Is there a loop that never ends, for "
            "example one that keeps asking the computer player for a move?"
        )

    # -- events ------------------------------------------------------------------------------------

    def _current_line(self) -> int:
        return self.text.count("\n") + 1

    def _type(self, line: str) -> str:
        self.waiting_since = None
        self.text += line + "\n"
        self.partial = ""
        self.prompt_line = None
        return line

    def _fail(self, message: str, line: int) -> None:
        if self.problem is None:
            self.problem = Problem(message, line)

    def _line(self, line: str, number: int) -> None:
        stripped = line.strip()
        row = _ROW.fullmatch(stripped)
        if self.display is not None and row:
            self.display.append((int(row.group(1)), len(row.group(2)) // 2))
            return
        self._end_display()
        if self.problem:
            return
        if stripped == "Nim:":
            self.display, self.display_line = [], number
        elif "make a move" in line:
            self.prompt_line = (line, number)
        elif stripped.startswith("Illegal move"):
            self._illegal(number)
        elif _COMPUTER_MOVE.fullmatch(stripped):
            self._computer_move(_COMPUTER_MOVE.fullmatch(stripped), number)
        elif _WINNER.fullmatch(stripped) and _WINNER.fullmatch(stripped).group("name").strip() in self.players:
            self._winner(_WINNER.fullmatch(stripped).group("name").strip(), number)

    def _end_display(self) -> None:
        if self.display is None:
            return
        rows, self.display = self.display, None
        shown = [size for _, size in rows]
        numbers = [number for number, _ in rows]
        if numbers != list(range(1, len(rows) + 1)):
            self._fail("The rows of the board must be numbered 1, 2, 3, ... in order.", self.display_line)
            return
        if shown == self.board:
            self.need_display = False
            self.seen_start = True
            return
        if not self.seen_start:
            what = "the starting board"
        else:
            what = f"the board after {self.last_move}" if self.last_move else "the board"
        self._fail(
            f"The board shown is not {what}: expected {_inline(self.board)}, your program showed "
            f"{_inline(shown)}.{_first_row_difference(self.board, shown)}",
            self.display_line,
        )

    def _player(self) -> str:
        return self.players[self.turn]

    def _prompt(self, line: str, number: int) -> None:
        player = self._player()
        if self.winner or not any(self.board):
            self._fail("The board is empty, so the game is over, but your program asked for another move.", number)
        elif not self.seen_start:
            self._fail("Show the starting board (a line 'Nim:' then the rows) before the first move.", number)
        elif self.pending_illegal:
            self._fail(
                "After an illegal or unreadable move your program must print a line that starts with "
                "'Illegal move' before asking again.",
                number,
            )
        elif self.need_display:
            self._fail(f"After {self.last_move} your program did not show the board before asking for a move.", number)
        elif nim.is_computer(player):
            self._fail(
                f"It is {player}'s turn, a computer player (its name contains 'computer'), but your program "
                "asked for a move as if it were human.",
                number,
            )
        else:
            other = self.players[1 - self.turn]
            if other in line and player not in line:
                why = " After an illegal move the same player moves again." if self.after_illegal else ""
                self._fail(f"It is {player}'s turn, but your program asked {other} for a move.{why}", number)
            else:
                self.prompt_pending = True

    def _illegal(self, number: int) -> None:
        if self.pending_illegal:
            self.pending_illegal = False
            self.after_illegal = True
            return
        if not self.typed_any:
            return  # before any move, e.g. instructions such as "Illegal moves are refused."
        self._fail(
            f"Your program said 'Illegal move', but {self.last_move or 'the move'} was legal.",
            number,
        )

    def _computer_move(self, match, number: int) -> None:
        name = match.group("name").strip()
        move = (int(match.group("row")), int(match.group("elements")))
        player = self._player()
        if self.winner or not any(self.board):
            self._fail("The board is empty, so the game is over, but the computer made another move.", number)
        elif self.pending_illegal or (self.after_illegal and name != player):
            self._fail(
                f"After an illegal move the same player ({player}) must move again, but the turn passed to {name}.",
                number,
            )
        elif self.need_display:
            self._fail(f"After {self.last_move} your program did not show the board before the next move.", number)
        elif name != player:
            self._fail(f"It is {player}'s turn, but your program made a move for {name}.", number)
        elif not nim.is_computer(name):
            self._fail(f"{name} is a human player: ask for a move with a 'make a move' prompt.", number)
        elif not nim.is_legal(self.board, move):
            self._fail(f"{name}'s move is illegal: {nim.why_illegal(self.board, move)}.", number)
        else:
            before = nim.nim_sum(self.board)
            after = nim.apply(self.board, move)
            if before != 0 and nim.nim_sum(after) != 0:
                row, taken = nim.winning_moves(self.board)[0]
                self._fail(
                    f"{name} must play the winning strategy. The board {_inline(self.board)} has nim-sum "
                    f"{before} (an N-position), but removing {move[1]} from row {move[0]} leaves nim-sum "
                    f"{nim.nim_sum(after)}. A move that leaves nim-sum 0: remove {taken} from row {row}.",
                    number,
                )
                return
            self._moved(name, f"{name}'s move ({move[1]} from row {move[0]})", after)

    def _winner(self, name: str, number: int) -> None:
        if any(self.board):
            self._fail(f"Your program announced {name} as the winner, but the board is not empty.", number)
        elif self.need_display:
            self._fail(f"After {self.last_move} your program did not show the (empty) board.", number)
        elif name != self.last_mover:
            self._fail(
                f"Your program announced {name} as the winner, but {self.last_mover} took the last object and wins.",
                number,
            )
        else:
            self.winner = name

    # -- the human player ----------------------------------------------------------------------

    def _human_move(self) -> Optional[str]:
        mode = self.mode
        if mode == "script":
            if self.script:
                return self.script.pop(0)
            mode = self.then
        if mode == "eof":
            return None
        if mode == "perfect" and nim.winning_moves(self.board):
            move = self.rng.choice(nim.winning_moves(self.board))
        else:
            row = self.rng.choice([r for r, size in enumerate(self.board, start=1) if size])
            move = (row, self.rng.randint(1, self.board[row - 1]))
        return self.rng.choice(_FORMS).format(*move)

    def _typed(self, typed: str) -> None:
        self.typed_any = True
        player = self._player()
        move = nim.parse_typed_move(typed)
        self.after_illegal = False
        if move is None or not nim.is_legal(self.board, move):
            self.pending_illegal = True
            self.last_move = f"{player}'s move '{typed}'"
            return
        self._moved(player, f"{player}'s move '{typed}'", nim.apply(self.board, move))

    def _moved(self, player: str, description: str, board: List[int]) -> None:
        self.board = board
        self.last_mover = player
        self.last_move = description
        self.need_display = True
        self.after_illegal = False
        self.moves += 1
        self.turn = 1 - self.turn


def _inline(board: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, board)) + "]"


def _first_row_difference(expected: Sequence[int], shown: Sequence[int]) -> str:
    for row, (want, got) in enumerate(zip(expected, shown), start=1):
        if want != got:
            return f" Row {row} should have {want} object{'s' if want != 1 else ''}, not {got}."
    if len(shown) != len(expected):
        return f" The board has {len(expected)} rows; {len(shown)} were shown."
    return ""
