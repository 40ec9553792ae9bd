"""Exercise 9, working_game: the grader's player (``NimGameSession``) driven by hand, then real games.

The first part feeds a session the output a program would print and reads what it types back,
without any process. The second part grades real submissions (the reference solution and
mutations of it) with their companion exercise files beside them.
"""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest
from support import PROJECT, mutate, render, solution

from grader.grade.grading import grade_file
from grader.model import Verdict
from grader.nim import game
from grader.nim import rules as nim
from grader.run.execute import END_OF_INPUT
from grader.run.run_facts import ChildCrash, RunResult

# -- driving a session by hand ------------------------------------------------------------------


def started(players=("Alice", "Bob"), board=(1, 2), lines=(), **options):
    """A session that has typed the setup lines (two names and the board)."""
    options.setdefault("human", "script")
    session = game.nim_game(players=list(players), board=list(board), lines=list(lines), **options)
    typed = [session.waiting() for _ in range(3)]
    assert typed == [players[0], players[1], " ".join(map(str, board))]
    return session


def shown(board) -> str:
    """The board as the program prints it (present_board and a newline)."""
    return render(board) + "\n"


def ask(session, prompt: str):
    """The program prints ``prompt`` (an input() prompt, no newline) and waits: what is typed."""
    session.output(prompt)
    return session.waiting()


def ran(exit_code=0, stderr=b"", timed_out=False, waiting_for_input=False) -> RunResult:
    """The facts of a finished run, as the runner reports them (a traceback printed comes with the
    crash record of the process that ran the program)."""
    crash = ChildCrash("EOFError", True, "EOF when reading a line") if b"EOFError" in stderr else None
    return RunResult(
        exit_code=exit_code,
        signal=None,
        stdout=b"",
        stderr=stderr,
        stdout_bytes=0,
        stderr_bytes=len(stderr),
        time_s=0.1,
        timed_out=timed_out,
        waiting_for_input=waiting_for_input,
        crash=crash,
    )


TRACEBACK = (
    b"Traceback (most recent call last):\n"
    b'  File "/tmp/nim-grader-x/working_game.py", line 9, in play_nim\n'
    b"    text = input()\n"
    b"EOFError: EOF when reading a line\n"
)


def test_the_setup_lines_come_first_and_are_in_the_transcript():
    session = started(("Alice", "Computer"), (3, 4, 5))
    assert session.transcript == "Alice\nComputer\n3 4 5\n"
    assert not session.done()


def test_setup_lines_follow_input_prompts():
    session = game.nim_game(players=["Alice", "Bob"], board=[2], human="script", lines=["1 2"])
    assert ask(session, "Player 1: ") == "Alice"
    assert ask(session, "Player 2: ") == "Bob"
    assert ask(session, "Board: ") == "2"
    assert session.transcript == "Player 1: Alice\nPlayer 2: Bob\nBoard: 2\n"


def test_a_whole_game_between_two_humans():
    session = started(lines=["2 1", "1 1", "2 1"])
    session.output(shown([1, 2]))
    assert ask(session, "Alice, make a move: ") == "2 1"
    session.output(shown([1, 1]))
    assert ask(session, "Bob, make a move: ") == "1 1"
    session.output(shown([0, 1]))
    assert ask(session, "Alice, make a move: ") == "2 1"
    session.output(shown([0, 0]) + "Alice wins!\n")
    assert not session.done() and session.problem is None
    assert session.outcome(ran()) is None
    assert session.winner == "Alice" and session.moves == 3
    # each typed line is echoed after its prompt, so the next output starts a new line
    assert "Alice, make a move: 2 1\nNim:\n1: X\n2: X\n" in session.transcript
    assert "Bob, make a move: 1 1\nNim:\n1:\n2: X\n" in session.transcript
    assert session.transcript.endswith("Alice, make a move: 2 1\nNim:\n1:\n2:\nAlice wins!\n")


