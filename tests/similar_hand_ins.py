"""Hand-ins of working_game for the similar hand-ins' tests (portal and live tiers): the reference
solution, the same with every variable renamed, two honest answers written another way, and the stub
as handed out."""

from __future__ import annotations

import re

from support import PROJECT, solution

STUB = (PROJECT / "exercises" / "working_game.py").read_text()
HOLE = "    # Write your code here.\n    pass\n"

# the play_nim bodies of two students who wrote their own
OWN_LOOP = """
    current = list(board)
    names = (player1, player2)
    index = 0
    print(present_board(current))
    while True:
        who = names[index % 2]
        if not is_human(who):
            r, n = optimal_move(current)
            print(who + " removes " + str(n) + " from row " + str(r))
            current, ok = make_move(current, r, n)
        else:
            ok = False
            while not ok:
                try:
                    line = input(who + ", make a move (row elements): ")
                except EOFError:
                    print("No more input: game stopped.")
                    return
                parsed = parse_move(line)
                if parsed is None:
                    print("Illegal move, try again.")
                    continue
                current, ok = make_move(current, parsed[0], parsed[1])
                if not ok:
                    print("Illegal move, try again.")
        print(present_board(current))
        if is_board_empty(current):
            print(who + " wins!")
            break
        index += 1
"""

OWN_HELPER = """
    def ask(person):
        while True:
            try:
                answer = input("%s, make a move (row elements): " % person)
            except EOFError:
                return None
            got = parse_move(answer)
            if got is not None:
                return got
            print("Illegal move: could not read %r" % answer)

    state = board[:]
    print(present_board(state))
    order = [player1, player2]
    last = None
    while any(state):
        player = order[0]
        if is_human(player):
            choice = ask(player)
            if choice is None:
                print("No more input: game stopped.")
                return
        else:
            choice = optimal_move(state)
            print("{} removes {} from row {}".format(player, choice[1], choice[0]))
        attempt = make_move(state, choice[0], choice[1])
        if attempt[1]:
            state = attempt[0]
            print(present_board(state))
            last = player
            order.reverse()
        else:
            print("Illegal move: row %d has fewer than %d" % (choice[0], choice[1]))
    print("%s wins!" % last)
"""

RENAMES = [
    ("players", "gamers"),
    ("turn", "whose"),
    ("name", "person"),
    ("text", "typed_line"),
    ("move", "parsed"),
    ("row", "r"),
    ("elements", "count"),
    ("new_board", "nb"),
    ("success", "ok"),
]


def with_body(body: str, comment: str = "") -> str:
    """The stub with ``body`` as play_nim's (and ``comment`` as a line of its own before it)."""
    assert STUB.count(HOLE) == 1
    return STUB.replace(HOLE, comment + body.lstrip("\n"))


def renamed(text: str) -> str:
    """``text`` with each of its variables given another name: the same code to a token detector."""
    for old, new in RENAMES:
        text = re.sub(rf"\b{old}\b", new, text)
    return text


REFERENCE = solution("working_game")
COPY = renamed(REFERENCE)
HONEST = with_body(OWN_LOOP)
OTHER_HONEST = with_body(OWN_HELPER)
