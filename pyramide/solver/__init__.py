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

Every limited-passes search keeps the outside cards at the first places holding their values (one
state for positions that differ only in which card of a value is left) and tries pyramid pairs only
before a move of the stock or waste alone (the two kinds swap places in any line); with the drawn
card, a waste card that can never go in the last pass buries itself and the cards under it.
Strict win with the drawn card (S and W together), the hardest family, has more, all exact:
- The unlimited-turns search there (``order``) only tries the pairs of one card whose partners left
  are all available now (every move stays possible until one of its cards goes, so such a pair can
  move to the front of any winning line), and its answers, every position of a winning line it found
  included, are kept for the limited-passes search that asks it as a bound.
- In the last pass, the waste top is paired at once with its one possible partner when that one is
  available (searching for a win only).

The limited-passes search (winning line and most cards removable) also exists compiled, in
``pyramide/_fastsolve.c``: the same search step for step, with the same answers and node counts, used
when it was built. This package stays its reference and the fallback.

Modules: ``base`` (geometry, steps, node counting, the depth-first search), ``count`` and ``order``
(unlimited turns), ``full`` (limited passes and its proofs), ``lines`` (steps back to engine moves),
``native`` (the compiled core). This module is the public API.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum

from ..codes import MAX_DEAL_NUMBER
from ..game import Game, Move
from ..rules import Rules
from . import native
from .base import _Search, _Undecided
from .full import _FullSearch, unlimited_search
from .lines import _realize
from .native import compiled_for, has_compiled_core

DEFAULT_NODE_LIMIT = 2_000_000


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


def _search_for(game: Game, node_limit: int, deadline: float | None = None) -> _Search:
    search = _FullSearch(game, node_limit) if game.rules.pass_limit is not None else unlimited_search(game, node_limit)
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
        status, search.nodes, most = native.compiled().most(*search.compiled_args())
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
]