def test_the_handout_game_against_the_computer_gives_the_handout_transcript():
    # The game of the exercise text, printed in the pieces a program prints it in.
    session = started(("Alice", "Computer"), (1, 2, 3), lines=["2 2", "5 1", "1 1"])
    session.output(shown([1, 2, 3]))
    assert ask(session, "Alice, make a move (row elements): ") == "2 2"
    session.output(shown([1, 0, 3]) + "Computer removes 2 from row 3\n" + shown([1, 0, 1]))
    assert ask(session, "Alice, make a move (row elements): ") == "5 1"
    session.output("Illegal move: you cannot take 1 from row 5. Try again.\n")
    assert ask(session, "Alice, make a move (row elements): ") == "1 1"
    session.output(shown([0, 0, 1]) + "Computer removes 1 from row 3\n" + shown([0, 0, 0]) + "Computer wins!\n")
    assert session.outcome(ran()) is None
    assert session.transcript == (
        "Alice\nComputer\n1 2 3\n"
        "Nim:\n1: X\n2: X X\n3: X X X\n"
        "Alice, make a move (row elements): 2 2\n"
        "Nim:\n1: X\n2:\n3: X X X\n"
        "Computer removes 2 from row 3\n"
        "Nim:\n1: X\n2:\n3: X\n"
        "Alice, make a move (row elements): 5 1\n"
        "Illegal move: you cannot take 1 from row 5. Try again.\n"
        "Alice, make a move (row elements): 1 1\n"
        "Nim:\n1:\n2:\n3: X\n"
        "Computer removes 1 from row 3\n"
        "Nim:\n1:\n2:\n3:\n"
        "Computer wins!\n"
    )


def test_a_prompt_on_its_own_line_then_input():
    session = started(board=(1,), lines=["1 1"])
    session.output(shown([1]) + "Alice, make a move:\n")
    assert session.waiting() == "1 1"
    assert session.transcript.endswith("Alice, make a move:\n1 1\n")
    session.output(shown([0]) + "Alice wins!\n")
    assert session.outcome(ran()) is None


def test_other_lines_are_skipped():
    session = started(board=(1,), lines=["1 1"])
    session.output("Welcome to Nim.\n" + shown([1]) + "Take 1 or more objects from one row.\n")
    assert ask(session, "Alice, make a move: ") == "1 1"
    session.output(shown([0]) + "Game over.\nAlice wins!\nThanks for playing.\n")
    assert session.outcome(ran()) is None


def test_instructions_that_mention_moves_are_not_prompts():
    session = started(board=(1,), lines=["1 1"])
    session.output("When asked to make a move, type the row and the count.\nIllegal moves are refused.\n")
    session.output(shown([1]))
    assert ask(session, "Alice, make a move: ") == "1 1"
    session.output(shown([0]) + "Alice wins!\n")
    assert session.outcome(ran()) is None


def test_output_in_small_pieces():
    session = started(board=(2,), lines=["1 2"])
    for piece in ("Ni", "m:\n1:", " X X", "\nAlice, make", " a move: "):
        session.output(piece)
    assert session.waiting() == "1 2"
    for piece in ("Nim:\n", "1:\n", "Alice w", "ins!\n"):
        session.output(piece)
    assert session.outcome(ran()) is None


def test_two_computers_need_no_input():
    session = started(("Computer 1", "Computer 2"), (1, 2, 3))
    session.output(shown([1, 2, 3]) + "Computer 1 removes 1 from row 1\n" + shown([0, 2, 3]))
    session.output("Computer 2 removes 1 from row 3\n" + shown([0, 2, 2]))
    session.output("Computer 1 removes 2 from row 2\n" + shown([0, 0, 2]))
    session.output("Computer 2 removes 2 from row 3\n" + shown([0, 0, 0]) + "Computer 2 wins!\n")
    assert session.outcome(ran()) is None


# -- broken rules -------------------------------------------------------------------------------


def test_the_starting_board_shown_wrong():
    session = started()
    assert ask(session, shown([1, 1]) + "Alice, make a move: ") is None
    assert session.done()
    assert session.problem.message == (
        "The board shown is not the starting board: expected [1, 2], your program showed [1, 1]. "
        "Row 2 should have 2 objects, not 1."
    )
    assert session.problem.line == 4  # after the three setup lines
    assert session.problem.verdict is Verdict.WRONG_ANSWER
    assert session.waiting() is None
    assert session.outcome(ran()) is session.problem


