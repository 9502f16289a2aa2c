"""Statistics queries on a big database: 1,000,000 finished games across 1,000 servers.

Prints the median and worst milliseconds of each query the stats, leaderboard and daily
commands make for one server (through the real SQLite storage), the file's size, and the
bytes a finished game takes when real games are played and finished through the game manager.

Usage: .venv/bin/python bench/stats.py [GAMES] [SERVERS]   (default 1000000 1000)
       .venv/bin/python bench/stats.py --database postgresql[://USER@HOST:PORT/DBNAME]
           the bytes per finished game on SQLite and PostgreSQL side by side, and PostgreSQL's WAL bytes
           per stored action (``postgresql`` alone: a throwaway local server)
"""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pyramide import Game
from pyramide_service.manager import GameManager
from pyramide_service.stats import day_streaks, player_stats
from pyramide_service.storage import Storage
from pyramide_service.storage.sqlite import SQLiteStorage
from tests.support.manager_turns import deal, end, play

PLAYERS_PER_SERVER = 60
DAY = 86_400
T0 = 1_767_225_600  # 2026-01-01


def fill(path: Path, games: int, servers: int) -> None:
    rng = random.Random(5)
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode = WAL")
        rows = []
        counted: set[tuple[str, int]] = set()
        for n in range(games):
            guild = rng.randrange(servers)
            player = guild * 1000 + rng.randrange(PLAYERS_PER_SERVER)
            status = rng.choices(("won", "stuck", "ended"), (6, 3, 1))[0]
            finished = T0 + rng.randrange(330 * DAY)
            seconds = rng.uniform(60, 900)
            daily = None
            is_counted = 0
            if rng.random() < 0.1:
                daily = time.strftime("%Y-%m-%d", time.gmtime(finished))
                if (daily, player) not in counted:
                    counted.add((daily, player))
                    is_counted = 1
            rows.append(
                (
                    guild,
                    n,
                    player,
                    "PY1-N-AAAAAAS",
                    "N",
                    status,
                    280 if status == "won" else 120,
                    moves := rng.randrange(60, 200),
                    28,
                    finished - seconds - 60,
                    finished - seconds,
                    finished,
                    seconds,
                    daily,
                    is_counted,
                    os.urandom(2 + (moves * 5 + 7) // 8),  # a packed log's size
                )
            )
        db.executemany(
            "INSERT INTO games (guild_id, channel_id, owner_id, code, rules, status, score, moves, removed,"
            " created_at, started_at, finished_at, seconds, daily, counted, log)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        db.execute("ANALYZE")


async def timed(label: str, make, repeat: int = 30) -> None:
    times = []
    for i in range(repeat):
        start = time.perf_counter()
        await make(i)
        times.append((time.perf_counter() - start) * 1000)
    print(f"  {label:38} median {statistics.median(times):6.2f} ms   max {max(times):6.2f} ms")


def file_bytes(path: Path) -> int:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        pages = db.execute("PRAGMA page_count").fetchone()[0] - db.execute("PRAGMA freelist_count").fetchone()[0]
        return pages * db.execute("PRAGMA page_size").fetchone()[0]


async def play_and_finish(store: Storage, games: int) -> int:
    """Real games through the manager (random legal moves, 150 actions at most), each finished; returns
    how many actions were stored."""
    rng = random.Random(3)
    manager = GameManager(store)
    actions = 0
    for n in range(games):
        channel = 10_000 + n
        guild = rng.randrange(50)
        await deal(manager,
            guild_id=guild, channel_id=channel, owner_id=guild * 1000 + rng.randrange(60), game=Game.new()
        )
        live = await manager.live(channel)
        while live is not None and live.stored < 150 and live.game.outcome is None:
            move = rng.choice(live.game.legal_moves())
            await play(manager, channel, lambda g, m=move: g.play(m))
            live = await manager.live(channel)
        if live is not None:
            actions += live.stored
            await end(manager, channel)
    return actions


def report_size(name: str, games: int, actions: int, used: int, extra: str = "") -> None:
    print(
        f"{name}: {games:,} real games finished ({actions / games:.0f} actions each on average): "
        f"{used / games:.0f} bytes per finished game; {used / games * 1_000_000 / 2**30:.2f} GiB per million games"
        + extra
    )


async def bytes_per_game(games: int = 2000) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "size.db"
        store = SQLiteStorage(path, synchronous="OFF")
        await store.open()
        empty = file_bytes(path)
        actions = await play_and_finish(store, games)
        await store.compact(1_000_000)
        await store.close()
        report_size("SQLite", games, actions, file_bytes(path) - empty)


TABLE_BYTES = (
    "SELECT SUM(pg_total_relation_size(oid)) FROM pg_class"
    " WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace"
)


async def sizes_with_postgres(given: list[str]) -> None:
    from tests.support.throwaway_postgres import ThrowawayPostgres

    server = None
    url = given[0] if given and "://" in given[0] else ""
    if not url:
        server = ThrowawayPostgres(durable=True)
        url = server.start()
    try:
        await bytes_per_game()
        await bytes_per_game_postgres(url)
    finally:
        if server is not None:
            server.stop()


async def bytes_per_game_postgres(server_url: str, games: int = 2000) -> None:
    """The same games on PostgreSQL: the tables' size (with indexes) after a VACUUM FULL, and the WAL
    written per stored action (what one press costs the database's disk and its replicas)."""
    import asyncpg

    from pyramide_service.storage.postgres import PostgresStorage
    from tests.support.throwaway_postgres import create_database, drop_database

    url = await create_database(server_url)
    try:
        store = PostgresStorage(url)
        await store.open()
        admin = await asyncpg.connect(url)
        try:
            empty = int(await admin.fetchval(TABLE_BYTES) or 0)
            wal = await admin.fetchval("SELECT pg_current_wal_lsn()")
            actions = await play_and_finish(store, games)
            written = int(await admin.fetchval("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1)", wal))
            await admin.execute("VACUUM FULL")
            used = int(await admin.fetchval(TABLE_BYTES) or 0) - empty
        finally:
            await admin.close()
            await store.close()
        report_size("PostgreSQL", games, actions, used, f"; WAL {written / actions:.0f} bytes per stored action")
    finally:
        await drop_database(server_url, url)


async def main() -> None:
    if "--database" in sys.argv:
        await sizes_with_postgres(sys.argv[sys.argv.index("--database") + 1 :][:1])
        return
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    servers = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    await bytes_per_game()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "stats.db"
        store = SQLiteStorage(path)
        await store.open()  # creates the schema
        await store.close()
        start = time.perf_counter()
        fill(path, games, servers)
        print(f"{games:,} games across {servers:,} servers written in {time.perf_counter() - start:.1f} s")
        print(f"file size: {file_bytes(path) / 2**20:.0f} MiB ({file_bytes(path) / games:.0f} bytes per game)")
        store = SQLiteStorage(path)
        await store.open()
        rng = random.Random(9)

        def guild(i: int) -> int:
            return rng.randrange(servers)

        async def stats(i: int) -> None:
            g = guild(i)
            player = g * 1000 + rng.randrange(PLAYERS_PER_SERVER)
            player_stats(await store.results(g, player))
            day_streaks(await store.daily_days(player), date(2026, 11, 30))

        async def board(i: int) -> None:
            g = guild(i)
            await store.leaderboard_size(g, None)
            await store.leaderboard(g, None, 10, 0)

        async def week(i: int) -> None:
            g = guild(i)
            await store.leaderboard_size(g, T0 + 300 * DAY)
            await store.leaderboard(g, T0 + 300 * DAY, 10, 0)

        async def daily(i: int) -> None:
            day = time.strftime("%Y-%m-%d", time.gmtime(T0 + rng.randrange(330) * DAY))
            await store.daily_rows(day, guild(i))
            await store.daily_totals(day)

        print("per command, for one server:")
        await timed("/pyramide stats show (results + days)", stats)
        await timed("/pyramide leaderboard all time", board)
        await timed("/pyramide leaderboard this week", week)
        await timed("/pyramide daily leaderboard", daily)
        await store.close()


if __name__ == "__main__":
    asyncio.run(main())
