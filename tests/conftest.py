from __future__ import annotations

import pytest

from pyramide import Card, Game, Rules
from pyramide.cards import full_deck
from pyramide.storage.sqlite import SQLiteStorage

# The example deal of RULES.md, row by row; the texts do not give the stock order,
# so the other 23 cards are in canonical deck order.
EXAMPLE_ROWS = [
    "J♦",
    "6♣ 7♥",
    "A♠ 4♦ Q♠",
    "5♥ 3♦ 6♥ 8♠",
    "K♥ K♣ A♦ K♠ 9♣",
    "Q♣ 2♣ 8♦ 10♦ 10♠ J♠",
    "7♣ 10♣ 3♥ 4♥ 3♠ K♦ 7♠",
]
EXAMPLE_PYRAMID = [card for row in EXAMPLE_ROWS for card in row.split()]
EXAMPLE_WASTE = ["7♦"]
_used = {Card.parse(c) for c in EXAMPLE_PYRAMID + EXAMPLE_WASTE}
EXAMPLE_STOCK = [str(c) for c in full_deck() if c not in _used]


def example_game(rules: Rules = Rules(), stock: list[str] | None = None) -> Game:
    return Game.from_layout(EXAMPLE_PYRAMID, EXAMPLE_WASTE, stock or EXAMPLE_STOCK, rules)


def spot_of(game: Game, name: str) -> int:
    return game.pyramid.index(Card.parse(name))


@pytest.fixture
def example() -> Game:
    return example_game()


@pytest.fixture
async def storage(tmp_path):
    """An open storage on a real SQLite file of the test's own (``storage.path``)."""
    store = SQLiteStorage(tmp_path / "pyramide.db")
    await store.open()
    yield store
    await store.close()


@pytest.fixture
async def harness(tmp_path):
    """The real bot on a real SQLite file, with only Discord's HTTP edge replaced (tests/harness.py)."""
    from tests.harness import Harness

    h = await Harness(str(tmp_path / "bot.db")).start()
    yield h
    await h.stop()
