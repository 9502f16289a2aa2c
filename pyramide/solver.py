"""Exact search over Pyramide positions: winnable?, a winning line, hints, most cards removable.

The search works on compact states and turns its answer back into engine moves.

- With unlimited turns of the waste, every stock or waste card can be brought to
  the waste top without changing anything else, so the stock order does not
  matter, outside cards of one value are interchangeable and a state is (pyramid
  mask, count of outside cards per value). Pairing two outside cards (the
  drawn-card-with-waste variant) cannot help to clear the pyramid then; only under
  strict win does it matter, and there the pair "top + under" is any two
  neighbours in the (fixed) cyclic order of the outside cards, so a state is
  (pyramid mask, mask of remaining outside cards).
- With limited passes the full state is searched: (pyramid mask, remaining
  outside cards, how far the stock has been drawn, passes used).

Kings are removed as soon as they are free (never a loss), and so is a free card
whose only possible partner is available. A transposition table remembers dead
states (a position lost with more turns left is lost with fewer), and a position
is proved hopeless early when some pyramid card has no partner left that could
ever be free together with it, or when the cards of a value pair cannot be
matched up by counting. In the last pass the waste is a stack, which gives three
more proofs: cards buried under an unremovable card are out of reach; the pyramid
must pair off against a top part of the waste plus some of the stock; and the
pyramid's top card, which goes last, needs its partner on top at the very end.

The limited-passes search (winning line and most cards removable) also exists compiled, in
``_fastsolve.c``: the same search step for step, with the same answers and node counts, used
when it was built. This module stays its reference and the fallback.
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Iterator
from copy import copy
from dataclasses import dataclass, field, replace
from enum import StrEnum

from .cards import KING
from .codes import MAX_DEAL_NUMBER
from .game import COVERS, PYRAMID_SIZE, UNDER, WASTE, Game, Move
from .rules import Rules

try:  # the compiled copy of _FullSearch (built from _fastsolve.c when a C compiler is there)
    from . import _fastsolve
except ImportError:  # pragma: no cover - depends on the machine
    _fastsolve = None
if os.environ.get("PYRAMIDE_PURE_SOLVER"):
    _fastsolve = None

FULL = (1 << PYRAMID_SIZE) - 1
DEFAULT_NODE_LIMIT = 2_000_000
# Node limits for a question a player waits for (a hint, the end-of-game verdict, a winnable deal):
# about the same wall time, a few seconds at most, for the Python search and the compiled core.
PYTHON_WAIT_NODES = 300_000
COMPILED_WAIT_NODES = 3_000_000


def has_compiled_core() -> bool:
    """Whether the compiled core was built (and not switched off with PYRAMIDE_PURE_SOLVER)."""
    return _fastsolve is not None


def compiled_for(rules: Rules) -> bool:
    """Whether the compiled core runs the searches under these rules: those with limited passes."""
    return has_compiled_core() and rules.pass_limit is not None


def wait_nodes(rules: Rules) -> int:
    """The node limit for a question a player waits for under these rules."""
    return COMPILED_WAIT_NODES if compiled_for(rules) else PYTHON_WAIT_NODES


class Verdict(StrEnum):
    WON = "won"
    IMPOSSIBLE = "impossible"
    UNDECIDED = "undecided"


@dataclass(frozen=True, slots=True)
class Solution:
    verdict: Verdict
    line: tuple[Move, ...] = ()
    nodes: int = 0

    @property
    def won(self) -> bool:
        return self.verdict is Verdict.WON


@dataclass(frozen=True, slots=True)
class Hint:
    """The suggested move, and whether it lies on a winning line.

    ``lost`` is true only when the solver proved that no winning line is left; ``removable``
    is then the most pyramid cards the game can still end with removed (when known)."""

    move: Move | None
    winning: bool
    lost: bool = False
    removable: int | None = None


class _Undecided(Exception):
    pass


def _relatives() -> tuple[list[int], list[int]]:
    """For each card: mask of cards above or below it (ancestors and descendants), and of direct neighbours."""
    below = [0] * PYRAMID_SIZE  # cards that (transitively) cover i
    for i in range(PYRAMID_SIZE - 1, -1, -1):
        for c in COVERS[i]:
            below[i] |= (1 << c) | below[c]
    related = [below[i] for i in range(PYRAMID_SIZE)]
    for i in range(PYRAMID_SIZE):
        for j in range(PYRAMID_SIZE):
            if below[j] >> i & 1:
                related[i] |= 1 << j
    direct = [0] * PYRAMID_SIZE
    for i in range(PYRAMID_SIZE):
        for c in COVERS[i]:
            direct[i] |= 1 << c
            direct[c] |= 1 << i
    return related, direct


_RELATED, _DIRECT = _relatives()
_COVER_MASK = [sum(1 << c for c in COVERS[i]) for i in range(PYRAMID_SIZE)]


_FREE_CACHE: dict[int, tuple[int, ...]] = {}


def _free(mask: int) -> tuple[int, ...]:
    """Free pyramid cards of a mask (cached: only a few thousand shapes ever occur)."""
    free = _FREE_CACHE.get(mask)
    if free is None:
        free = tuple(i for i in range(PYRAMID_SIZE) if mask >> i & 1 and not mask & _COVER_MASK[i])
        if len(_FREE_CACHE) < 200_000:
            _FREE_CACHE[mask] = free
    return free


# A step is an abstract move of the compact search, turned into engine moves by _realize:
#   ("k", i)        pyramid king i            ("pp", i, j)   pyramid pair
#   ("po", i, v)    pyramid i + an outside card of value v (counts search)
#   ("pc", i, p)    pyramid i + outside card at position p
#   ("cc", p, q)    outside neighbours p < q (W variant: under p, top q)
#   ("ck", p)       outside king at position p
#   ("ok",)         any outside king (counts search, strict win)
#   ("m", move)     an engine move, as is (full search)
Step = tuple


_NONE = (0,) * 14


class _Balance:
    """Whether the pyramid's cards (``left`` per value) pair off against outside cards that must all
    be used (``taken``) plus any of ``spare`` ones, kept up to date one taken card at a time.

    ``status``: 1 they do, 0 they do not, -1 they do not and never will with more cards taken."""

    __slots__ = ("a", "b", "high", "low", "ok", "status", "wrong")

    def __init__(self, left: list[int], taken: list[int], spare: list[int] | tuple[int, ...]) -> None:
        self.a = [0] * 7  # pyramid cards of value v left for pyramid partners
        self.b = [0] * 7  # ... of value 13 - v
        self.low = [0] * 7
        self.high = [0] * 7
        self.ok = [True] * 7
        self.wrong = 0
        self.status = 1
        for v in range(1, 7):
            a, b = left[v] - taken[13 - v], left[13 - v] - taken[v]
            self.a[v], self.b[v] = a, b
            self.low[v], self.high[v] = -spare[v], spare[13 - v]
            if a < 0 or b < 0:
                self.status = -1
                return
            if not self.low[v] <= a - b <= self.high[v]:
                self.ok[v] = False
                self.wrong += 1
        self.status = 0 if self.wrong else 1

    def copy(self) -> _Balance:
        other = _Balance.__new__(_Balance)
        other.a, other.b, other.ok = self.a.copy(), self.b.copy(), self.ok.copy()
        other.low, other.high = self.low, self.high  # never changed after creation
        other.wrong, other.status = self.wrong, self.status
        return other

    def take(self, value: int) -> int:
        """One more outside card of ``value`` is used; returns the new status."""
        if self.status < 0 or not 0 < value < 13:
            return self.status
        if value <= 6:
            v = value
            self.b[v] -= 1
        else:
            v = 13 - value
            self.a[v] -= 1
        a, b = self.a[v], self.b[v]
        if a < 0 or b < 0:
            self.status = -1
            return -1
        ok = self.low[v] <= a - b <= self.high[v]
        if ok != self.ok[v]:
            self.ok[v] = ok
            self.wrong += -1 if ok else 1
        self.status = 0 if self.wrong else 1
        return self.status


def _fits_with(balance: _Balance, cards: list[int]) -> bool:
    """Whether the balance holds after taking some first part (maybe none) of ``cards``."""
    if balance.status > 0:
        return True
    for value in cards:
        status = balance.take(value)
        if status:
            return status > 0
    return False


class _Search:
    """Shared machinery: pyramid values, compatibility masks, node counting, DFS."""

    def __init__(self, game: Game, node_limit: int) -> None:
        self.rules: Rules = game.rules
        self.values = [card.value if card else 0 for card in game.pyramid]
        self.start_mask = sum(1 << i for i, card in enumerate(game.pyramid) if card is not None)
        self.value_masks = [0] * 14
        for i, v in enumerate(self.values):
            if v:
                self.value_masks[v] |= 1 << i
        # compat[i]: pyramid cards that may ever pair with i (not above or below it, or its direct
        # neighbour under the card-with-cover variant), of the partner value.
        self.compat = [0] * PYRAMID_SIZE
        for i, v in enumerate(self.values):
            if v and v != KING:
                allowed = ~_RELATED[i]
                if self.rules.pair_with_cover:
                    allowed |= _DIRECT[i]
                self.compat[i] = self.value_masks[13 - v] & allowed
        self.node_limit = node_limit
        self.nodes = 0
        self.deadline: float | None = None  # time.monotonic() after which the search gives up (undecided)
        self.dead: set = set()
        self._values_left: dict[int, list[int]] = {}
        self._outside_counts: dict[int, list[int]] = {}
        self.outside: list[int] = []  # values of the outside cards, for the searches that track them

    def tick(self) -> None:
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise _Undecided
        if not self.nodes & 1023 and self.deadline is not None and time.monotonic() > self.deadline:
            raise _Undecided

    def set_deadline(self, deadline: float | None) -> None:
        self.deadline = deadline

    def pyramid_pairs(self, mask: int, free: tuple[int, ...]) -> Iterator[tuple[int, int]]:
        values = self.values
        for a in range(len(free)):
            i = free[a]
            for b in range(a + 1, len(free)):
                j = free[b]
                if values[i] + values[j] == 13:
                    yield i, j
        if self.rules.pair_with_cover:
            # i covered by exactly one card j, which is free.
            for i in range(PYRAMID_SIZE):
                if mask >> i & 1 and values[i] != KING:
                    cover = mask & _COVER_MASK[i]
                    if cover and not cover & (cover - 1):
                        j = cover.bit_length() - 1
                        if j in free and values[i] + values[j] == 13:
                            yield i, j

    def remove_kings(self, mask: int, steps: list[Step]) -> int:
        """Remove every free pyramid king, again and again (never a loss), noting each as a step."""
        kings = self.value_masks[KING]
        while True:
            free_kings = [i for i in _free(mask) if kings >> i & 1]
            if not free_kings:
                return mask
            for i in free_kings:
                mask &= ~(1 << i)
                steps.append(("k", i))

    def outside_counts(self, out: int) -> list[int]:
        """How many outside cards of each value remain in ``out``, a mask over ``self.outside``
        (the searches that track outside cards one by one; cached per search)."""
        counts = self._outside_counts.get(out)
        if counts is None:
            counts = [0] * 14
            for p, v in enumerate(self.outside):
                if out >> p & 1:
                    counts[v] += 1
            self._outside_counts[out] = counts
        return counts

    def outside_check(self, mask: int, out: int) -> bool:
        """Orphan and counting proofs against the outside cards left in ``out``."""
        counts = self.outside_counts(out)
        return self.orphan(mask, [c > 0 for c in counts]) or self.unmatched(mask, counts)

    def values_left(self, mask: int) -> list[int]:
        """How many pyramid cards of each value remain in ``mask``."""
        counted = self._values_left.get(mask)
        if counted is None:
            counted = [(mask & vm).bit_count() for vm in self.value_masks]
            self._values_left[mask] = counted
        return counted

    def unmatched(self, mask: int, outside: list[int]) -> bool:
        """Counting proof: the cards of some value pair cannot all be matched up.

        With a and b pyramid cards of values v and 13 - v, and c and d outside cards of those
        values, some x pyramid-pyramid pairs must leave a - x <= d and b - x <= c."""
        left = self.values_left(mask)
        for v in range(1, 7):
            a, b = left[v], left[13 - v]
            if max(a - outside[13 - v], b - outside[v], 0) > min(a, b):
                return True
            if self.rules.strict_win and not self.rules.draw_with_waste and (outside[v] > b or outside[13 - v] > a):
                return True
        return False

    def orphan(self, mask: int, outside_has: list[bool]) -> bool:
        """Some pyramid card has no partner left anywhere it could meet."""
        m = mask & ~self.value_masks[KING]
        while m:
            low = m & -m
            i = low.bit_length() - 1
            m ^= low
            if not outside_has[13 - self.values[i]] and not mask & self.compat[i]:
                return True
        return False

    # -- generic depth-first search
    def expand(self, state: tuple) -> tuple[tuple, list[Step]]:
        raise NotImplementedError

    def successors(self, state: tuple) -> Iterator[tuple[Step, tuple]]:
        raise NotImplementedError

    def is_win(self, state: tuple) -> bool:
        raise NotImplementedError

    def hopeless(self, state: tuple) -> bool:
        raise NotImplementedError

    def start(self) -> tuple:
        raise NotImplementedError

    def known_dead(self, state: tuple) -> bool:
        return state in self.dead

    def mark_dead(self, state: tuple) -> None:
        self.dead.add(state)

    def win_line(self, state: tuple) -> list[Step] | None:
        self.tick()
        state, forced = self.expand(state)
        if self.is_win(state):
            return forced
        if self.known_dead(state) or self.hopeless(state):
            self.mark_dead(state)
            return None
        for step, child in self.successors(state):
            rest = self.win_line(child)
            if rest is not None:
                return [*forced, step, *rest]
        self.mark_dead(state)
        return None

    def most_removed(self, state: tuple, memo: dict) -> int:
        """Most pyramid cards removable from ``state`` (counting those removed by forced kings)."""
        self.tick()
        mask0 = state[0]
        state, _ = self.expand(state)
        gained = (mask0 ^ state[0]).bit_count()
        best = memo.get(state)
        if best is None:
            best = 0
            if state[0]:
                ceiling = self.bound(state)
                for _, child in self.successors(state):
                    if best >= ceiling:
                        break
                    best = max(best, (state[0] ^ child[0]).bit_count() + self.most_removed(child, memo))
            memo[state] = best
        return gained + best

    def bound(self, state: tuple) -> int:
        """An upper bound on the cards removable from an expanded state."""
        return state[0].bit_count()


class _CountSearch(_Search):
    """Unlimited passes, no drawn-card-with-waste: outside cards by value only."""

    def __init__(self, game: Game, node_limit: int) -> None:
        super().__init__(game, node_limit)
        self.counts = [0] * 14
        for card in (*game.stock, *game.waste):
            self.counts[card.value] += 1

    def start(self) -> tuple:
        return (self.start_mask, tuple(self.counts[1:13]))

    def expand(self, state: tuple) -> tuple[tuple, list[Step]]:
        mask, counts = state
        forced: list[Step] = []
        mask = self.remove_kings(mask, forced)
        return (mask, counts), forced

    def is_win(self, state: tuple) -> bool:
        return state[0] == 0 and (not self.rules.strict_win or not any(state[1]))

    def hopeless(self, state: tuple) -> bool:
        mask, counts = state
        if mask == 0:
            return True  # not a win (strict win with outside cards left and no pyramid partner)
        outside = [0, *counts, 0]
        return self.orphan(mask, [c > 0 for c in outside]) or self.unmatched(mask, outside)

    def successors(self, state: tuple) -> Iterator[tuple[Step, tuple]]:
        mask, counts = state
        free = _free(mask)
        values = self.values
        for i, j in self.pyramid_pairs(mask, free):
            yield ("pp", i, j), (mask & ~(1 << i) & ~(1 << j), counts)
        tried = set()
        for i in free:
            partner = 13 - values[i]
            if counts[partner - 1] and (i, partner) not in tried:
                tried.add((i, partner))
                new = list(counts)
                new[partner - 1] -= 1
                yield ("po", i, partner), (mask & ~(1 << i), tuple(new))


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
                forced.append(("ck", p))
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
            yield ("pp", i, j), (mask & ~(1 << i) & ~(1 << j), out)
        for i in free:
            partner = 13 - self.values[i]
            for p, v in enumerate(self.outside):
                if v == partner and out >> p & 1:
                    yield ("pc", i, p), (mask & ~(1 << i), out & ~(1 << p))
        for p, q in self.neighbour_pairs(out):
            yield ("cc", p, q), (mask, out & ~(1 << p) & ~(1 << q))


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
        unlimited = copy(game)
        unlimited.rules = replace(game.rules, pass_limit=None)
        self.relaxed: _Search = _search_for(unlimited, node_limit)
        self.relaxed.node_limit = 1 << 62  # counted into this search's own nodes
        self._alive: dict[tuple, bool] = {}
        self._relaxed_memo: dict = {}

    def start(self) -> tuple:
        return (self.start_mask, (1 << len(self.outside)) - 1, self.cursor, self.passes)

    def set_deadline(self, deadline: float | None) -> None:
        super().set_deadline(deadline)
        self.relaxed.set_deadline(deadline)

    def compiled_args(self) -> tuple:
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
        status, self.nodes, line = _fastsolve.solve(*self.compiled_args())
        if status == 2:
            raise _Undecided
        if status == 0:
            return None
        spots: list[int | str] = [*range(PYRAMID_SIZE), WASTE, UNDER]  # 28: waste top, 29: the card under it
        kinds = ("pair", "king", "draw", "turn")
        return [("m", Move(kinds[kind], tuple(spots[s] for s in (a, b) if s >= 0))) for kind, a, b in line]

    def tops(self, out: int, cursor: int) -> tuple[int, int]:
        """Positions of the waste top and the card under it (-1 when none)."""
        below = out & ((1 << cursor) - 1)
        if not below:
            return -1, -1
        top = below.bit_length() - 1
        rest = below & ~(1 << top)
        return top, (rest.bit_length() - 1 if rest else -1)

    def expand(self, state: tuple) -> tuple[tuple, list[Step]]:
        mask, out, cursor, passes = state
        forced: list[Step] = []
        kings = self.value_masks[KING]
        while True:
            free_kings = [i for i in _free(mask) if kings >> i & 1]
            top, _ = self.tops(out, cursor)
            if free_kings:
                for i in free_kings:
                    mask &= ~(1 << i)
                    forced.append(("m", Move("king", (i,))))
            elif top >= 0 and self.outside[top] == KING:
                out &= ~(1 << top)
                forced.append(("m", Move("king", (WASTE,))))
            else:
                if not self.rules.strict_win:
                    # Cards buried for good under an unremovable waste card change nothing any more:
                    # forget them, so that positions differing only there are one state.
                    out = self.reachable(mask, out, cursor, passes)
                pair = self.only_partner_pair(mask, out, top)
                if pair is None:
                    return (mask, out, cursor, passes), forced
                i, partner = pair
                mask &= ~(1 << i)
                if partner == WASTE:
                    out &= ~(1 << top)
                else:
                    mask &= ~(1 << partner)  # type: ignore[operator]
                forced.append(("m", Move("pair", (i, partner))))

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

    def is_win(self, state: tuple) -> bool:
        return state[0] == 0 and (not self.rules.strict_win or state[1] == 0)

    def known_dead(self, state: tuple) -> bool:
        """Lost, because a lost position reaches it by drawing and turning the waste only.

        From (cursor c', passes p') the game reaches (c, p) with the same cards by drawing,
        and turning the waste when needed, whenever (p', c') <= (p, c). So if it is lost there,
        it is lost here: the table keeps the smallest lost (passes, cursor) per set of cards."""
        mask, out, cursor, passes = state
        lost = self.lost.get((mask, out))
        return lost is not None and lost <= (passes, cursor)

    def mark_dead(self, state: tuple) -> None:
        mask, out, cursor, passes = state
        lost = self.lost.get((mask, out))
        if lost is None or (passes, cursor) < lost:
            self.lost[(mask, out)] = (passes, cursor)

    def hopeless(self, state: tuple) -> bool:
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
        value left in the pyramid) buries every card under it for good."""
        if self.rules.draw_with_waste or self.limit is None or passes < self.limit:
            return out
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

    def relaxed_key(self, mask: int, out: int) -> tuple:
        if not isinstance(self.relaxed, _CountSearch):
            return (mask, out)
        return (mask, tuple(self.outside_counts(out)[1:13]))

    def relaxed_alive(self, mask: int, out: int) -> bool:
        """Whether the position is winnable with unlimited turns of the waste (a bound, shared memo)."""
        key = self.relaxed_key(mask, out)
        alive = self._alive.get(key)
        if alive is None:
            self.relaxed.nodes = 0
            alive = self.relaxed.win_line(key) is not None
            self.nodes += self.relaxed.nodes
            self._alive[key] = alive
        return alive

    def relaxed_most(self, mask: int, out: int) -> int:
        """Most pyramid cards removable with unlimited turns: an upper bound for this position."""
        return self.relaxed.most_removed(self.relaxed_key(mask, out), self._relaxed_memo)

    def bound(self, state: tuple) -> int:
        return self.relaxed_most(state[0], state[1])

    def successors(self, state: tuple) -> Iterator[tuple[Step, tuple]]:
        mask, out, cursor, passes = state
        free = _free(mask)
        for i, j in self.pyramid_pairs(mask, free):
            yield ("m", Move("pair", (i, j))), (mask & ~(1 << i) & ~(1 << j), out, cursor, passes)
        top, under = self.tops(out, cursor)
        if top >= 0:
            for i in free:
                if self.values[i] + self.outside[top] == 13:
                    yield ("m", Move("pair", (i, WASTE))), (mask & ~(1 << i), out & ~(1 << top), cursor, passes)
            if self.rules.draw_with_waste and under >= 0 and self.outside[top] + self.outside[under] == 13:
                yield ("m", Move("pair", (WASTE, UNDER))), (mask, out & ~(1 << top) & ~(1 << under), cursor, passes)
        ahead = out >> cursor
        if ahead:
            nxt = cursor + (ahead & -ahead).bit_length()
            yield ("m", Move("draw")), (mask, out, nxt, passes)
        elif out and (self.limit is None or passes < self.limit):
            yield ("m", Move("turn")), (mask, out, 0, passes + 1)