def test_a_board_with_a_row_missing():
    session = started(board=(1, 2, 3))
    assert ask(session, "Nim:\n1: X\n2: X X\nAlice, make a move: ") is None
    assert "The board has 3 rows; 2 were shown." in session.problem.message


def test_rows_numbered_from_zero():
    session = started()
    session.output("Nim:\n0: X\n1: X X\nLet's play.\n")
    assert session.problem.message == "The rows of the board must be numbered 1, 2, 3, ... in order."


def test_the_board_after_a_move_shown_wrong():
    session = started(lines=["2 1"])
    session.output(shown([1, 2]))
    ask(session, "Alice, make a move: ")
    assert ask(session, shown([0, 2]) + "Bob, make a move: ") is None
    assert session.done()
    assert session.problem.message.startswith(
        "The board shown is not the board after Alice's move '2 1': expected [1, 1], your program showed [0, 2]."
    )
    assert session.problem.line == 8


def test_the_board_not_shown_before_the_next_prompt():
    session = started(lines=["2 1"])
    session.output(shown([1, 2]))
    ask(session, "Alice, make a move: ")
    assert ask(session, "Bob, make a move: ") is None
    assert session.problem.message == (
        "After Alice's move '2 1' your program did not show the board before asking for a move."
    )


def test_a_prompt_before_the_starting_board():
    session = started()
    assert ask(session, "Alice, make a move: ") is None
    assert "Show the starting board" in session.problem.message


def test_the_computer_must_leave_nim_sum_zero_from_an_n_position():
    session = started(("Computer", "Alice"), (3, 4, 5))
    session.output(shown([3, 4, 5]) + "Computer removes 1 from row 1\n")
    assert session.done()
    message = session.problem.message
    assert message.startswith("Computer must play the winning strategy.")
    assert "The board [3, 4, 5] has nim-sum 2 (an N-position)" in message
    assert "removing 1 from row 1 leaves nim-sum 3" in message
    assert "remove 2 from row 1" in message
    assert session.problem.line == 8


def test_the_computer_may_play_any_legal_move_from_a_p_position():
    session = started(("Computer", "Alice"), (1, 2, 3), lines=["1 1"])
    session.output(shown([1, 2, 3]) + "Computer removes 1 from row 3\n" + shown([1, 2, 2]))
    assert ask(session, "Alice, make a move: ") == "1 1"
    assert session.problem is None


def test_an_illegal_computer_move():
    session = started(("Computer", "Alice"), (1, 2, 3))
    session.output(shown([1, 2, 3]) + "Computer removes 4 from row 3\n")
    assert session.problem.message == "Computer's move is illegal: row 3 holds only 3 objects, so 4 cannot be taken."
    session = started(("Computer", "Alice"), (1, 2, 3))
    session.output(shown([1, 2, 3]) + "Computer removes 1 from row 0\n")
    assert "row 0 does not exist" in session.problem.message


def test_a_prompt_for_a_computer_player():
    session = started(("Computer", "Alice"), (1, 2, 3))
    session.output(shown([1, 2, 3]))
    assert ask(session, "Computer, make a move: ") is None
    assert session.done()
    assert session.problem.message.startswith("It is Computer's turn, a computer player")
    assert "asked for a move as if it were human" in session.problem.message


def test_a_move_for_the_wrong_player():
    session = started(("Alice", "Computer"), (1, 2, 3))
    session.output(shown([1, 2, 3]) + "Computer removes 1 from row 1\n")
    assert session.problem.message == "It is Alice's turn, but your program made a move for Computer."


def test_a_computer_move_printed_for_a_human():
    session = started(("Alice", "Computer"), (1, 2, 3))
    session.output(shown([1, 2, 3]) + "Alice removes 1 from row 1\n")
    assert session.problem.message == "Alice is a human player: ask for a move with a 'make a move' prompt."


def test_asking_the_other_human():
    session = started()
    session.output(shown([1, 2]))
    assert ask(session, "Bob, make a move: ") is None
    assert session.problem.message == "It is Alice's turn, but your program asked Bob for a move."


def test_a_prompt_again_without_illegal_move_after_an_illegal_input():
    session = started(lines=["5 1", "2 1"])
    session.output(shown([1, 2]))
    assert ask(session, "Alice, make a move: ") == "5 1"
    assert ask(session, "Alice, make a move: ") is None
    assert session.problem.message == (
        "Alice's move '5 1' is illegal: row 5 does not exist (rows count from 1 to 2). After an illegal or "
        "unreadable move your program must print a line that starts with 'Illegal move' before asking again."
    )


