"""Moving up: ``python -m pyramide_service.storage copy`` from a SQLite file to PostgreSQL keeps every record."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from pyramide import STOCK, Game
from pyramide_service.manager import GameManager
from pyramide_service.storage import WON, GameRecord, GuildSettings, Storage
from pyramide_service.storage.postgres import PostgresStorage
from pyramide_service.storage.sqlite import SQLiteStorage
from tests.support.backends import raw
from tests.support.manager_turns import deal, end, play

ROOT = Path(__file__).resolve().parent.parent
GUILD, OTHER_GUILD, PLAYER, FRIEND = 11, 12, 21, 22
DAY = "2026-11-30"


async def fill(storage: Storage) -> None:
    """A server's history: a won game, a live one with moves, a counted daily, settings, names, a race,
    the daily secret and a server that left."""
    manager = GameManager(storage)
    live = await deal(manager, guild_id=GUILD, channel_id=1, owner_id=PLAYER, game=Game.from_number(7))
    for _ in range(3):
        await play(manager, 1, lambda g: g.tap(STOCK))
    await end(manager, 1)
    await deal(manager, guild_id=GUILD, channel_id=1, owner_id=FRIEND, game=Game.from_number(8))
    async with manager.turn(1) as turn:
        await turn.apply(lambda g: g.tap(STOCK), request=123456789)
    daily = await storage.create_game(
        GameRecord(0, GUILD, 2, PLAYER, "PY1-N-AAAAAAS", "N", daily=DAY, counted=True, created_at=100.0)
    )
    daily = replace(daily, status=WON, finished_at=200.0, seconds=100.0, moves=40, picture="🟩🟨")
    await storage.finish_game(daily)
    await storage.save_settings(GUILD, GuildSettings(error_help=False, anyone_can_play=True, idle_minutes=5))
    await storage.remember_name(PLAYER, "Ada")
    await storage.remember_name(FRIEND, "Grace")
    race = await storage.create_race(GUILD, 3, "PY1-N-AAAAAAT", 300.0, [(PLAYER, live.record.id), (FRIEND, daily.id)])
    await storage.set_race_message(race, 999)
    # (a winner is set when the clearing game is closed; this history is made by hand)
    await raw(storage, "UPDATE races SET winner_id = ?, finished_at = ? WHERE id = ?", PLAYER, 400.0, race)
    await storage.daily_secret("a-secret")
    await storage.guild_left(OTHER_GUILD, 500.0)


async def picture(storage: Storage) -> tuple:
    """Everything a player or an admin can see of that history."""
    live = await storage.live_game(1)
    assert live is not None
    return (
        [(r.status, r.moves, r.counted, r.hints) for r in await storage.results(GUILD, PLAYER)],
        [(r.player_id, r.played, r.wins, r.name) for r in await storage.leaderboard(GUILD, None, 10, 0)],
        (live.owner_id, live.actions, live.moves),
        await storage.daily_rows(DAY, GUILD),
        await storage.daily_attempt(DAY, PLAYER),
        await storage.settings(GUILD),
        await storage.race_stats(GUILD, PLAYER),
        await storage.meta("daily_secret"),
    )


def run_copy(source: str, target: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pyramide_service.storage", "copy", source, target],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


async def test_a_sqlite_database_moves_to_postgresql_with_everything_and_verified_counts(tmp_path, postgres_url):
    path = tmp_path / "pyramide.db"
    sqlite = SQLiteStorage(path)
    await sqlite.open()
    await fill(sqlite)
    before = await picture(sqlite)
    await sqlite.close()

    secret_url = postgres_url.replace("postgres@", "postgres:hunter2@")  # (the test server trusts any password)
    result = run_copy(f"sqlite:///{path}", secret_url)
    assert result.returncode == 0, result.stderr
    assert "games                    3 rows, verified" in result.stdout
    assert "actions                  1 rows, verified" in result.stdout  # the live game's; finished ones are packed
    assert "race_players             2 rows, verified" in result.stdout
    assert "hunter2" not in result.stdout + result.stderr

    postgres = PostgresStorage(postgres_url)
    await postgres.open()
    try:
        assert await picture(postgres) == before
        assert await raw(postgres, "SELECT request FROM actions") == [(123456789,)]  # a press stays applied once
        assert await raw(postgres, "SELECT guild_id FROM departures") == [(OTHER_GUILD,)]
        fresh = await postgres.create_game(GameRecord(0, GUILD, 9, PLAYER, "PY1-N-AAAAAAB", "N", created_at=600.0))
        assert fresh.id == 4  # numbered after the copied games
        again = run_copy(f"sqlite:///{path}", postgres_url)  # a second copy would mix two histories
        assert again.returncode == 1 and "already holds games" in again.stderr
        assert await raw(postgres, "SELECT COUNT(*) FROM games") == [(4,)]
    finally:
        await postgres.close()

    back = tmp_path / "back.db"  # and down again, for a server that shrinks or wants a local copy
    result = run_copy(postgres_url, f"sqlite:///{back}")
    assert result.returncode == 0, result.stderr
    copied = SQLiteStorage(back)
    await copied.open()
    try:
        assert await picture(copied) == before
    finally:
        await copied.close()


def test_a_copy_to_a_database_that_cannot_be_used_fails_with_the_reason(tmp_path):
    result = run_copy(f"sqlite:///{tmp_path / 'a.db'}", "mysql://root:hunter2@host/db")
    assert result.returncode == 1 and "must look like" in result.stderr and "hunter2" not in result.stderr


async def test_a_copy_that_loses_a_row_is_refused_and_leaves_the_target_empty(tmp_path, postgres_url, monkeypatch):
    """The counts are checked for real: a copy that wrote one action too few is rolled back whole."""
    from pyramide_service.storage import copy as moving

    path = tmp_path / "pyramide.db"
    sqlite = SQLiteStorage(path)
    await sqlite.open()
    await fill(sqlite)
    await sqlite.close()
    write = moving._write

    async def lossy(writer, table, columns, rows):
        await write(writer, table, columns, rows[:-1] if table == "players" else rows)

    monkeypatch.setattr(moving, "_write", lossy)
    try:
        await moving.copy(f"sqlite:///{path}", postgres_url, say=lambda line: None)
    except moving.CopyError as error:
        assert "players 2 in the source, 1 copied" in str(error)
    else:
        raise AssertionError("a short copy was accepted")
    postgres = PostgresStorage(postgres_url)
    await postgres.open()
    try:
        assert await raw(postgres, "SELECT COUNT(*) FROM games") == [(0,)]
        assert await raw(postgres, "SELECT COUNT(*) FROM meta") == [(0,)]
    finally:
        await postgres.close()
