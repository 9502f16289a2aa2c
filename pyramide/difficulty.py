"""How hard a winnable deal is, measured: the share of a fixed, seeded population of human-like players
that fails to clear it (docs/difficulty.md).

Each player of the population plays the deal once, without undo: kings go at once, and of the pairs
on offer it takes the one it likes best (cards removed, cards it uncovers, what it can play next),
with a taste and a carelessness of its own, drawn once from a fixed seed. It draws when it sees no
pair and gives up after two passes through the stock without a removal (the game itself never ends
while a card can be drawn). The score is the percentage of the population that does not clear the
pyramid: 0 is a deal everybody clears, 100 a deal nobody in the population clears although it is
winnable. Every draw of chance is seeded by the deal's code, so a deal's score is the same on every
machine and every run.

Only the standard library, ``pyramide.game`` and the solver are used; a rating takes a few tens of
milliseconds, so the bot asks for it in the solver's worker process and keeps the answers it has.
"""

from __future__ import annotations

import random
import time
import zlib
from dataclasses import dataclass
from enum import StrEnum

from .codes import MAX_DEAL_NUMBER
from .game import COVERS, PYRAMID_SIZE, Game
from .rules import Rules
from .solver import DEFAULT_NODE_LIMIT, solve

POPULATION = 64  # players in the rating population
POPULATION_SEED = 29  # the population's tastes: changing it changes every score (and the thresholds)
GIVE_UP_PASSES = 2  # passes through the stock without a removal after which a player stops
STEP_LIMIT = 1500  # a bound for a game that would wander forever (never reached by the population)