def test_an_unreadable_input_also_needs_illegal_move():
    session = started(lines=["two one"])
    session.output(shown([1, 2]))
    ask(session, "Alice, make a move: ")
    assert ask(session, "Please type two numbers.\nAlice, make a move: ") is None
    assert "'Illegal move' before asking again" in session.problem.message


def test_the_turn_passes_after_an_illegal_move_between_humans():
    session = started(lines=["5 1", "2 1"])
    session.output(shown([1, 2]))
    ask(session, "Alice, make a move: ")
    session.output("Illegal move, try again.\n")
    assert ask(session, "Bob, make a move: ") is None
    assert session.problem.message == (
        "It is Alice's turn, but your program asked Bob for a move. After an illegal move the same player moves again."
    )


def test_the_turn_passes_to_the_computer_after_an_illegal_move():
    session = started(("Alice", "Computer"), (1, 2, 3), lines=["0 1"])
    session.output(shown([1, 2, 3]))
    ask(session, "Alice, make a move: ")
    session.output("Illegal move.\nComputer removes 2 from row 3\n")
    assert session.problem.message == (
        "Alice's move '0 1' is illegal: row 0 does not exist (rows count from 1 to 3). After an illegal move "
        "the same player (Alice) must move again, but the turn passed to Computer."
    )


def test_the_computer_moves_without_illegal_move_after_an_illegal_input():
    session = started(("Alice", "Computer"), (1, 2, 3), lines=["0 1"])
    session.output(shown([1, 2, 3]))
    ask(session, "Alice, make a move: ")
    session.output("Computer removes 2 from row 3\n")
    assert "the turn passed to Computer" in session.problem.message


def test_illegal_move_said_of_a_legal_move():
    session = started(lines=["2, 1"])
    session.output(shown([1, 2]))
    ask(session, "Alice, make a move: ")
    session.output("Illegal move\n")
    assert session.problem.message == "Your program said 'Illegal move', but Alice's move '2, 1' was legal."


def test_the_wrong_winner():
    session = started(board=(1,), lines=["1 1"])
    session.output(shown([1]))
    ask(session, "Alice, make a move: ")
    session.output(shown([0]) + "Bob wins!\n")
    assert (
        session.problem.message == "Your program announced Bob as the winner, but Alice took the last object and wins."
    )
    assert session.problem.line == 9


def test_a_winner_on_a_board_that_is_not_empty():
    session = started(lines=["2 1"])
    session.output(shown([1, 2]))
    ask(session, "Alice, make a move: ")
    session.output(shown([1, 1]) + "Alice wins!\n")
    assert session.problem.message == "Your program announced Alice as the winner, but the board is not empty."


def test_a_winner_before_the_empty_board_is_shown():
    session = started(board=(1,), lines=["1 1"])
    session.output(shown([1]))
    ask(session, "Alice, make a move: ")
    session.output("Alice wins!\n")
    assert session.problem.message == "After Alice's move '1 1' your program did not show the (empty) board."


def test_asking_for_a_move_after_the_game():
    session = started(board=(1,), lines=["1 1"])
    session.output(shown([1]))
    ask(session, "Alice, make a move: ")
    session.output(shown([0]) + "Alice wins!\n")
    assert ask(session, "Bob, make a move: ") is None
    assert "the game is over, but your program asked for another move" in session.problem.message


def test_a_computer_move_after_the_game():
    session = started(("Computer", "Alice"), (1,))
    session.output(shown([1]) + "Computer removes 1 from row 1\n" + shown([0]) + "Computer wins!\n")
    session.output("Computer removes 1 from row 1\n")
    assert "the game is over, but the computer made another move" in session.problem.message


def test_only_the_first_broken_rule_counts():
    session = started()
    session.output(shown([2, 2]) + "Bob wins!\n" + shown([9, 9]))
    assert session.problem.message.startswith("The board shown is not the starting board: expected [1, 2]")
    assert session.problem.line == 4