def _search_for(game: Game, node_limit: int, deadline: float | None = None) -> _Search:
    search: _Search
    if game.rules.pass_limit is not None:
        search = _FullSearch(game, node_limit)
    elif game.rules.draw_with_waste and game.rules.strict_win:
        search = _OrderSearch(game, node_limit)
    else:
        # With unlimited turns any outside card can be brought to the top, so pairing two outside cards
        # (the W variant) never helps to clear the pyramid: without strict win, W plays like N.
        search = _CountSearch(game, node_limit)
    search.set_deadline(deadline)
    return search


def solve(game: Game, node_limit: int = DEFAULT_NODE_LIMIT, deadline: float | None = None) -> Solution:
    """Won (with a winning line of engine moves), impossible, or undecided within ``node_limit`` nodes
    (and before ``deadline``, a ``time.monotonic()`` value, when one is given)."""
    if game.outcome is not None:
        verdict = Verdict.WON if game.outcome.value == "won" else Verdict.IMPOSSIBLE
        return Solution(verdict)
    search = _search_for(game, node_limit, deadline)
    try:
        if isinstance(search, _FullSearch) and compiled_for(game.rules):
            steps = search.compiled_line()
        else:
            steps = search.win_line(search.start())
    except _Undecided:
        return Solution(Verdict.UNDECIDED, nodes=search.nodes)
    if steps is None:
        return Solution(Verdict.IMPOSSIBLE, nodes=search.nodes)
    return Solution(Verdict.WON, tuple(_realize(game, search, steps)), search.nodes)


