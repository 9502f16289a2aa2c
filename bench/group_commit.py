"""Group commit on SQLite: presses of many channels arriving at once, on one database file.

Each round, PRESSES players (one channel each) press at the same moment; every press is a move stored
through the game manager (the channel's lock, the write, its commit), as the bot stores it. Prints the
commits the writer made (counted from its statement trace: each COMMIT, and each write run alone in
autocommit) against the presses, and the median and p99
milliseconds from the round's start to each press's stored move. The file is durable as in production
(synchronous=FULL, WAL).

Usage: .venv/bin/python bench/group_commit.py [PRESSES] [ROUNDS]   (default 12 120)
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyramide import STOCK, Game
from pyramide_service.manager import GameManager
from pyramide_service.storage.sqlite import SQLiteStorage
from tests.support.manager_turns import deal, play

DEAL_EVERY = 20  # rounds a deal's stock lasts (24 cards), then every channel is dealt again


async def main(presses: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        storage = SQLiteStorage(Path(folder) / "group.db")
        await storage.open()
        try:
            manager = GameManager(storage)
            statements: list[str] = []
            latencies: list[float] = []

            async def press(channel: int, start: float) -> None:
                await play(manager, channel, lambda g: g.tap(STOCK))
                latencies.append((time.perf_counter() - start) * 1000)

            for n in range(rounds):
                if n % DEAL_EVERY == 0:
                    await storage.db.set_trace_callback(None)
                    for channel in range(1, presses + 1):
                        game = Game.from_number(channel + n)
                        await deal(manager, guild_id=1, channel_id=channel, owner_id=channel, game=game)
                    await storage.db.set_trace_callback(statements.append)
                start = time.perf_counter()
                await asyncio.gather(*(press(channel, start) for channel in range(1, presses + 1)))
            await storage.db.set_trace_callback(None)
        finally:
            await storage.close()
    commits = commits_in(statements)
    p99 = statistics.quantiles(latencies, n=100)[98]
    print(
        f"{presses} presses at once, {rounds} rounds: {len(latencies)} moves stored in {commits} commits"
        f" ({commits / rounds:.1f} a round); from the round's start to a stored move:"
        f" median {statistics.median(latencies):.2f} ms, p99 {p99:.2f} ms"
    )


def commits_in(trace: list[str]) -> int:
    """The transactions committed in a writer's statement trace. (A statement that fires a trigger is
    traced again for each step of the trigger: counted once.)"""
    commits, begun, last = 0, False, None
    for statement in trace:
        if statement == last:
            continue
        last = statement
        if statement.startswith("BEGIN"):
            begun = True
        elif statement == "COMMIT":
            commits, begun = commits + 1, False
        elif not begun and not statement.startswith(("SELECT", "PRAGMA")):
            commits += 1  # a statement alone, in autocommit
    return commits


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    asyncio.run(main(*(args + [12, 120][len(args) :])))
