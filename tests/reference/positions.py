"""The positions of the reference images: the example deal of RULES.md at the start, mid-game and won."""

from __future__ import annotations

from collections.abc import Callable

from pyramide import STOCK, Game
from pyramide.solver import solve
from tests.conftest import example_game


def start() -> Game:
    return example_game()


def mid_game() -> Game:
    game = example_game()
    game.started_at = 1000.0 - 95
    game.tap_card("K♦")
    game.tap_card("10♣")
    game.tap_card("3♠")
    for _ in range(3):
        game.tap(STOCK)
    game.tap_card("7♣")  # selected
    return game


def won() -> Game:
    game = example_game()
    game.started_at = 1000.0 - 241
    for move in solve(game).line:
        game.play(move)
    game.finished_at = 1000.0
    return game


POSITIONS: dict[str, Callable[[], Game]] = {"start": start, "mid_game": mid_game, "won": won}
