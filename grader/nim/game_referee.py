"""The referee of a ``working_game`` run: the game as the program shows it, checked against Nim's rules.

The session that talks to the program (``game.NimGameSession``) reads the transcript and hands the
referee its events: a board shown, a prompt for a move, an "Illegal move" line, a computer's move, a
winner announced, a move the grader typed. The referee keeps the board, whose turn it is and what
was moved last, and records the first broken rule as a ``Problem``: the sentence for the student and
the transcript line it is on. No I/O: events in, a ``Problem`` (or None) out.

Every sentence is a claim about the transcript and is said only where the referee's state makes it
true: a move is called legal only when it was (a refused move, unreadable or illegal, is said as
such, with why), "the board after X" only when X was a legal move, "the game is over" only when the
board is empty. ``tests/grading/test_referee_truth.py`` checks each claim against its transcript.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from grader.model import Verdict
from grader.nim import rules as nim


@dataclass(frozen=True)
class Problem:
    """A broken rule: the sentence for the student and the transcript line (1-based) it is on;
    ``about``: the function of the lab whose output it is about ("present_board" for the text of
    the board), which grading names when the student's file takes it from their own file of it."""

    message: str
    line: int
    verdict: Verdict = Verdict.WRONG_ANSWER
    about: str = ""


_SHOWS_BOARD = "present_board"  # the function of the lab that makes the text of a board


