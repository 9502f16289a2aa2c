"""Server events' queries on a big event: PLAYERS players who each finished every one of 10 deals, beside
EVENTS other ended events of the server (through the real SQLite storage).

Prints the median and worst milliseconds of what an announcement edit, /pyramide event standings,
/pyramide stats' events line, the minute's due check and the "no peeking" check cost, the one end, and
the median and 99th percentile of drawing the podium and the standings pictures (in a worker thread in
the bot, off the event loop).

Usage: .venv/bin/python bench/events.py [PLAYERS] [EVENTS]   (default 2000 50)
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cogs.pyramide.podium import podium_picture, standings_picture
from pyramide.render import render_podium, render_standings
from pyramide_service.storage.sqlite import SQLiteStorage

GUILD, CHANNEL, DEALS = 1, 2, 10
T0 = 1_767_225_600.0


def fill(path: Path, players: int, events: int) -> None:
    """``events`` ended events of 10 players each, then one running event of ``players`` players."""
    rng = random.Random(3)
    with sqlite3.connect(path) as db:
        next_game = 1
        for event_id in range(1, events + 2):
            running = event_id == events + 1
            ended = None if running else T0 + event_id * 86_400
            db.execute(
                "INSERT INTO events (id, guild_id, channel_id, slot, name, rules, deals, created_by, created_at,"
                " ends_at, ended_at, announced_at) VALUES (?, ?, ?, 1, ?, 'N', ?, 9, ?, ?, ?, ?)",
                (event_id, GUILD, CHANNEL, f"Cup {event_id}", DEALS, T0, T0 + 7 * 86_400, ended, ended),
            )
            deals = [(event_id, i, f"PY1-N-{event_id:03}{i:04}", f"{event_id:03}{i:04}") for i in range(DEALS)]
            db.executemany("INSERT INTO event_deals (event_id, position, code, deal) VALUES (?, ?, ?, ?)", deals)
            games, entries = [], []
            for player in range(players if running else 10):
                for position in range(DEALS):
                    removed = rng.randrange(29)
                    status = "won" if removed == 28 else "stuck"
                    games.append((next_game, GUILD, 1000 + player, 5000 + player, status, removed))
                    entries.append(
                        (
                            event_id,
                            position,
                            5000 + player,
                            next_game,
                            T0,
                            status,
                            removed,
                            removed * 10,
                            rng.uniform(60, 900),
                            rng.randrange(3),
                            T0 + 600,
                        )
                    )
                    next_game += 1
            db.executemany(
                "INSERT INTO games (id, guild_id, channel_id, owner_id, code, rules, status, removed, created_at)"
                f" VALUES (?, ?, ?, ?, 'PY1-N-AAAAAAS', 'N', ?, ?, {T0})",
                games,
            )
            db.executemany(
                "INSERT INTO event_entries (event_id, position, player_id, game_id, opened_at, status, removed,"
                " score, seconds, hints, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                entries,
            )


async def timed(name: str, call, runs: int = 20) -> None:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await call()
        times.append((time.perf_counter() - start) * 1000)
    print(f"{name:<46} median {statistics.median(times):7.2f} ms   worst {max(times):7.2f} ms")


def drawn(name: str, draw, runs: int = 100) -> None:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        draw()
        times.append((time.perf_counter() - start) * 1000)
    p99 = statistics.quantiles(times, n=100)[98]
    print(f"{name:<46} median {statistics.median(times):7.2f} ms   p99 {p99:7.2f} ms")


async def main(players: int, events: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "events.db"
        storage = SQLiteStorage(str(path))
        await storage.open()  # the schema, then the rows
        await storage.close()
        fill(path, players, events)
        storage = SQLiteStorage(str(path))
        await storage.open()
        running = events + 1
        print(f"{players} players x {DEALS} deals in the running event, {events} ended events beside it")
        await timed("event_standings (an announcement edit)", lambda: storage.event_standings(running))
        await timed("event_entries (/pyramide event play)", lambda: storage.event_entries(running, 5000))
        await timed("event_stats (the stats line)", lambda: storage.event_stats(GUILD, 5000))
        await timed("due_events (the minute's check)", lambda: storage.due_events(T0))
        await timed("running_events (the minute's check)", storage.running_events)
        await timed("is_running_deal (no peeking, every new deal)", lambda: storage.is_running_deal("AAAAAAS"))
        start = time.perf_counter()
        standings = await storage.end_event(running, T0 + 7 * 86_400)
        took = (time.perf_counter() - start) * 1000
        assert standings is not None
        print(f"{'end_event (once: freeze, standings, awards)':<46} {took:7.2f} ms for {len(standings)} players")
        event = await storage.event(running)
        assert event is not None
        podium, _ = podium_picture(event, standings, "en")
        table, _ = standings_picture(event, standings, "en")
        drawn("render_podium (the results post)", lambda: render_podium(podium))
        drawn("render_standings (/pyramide event standings)", lambda: render_standings(table))
        await storage.close()


if __name__ == "__main__":
    arguments = [int(a) for a in sys.argv[1:3]]
    asyncio.run(main(*(arguments + [2000, 50][len(arguments) :])))
