"""Whole processes: the real bot.py, 1 and then 2 processes on one database, against the Discord-like
server of the tests on 127.0.0.1. Four servers, one on each of 4 gateway shards: one process holds the 4
shards, or two processes hold 2 each. Every channel plays as fast as its answers come back.

Prints presses per second, p50 / p99 milliseconds from the interaction sent to its answer received, and
how many cores the bot processes used (their CPU time over the wall time) and, for a local PostgreSQL,
the database server's processes. The fake Discord runs in this process and takes its share of the same
2 cores.

Usage: .venv/bin/python bench/cluster.py [CHANNELS_PER_SERVER] [PRESSES]   (default 5 x 30, SQLite)
       .venv/bin/python bench/bot.py --database postgresql[://USER@HOST:PORT/DBNAME]   (SQLite and PostgreSQL)
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyramide import Game
from tests.support.bot_process import PLAYER, launch, stop
from tests.support.fake_discord import FakeDiscord, Guild
from tests.support.throwaway_postgres import create_database, drop_database

TICK = os.sysconf("SC_CLK_TCK")
SHARDS = 4


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:  # gone
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def postgres_cpu(url: str | None) -> float:
    """The CPU seconds of the local PostgreSQL server of ``url`` (its postmaster, the one listening on the
    URL's port, and that one's children): other servers on the machine are not counted. 0 without a URL
    or for a database elsewhere."""
    if not url:
        return 0.0
    port = urlsplit(url).port or 5432
    servers: dict[int, int] = {}  # pid -> parent pid, of every postgres process
    postmaster = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() != "postgres":
                    continue
                servers[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                if f"-p {port} " in (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                    postmaster = int(entry.name)
            except OSError:
                continue
    return sum(cpu_seconds(pid) for pid, parent in servers.items() if postmaster and postmaster in (pid, parent))


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


@dataclass
class Figures:
    presses: int
    wall: float
    p50: float
    p99: float
    bot_cores: float
    database_cores: float

    @property
    def per_second(self) -> float:
        return self.presses / self.wall


async def measure(processes: int, channels: int, presses: int, database: str | None = None) -> Figures:
    """``processes`` bot processes sharing the 4 shards, on a new SQLite file (``database`` None) or a new
    database on the PostgreSQL server of the URL ``database`` (dropped afterwards)."""
    guilds = [
        Guild((1 << 40) + (shard << 22), tuple(7_000_000 + shard * 1000 + c for c in range(channels)))
        for shard in range(SHARDS)
    ]
    fake = await FakeDiscord(guilds).start()
    url = await create_database(database) if database else None
    with tempfile.TemporaryDirectory() as folder:
        where: Path | str = url or Path(folder) / "pyramide.db"
        ranges = [list(range(SHARDS))[i::processes] for i in range(processes)]
        bots = [
            launch(fake, where, str(SHARDS), ",".join(map(str, shard_ids)), folder=Path(folder)) for shard_ids in ranges
        ]
        try:
            await fake.wait_for_shards(SHARDS)
            await asyncio.sleep(2.5)
            latencies: list[float] = []
            rng = random.Random(processes)
            cpu, db_cpu = sum(cpu_seconds(b.pid) for b in bots), postgres_cpu(database)
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
            db_used = postgres_cpu(database) - db_cpu
        finally:
            for bot in bots:
                await stop(bot)
    await fake.stop()
    if database and url:
        await drop_database(database, url)
    latencies.sort()
    return Figures(
        len(latencies),
        wall,
        statistics.median(latencies),
        latencies[int(0.99 * len(latencies))],
        used / wall,
        db_used / wall,
    )


def report(name: str, processes: int, figures: Figures) -> None:
    database = f", database server {figures.database_cores:.2f} cores" if figures.database_cores >= 0.005 else ""
    print(
        f"{name:10} {processes} process{'es' if processes > 1 else '  '} x {SHARDS // processes} shards: "
        f"{figures.presses} presses in {figures.wall:.1f} s, {figures.per_second:.0f} presses/s; "
        f"p50 {figures.p50:.1f} ms, p99 {figures.p99:.1f} ms; bot processes {figures.bot_cores:.2f} cores{database}",
        flush=True,
    )


def main() -> None:
    channels = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    presses = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    for processes in (1, 2):
        report("SQLite", processes, asyncio.run(measure(processes, channels, presses)))


if __name__ == "__main__":
    main()
