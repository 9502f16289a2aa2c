"""Render boards from random mid-game positions; print median and p99 ms per PNG and the median size.

Usage: .venv/bin/python bench/render.py [N]   (default 600)
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyramide import STOCK, Game
from pyramide.render import render_board, sprites


def random_position(rng: random.Random) -> Game:
    game = Game.from_number(rng.randrange(2**35))
    game.started_at = time.time() - rng.randrange(30, 900)
    for _ in range(rng.randrange(0, 80)):
        if game.outcome:
            break
        moves = game.legal_moves()
        removals = [m for m in moves if m.kind in ("pair", "king")]
        game.play(rng.choice(removals) if removals and rng.random() < 0.7 else moves[-1])
    spots = game.selectable_spots()
    if spots and not game.outcome and rng.random() < 0.5:
        game.tap(rng.choice(spots))
    return game


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 600
    rng = random.Random(7)
    games = [random_position(rng) for _ in range(count)]
    start = time.perf_counter()
    sprites()
    print(f"sprite cache built in {(time.perf_counter() - start) * 1000:.0f} ms (once per process)")
    times, sizes = [], []
    for game in games:
        start = time.perf_counter()
        png = render_board(game, highlight={STOCK} if game.moves % 5 == 0 else ())
        times.append((time.perf_counter() - start) * 1000)
        sizes.append(len(png))
    times.sort()
    print(
        f"{count} boards: median {statistics.median(times):.1f} ms, p99 {times[int(0.99 * count)]:.1f} ms, "
        f"max {times[-1]:.1f} ms per PNG; median PNG {statistics.median(sizes) / 1024:.0f} KB, "
        f"largest {max(sizes) / 1024:.0f} KB"
    )


if __name__ == "__main__":
    main()
