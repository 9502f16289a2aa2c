"""The deal difficulty (pyramide.difficulty): its distribution, its tier thresholds, and how well it
predicts how often players win.

Usage:
  nice -n 10 .venv/bin/python bench/difficulty.py thresholds [COUNT] [TOKEN]
      rate the first COUNT (default 10,000) winnable deals from deal number 0 under the rules TOKEN
      (default N) and print the score distribution and the 40th/70th/90th percentiles, which are
      the tier thresholds kept in pyramide.difficulty.THRESHOLDS
  nice -n 10 .venv/bin/python bench/difficulty.py validate [COUNT] [GAMES]
      on COUNT (default 300) winnable deals from deal number 5,000,000, which the thresholds never
      saw, play GAMES (default 200) games a deal by a second human-like population (other tastes,
      other seeds) and by a random-legal-move player, and print the Spearman rank correlation between
      the difficulty score and each one's win rate
  nice -n 10 .venv/bin/python bench/difficulty.py search [COUNT]
      how long finding a winnable deal of each tier takes from COUNT (default 40) random start numbers
      (what /pyramide new difficulty:<tier> and the daily wait for, in the worker)
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyramide import Game, Rules
from pyramide.difficulty import (
    THRESHOLDS,
    TIERS,
    deal_seed,
    find_rated,
    human_wins,
    play_random,
    population,
    score_of,
    tier_of,
)
from pyramide.solver import solve

PERCENTILES = (40, 70, 90)
VALIDATION_START = 5_000_000
VALIDATION_SEED = 2929


def winnable_deals(start: int, count: int, rules: Rules) -> list[Game]:
    found: list[Game] = []
    number = start
    while len(found) < count:
        game = Game.from_number(number, rules)
        if solve(game).won:
            found.append(game)
        number += 1
    return found


def percentile(ordered: list[float], share: float) -> float:
    """The nearest-rank percentile of an ordered list."""
    rank = max(1, min(len(ordered), round(share / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def ranks(values: list[float]) -> list[float]:
    """Average ranks (1-based), ties sharing the mean of their places."""
    order = sorted(range(len(values)), key=values.__getitem__)
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return result


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rank correlation: Pearson's correlation of the average ranks (ties handled)."""
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / (vx * vy) ** 0.5


def thresholds(count: int, token: str) -> None:
    rules = Rules.from_token(token)
    began = time.perf_counter()
    games = winnable_deals(0, count, rules)
    solved = time.perf_counter()
    scores = [score_of(game) for game in games]
    rated = time.perf_counter()
    ordered = sorted(scores)
    print(f"{count} winnable deals under {token} from deal number 0 (up to number {games[-1].deal.number})")
    per_deal = (rated - solved) / count * 1000
    print(f"solving: {solved - began:.1f} s; rating: {rated - solved:.1f} s, {per_deal:.1f} ms a deal")
    print(f"score mean {statistics.fmean(scores):.1f}, median {statistics.median(scores):.1f}")
    buckets = Counter(min(9, int(score // 10)) for score in scores)
    for bucket in range(10):
        share = buckets[bucket] / count
        print(f"  score {bucket * 10:3d}-{bucket * 10 + 10:<3d} {share:6.1%} {'#' * round(share * 200)}")
    cuts = tuple(percentile(ordered, p) for p in PERCENTILES)
    print("percentiles " + ", ".join(f"p{p} = {cut}" for p, cut in zip(PERCENTILES, cuts, strict=True)))
    print(f"THRESHOLDS[{token!r}] = {cuts}")
    if token in THRESHOLDS:
        tiers = Counter(tier_of(score, rules) for score in scores)
        print("with the thresholds in the code: " + ", ".join(f"{tier}: {n / count:.1%}" for tier, n in tiers.items()))


def validate(count: int, games_per_deal: int) -> None:
    rules = Rules()
    others = population(games_per_deal, VALIDATION_SEED)
    games = winnable_deals(VALIDATION_START, count, rules)
    scores, human, rand = [], [], []
    began = time.perf_counter()
    for game in games:
        scores.append(score_of(game))
        human.append(human_wins(game, others, salt=1) / games_per_deal)
        code = game.code
        rand.append(sum(play_random(game, deal_seed(code, n, 2)) for n in range(games_per_deal)) / games_per_deal)
    print(f"{count} winnable deals from deal number {VALIDATION_START}, {games_per_deal} games a deal and player kind")
    print(f"({time.perf_counter() - began:.0f} s)")
    print(f"win rate of the second human-like population: mean {statistics.fmean(human):.1%}")
    print(f"win rate of the random-legal-move player:     mean {statistics.fmean(rand):.1%}")
    print(f"Spearman rho, difficulty score vs human-like win rate: {spearman(scores, human):+.3f}")
    print(f"Spearman rho, difficulty score vs random-player win rate: {spearman(scores, rand):+.3f}")
    print(f"{'tier':8} {'deals':>5} {'human-like wins':>16} {'random wins':>12}")
    for tier in ("easy", "medium", "hard", "expert"):
        picked = [i for i, score in enumerate(scores) if str(tier_of(score, rules)) == tier]
        if picked:
            print(
                f"{tier:8} {len(picked):5d} {statistics.fmean(human[i] for i in picked):16.1%} "
                f"{statistics.fmean(rand[i] for i in picked):12.1%}"
            )


def search(count: int) -> None:
    import random

    starts = random.Random(29).sample(range(10**9), count)
    print(f"finding a winnable deal of a tier from {count} random start numbers (default rules)")
    print(f"{'tier':8} {'median ms':>9} {'p95 ms':>8} {'max ms':>8} {'numbers tried (median)':>23}")
    for tier in TIERS:
        times, tried = [], []
        for start in starts:
            began = time.perf_counter()
            found = find_rated(start, Rules(), tier)
            times.append((time.perf_counter() - began) * 1000)
            assert found is not None
            tried.append(found[0] - start + 1)
        times.sort()
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        print(f"{tier:8} {statistics.median(times):9.0f} {p95:8.0f} {times[-1]:8.0f} {statistics.median(tried):23.0f}")


def main() -> None:
    command = sys.argv[1] if len(sys.argv) > 1 else "validate"
    if command == "thresholds":
        thresholds(int(sys.argv[2]) if len(sys.argv) > 2 else 10_000, sys.argv[3] if len(sys.argv) > 3 else "N")
    elif command == "search":
        search(int(sys.argv[2]) if len(sys.argv) > 2 else 40)
    elif command == "validate":
        validate(int(sys.argv[2]) if len(sys.argv) > 2 else 300, int(sys.argv[3]) if len(sys.argv) > 3 else 200)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
