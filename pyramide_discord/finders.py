"""What a face asks the solver to find for a player: a deal (a winnable one, one of a difficulty) under the
rule options a command or the page gave, and how long a winning line is searched for."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable

from pyramide import Game, Rules
from pyramide.codes import MAX_DEAL_NUMBER
from pyramide.difficulty import Tier
from pyramide.i18n import t
from pyramide_service.solving import SolverService

LINE_SECONDS = 4.0  # wall-clock limit of the search for a winning line
# How /pyramide new finds a deal of its own kind (a winnable one, or one of a difficulty), with notes.
Finder = Callable[[SolverService, Rules, str], Awaitable[tuple[Game, tuple[str, ...]]]]


async def winnable_game(solver: SolverService, rules: Rules, lang: str) -> tuple[Game, tuple[str, ...]]:
    """The first deal from a random number that the solver proves winnable (a few seconds at most).
    Raises ``SolverBusy`` when too many searches wait."""
    pick = await solver.winnable(secrets.randbelow(MAX_DEAL_NUMBER + 1), rules)
    if pick is None:
        return Game.new(rules), (t(lang, "error.winnable_not_found"),)
    return Game.from_number(pick.number, rules), ()


def rated_finder(tier: Tier) -> Finder:
    """How /pyramide new finds a winnable deal of ``tier``: from a random number, in the solver's worker
    (solving and rating there, never on the event loop), for a few seconds at most."""

    async def find(solver: SolverService, rules: Rules, lang: str) -> tuple[Game, tuple[str, ...]]:
        found = await solver.rated(secrets.randbelow(MAX_DEAL_NUMBER + 1), rules, tier)
        if found is None:
            game, notes = await winnable_game(solver, rules, lang)
            return game, (t(lang, "error.difficulty_not_found"), *notes)
        return Game.from_number(found[0], rules), ()

    return find
