"""Whole processes: the real bot.py, 1 and then 2 processes (a shard each) on one SQLite file, against the
Discord-like server of the tests on 127.0.0.1. Every channel plays as fast as its answers come back.

Prints presses per second, p50 / p99 milliseconds from the interaction sent to its answer received, and
how many cores the bot processes used (their CPU time over the wall time). The fake Discord runs in this
process and takes its share of the same 2 cores.

Usage: .venv/bin/python bench/cluster.py [CHANNELS_PER_SERVER] [PRESSES]   (default 10 x 30)
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyramide import Game
from tests.fake_discord import FakeDiscord, Guild
from tests.test_process import PLAYER, launch, stop

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


async def play(fake: FakeDiscord, guild: int, channel: int, presses: int, rng: random.Random, out: list[float]) -> None:
    payload = fake.command(guild, channel, PLAYER, "new", code=Game.from_number(rng.randrange(2**35)).code)
    await fake.answered_after(payload)
    board = fake.messages[fake.original[payload["token"]]]
    for _ in range(presses):
        buttons = [b for row in board["components"] for b in row["components"] if not b.get("disabled")]
        cards = [b for b in buttons if b["custom_id"].split(":")[-1].isdigit()]
        draw = [b for b in buttons if b["custom_id"].endswith(":s")]
        if not cards and not draw:
            return  # the game is over
        choice = rng.choice(cards) if cards and (rng.random() < 0.6 or not draw) else draw[0]
        press = fake.press(guild, PLAYER, board, choice["custom_id"])
        started = time.perf_counter()
        await fake.answered_after(press)
        out.append((time.perf_counter() - started) * 1000)
        board = fake.messages[int(board["id"])]


async def run(processes: int, channels: int, presses: int) -> None:
    guilds = [
        Guild((1 << 40) + (shard << 22), tuple(7_000_000 + shard * 1000 + c for c in range(channels)))
        for shard in range(2)
    ]
    fake = await FakeDiscord(guilds).start()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "pyramide.db"
        bots = [
            launch(fake, db, str(processes), str(i)) if processes > 1 else launch(fake, db) for i in range(processes)
        ]
        try:
            await fake.wait_for_shards(processes)
            await asyncio.sleep(2.5)
            latencies: list[float] = []
            rng = random.Random(processes)
            cpu = sum(cpu_seconds(b.pid) for b in bots)
            started = time.perf_counter()
            await asyncio.gather(
                *(
                    play(fake, guild.id, channel, presses, random.Random(rng.random()), latencies)
                    for guild in guilds
                    for channel in guild.channels
                )
            )
            wall = time.perf_counter() - started
            used = sum(cpu_seconds(b.pid) for b in bots) - cpu
        finally:
            for bot in bots:
                stop(bot)
    await fake.stop()
    latencies.sort()
    print(
        f"{processes} process{'es' if processes > 1 else ''}: {len(latencies)} presses in {wall:.1f} s, "
        f"{len(latencies) / wall:.0f} presses/s; p50 {statistics.median(latencies):.1f} ms, "
        f"p99 {latencies[int(0.99 * len(latencies))]:.1f} ms; bot processes used {used / wall:.2f} cores"
    )


def main() -> None:
    channels = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    presses = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    for processes in (1, 2):
        asyncio.run(run(processes, channels, presses))


if __name__ == "__main__":
    main()
