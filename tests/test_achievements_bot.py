"""Achievements through the bot (tests/harness.py): the finishing answer announces what the game unlocked,
once; /pyramide achievements and the player card of /pyramide stats, in every place stats work."""

from __future__ import annotations

from tests.deals import kings_and_pairs
from tests.harness import Harness, labels, start


async def win(harness: Harness) -> str:
    """Clear the kings-and-pairs deal by its buttons; the winning answer's text."""
    game = kings_and_pairs()
    await start(harness, game.code)
    sent = []
    for row in range(6, -1, -1):
        first_spot = row * (row + 1) // 2
        names = [str(game.pyramid[i]) for i in range(first_spot, first_spot + row + 1)]
        while names:
            first = names.pop(0)
            sent = await harness.press(harness.board_button(first))
            if not first.startswith("K"):
                sent = await harness.press(harness.board_button(names.pop(0)))
    assert "New game" in labels(harness.board())
    return sent[-1].content


async def test_the_winning_answer_announces_what_it_unlocked_once(harness):
    text = await win(harness)
    assert "You won!" in text
    assert "Achievement unlocked: First win — The first pyramid cleared." in text
    assert "Achievement unlocked: No way back — A win without an undo." in text
    assert "Achievement unlocked: On my own — A win without a hint." in text
    again = await win(harness)
    assert "Achievement unlocked: First win" not in again
    assert "Achievement unlocked" not in again  # nothing new for a second such win
