"""Achievements: the first computation for a player with a long history, and the pictures.

1. Crediting a history from before the upgrade (``Storage.credit_history`` chunk by chunk, as the
   background task does) for players of 1,000, 5,000 and 10,000 finished games on a SQLite file (and on
   PostgreSQL with ``--database postgresql``): the total time, the chunks, the slowest chunk (the longest
   the writer is held), and the time of one finish's unlock afterwards.
2. The render time of the player card and of the achievements grid (median and p99 over 200 drawings).

3. With ``--big``: the reads of a first look on a file of 1,000,000 games on 1,000 servers.

Usage: .venv/bin/python bench/achievements.py [--database postgresql[://USER@HOST:PORT/DBNAME] | --big]
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from datetime import date
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyramide_service.credits import daily_tier_of
from pyramide_service.storage import GameRecord, Storage, from_url
from pyramide_service.storage.codec import pack_log
from pyramide_service.storage.units import Tx

SIZES = (1_000, 5_000, 10_000)
T0 = 1_767_225_600  # 2026-01-01


def history_rows(player: int, games: int, rng: random.Random) -> list[tuple]:
    log = pack_log([27, 26, "stock", 25, "undo", 25] * 10)
    out = []
    for n in range(games):
        finished = T0 + n * 600
        status = rng.choices(("won", "stuck", "ended"), (6, 3, 1))[0]
        day = time.strftime("%Y-%m-%d", time.gmtime(finished)) if n % 20 == 0 else None
        out.append(
            (
                1,
                2,
                player,
                "PY1-N-AAAAAAS",
                rng.choice(("N", "S", "P0", "SP0")),
                status,
                finished - 300,
                finished,
                rng.uniform(60, 900),
                rng.randrange(3),
                day,
                day is not None,
                log,
            )
        )
    return out


INSERT = (
    "INSERT INTO games (guild_id, channel_id, owner_id, code, rules, status, created_at, finished_at, seconds,"
    " hints, daily, counted, log) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


async def insert(storage: Storage, rows: list[tuple]) -> None:
    for start in range(0, len(rows), 2000):
        batch = rows[start : start + 2000]

        async def work(db: Tx, batch: list[tuple] = batch) -> None:
            await db.many(INSERT, batch)

        await storage._write(work, several=False, long=True, retry=False)


async def crediting(url: str) -> None:
    storage = from_url(url)
    await storage.open()
    try:
        rng = random.Random(3)
        print(f"{'games':>7} {'chunks':>7} {'total ms':>9} {'slowest chunk ms':>17} {'unlock ms':>10}")
        for number, size in enumerate(SIZES):
            player = 9_000 + number
            await insert(storage, history_rows(player, size, rng))
            chunks, slowest = 0, 0.0
            start = time.perf_counter()
            while True:
                began = time.perf_counter()
                done = await storage.credit_history(player, daily_tier_of)
                slowest = max(slowest, time.perf_counter() - began)
                chunks += 1
                if done:
                    break
            total = time.perf_counter() - start
            record = await storage.create_game(GameRecord(0, 1, 3, player, "PY1-N-AAAAAAS", "N", created_at=T0))
            finished = replace(record, status="won", finished_at=T0 + 10**7, seconds=100.0, score=280)
            began = time.perf_counter()
            await storage.finish_game(finished)
            unlock = time.perf_counter() - began
            print(f"{size:>7} {chunks:>7} {total * 1000:>9.0f} {slowest * 1000:>17.1f} {unlock * 1000:>10.2f}")
    finally:
        await storage.close()


def pictures() -> None:
    from cogs.pyramide.profile import badge_grid, player_card
    from pyramide.achievements import CATALOGUE
    from pyramide.render.badges import render_badges
    from pyramide.render.card import render_card
    from pyramide_service.stats import player_stats
    from pyramide_service.storage import RaceStats, ResultRow
    from pyramide_service.storage.achievements import Rarity, Unlocked

    rng = random.Random(1)
    today = date(2026, 12, 15)
    rows = [
        ResultRow(
            rng.choice(("won", "stuck")), 200, 90, rng.uniform(60, 600), T0 + 340 * 86_400 + n * 3000, None, False
        )
        for n in range(400)
    ]
    unlocked = [Unlocked(a.key, T0 + n * 86_400, n) for n, a in enumerate(CATALOGUE[::2])]
    rarity = Rarity(50, {a.key: rng.randrange(1, 50) for a in CATALOGUE})
    kinds = tuple(rng.choice(("clean", "hinted", "gave_up", "missed")) for _ in range(14)) + ("open",) + ("none",) * 16
    for lang in ("en", "ru"):
        card = player_card(
            "Ana",
            "Pyramide Club",
            rows,
            player_stats(rows),
            RaceStats(5, 2, 100.0),
            unlocked,
            rarity,
            kinds,
            today,
            lang,
        )
        grid, _ = badge_grid("Ana", unlocked, rarity, True, lang)
        drawings = (("card", partial(render_card, card)), ("grid", partial(render_badges, grid)))
        for name, draw in drawings:
            draw()  # the icons and fonts are made once per process
            times, cpu = [], []
            for _ in range(200):
                began, began_cpu = time.perf_counter(), time.thread_time()
                draw()
                times.append((time.perf_counter() - began) * 1000)
                cpu.append((time.thread_time() - began_cpu) * 1000)
            times.sort()
            cpu.sort()
            print(
                f"{name} ({lang}): median {statistics.median(times):.1f} ms, p99 {times[197]:.1f} ms"
                f" (CPU median {statistics.median(cpu):.1f} ms, p99 {cpu[197]:.1f} ms)"
            )


async def big(games: int = 1_000_000, servers: int = 1_000) -> None:
    """The reads of a first /pyramide stats or achievements on a file of ``games`` games (bench/stats.py's
    fill): a player's history credited, their achievements, the server's rarity and everyone's."""
    from bench.stats import PLAYERS_PER_SERVER, fill
    from pyramide_service.storage.sqlite import SQLiteStorage

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "big.db"
        storage = SQLiteStorage(path)
        await storage.open()
        await storage.close()
        began = time.perf_counter()
        fill(path, games, servers)
        print(f"{games:,} games on {servers:,} servers filled in {time.perf_counter() - began:.0f} s")
        storage = SQLiteStorage(path)
        await storage.open()
        try:
            rng = random.Random(2)
            credit, looks, everyone = [], [], []
            for _ in range(30):
                guild = rng.randrange(servers)
                player = guild * 1000 + rng.randrange(PLAYERS_PER_SERVER)
                began = time.perf_counter()
                while not await storage.credit_history(player, daily_tier_of):
                    pass
                credit.append((time.perf_counter() - began) * 1000)
                began = time.perf_counter()
                await storage.unlocked(player)
                await storage.rarity(guild)
                looks.append((time.perf_counter() - began) * 1000)
                began = time.perf_counter()
                await storage.rarity(None)
                everyone.append((time.perf_counter() - began) * 1000)
            for label, times in (
                ("a player's history credited", credit),
                ("their achievements and the server's rarity", looks),
                ("rarity among all players (outside servers)", everyone),
            ):
                print(f"  {label:44} median {statistics.median(times):6.2f} ms   max {max(times):6.2f} ms")
        finally:
            await storage.close()


async def main() -> None:
    argv = sys.argv[1:]
    if argv[:1] == ["--big"]:
        await big()
        return
    if argv[:1] == ["--database"]:
        target = argv[1] if len(argv) > 1 else "postgresql"
        if target == "postgresql":
            from tests.support.throwaway_postgres import ThrowawayPostgres, create_database

            server = ThrowawayPostgres(durable=True)
            try:
                url = await create_database(server.start())
                print("PostgreSQL (throwaway local server)")
                await crediting(url)
            finally:
                server.stop()
        else:
            await crediting(target)
        return
    with tempfile.TemporaryDirectory() as folder:
        print("SQLite file")
        await crediting(f"sqlite:///{folder}/bench.db")
    if "--no-pictures" not in argv:
        pictures()


if __name__ == "__main__":
    asyncio.run(main())