def test_a_welcome_line_about_who_wins_is_an_ordinary_line():
    session = started(board=(1,), lines=["1 1"])
    session.output("Welcome to Nim! The player who takes the last object wins!\n" + shown([1]))
    assert session.problem is None
    assert ask(session, "Alice, make a move: ") == "1 1"
    session.output(shown([0]) + "Alice wins!\n")
    assert session.outcome(ran()) is None


# -- how the game ended (outcome) ---------------------------------------------------------------


def test_a_missing_winner_line():
    session = started(board=(1,), lines=["1 1"])
    session.output(shown([1]))
    ask(session, "Alice, make a move: ")
    session.output(shown([0]))
    problem = session.outcome(ran())
    assert problem.verdict is Verdict.WRONG_ANSWER
    assert problem.message == (
        "The board is empty but your program did not announce the winner: print 'Alice wins!' "
        "(Alice took the last object)."
    )


def test_a_winner_line_without_a_final_newline_counts():
    session = started(("Computer", "Alice"), (1,))
    session.output(shown([1]) + "Computer removes 1 from row 1\n" + shown([0]) + "Computer wins!")
    assert session.outcome(ran()) is None


def test_the_program_ended_before_the_game_was_over():
    session = started(lines=["2 1"])
    session.output(shown([1, 2]))
    ask(session, "Alice, make a move: ")
    session.output(shown([1, 1]))
    problem = session.outcome(ran())
    assert "ended before the game was over" in problem.message


def test_no_starting_board_at_all():
    session = started()
    session.output("Hello\n")
    assert "never showed the starting board" in session.outcome(ran()).message


def test_the_last_board_not_shown():
    session = started(board=(1,), lines=["1 1"])
    session.output(shown([1]))
    ask(session, "Alice, make a move: ")
    assert session.outcome(ran()).message == "After Alice's move '1 1' your program did not show the board."


def test_the_last_board_shown_wrong_is_found_after_the_run():
    session = started(("Computer", "Alice"), (1,))
    session.output(shown([1]) + "Computer removes 1 from row 1\n" + "Nim:\n1: X\n")
    assert session.problem is None  # the display may go on
    problem = session.outcome(ran())
    assert problem.message.startswith("The board shown is not the board after Computer's move (1 from row 1)")


def test_the_input_ends_and_the_program_stops_quietly():
    session = started(board=(3, 4, 5), lines=["1 1"], then="eof")
    session.output(shown([3, 4, 5]))
    assert ask(session, "Alice, make a move: ") == "1 1"
    session.output(shown([2, 4, 5]))
    assert ask(session, "Bob, make a move: ") is END_OF_INPUT
    assert session.input_ended
    assert session.transcript.endswith("Bob, make a move: \n")  # a terminal shows the end of input
    session.output("No more input: game stopped.\n")
    assert session.outcome(ran()) is None


def test_the_input_ends_and_the_program_crashes_with_a_traceback():
    session = started(board=(3, 4, 5), then="eof")
    session.output(shown([3, 4, 5]))
    assert ask(session, "Alice, make a move: ") is END_OF_INPUT
    problem = session.outcome(ran(exit_code=1, stderr=TRACEBACK))
    assert problem.verdict is Verdict.RUNTIME_ERROR
    assert "crashed instead of ending quietly" in problem.message and "EOFError" in problem.message


def test_a_crash_in_the_middle_is_left_to_grading():
    session = started(board=(3, 4, 5), lines=["1 1"])
    session.output(shown([3, 4, 5]))
    ask(session, "Alice, make a move: ")
    assert session.outcome(ran(exit_code=1, stderr=TRACEBACK.replace(b"EOFError", b"IndexError"))) is None


def test_a_time_out_waiting_without_a_prompt():
    session = started(lines=["2 1"])
    session.output(shown([1, 2]))
    assert session.waiting() is None  # nothing typed: there was no prompt
    assert session.waited_without_prompt
    problem = session.outcome(ran(exit_code=None, timed_out=True, waiting_for_input=True))
    assert problem.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert "waiting for input, but it did not ask for it with a prompt that contains 'make a move'" in problem.message


