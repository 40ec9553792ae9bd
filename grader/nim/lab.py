"""The checkers a Nim lab course starts with: the generic ones and the lab's own."""

from __future__ import annotations

from grader.check.registry import CheckerRegistry, generic_checkers
from grader.nim.checkers import check_optimal_move
from grader.nim.game import nim_game, validate_game_options


def lab_checkers() -> CheckerRegistry:
    """A fresh registry: text, tokens, json, float, regex, and the Nim lab's ``optimal_move`` and
    ``nim_game`` (an interactor: it plays against the program rather than compare its output)."""
    registry = generic_checkers()
    registry.register("optimal_move", check_optimal_move, needs_expected=False)
    registry.register("nim_game", nim_game, validate_options=validate_game_options, interactive=True)
    return registry
