"""The winning-line animation: frames drawn and encoded per second, the size of a 100-move line, and the
time from pressing "Show a winning line" to the picture posted, through the offline bot.

Usage: .venv/bin/python bench/animation.py
"""

from __future__ import annotations

import asyncio
import logging
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyramide import Game
from pyramide.labels import Labels
from pyramide.render import animate
from pyramide.replay import line_frames
from pyramide.solver import solve
from tests.support.harness import CHANNEL_ID, OTHER_CHANNEL_ID, Harness, Hub


def deal_with_line(length: int) -> tuple[Game, int]:
    """The first deal number whose solver line has about ``length`` moves."""
    for number in range(10_000):
        game = Game.from_number(number)
        solution = solve(game)
        if solution.won and abs(len(solution.line) - length) <= 3:
            return game, len(solution.line)
    raise SystemExit("no such deal")


def drawing(game: Game) -> None:
    line = solve(game).line
    frames = line_frames(game, line)
    boards = [(f.game, f.highlight) for f in frames]
    durations = [f.ms for f in frames]
    started = time.perf_counter()
    data = animate(boards, durations, labels=Labels(), code=game.code)
    elapsed = time.perf_counter() - started
    print(
        f"{len(line)}-move line ({game.code}): {len(frames)} frames drawn and encoded in {elapsed * 1000:.0f} ms "
        f"({len(frames) / elapsed:.0f} frames/s), GIF {len(data) / 1024:.0f} KB, "
        f"playback {sum(durations) / 1000:.1f} s"
    )


async def pressing(games: list[Game]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        h = await Harness(str(Path(folder) / "anim.db"), hub=Hub(conform=False)).start()
        for n, (game, channel) in enumerate(zip(games, (CHANNEL_ID, OTHER_CHANNEL_ID), strict=False)):
            await h.command("new", channel_id=channel, code=game.code)
            await h.command("draw", channel_id=channel)
            sent = await h.command("end", channel_id=channel)
            button = next(s for s in sent if s.png).button("Show a winning line")
            for attempt in ("first" + (", worker process starting" if n == 0 else ""), "again, from memory"):
                started = time.perf_counter()
                await h.press(button)
                elapsed = (time.perf_counter() - started) * 1000
                print(f"press -> animation posted ({game.code}, {attempt}): {elapsed:.0f} ms")
        await h.stop()


def main() -> None:
    logging.disable(logging.WARNING)
    game, _ = deal_with_line(100)
    drawing(game)
    other, _ = deal_with_line(60)
    asyncio.run(pressing([game, other]))


if __name__ == "__main__":
    main()
