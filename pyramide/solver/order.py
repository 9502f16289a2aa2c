"""Unlimited turns under strict win with the drawn card: outside cards by position, since the pair
"top + under" is any two neighbours in their fixed cyclic order."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from ..cards import KING
from ..game import Game
from .base import _COVER_MASK, State, Step, _free, _Search


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


class _OrderSearch(_Search):
    """Unlimited passes, drawn card with waste and strict win: outside cards by position, since the
    neighbour pairs that clear the stock and waste depend on their order."""

    def __init__(self, game: Game, node_limit: int) -> None:
        super().__init__(game, node_limit)
        self.outside = [c.value for c in (*game.waste, *game.stock)]
        self.cards = [*game.waste, *game.stock]

    def start(self) -> State:
        return (self.start_mask, (1 << len(self.outside)) - 1)

    def expand(self, state: State) -> tuple[State, list[Step]]:
        mask, out = state
        forced: list[Step] = []
        mask = self.remove_kings(mask, forced)
        for p, v in enumerate(self.outside):
            if v == KING and out >> p & 1:
                out &= ~(1 << p)
                forced.append(Step("ck", p))
        return (mask, out), forced

    def is_win(self, state: State) -> bool:
        return state[0] == 0 and (not self.rules.strict_win or state[1] == 0)

    def hopeless(self, state: State) -> bool:
        mask, out = state
        if mask == 0:
            return not self.neighbour_pairs(out)
        return self.outside_check(mask, out)

    def reaches_win(self, state: State, known: dict[State, bool]) -> bool:
        """``win_line(state) is not None`` without the line, as the bound of the limited-passes search.

        ``known`` is that search's table of positions already answered: every position on a winning
        line found here can be won too and is kept there, so later questions stop where they meet one
        instead of walking the rest of a winning line again."""
        self.tick()
        state, _ = self.expand(state)
        if self.is_win(state):
            return True
        answer = known.get(state)
        if answer is not None:
            return answer
        if self.known_dead(state) or self.hopeless(state):
            self.mark_dead(state)
            return False
        for _, child in self.win_successors(state):
            if self.reaches_win(child, known):
                known[state] = True
                return True
        self.mark_dead(state)
        return False

    def pivot(self, mask: int, out: int) -> tuple[str, int, int] | None:
        """A card all of whose partners left are available now, with the fewest of them.

        With unlimited turns every move stays possible until one of its cards goes, and removing
        cards never blocks another move. Under strict win every card goes in a winning line, this
        one with some partner; when that partner is available now, the pair can move to the front
        of the line, and the line stays legal. So a search for a win need only try this card's
        pairs. Returns ``("p", i, n)`` for pyramid card i or ``("o", p, n)`` for outside position p,
        n its pairs, or None when no card qualifies."""
        free = _free(mask)
        free_mask = sum(1 << i for i in free)
        counts = self.outside_counts(out)
        values = self.values
        cover = self.rules.pair_with_cover
        best: tuple[str, int, int] | None = None
        for i in free:
            value = values[i]
            if value == KING:
                continue
            partners = mask & self.compat[i]
            waiting = partners & ~free_mask  # partners not free: only one covered by i alone may pair now
            if waiting and not (cover and all(mask & _COVER_MASK[j] == 1 << i for j in _bits(waiting))):
                continue
            count = partners.bit_count() + counts[13 - value]
            if best is None or count < best[2]:
                best = ("p", i, count)
        outside = self.outside
        positions = [p for p in range(len(outside)) if out >> p & 1]
        for k, p in enumerate(positions):
            partner = 13 - outside[p]
            pyramid = self.value_masks[partner] & mask
            if not partner or pyramid & ~free_mask:
                continue
            adjacent = (k > 0 and outside[positions[k - 1]] == partner) + (
                k + 1 < len(positions) and outside[positions[k + 1]] == partner
            )
            if counts[partner] != adjacent:
                continue
            count = pyramid.bit_count() + adjacent
            if best is None or count < best[2]:
                best = ("o", p, count)
        return best

    def win_successors(self, state: State) -> Iterator[tuple[Step, State]]:
        """``successors`` that pair the ``pivot`` card, when there is one."""
        pivot = self.pivot(*state)
        if pivot is None:
            yield from self.successors(state)
            return
        side, card, _ = pivot
        for step, child in self.successors(state):
            if side == "p":
                pairs_it = (step.kind == "pp" and card in (step.a, step.b)) or (step.kind == "pc" and step.a == card)
            else:
                pairs_it = (step.kind == "pc" and step.b == card) or (step.kind == "cc" and card in (step.a, step.b))
            if pairs_it:
                yield step, child

    def neighbour_pairs(self, out: int) -> list[tuple[int, int]]:
        positions = [p for p in range(len(self.outside)) if out >> p & 1]
        return [(p, q) for p, q in itertools.pairwise(positions) if self.outside[p] + self.outside[q] == 13]

    def successors(self, state: State) -> Iterator[tuple[Step, State]]:
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