def max_removable(game: Game, node_limit: int = DEFAULT_NODE_LIMIT, deadline: float | None = None) -> int | None:
    """The most pyramid cards that can still be removed from this position (None if undecided)."""
    search = _search_for(game, node_limit, deadline)
    if isinstance(search, _FullSearch) and compiled_for(game.rules):
        status, search.nodes, most = _fastsolve.most(*search.compiled_args())
        return None if status == 2 else most
    try:
        return search.most_removed(search.start(), {})
    except _Undecided:
        return None


def hint(game: Game, node_limit: int = DEFAULT_NODE_LIMIT, deadline: float | None = None) -> Hint:
    """The next move of a winning line or, when there is none, the move that keeps the most cards removable."""
    moves = game.legal_moves()
    if not moves:
        return Hint(None, False, lost=game.outcome is not None and game.outcome.value != "won")
    solution = solve(game, node_limit, deadline)
    if solution.won and solution.line:
        return Hint(solution.line[0], True)
    best: tuple[int, int] | None = None
    choice = moves[0]
    exact = True
    for move in moves:
        trial = game.copy()
        trial.play(move)
        rest = max_removable(trial, node_limit // max(len(moves), 1), deadline)
        exact = exact and rest is not None
        score = (trial.removed + (rest or 0), 0 if move.kind in ("draw", "turn") else 1)
        if best is None or score > best:
            best, choice = score, move
    lost = solution.verdict is Verdict.IMPOSSIBLE
    return Hint(choice, False, lost=lost, removable=best[0] if best and exact else None)


def _realize(game: Game, search: _Search, steps: list[Step]) -> list[Move]:
    """Turn abstract steps into engine moves by playing them on a copy of ``game``."""
    trial = game.copy()
    trial.selected = None
    out: list[Move] = []

    def play(move: Move) -> None:
        out.append(move)
        trial.play(move)

    def cycle_until(done) -> None:  # noqa: ANN001
        for _ in range(2 * 52 + 2):
            if done():
                return
            play(Move("draw") if trial.stock else Move("turn"))
        raise AssertionError("solver line cannot be realised")

    cards = getattr(search, "cards", None)
    for step in steps:
        kind = step[0]
        if kind == "m":
            play(step[1])
        elif kind == "k":
            play(Move("king", (step[1],)))
        elif kind == "pp":
            play(Move("pair", (step[1], step[2])))
        elif kind == "po":
            value = step[2]
            cycle_until(lambda v=value: bool(trial.waste) and trial.waste[-1].value == v)
            play(Move("pair", (step[1], WASTE)))
        elif kind == "pc":
            card = cards[step[2]]
            cycle_until(lambda c=card: bool(trial.waste) and trial.waste[-1] == c)
            play(Move("pair", (step[1], WASTE)))
        elif kind == "cc":
            low, high = cards[step[1]], cards[step[2]]
            cycle_until(lambda a=low, b=high: len(trial.waste) >= 2 and trial.waste[-2:] == (a, b))
            play(Move("pair", (WASTE, UNDER)))
        elif kind == "ck":
            card = cards[step[1]]
            cycle_until(lambda c=card: bool(trial.waste) and trial.waste[-1] == c)
            play(Move("king", (WASTE,)))
    # Strict win under the counts search: outside kings go last.
    while game.rules.strict_win and trial.outcome is None and any(c.is_king for c in (*trial.stock, *trial.waste)):
        cycle_until(lambda: bool(trial.waste) and trial.waste[-1].is_king)
        play(Move("king", (WASTE,)))
    return out


@dataclass
class WinnablePick:
    number: int
    tried: int
    nodes: int = 0
    skipped_undecided: list[int] = field(default_factory=list)


def first_winnable(
    start: int,
    rules: Rules = Rules(),
    node_limit: int = DEFAULT_NODE_LIMIT,
    max_tries: int | None = None,
    node_budget: int | None = None,
    deadline: float | None = None,
) -> WinnablePick | None:
    """The first deal number from ``start`` upwards that is proved winnable under ``rules``.

    Deterministic on every machine: the limits count nodes and tries, not seconds, and an
    undecided deal is skipped the same way everywhere. ``None`` when ``max_tries`` deals or
    ``node_budget`` nodes were spent without success, or once ``deadline`` (``time.monotonic()``)
    passed: a deadline trades that determinism for a bounded wait."""
    tried = 0
    nodes = 0
    skipped: list[int] = []
    number = start
    while (
        (max_tries is None or tried < max_tries)
        and (node_budget is None or nodes < node_budget)
        and (deadline is None or time.monotonic() < deadline)
    ):
        deal = number % (MAX_DEAL_NUMBER + 1)
        limit = node_limit if node_budget is None else min(node_limit, node_budget - nodes)
        result = solve(Game.from_number(deal, rules), limit, deadline)
        tried += 1
        nodes += result.nodes
        if result.won:
            return WinnablePick(deal, tried, nodes, skipped)
        if result.verdict is Verdict.UNDECIDED:
            skipped.append(deal)
        number += 1
    return None


__all__ = [
    "Hint",
    "Solution",
    "Verdict",
    "compiled_for",
    "first_winnable",
    "has_compiled_core",
    "hint",
    "max_removable",
    "solve",
    "wait_nodes",
]