def test_waiting_without_a_prompt_is_stopped_after_a_second():
    now = [100.0]
    session = game.NimGameSession(("Alice", "Bob"), (1, 2), "script", ["2 1"], "eof", 0, clock=lambda: now[0])
    assert [session.waiting() for _ in range(3)] == ["Alice", "Bob", "1 2"]
    session.output(shown([1, 2]))
    assert session.waiting() is None and not session.done()
    now[0] += 0.5
    assert session.waiting() is None and not session.done()
    now[0] += 0.6
    assert session.waiting() is None and session.done()
    assert session.problem.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert "without asking for it with a prompt that contains 'make a move'" in session.problem.message


def test_a_time_out_after_the_winner():
    session = started(board=(1,), lines=["1 1"])
    session.output(shown([1]))
    ask(session, "Alice, make a move: ")
    session.output(shown([0]) + "Alice wins!\n")
    problem = session.outcome(ran(exit_code=None, timed_out=True))
    assert problem.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert problem.message.startswith("After announcing the winner your program kept running.")


def test_a_time_out_without_waiting():
    session = started(("Computer", "Alice"), (3, 4, 5))
    session.output(shown([3, 4, 5]))
    problem = session.outcome(ran(exit_code=None, timed_out=True))
    assert problem.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert "still running at the time limit, not waiting for input, with Computer to move" in problem.message


# -- the grader's own moves ---------------------------------------------------------------------


def test_the_perfect_player_leaves_nim_sum_zero():
    session = started(("Alice", "Computer"), (3, 4, 5), human="perfect", seed=2)
    typed = ask(session, shown([3, 4, 5]) + "Alice, make a move: ")
    assert nim.parse_typed_move(typed) == (1, 2)  # the only winning move
    assert typed in ("1 2", "1,2", "1, 2")


def test_the_random_player_is_legal_and_repeatable():
    def moves(seed):
        session = started(("Alice", "Computer"), (3, 4, 5), human="random", seed=seed)
        return ask(session, shown([3, 4, 5]) + "Alice, make a move: ")

    first = moves(5)
    assert nim.is_legal([3, 4, 5], nim.parse_typed_move(first))
    assert moves(5) == first
    assert len({moves(seed) for seed in range(20)}) > 1


def test_a_script_then_random():
    session = started(board=(2, 5, 6), lines=["0 1"], then="random", seed=3)
    session.output(shown([2, 5, 6]))
    assert ask(session, "Alice, make a move: ") == "0 1"
    session.output("Illegal move\n")
    typed = ask(session, "Alice, make a move: ")
    assert nim.is_legal([2, 5, 6], nim.parse_typed_move(typed))


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"players": ["Alice"], "board": [1]}, "'players' must be a list of two names"),
        ({"players": ["Alice", " "], "board": [1]}, "'players' must be a list of two names"),
        ({"players": ["Alice", "Alice"], "board": [1]}, "different names"),
        ({"players": ["Alice", "Bob"], "board": []}, "'board' must be a list of whole numbers"),
        ({"players": ["Alice", "Bob"], "board": [1, -1]}, "'board' must be a list of whole numbers"),
        ({"players": ["Alice", "Bob"], "board": [True]}, "'board' must be a list of whole numbers"),
        ({"players": ["Alice", "Bob"], "board": [0, 0]}, "at least one object"),
        ({"players": ["Alice", "Bob"], "board": [1], "human": "smart"}, "'human' must be one of"),
        ({"players": ["Alice", "Bob"], "board": [1], "then": "stop"}, "'then' must be one of"),
        ({"players": ["Alice", "Bob"], "board": [1], "human": "script", "lines": [1]}, "'lines' must be"),
        ({"players": ["Alice", "Bob"], "board": [1], "lines": ["1 1"]}, "'lines' goes with human: script"),
    ],
)
def test_game_options_that_are_wrong(options, words):
    assert words in game.validate_game_options(options)


def test_game_options_that_are_right():
    assert game.validate_game_options({"players": ["Alice", "Computer"], "board": [0, 3]}) is None
    options = {"players": ["A", "B"], "board": [1], "human": "script", "lines": ["1 1"], "then": "perfect"}
    assert game.validate_game_options(options) is None


# -- real games ---------------------------------------------------------------------------------

COMPANIONS = ("present_board", "make_move", "optimal_move", "ui")


