"""Limited passes: the full state (pyramid, outside cards left, stock position, passes used), with the
last-pass proofs, bounded by the unlimited-turns searches; its compiled copy runs when it was built."""

from __future__ import annotations

import time
from collections.abc import Iterator
from copy import copy
from dataclasses import replace

from ..cards import KING
from ..game import PYRAMID_SIZE, UNDER, WASTE, Game, Move
from . import native
from .base import _COVER_MASK, _NONE, State, Step, _Balance, _fits_with, _free, _Search, _Undecided
from .count import _CountSearch
from .order import _OrderSearch


def unlimited_search(game: Game, node_limit: int) -> _Search:
    """The search for unlimited turns of the waste under ``game``'s rules.

    With unlimited turns any outside card can be brought to the top, so pairing two outside cards
    (the W variant) never helps to clear the pyramid: without strict win, W plays like N."""
    if game.rules.draw_with_waste and game.rules.strict_win:
        return _OrderSearch(game, node_limit)
    return _CountSearch(game, node_limit)


class _FullSearch(_Search):
    """Limited passes: the exact stock position and passes used are part of the state."""

    def __init__(self, game: Game, node_limit: int) -> None:
        super().__init__(game, node_limit)
        self.cards = [*game.waste, *game.stock]
        self.outside = [c.value for c in self.cards]
        self.cursor = len(game.waste)
        self.passes = game.passes
        self.limit = game.rules.pass_limit
        self.lost: dict[tuple[int, int], tuple[int, int]] = {}
        # Lines are searched in a canonical order (see win_line), and a position can be lost in that
        # order only, with the pyramid's own pairs closed; outside cards sit at their first places.
        self.canonical = True
        # Strict win with the drawn card: the last-pass rules of stuck_in_waste and top_only_partner.
        self.strict_waste = game.rules.strict_win and game.rules.draw_with_waste
        self.lost_closed: dict[tuple[int, int], tuple[int, int]] = {}
        unlimited = copy(game)
        unlimited.rules = replace(game.rules, pass_limit=None)
        self.relaxed: _Search = unlimited_search(unlimited, node_limit)
        self.relaxed.node_limit = 1 << 62  # counted into this search's own nodes
        self._alive: dict[State, bool] = {}
        self._relaxed_memo: dict[State, int] = {}

    def start(self) -> State:
        return (self.start_mask, (1 << len(self.outside)) - 1, self.cursor, self.passes)

    def set_deadline(self, deadline: float | None) -> None:
        super().set_deadline(deadline)
        self.relaxed.set_deadline(deadline)

    def compiled_args(self) -> State:
        """The arguments of ``_fastsolve.solve`` for this search (see _fastsolve.c)."""
        # The compiled core takes the time it may still use, in seconds (0: no limit).
        budget = 0.0 if self.deadline is None else max(self.deadline - time.monotonic(), 1e-6)
        return (
            self.values,
            self.value_masks,
            self.compat,
            _COVER_MASK,
            self.rules.strict_win,
            self.rules.draw_with_waste,
            self.rules.pair_with_cover,
            self.outside,
            self.start_mask,
            self.cursor,
            self.passes,
            self.limit,
            self.node_limit,
            budget,
        )

    def compiled_line(self) -> list[Step] | None:
        """``win_line(start())`` in compiled code: the same line and the same node count."""
        status, self.nodes, line = native.compiled().solve(*self.compiled_args())
        if status == 2:
            raise _Undecided
        if status == 0:
            return None
        spots: list[int | str] = [*range(PYRAMID_SIZE), WASTE, UNDER]  # 28: waste top, 29: the card under it
        kinds = ("pair", "king", "draw", "turn")
        return [Step("m", Move(kinds[kind], tuple(spots[s] for s in (a, b) if s >= 0))) for kind, a, b in line]

    def tops(self, out: int, cursor: int) -> tuple[int, int]:
        """Positions of the waste top and the card under it (-1 when none)."""
        below = out & ((1 << cursor) - 1)
        if not below:
            return -1, -1
        top = below.bit_length() - 1
        rest = below & ~(1 << top)
        return top, (rest.bit_length() - 1 if rest else -1)

    def expand(self, state: State, for_win: bool = False) -> tuple[State, list[Step]]:
        """Forced moves: kings, a card with its only possible partner and, searching for a win (``for_win``:
        not for the most cards removable), the waste top with its only one (``top_only_partner``)."""
        mask, out, cursor, passes = state
        forced: list[Step] = []
        kings = self.value_masks[KING]
        while True:
            free_kings = [i for i in _free(mask) if kings >> i & 1]
            top, _ = self.tops(out, cursor)
            if free_kings:
                for i in free_kings:
                    mask &= ~(1 << i)
                    forced.append(Step("m", Move("king", (i,))))
            elif top >= 0 and self.outside[top] == KING:
                out &= ~(1 << top)
                forced.append(Step("m", Move("king", (WASTE,))))
            else:
                if not self.rules.strict_win:
                    # Cards buried for good under an unremovable waste card change nothing any more:
                    # forget them, so that positions differing only there are one state.
                    out = self.reachable(mask, out, cursor, passes)
                pair = self.only_partner_pair(mask, out, top)
                if pair is None and for_win and self.strict_waste and passes == self.limit:
                    partner = self.top_only_partner(mask, out, cursor)
                    if partner is not None:
                        top, under = self.tops(out, cursor)
                        out &= ~(1 << top)
                        if partner == UNDER:
                            out &= ~(1 << under)
                            forced.append(Step("m", Move("pair", (WASTE, UNDER))))
                        else:
                            mask &= ~(1 << partner)  # type: ignore[operator]
                            forced.append(Step("m", Move("pair", (partner, WASTE))))
                        continue
                if pair is None:
                    if self.canonical:
                        out, cursor = self.first_places(out, cursor)
                    return (mask, out, cursor, passes), forced
                i, partner = pair
                mask &= ~(1 << i)
                if partner == WASTE:
                    out &= ~(1 << top)
                else:
                    mask &= ~(1 << partner)  # type: ignore[operator]
                forced.append(Step("m", Move("pair", (i, partner))))

    def top_only_partner(self, mask: int, out: int, cursor: int) -> int | str | None:
        """Last pass under strict win with the drawn card: the waste top's one and only possible
        partner left, when it is available now (a free pyramid card, or ``UNDER``).

        Its possible partners are the pyramid cards of the partner value, the card under it and the
        cards still to draw (nothing else can come next to it). Every winning line pairs it with that
        one, and doing so at once only puts the cards drawn meanwhile on the card under it instead,
        where none of them could pair with the top anyway."""
        top, under = self.tops(out, cursor)
        if top < 0:
            return None
        partner = 13 - self.outside[top]
        pyramid = mask & self.value_masks[partner]
        below_ok = under >= 0 and self.outside[under] == partner
        if self.outside_counts(out & ~((1 << cursor) - 1))[partner] or pyramid.bit_count() + below_ok != 1:
            return None
        if below_ok:
            return UNDER
        i = pyramid.bit_length() - 1
        return i if i in _free(mask) else None

    def first_places(self, out: int, cursor: int) -> tuple[int, int]:
        """The same outside cards, by value and in their order, with as many in the waste, at the
        first positions that hold such values: one state for positions that differ only in which of
        two cards of a value is left (suits never matter), e.g. after a 7 paired with the 6 under it
        or with the 6 drawn onto it."""
        values = self.outside
        places = 0
        first = 0
        new_cursor = -1
        for q, value in enumerate(values):
            if q == cursor:
                new_cursor = first
            if out >> q & 1:
                while values[first] != value:
                    first += 1
                places |= 1 << first
                first += 1
        return places, first if new_cursor < 0 else new_cursor

    def only_partner_pair(self, mask: int, out: int, top: int) -> tuple[int, int | str] | None:
        """A free pyramid card whose one and only possible partner left is available now.

        Every winning line removes that card with that partner, and doing it at once takes
        nothing from any other move, so it is forced."""
        free = _free(mask)
        counts = self.outside_counts(out)
        for i in free:
            value = self.values[i]
            if value == KING:
                continue
            partners = mask & self.compat[i]
            if partners.bit_count() + counts[13 - value] != 1:
                continue
            if partners:
                j = partners.bit_length() - 1
                if j in free:
                    return min(i, j), max(i, j)  # the order legal_moves() uses
            elif top >= 0 and self.outside[top] == 13 - value:
                return i, WASTE
        return None

    def is_win(self, state: State) -> bool:
        return state[0] == 0 and (not self.rules.strict_win or state[1] == 0)

    def known_dead(self, state: State) -> bool:
        """Lost, because a lost position reaches it by drawing and turning the waste only.

        From (cursor c', passes p') the game reaches (c, p) with the same cards by drawing,
        and turning the waste when needed, whenever (p', c') <= (p, c). So if it is lost there,
        it is lost here: the table keeps the smallest lost (passes, cursor) per set of cards."""
        mask, out, cursor, passes = state
        lost = self.lost.get((mask, out))
        return lost is not None and lost <= (passes, cursor)

    def mark_dead(self, state: State) -> None:
        mask, out, cursor, passes = state
        lost = self.lost.get((mask, out))
        if lost is None or (passes, cursor) < lost:
            self.lost[(mask, out)] = (passes, cursor)

    def win_line(self, state: State, pairs_open: bool = True) -> list[Step] | None:
        """``_Search.win_line``; under strict win with the drawn card, in a canonical order.

        A pyramid pair (both cards in the pyramid) and a move of the stock and waste alone (a draw, a
        turn, the waste top with the card under it) touch different cards and never enable or block
        each other, so they can swap places in any line. Every winning line can therefore be put in an
        order where, between two moves that pair a pyramid card with the waste top, the pyramid pairs
        come first: after a stock or waste move, pyramid pairs wait (``pairs_open`` false) until the
        next pyramid-with-waste move. A position found lost that way only is kept apart
        (``lost_closed``) from one lost outright."""
        if not self.canonical:
            return super().win_line(state)
        self.tick()
        state, forced = self.expand(state, True)
        if self.is_win(state):
            return forced
        # A forced pyramid card with the waste top is such a move too: pyramid pairs open after it.
        pairs_open = pairs_open or any(
            step.a.kind == "pair" and WASTE in step.a.spots and UNDER not in step.a.spots for step in forced
        )
        if self.known_dead(state) or (not pairs_open and self.closed_dead(state)):
            return None
        if self.hopeless(state):
            self.mark_dead(state)
            return None
        for step, child, opens in self.canonical_successors(state, pairs_open):
            rest = self.win_line(child, opens)
            if rest is not None:
                return [*forced, step, *rest]
        if pairs_open:
            self.mark_dead(state)
        else:
            self.mark_closed_dead(state)
        return None

    def closed_dead(self, state: State) -> bool:
        """Lost with the pyramid pairs closed (``known_dead`` for that table)."""
        mask, out, cursor, passes = state
        lost = self.lost_closed.get((mask, out))
        return lost is not None and lost <= (passes, cursor)

    def mark_closed_dead(self, state: State) -> None:
        mask, out, cursor, passes = state
        lost = self.lost_closed.get((mask, out))
        if lost is None or (passes, cursor) < lost:
            self.lost_closed[(mask, out)] = (passes, cursor)

    def canonical_successors(self, state: State, pairs_open: bool) -> Iterator[tuple[Step, State, bool]]:
        """``successors`` in the canonical order of ``win_line``, with whether pyramid pairs are open after."""
        for step, child in self.successors(state):
            move: Move = step.a
            if move.kind == "pair" and WASTE not in move.spots:
                if pairs_open:
                    yield step, child, True
            else:
                yield step, child, move.kind == "pair" and UNDER not in move.spots

    def hopeless(self, state: State) -> bool:
        mask, out, cursor, passes = state
        if mask == 0:
            return not self.rules.draw_with_waste
        if self.rules.strict_win and self.reachable(mask, out, cursor, passes) != out:
            return True  # a buried card can never be cleared
        # (without strict win, expand() already dropped the buried cards from ``out``)
        if self.outside_check(mask, out) or self.stack_unmatched(mask, out, cursor, passes):
            return True
        if self.apex_unmatched(mask, out, cursor, passes):
            return True
        return not self.relaxed_alive(mask, out)

    def stuck_in_waste(self, mask: int, out: int, cursor: int) -> int:
        """Last pass with the drawn card: the position of the highest waste card that can never go, or -1.

        A waste card goes when it is on top, with a pyramid card, or with the card under it then: the
        card now under it (nothing under it can go first), the card now on it, or a card still to draw
        (the cards between must go first, and none of them can leave before the card on it)."""
        waste = [p for p in range(cursor) if out >> p & 1]
        stock = self.outside_counts(out & ~((1 << cursor) - 1))
        values = self.outside
        for k in range(len(waste) - 1, -1, -1):
            partner = 13 - values[waste[k]]
            if not partner or mask & self.value_masks[partner] or stock[partner]:
                continue
            if k > 0 and values[waste[k - 1]] == partner:
                continue
            if k + 1 < len(waste) and values[waste[k + 1]] == partner:
                continue
            return waste[k]
        return -1

    def stack_unmatched(self, mask: int, out: int, cursor: int, passes: int) -> bool:
        """Counting proof for the last pass, where the waste is a stack.

        To use a waste card, every card above it must go first, each with a pyramid partner;
        stock cards can be used as they are drawn. So the pyramid must pair off exactly with
        some top part of the waste plus some of the stock: for every value pair (v, 13 - v),
        the pyramid cards left over by those outside partners must be equal in number."""
        if self.rules.draw_with_waste or self.rules.strict_win or self.limit is None or passes < self.limit:
            return False
        left = self.values_left(mask)
        stock = self.outside_counts(out & ~((1 << cursor) - 1))
        # For the pair (v, w = 13 - v): with u_v, u_w cards of each taken from the top of the waste,
        # a = left[v] - u_w and b = left[w] - u_v pyramid cards are left for other partners; the stock
        # can absorb a difference of at most stock[w] one way and stock[v] the other:
        #     a >= 0, b >= 0, -stock[v] <= a - b <= stock[w]
        low = [0] * 7
        high = [0] * 7
        for v in range(1, 7):
            diff = left[v] - left[13 - v]  # a - b before anything is taken from the waste
            low[v], high[v] = diff - stock[13 - v], diff + stock[v]  # bounds on u_w - u_v
        taken = [0] * 14
        waste = out & ((1 << cursor) - 1)
        values = self.outside
        while True:
            for v in range(1, 7):
                w = 13 - v
                if taken[w] > left[v] or taken[v] > left[w]:
                    return True  # more of a value dug out of the waste than partners left, deeper too
                if not low[v] <= taken[w] - taken[v] <= high[v]:
                    break
            else:
                return False
            if not waste:
                return True
            top = waste.bit_length() - 1
            waste ^= 1 << top
            taken[values[top]] += 1

    def apex_unmatched(self, mask: int, out: int, cursor: int, passes: int) -> bool:
        """Counting proof for the pyramid's top card in the last pass.

        Every other card lies on the top card, so it goes last, and only with the outside card
        on top of the waste at that moment (a king on top goes alone: then the same holds for the
        second row's last card). If that partner is in the waste now, every card above
        it and every card drawn meanwhile must go before it; if it is in the stock, every card
        drawn after it must. Either way the pyramid must pair off exactly against those cards,
        plus any of the stock cards drawn before the partner."""
        rules = self.rules
        if (
            rules.draw_with_waste
            or rules.strict_win
            or rules.pair_with_cover
            or self.limit is None
            or passes < self.limit
            or not mask & 1
        ):
            return False
        values = self.values
        if values[0] != KING:
            partners = {13 - values[0]}
        else:
            # A king on top goes alone; the last card before it is then the second row's last one.
            last = [i for i in (1, 2) if mask >> i & 1]
            if not last or any(values[i] == KING for i in last):
                return False
            if len(last) == 2 and values[1] + values[2] == 13:
                return False  # they may leave together, as a pair
            partners = {13 - values[i] for i in last}
        left = self.values_left(mask)
        cards = self.outside
        waste = [cards[p] for p in range(cursor - 1, -1, -1) if out >> p & 1]  # top first
        stock = [cards[p] for p in range(cursor, len(cards)) if out >> p & 1]  # in draw order
        dug = _Balance(left, _NONE, _NONE)
        for value in waste:  # the partner lies in the waste: every card drawn from now on goes too
            if dug.take(value) < 0:
                break  # digging deeper only takes more
            if value in partners and _fits_with(dug.copy(), stock):
                return False
        before = [0] * 14
        for j, value in enumerate(stock):  # the partner is the j-th card still to draw
            if value in partners:
                base = _Balance(left, _NONE, before)
                base.take(value)
                # ... with a top part of the waste, and every card drawn after it
                for card in [0, *waste]:
                    if base.take(card) < 0:
                        break
                    if _fits_with(base.copy(), stock[j + 1 :]):
                        return False
            before[value] += 1
        return True

    def reachable(self, mask: int, out: int, cursor: int, passes: int) -> int:
        """Outside cards that may still become the waste top.

        Once no turn of the waste is left, a waste card that can never be removed (no partner
        value left in the pyramid) buries every card under it for good. With the drawn card, a
        waste card can also go with the card under it or on it, or with a card still to draw
        (``stuck_in_waste``); one that can do none of these buries itself and the cards under it."""
        if self.limit is None or passes < self.limit:
            return out
        if self.rules.draw_with_waste:
            stuck = self.stuck_in_waste(mask, out, cursor)
            return out if stuck < 0 else out & ~((1 << (stuck + 1)) - 1)
        below = out & ((1 << cursor) - 1)
        keep = out & ~below
        while below:
            top = below.bit_length() - 1
            value = self.outside[top]
            if value != KING and not mask & self.value_masks[13 - value]:
                break  # stuck on top: everything under it is out of reach
            keep |= 1 << top
            below &= ~(1 << top)
        return keep

    def relaxed_key(self, mask: int, out: int) -> State:
        if not isinstance(self.relaxed, _CountSearch):
            return (mask, out)
        return (mask, tuple(self.outside_counts(out)[1:13]))

    def relaxed_alive(self, mask: int, out: int) -> bool:
        """Whether the position is winnable with unlimited turns of the waste (a bound, shared memo)."""
        key = self.relaxed_key(mask, out)
        alive = self._alive.get(key)
        if alive is None:
            self.relaxed.nodes = 0
            if isinstance(self.relaxed, _OrderSearch):
                alive = self.relaxed.reaches_win(key, self._alive)
            else:
                alive = self.relaxed.win_line(key) is not None
            self.nodes += self.relaxed.nodes
            self._alive[key] = alive
        return alive

    def relaxed_most(self, mask: int, out: int) -> int:
        """Most pyramid cards removable with unlimited turns: an upper bound for this position."""
        return self.relaxed.most_removed(self.relaxed_key(mask, out), self._relaxed_memo)

    def bound(self, state: State) -> int:
        return self.relaxed_most(state[0], state[1])

    def successors(self, state: State) -> Iterator[tuple[Step, State]]:
        mask, out, cursor, passes = state
        free = _free(mask)
        for i, j in self.pyramid_pairs(mask, free):
            yield Step("m", Move("pair", (i, j))), (mask & ~(1 << i) & ~(1 << j), out, cursor, passes)
        top, under = self.tops(out, cursor)
        if top >= 0:
            for i in free:
                if self.values[i] + self.outside[top] == 13:
                    yield Step("m", Move("pair", (i, WASTE))), (mask & ~(1 << i), out & ~(1 << top), cursor, passes)
            if self.rules.draw_with_waste and under >= 0 and self.outside[top] + self.outside[under] == 13:
                yield Step("m", Move("pair", (WASTE, UNDER))), (mask, out & ~(1 << top) & ~(1 << under), cursor, passes)
        ahead = out >> cursor
        if ahead:
            nxt = cursor + (ahead & -ahead).bit_length()
            yield Step("m", Move("draw")), (mask, out, nxt, passes)
        elif out and (self.limit is None or passes < self.limit):
            yield Step("m", Move("turn")), (mask, out, 0, passes + 1)
