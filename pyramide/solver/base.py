"""What every search shares: pyramid geometry as bit masks, the step value, value balances, node
counting with a wall-clock deadline, and the depth-first search itself."""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from typing import Any, NamedTuple

from ..cards import KING
from ..game import COVERS, PYRAMID_SIZE, Game
from ..rules import Rules

# A search position: a bit mask of the pyramid first, then what each search keeps (stock place, passes...).
State = tuple[Any, ...]
FULL = (1 << PYRAMID_SIZE) - 1


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


@functools.lru_cache(maxsize=200_000)
def _free(mask: int) -> tuple[int, ...]:
    """Free pyramid cards of a mask (memoised: only a few thousand shapes ever occur)."""
    return tuple(i for i in range(PYRAMID_SIZE) if mask >> i & 1 and not mask & _COVER_MASK[i])


class Step(NamedTuple):
    """An abstract move of a compact search, turned into engine moves by ``lines._realize``:

    ``k`` i: pyramid king i; ``pp`` i, j: pyramid pair; ``po`` i, v: pyramid i with an outside card of
    value v (count search); ``pc`` i, p: pyramid i with the outside card at position p; ``cc`` p, q:
    outside neighbours p < q (drawn card with waste: under p, top q); ``ck`` p: the outside king at
    position p; ``m`` move: an engine move as it is (full search)."""

    kind: str
    a: Any = None
    b: Any = None


_NONE = (0,) * 14


class _Balance:
    """Whether the pyramid's cards (``left`` per value) pair off against outside cards that must all
    be used (``taken``) plus any of ``spare`` ones, kept up to date one taken card at a time.

    ``status``: 1 they do, 0 they do not, -1 they do not and never will with more cards taken."""

    __slots__ = ("a", "b", "high", "low", "ok", "status", "wrong")

    def __init__(self, left: list[int], taken: list[int] | tuple[int, ...], spare: list[int] | tuple[int, ...]) -> None:
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
        self.dead: set[State] = set()
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
                steps.append(Step("k", i))

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
    def expand(self, state: State) -> tuple[State, list[Step]]:
        raise NotImplementedError

    def successors(self, state: State) -> Iterator[tuple[Step, State]]:
        raise NotImplementedError

    def win_successors(self, state: State) -> Iterator[tuple[Step, State]]:
        """The successors a search for a win must try (all of them, unless a search knows better)."""
        return self.successors(state)

    def is_win(self, state: State) -> bool:
        raise NotImplementedError

    def hopeless(self, state: State) -> bool:
        raise NotImplementedError

    def start(self) -> State:
        raise NotImplementedError

    def known_dead(self, state: State) -> bool:
        return state in self.dead

    def mark_dead(self, state: State) -> None:
        self.dead.add(state)

    def win_line(self, state: State) -> list[Step] | None:
        self.tick()
        state, forced = self.expand(state)
        if self.is_win(state):
            return forced
        if self.known_dead(state) or self.hopeless(state):
            self.mark_dead(state)
            return None
        for step, child in self.win_successors(state):
            rest = self.win_line(child)
            if rest is not None:
                return [*forced, step, *rest]
        self.mark_dead(state)
        return None

    def most_removed(self, state: State, memo: dict[State, int]) -> int:
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
                    best = max(best, int((state[0] ^ child[0]).bit_count()) + self.most_removed(child, memo))
            memo[state] = best
        return int(gained + best)

    def bound(self, state: State) -> int:
        """An upper bound on the cards removable from an expanded state."""
        return int(state[0].bit_count())
