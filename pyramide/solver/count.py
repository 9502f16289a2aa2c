"""Unlimited turns of the waste, no pairing of two outside cards: outside cards count by value only."""

from __future__ import annotations

from collections.abc import Iterator

from ..game import Game
from .base import State, Step, _free, _Search


class _CountSearch(_Search):
    """Unlimited passes, no drawn-card-with-waste: outside cards by value only."""

    def __init__(self, game: Game, node_limit: int) -> None:
        super().__init__(game, node_limit)
        self.counts = [0] * 14
        for card in (*game.stock, *game.waste):
            self.counts[card.value] += 1

    def start(self) -> State:
        return (self.start_mask, tuple(self.counts[1:13]))

    def expand(self, state: State) -> tuple[State, list[Step]]:
        mask, counts = state
        forced: list[Step] = []
        mask = self.remove_kings(mask, forced)
        return (mask, counts), forced

    def is_win(self, state: State) -> bool:
        return state[0] == 0 and (not self.rules.strict_win or not any(state[1]))

    def hopeless(self, state: State) -> bool:
        mask, counts = state
        if mask == 0:
            return True  # not a win (strict win with outside cards left and no pyramid partner)
        outside = [0, *counts, 0]
        return self.orphan(mask, [c > 0 for c in outside]) or self.unmatched(mask, outside)

    def successors(self, state: State) -> Iterator[tuple[Step, State]]:
        mask, counts = state
        free = _free(mask)
        values = self.values
        for i, j in self.pyramid_pairs(mask, free):
            yield Step("pp", i, j), (mask & ~(1 << i) & ~(1 << j), counts)
        tried = set()
        for i in free:
            partner = 13 - values[i]
            if counts[partner - 1] and (i, partner) not in tried:
                tried.add((i, partner))
                new = list(counts)
                new[partner - 1] -= 1
                yield Step("po", i, partner), (mask & ~(1 << i), tuple(new))