@pytest.fixture
def play(tmp_path, course, context):
    """play(source, *names, time_s=None, without=()) → TaskResult of working_game on a few cases.

    ``names`` pick cases by a part of their name (in that order); the reference companion files are
    copied beside the submission, except those in ``without``.
    """

    def run(source: str, *names: str, time_s=None, without=()):
        folder = tmp_path / "lab"
        folder.mkdir(exist_ok=True)
        for companion in COMPANIONS:
            if companion not in without:
                shutil.copyfile(PROJECT / "solutions" / f"{companion}.py", folder / f"{companion}.py")
        path = folder / "working_game.py"
        path.write_text(source, encoding="utf-8")
        task = course["working_game"]
        cases = []
        for name in names:
            (case,) = [c for c in task.cases if name in c.name]
            if time_s is not None:
                case = replace(case, limits=replace(case.limits, time_s=time_s))
            cases.append(case)
        return grade_file(replace(task, cases=tuple(cases)) if names else task, path, context)

    return run


def only(result):
    """The one case of a result."""
    (case,) = result.cases
    return case


PROMPT = 'text = input(f"{name}, make a move (row elements): ")'
WINNER = 'print(f"{name} wins!")  # the player who just took the last object\n'
SHOW_AFTER_MOVE = "        board = new_board\n        print(present_board(board))\n"


def test_reference_solution_is_accepted(play):
    # a case of each kind: humans, typed forms, illegal and unreadable moves, the input ending,
    # human against computer both ways, two computers, a hidden case
    result = play(
        solution("working_game"),
        "Alice takes the last object and wins",
        "the handout's game",
        "words are not a move",
        "both players make several illegal moves",
        "the input ends in the middle of the game",
        "Alice makes illegal moves against the computer",
        "the computer starts on 1 3 5 7",
        "COMPUTER against computer 2",
        "the game stops as soon as the board is empty",
    )
    assert result.verdict is Verdict.ACCEPTED, [(c.case.name, c.message) for c in result.cases if not c.accepted]
    assert result.notes == ()
    assert result.score == result.max_score == len(result.cases)
    case = result.cases[0]
    assert case.game and case.actual.startswith("Alice\nBob\n1 2\nNim:\n1: X\n2: X X\n")
    assert "Alice, make a move (row elements): 2 1\n" in case.actual


def test_the_turn_passes_after_an_illegal_move(play):
    source = mutate(
        "working_game",
        'print(f"Illegal move: you cannot take {elements} from row {row}. Try again.")\n',
        'print(f"Illegal move: you cannot take {elements} from row {row}. Try again.")\n            turn = 1 - turn\n',
    )
    # the hint about illegal moves waits for a plain game of two humans to be right (its `accepted`)
    alone = only(play(source, "row 0 does not exist"))
    assert alone.verdict is Verdict.WRONG_ANSWER and "Hint:" not in alone.message
    result = play(
        source,
        "two humans, Alice takes the last object",
        "the handout's game",
        "row 0 does not exist",
        "Alice makes illegal moves against the computer",
    )
    plain, handout, humans, computer = result.cases
    assert plain.accepted and handout.accepted
    assert humans.verdict is Verdict.WRONG_ANSWER
    assert humans.message.startswith(
        "It is Alice's turn, but your program asked Bob for a move. After an illegal move the same player moves again."
    )
    assert "Hint:" in humans.message and "ask the same player again" in humans.message
    assert humans.difference is not None and humans.difference.column == 0
    line = humans.actual.splitlines()[humans.difference.line - 1]
    assert line.startswith("Bob, make a move")
    assert computer.verdict is Verdict.WRONG_ANSWER
    assert "the turn passed to Computer" in computer.message


def test_the_wrong_winner_is_announced(play):
    source = mutate("working_game", WINNER, 'print(f"{players[1 - turn]} wins!")\n')
    case = only(play(source, "a single heap between two humans"))
    assert case.verdict is Verdict.WRONG_ANSWER
    assert case.message.startswith("Your program announced Alice as the winner, but Bob took the last object and wins.")
    assert case.actual.splitlines()[case.difference.line - 1] == "Alice wins!"