class Tier(StrEnum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"
    EXPERT = "expert"


TIERS = tuple(Tier)

# Upper score bounds of easy, medium and hard (a higher score is expert), by rules token. Found by
# `nice -n 10 python bench/difficulty.py thresholds` over the first 10,000 winnable deals from deal
# number 0 (numbers 0-14,943) under the default rules: the 40th, 70th and 90th percentiles of their
# scores, so about 40% of winnable deals are easy, 30% medium, 20% hard and 10% expert. (Expert: at
# most one player in 64 clears it. The distribution has two humps, 23% of deals below 10 and 18%
# above 90, so the tiers are far apart in what players meet; see docs/difficulty.md.)
THRESHOLDS: dict[str, tuple[float, float, float]] = {
    "N": (23.4, 71.9, 96.9),
}


@dataclass(frozen=True, slots=True)
class Player:
    """One player of the population: how much it values uncovering cards and looking one move ahead,
    how noisy its judgement is, how often it takes any pair at random, and how often it keeps a pair
    with the waste card for later."""

    uncover: float
    lookahead: float
    noise: float
    careless: float
    patience: float


def population(size: int = POPULATION, seed: int = POPULATION_SEED) -> tuple[Player, ...]:
    chance = random.Random(seed)
    return tuple(
        Player(
            uncover=chance.uniform(0.3, 1.5),
            lookahead=chance.uniform(0.0, 1.0),
            noise=chance.uniform(0.2, 1.6),
            careless=chance.uniform(0.0, 0.15),
            patience=chance.uniform(0.0, 0.3),
        )
        for _ in range(size)
    )


POPULATION_PLAYERS = population()


class _Table:
    """A deal as values only (suits never matter): the pyramid, the stock (next card last), the waste."""

    __slots__ = ("passes", "pyramid", "rules", "stock", "waste")

    def __init__(self, game: Game) -> None:
        self.pyramid = [card.value if card is not None else 0 for card in game.pyramid]
        self.stock = [card.value for card in reversed(game.stock)]
        self.waste = [card.value for card in game.waste]
        self.passes = game.passes
        self.rules = game.rules

    def free(self) -> list[int]:
        pyramid = self.pyramid
        return [
            i
            for i in range(PYRAMID_SIZE)
            if pyramid[i] and (i >= 21 or (not pyramid[COVERS[i][0]] and not pyramid[COVERS[i][1]]))
        ]

    def removals(self) -> list[tuple[int, ...]]:
        """Every removal now: pyramid spots, with -1 for the waste top and -2 for the card under it."""
        pyramid, waste = self.pyramid, self.waste
        free = self.free()
        found: list[tuple[int, ...]] = [(i,) for i in free if pyramid[i] == 13]
        top = waste[-1] if waste else 0
        if top == 13:
            found.append((-1,))
        for n, a in enumerate(free):
            value = pyramid[a]
            for b in free[n + 1 :]:
                if value + pyramid[b] == 13:
                    found.append((a, b))
            if value + top == 13:
                found.append((a, -1))
        if self.rules.draw_with_waste and len(waste) >= 2 and top + waste[-2] == 13:
            found.append((-1, -2))
        if self.rules.pair_with_cover:
            for i in range(21):
                if pyramid[i]:
                    left, right = COVERS[i]
                    cover = [c for c in (left, right) if pyramid[c]]
                    if len(cover) == 1 and cover[0] in free and pyramid[i] + pyramid[cover[0]] == 13:
                        found.append((i, cover[0]))
        return found

    def remove(self, spots: tuple[int, ...]) -> None:
        for spot in sorted(spots):  # -2 before -1: the card under the top goes with it
            if spot >= 0:
                self.pyramid[spot] = 0
        taken = sum(1 for spot in spots if spot < 0)
        if taken:
            del self.waste[-taken:]

    def can_draw(self) -> bool:
        limit = self.rules.pass_limit
        return bool(self.stock) or (bool(self.waste) and (limit is None or self.passes < limit))

    def draw(self) -> None:
        if self.stock:
            self.waste.append(self.stock.pop())
        else:
            self.stock = self.waste[::-1]
            self.waste = []
            self.passes += 1

    def won(self) -> bool:
        if any(self.pyramid):
            return False
        return not self.rules.strict_win or not (self.stock or self.waste)


def _uncovered(pyramid: list[int], spots: tuple[int, ...]) -> int:
    """How many pyramid cards the removal of ``spots`` makes free."""
    gone = set(spots)
    count = 0
    for i in range(21):
        if pyramid[i] and i not in gone:
            left, right = COVERS[i]
            if (
                (left in gone or right in gone)
                and (not pyramid[left] or left in gone)
                and (not pyramid[right] or right in gone)
            ):
                count += 1
    return count


def _choice(table: _Table, options: list[tuple[int, ...]], player: Player, chance: random.Random) -> tuple[int, ...]:
    if len(options) == 1 or chance.random() < player.careless:
        return options[chance.randrange(len(options))]
    best, best_value = options[0], float("-inf")
    pyramid = table.pyramid
    for option in options:
        value = sum(1.0 for spot in option if spot >= 0) + player.uncover * _uncovered(pyramid, option)
        if player.lookahead:
            trial = _Table.__new__(_Table)
            trial.pyramid, trial.waste, trial.stock = list(pyramid), list(table.waste), table.stock
            trial.rules, trial.passes = table.rules, table.passes
            trial.remove(option)
            value += player.lookahead * 0.5 * len(trial.removals())
        value += chance.gauss(0.0, player.noise)
        if value > best_value:
            best, best_value = option, value
    return best


def play_human(game: Game, player: Player, seed: int) -> tuple[bool, int]:
    """One game of ``player`` from the position of ``game``: (cleared, pyramid cards left)."""
    table = _Table(game)
    chance = random.Random(seed)
    idle = 0  # draws and turns since the last removal
    for _ in range(STEP_LIMIT):
        if table.won():
            return True, 0
        options = table.removals()
        kings = [option for option in options if len(option) == 1]
        if kings:
            table.remove(kings[0])
            idle = 0
            continue
        if options and not (
            all(-1 in option for option in options) and table.can_draw() and chance.random() < player.patience
        ):
            table.remove(_choice(table, options, player, chance))
            idle = 0
            continue
        if not table.can_draw() or idle > GIVE_UP_PASSES * (len(table.stock) + len(table.waste) + 1):
            break
        table.draw()
        idle += 1
    return table.won(), sum(1 for value in table.pyramid if value)


def play_random(game: Game, seed: int) -> bool:
    """One game of a player that makes a random legal move each time (a draw or turn included)."""
    table = _Table(game)
    chance = random.Random(seed)
    idle = 0
    for _ in range(STEP_LIMIT):
        if table.won():
            return True
        options: list[tuple[int, ...] | None] = list(table.removals())
        if table.can_draw():
            options.append(None)
        if not options or idle > GIVE_UP_PASSES * (len(table.stock) + len(table.waste) + 1):
            break
        pick = options[chance.randrange(len(options))]
        if pick is None:
            table.draw()
            idle += 1
        else:
            table.remove(pick)
            idle = 0
    return table.won()


def deal_seed(code: str, player: int, salt: int = 0) -> int:
    """The seed of one player's game on one deal: stable across machines and runs (no ``hash()``)."""
    return zlib.crc32(f"{code}/{player}/{salt}".encode())


def human_wins(game: Game, players: tuple[Player, ...] = POPULATION_PLAYERS, salt: int = 0) -> int:
    """How many players of ``players`` clear the deal of ``game``."""
    code = game.code
    return sum(play_human(game, player, deal_seed(code, n, salt))[0] for n, player in enumerate(players))


@dataclass(frozen=True, slots=True)
class Rating:
    code: str
    score: float  # percent of the population that fails to clear the deal: grows with difficulty
    tier: Tier | None  # None for rules without thresholds


def _score(fails: int) -> float:
    return round(100.0 * fails / len(POPULATION_PLAYERS), 1)


def score_of(game: Game) -> float:
    return _score(len(POPULATION_PLAYERS) - human_wins(game))


def _fails_of(tier: Tier, rules: Rules) -> range:
    """The numbers of failing players that give a deal ``tier`` (an interval: the score grows with them)."""
    allowed = [fails for fails in range(len(POPULATION_PLAYERS) + 1) if tier_of(_score(fails), rules) is tier]
    return range(allowed[0], allowed[-1] + 1) if allowed else range(0)


def is_of_tier(game: Game, tier: Tier) -> bool:
    """Whether the deal of ``game`` is of ``tier``: the same answer as ``rate``, but the players stop as
    soon as the answer is known (a deal far from the tier is told after a few games, not 64)."""
    fails_allowed = _fails_of(tier, game.rules)
    if not fails_allowed:
        return False
    start = Game(game.deal, game.rules)
    code, total = start.code, len(POPULATION_PLAYERS)
    wins = fails = 0
    for n, player in enumerate(POPULATION_PLAYERS):
        if play_human(start, player, deal_seed(code, n))[0]:
            wins += 1
        else:
            fails += 1
        if fails > fails_allowed[-1] or total - wins < fails_allowed[0]:
            return False
    return True


def tier_of(score: float, rules: Rules) -> Tier | None:
    bounds = THRESHOLDS.get(rules.token)
    if bounds is None:
        return None
    for tier, bound in zip(TIERS, bounds, strict=False):
        if score <= bound:
            return tier
    return Tier.EXPERT


def rate(game: Game) -> Rating:
    """The rating of the deal of ``game`` (from its start), which the caller knows to be winnable."""
    start = Game(game.deal, game.rules)
    score = score_of(start)
    return Rating(start.code, score, tier_of(score, start.rules))


def rates(rules: Rules) -> bool:
    """Whether deals under ``rules`` get a tier."""
    return rules.token in THRESHOLDS


def find_rated(
    start: int,
    rules: Rules,
    tier: Tier | None,
    node_limit: int = DEFAULT_NODE_LIMIT,
    max_tries: int | None = None,
    deadline: float | None = None,
) -> tuple[int, Rating] | None:
    """The first deal number from ``start`` upwards that the solver proves winnable and that is of
    ``tier`` (any tier when ``None``), with its rating. Deterministic without ``deadline``; ``None``
    after ``max_tries`` deal numbers, or once ``deadline`` (``time.monotonic()``) passed."""
    tried = 0
    number = start
    while (max_tries is None or tried < max_tries) and (deadline is None or time.monotonic() < deadline):
        deal = number % (MAX_DEAL_NUMBER + 1)
        number += 1
        tried += 1
        game = Game.from_number(deal, rules)
        if not solve(game, node_limit, deadline).won:
            continue
        if tier is None or is_of_tier(game, tier):
            return deal, rate(game)
    return None


__all__ = [
    "POPULATION",
    "THRESHOLDS",
    "TIERS",
    "Player",
    "Rating",
    "Tier",
    "find_rated",
    "human_wins",
    "is_of_tier",
    "play_human",
    "play_random",
    "population",
    "rate",
    "rates",
    "tier_of",
]
