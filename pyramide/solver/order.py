"""Unlimited turns under strict win with the drawn card: outside cards by position, since the pair
"top + under" is any two neighbours in their fixed cyclic order."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from ..cards import KING
from ..game import Game
from .base import Step, _free, _Search


class _OrderSearch(_Search):
    """Unlimited passes, drawn card with waste and strict win: outside cards by position, since the
    neighbour pairs that clear the stock and waste depend on their order."""

    def __init__(self, game: Game, node_limit: int) -> None:
        super().__init__(game, node_limit)
        self.outside = [c.value for c in (*game.waste, *game.stock)]
        self.cards = [*game.waste, *game.stock]

    def start(self) -> tuple:
        return (self.start_mask, (1 << len(self.outside)) - 1)

    def expand(self, state: tuple) -> tuple[tuple, list[Step]]:
        mask, out = state
        forced: list[Step] = []
        mask = self.remove_kings(mask, forced)
        for p, v in enumerate(self.outside):
            if v == KING and out >> p & 1:
                out &= ~(1 << p)
                forced.append(Step("ck", p))
        return (mask, out), forced

    def is_win(self, state: tuple) -> bool:
        return state[0] == 0 and (not self.rules.strict_win or state[1] == 0)

    def hopeless(self, state: tuple) -> bool:
        mask, out = state
        if mask == 0:
            return not self.neighbour_pairs(out)
        return self.outside_check(mask, out)

    def neighbour_pairs(self, out: int) -> list[tuple[int, int]]:
        positions = [p for p in range(len(self.outside)) if out >> p & 1]
        return [(p, q) for p, q in itertools.pairwise(positions) if self.outside[p] + self.outside[q] == 13]

    def successors(self, state: tuple) -> Iterator[tuple[Step, tuple]]:
        mask, out = state
        free = _free(mask)
        for i, j in self.pyramid_pairs(mask, free):
            yield Step("pp", i, j), (mask & ~(1 << i) & ~(1 << j), out)
        for i in free:
            partner = 13 - self.values[i]
            for p, v in enumerate(self.outside):
                if v == partner and out >> p & 1:
                    yield Step("pc", i, p), (mask & ~(1 << i), out & ~(1 << p))
        for p, q in self.neighbour_pairs(out):
            yield Step("cc", p, q), (mask, out & ~(1 << p) & ~(1 << q))