def test_a_program_is_stopped_as_soon_as_it_breaks_a_rule(play):
    # The wrong winner is announced, then the program keeps busy: it is stopped there and then,
    # not given the grace a program that ends by itself gets (nor left to its time limit).
    wrong = 'print(f"{players[1 - turn]} wins!")\n            while True:\n                pass\n'
    source = mutate("working_game", WINNER, wrong)
    case = only(play(source, "a single heap between two humans", time_s=60))
    assert case.verdict is Verdict.WRONG_ANSWER and "announced Alice as the winner" in case.message
    assert case.time_s < 2.5  # was 5 s: the grace for a program that ends by itself


def test_a_computer_playing_at_random(play):
    source = mutate("working_game", "import contextlib\n", "import contextlib\nimport random\n\nrandom.seed(3)\n")
    source = source.replace(
        "            row, elements = optimal_move(board)\n",
        "            row = random.choice([r for r in range(1, len(board) + 1) if board[r - 1] > 0])\n"
        "            elements = random.randint(1, board[row - 1])\n",
    )
    result = play(source, "the computer starts on 3 4 5", "the computer must play perfectly on a big board")
    assert result.score == 0
    for case in result.cases:
        assert case.verdict is Verdict.WRONG_ANSWER
    visible, hidden = result.cases
    assert "Computer must play the winning strategy" in visible.message
    assert "leaves nim-sum" in visible.message and "A move that leaves nim-sum 0" in visible.message
    assert hidden.message.startswith("This hidden case was not accepted")


def test_no_eoferror_handling_is_a_runtime_error(play):
    source = mutate(
        "working_game",
        "            try:\n"
        "                " + PROMPT + "\n"
        "            except EOFError:\n"
        "                # Nobody is typing any more (the input has ended): stop quietly.\n"
        "                print()\n"
        '                print("No more input: game stopped.")\n'
        "                return\n",
        "            " + PROMPT + "\n",
    )
    result = play(source, "the input ends in the middle of the game", "Alice takes the last object and wins")
    ended, complete = result.cases
    assert ended.verdict is Verdict.RUNTIME_ERROR
    assert "EOFError" in ended.message and "crashed instead of ending quietly" in ended.message
    assert "EOFError" in ended.stderr
    assert complete.verdict is Verdict.ACCEPTED


def test_waiting_for_input_without_a_prompt_is_a_time_limit(play):
    source = mutate("working_game", PROMPT, "text = input()")
    case = only(play(source, "Alice takes the last object and wins", time_s=1.0))
    assert case.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert "without asking for it with a prompt that contains 'make a move'" in case.message
    assert case.actual.startswith("Alice\nBob\n1 2\nNim:\n")


def test_running_after_the_winner_is_a_time_limit(play):
    source = mutate("working_game", WINNER, WINNER + "            while True:\n                pass\n")
    case = only(play(source, "COMPUTER against computer 2", time_s=1.0))
    assert case.verdict is Verdict.TIME_LIMIT_EXCEEDED
    assert case.message.startswith("After announcing the winner your program kept running.")
    assert "COMPUTER wins!" in case.actual


def test_the_board_not_shown_after_a_move(play):
    source = mutate("working_game", SHOW_AFTER_MOVE, "        board = new_board\n")
    result = play(source, "Alice takes the last object and wins", "Computer 1 against Computer 2")
    humans, computers = result.cases
    assert humans.verdict is Verdict.WRONG_ANSWER
    assert humans.message.startswith(
        "After Alice's move '2 1' your program did not show the board before asking for a move."
    )
    assert computers.verdict is Verdict.WRONG_ANSWER
    assert "did not show the board before the next move" in computers.message


def test_a_missing_companion_file(play):
    result = play(solution("working_game"), "Alice takes the last object and wins", without=("make_move",))
    (note,) = result.notes
    assert "make_move.py" in note and "not in the same folder" in note
    assert "ui.py" not in note
    case = only(result)
    assert case.verdict is Verdict.RUNTIME_ERROR
    assert "ModuleNotFoundError" in case.message and "make_move" in case.message


def test_a_missing_companion_file_is_not_told_to_remove_the_import(play):
    result = play(solution("working_game"), "Alice takes the last object and wins", without=("make_move",))
    case = only(result)
    assert "remove that import" not in case.message
    assert "make_move.py" in case.message
