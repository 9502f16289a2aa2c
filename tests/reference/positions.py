"""The positions of the reference images: the example deal of RULES.md at the start, mid-game (a card
selected) and won; a hint shown; the card-with-cover rule's takeable covered cards; a long Croatian footer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pyramide import STOCK, Game, Rules
from pyramide.labels import Labels
from pyramide.solver import solve
from tests.support.deals import example_game


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


def hinted() -> Game:
    game = example_game()
    game.started_at = 1000.0 - 12
    return game


def cover_playable() -> Game:
    game = example_game(Rules(pair_with_cover=True, pass_limit=2))
    game.tap_card("10♣")
    game.tap_card("3♠")  # Q♣ and 2♣ are now covered by one free card each
    game.tap(STOCK)
    return game


def croatian_footer() -> Game:
    game = example_game(Rules(strict_win=True, pass_limit=2, draw_with_waste=True, pair_with_cover=True))
    game.started_at = 1000.0 - 3725
    for _ in range(120):
        game.tap(STOCK) if game.stock or game.can_turn else game.undo()
    return game


CROATIAN = Labels(
    score="Bodovi",
    moves="Potezi",
    time="Vrijeme",
    passes="prolaz {current} od {total}",
    stock="Kup",
    waste="Odbačene",
    cards=lambda n: f"{n} karata",
    ranks=((11, "V"), (12, "D"), (13, "R")),
)

POSITIONS: dict[str, Callable[[], Game]] = {
    "start": start,
    "mid_game": mid_game,
    "won": won,
    "hinted": hinted,
    "cover_playable": cover_playable,
    "croatian_footer": croatian_footer,
}

# What each reference is drawn with besides the game (render_board's keyword arguments).
OPTIONS: dict[str, dict[str, Any]] = {
    "hinted": {"highlight": {26, STOCK}},
    "croatian_footer": {"labels": CROATIAN, "code": "PY1-SP2WC-AAAAAD3"},
}