class Referee:
    """One game between ``players`` (two names, the first moves first) from ``board``."""

    def __init__(self, players: Tuple[str, str], board: Sequence[int]) -> None:
        self.players = players
        self.board: List[int] = list(board)
        self.turn = 0
        self.seen_start = False
        self.need_display = False
        self.pending_illegal = False
        self.after_illegal = False
        self.last_mover = ""
        self.last_move = ""
        self.refused = ""  # the last move typed, when it was refused: who typed what, and why it is no move
        self.winner = ""
        self.typed_any = False
        self.last_typed: Optional[nim.Move] = None  # the last legal move a human typed
        self.problem: Optional[Problem] = None
        self.moves = 0

    def fail(self, message: str, line: int, verdict: Verdict = Verdict.WRONG_ANSWER, about: str = "") -> None:
        """Record a broken rule on transcript line ``line``, unless one was recorded before."""
        if self.problem is None:
            self.problem = Problem(message, line, verdict, about)

    def player(self) -> str:
        """Whose turn it is."""
        return self.players[self.turn]

    # -- what the transcript shows ---------------------------------------------------------------

    def board_shown(self, rows: Sequence[Tuple[int, int]], line: int) -> None:
        """The program showed a board from transcript line ``line``: (row number, objects) per row."""
        shown = [size for _, size in rows]
        numbers = [number for number, _ in rows]
        if numbers != list(range(1, len(rows) + 1)):
            self.fail("The rows of the board must be numbered 1, 2, 3, ... in order.", line, about=_SHOWS_BOARD)
            return
        if shown == self.board:
            self.need_display = False
            self.seen_start = True
            return
        why = ""
        if not self.seen_start:
            what = "the starting board"
        elif self.pending_illegal or self.after_illegal:  # a refused move changes nothing
            what, why = "the board as it was", f" {_capital(self.refused)}; an illegal move leaves the board as it was."
        else:
            what = f"the board after {self.last_move}" if self.last_move else "the starting board"
        self.fail(
            f"The board shown is not {what}: expected {_inline(self.board)}, your program showed "
            f"{_inline(shown)}.{why}{_first_row_difference(self.board, shown)}",
            line,
        )

    def prompt(self, line: str, number: int) -> bool:
        """The program asks for a move with ``line`` (transcript line ``number``) and waits for it.

        True when that is right (a human's turn, the board shown): the move may then be typed.
        """
        player = self.player()
        if self.winner or not any(self.board):
            self.fail("The board is empty, so the game is over, but your program asked for another move.", number)
        elif not self.seen_start:
            self.fail("Show the starting board (a line 'Nim:' then the rows) before the first move.", number)
        elif self.pending_illegal:
            self.fail(
                f"{_capital(self.refused)}. After an illegal or unreadable move your program must print a "
                "line that starts with 'Illegal move' before asking again.",
                number,
            )
        elif self.need_display:
            self.fail(f"After {self.last_move} your program did not show the board before asking for a move.", number)
        elif nim.is_computer(player):
            self.fail(
                f"It is {player}'s turn, a computer player (its name contains 'computer'), but your program "
                "asked for a move as if it were human.",
                number,
            )
        else:
            other = self.players[1 - self.turn]
            if other in line and player not in line:
                why = " After an illegal move the same player moves again." if self.after_illegal else ""
                self.fail(f"It is {player}'s turn, but your program asked {other} for a move.{why}", number)
            else:
                return True
        return False

    def illegal(self, number: int) -> None:
        """The program printed a line starting with "Illegal move" (transcript line ``number``)."""
        if self.pending_illegal:
            self.pending_illegal = False
            self.after_illegal = True
            return
        if not self.typed_any:
            return  # before any move, e.g. instructions such as "Illegal moves are refused."
        if self.after_illegal:
            # the refusal was said already and no move was typed since: a loop that refuses again
            # without asking (the move refused was no move, so calling it legal would be false)
            self.fail(
                f"Your program printed 'Illegal move' twice for one move, without asking for a new move in "
                f"between. {_capital(self.refused)}: print one line that starts with 'Illegal move', then ask "
                f"{self.player()} again with a prompt that contains 'make a move'.",
                number,
            )
        elif self.winner or not any(self.board):
            self.fail("The board is empty, so the game is over, but your program printed 'Illegal move'.", number)
        else:
            self.fail(f"Your program said 'Illegal move', but {self.last_move} was legal.", number)

    def computer_move(self, name: str, move: nim.Move, number: int) -> None:
        """The program printed that player ``name`` made ``move`` (transcript line ``number``)."""
        player = self.player()
        if name == self.last_mover and not nim.is_computer(name) and move == self.last_typed:
            return  # the move a human just typed, said again in the computer's words: another line, skipped
        if self.winner or not any(self.board):
            self.fail("The board is empty, so the game is over, but the computer made another move.", number)
        elif not self.seen_start:
            self.fail("Show the starting board (a line 'Nim:' then the rows) before the first move.", number)
        elif (self.pending_illegal or self.after_illegal) and name != player:
            unsaid = " (and no line starting with 'Illegal move' was printed)" if self.pending_illegal else ""
            self.fail(
                f"{_capital(self.refused)}{unsaid}. After an illegal move the same player ({player}) must move "
                f"again, but the turn passed to {name}.",
                number,
            )
        elif self.need_display:
            self.fail(f"After {self.last_move} your program did not show the board before the next move.", number)
        elif name != player:
            stranger = "" if name in self.players else f", who is not one of the players ({' and '.join(self.players)})"
            self.fail(f"It is {player}'s turn, but your program made a move for {name}{stranger}.", number)
        elif not nim.is_computer(name):
            self.fail(f"{name} is a human player: ask for a move with a 'make a move' prompt.", number)
        elif not nim.is_legal(self.board, move):
            self.fail(f"{name}'s move is illegal: {nim.why_illegal(self.board, move)}.", number)
        else:
            before = nim.nim_sum(self.board)
            after = nim.apply(self.board, move)
            if before != 0 and nim.nim_sum(after) != 0:
                row, taken = nim.winning_moves(self.board)[0]
                self.fail(
                    f"{name} must play the winning strategy. The board {_inline(self.board)} has nim-sum "
                    f"{before} (an N-position), but removing {move[1]} from row {move[0]} leaves nim-sum "
                    f"{nim.nim_sum(after)}. A move that leaves nim-sum 0: remove {taken} from row {row}.",
                    number,
                )
                return
            self._moved(name, f"{name}'s move ({move[1]} from row {move[0]})", after)

    def announced(self, name: str, number: int) -> None:
        """The program announced ``name`` (one of the players) as the winner (transcript line ``number``)."""
        if any(self.board):
            self.fail(f"Your program announced {name} as the winner, but the board is not empty.", number)
        elif self.need_display:
            self.fail(f"After {self.last_move} your program did not show the (empty) board.", number)
        elif name != self.last_mover:
            self.fail(
                f"Your program announced {name} as the winner, but {self.last_mover} took the last object and wins.",
                number,
            )
        else:
            self.winner = name

    def typed(self, typed: str) -> None:
        """The grader typed ``typed`` as the move of the player whose turn it is."""
        self.typed_any = True
        player = self.player()
        move = nim.parse_typed_move(typed)
        self.after_illegal = False
        if move is None or not nim.is_legal(self.board, move):
            self.pending_illegal = True
            self.refused = _refusal(player, typed, move, self.board)
            return
        self._moved(player, f"{player}'s move '{typed}'", nim.apply(self.board, move))
        self.last_typed = move

    def end_problem(self, last: int) -> Optional[Problem]:
        """What is wrong with how the game ended, when the program ended by itself with exit status 0
        (``last``: the transcript's last line); None when the game was played to its end."""
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

    def _moved(self, player: str, description: str, board: List[int]) -> None:
        self.last_typed = None
        self.board = board
        self.last_mover = player
        self.last_move = description
        self.need_display = True
        self.after_illegal = False
        self.moves += 1
        self.turn = 1 - self.turn


def _refusal(player: str, typed: str, move: Optional[nim.Move], board: Sequence[int]) -> str:
    """Why what ``player`` typed is no move on ``board``: unreadable (``move`` None) or illegal."""
    if not typed.strip():
        return f"{player} typed an empty line, which is not a move"
    if move is None:
        return f"{player} typed '{typed}', which is not a move (a move is two whole numbers, such as '2 1')"
    return f"{player}'s move '{typed}' is illegal: {nim.why_illegal(board, move)}"


def _capital(sentence: str) -> str:
    return sentence[:1].upper() + sentence[1:]


def _inline(board: Sequence[int]) -> str:
    return "[" + ", ".join(map(str, board)) + "]"


def _first_row_difference(expected: Sequence[int], shown: Sequence[int]) -> str:
    for row, (want, got) in enumerate(zip(expected, shown), start=1):
        if want != got:
            return f" Row {row} should have {want} object{'s' if want != 1 else ''}, not {got}."
    if len(shown) != len(expected):
        return f" The board has {len(expected)} rows; {len(shown)} were shown."
    return ""
