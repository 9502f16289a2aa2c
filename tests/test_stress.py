"""Concurrent writes through the real GameManager on one real database (a SQLite file, a PostgreSQL
database): forty players at once dealing, drawing, hinting, finishing, racing and opening the same
daily twice at once, a few thousand writes in all. Then the database is reopened, as after a restart,
and every write that was acknowledged must be there whole, and every refused one must have left
nothing."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from dataclasses import dataclass, field, replace
from pathlib import Path

import asyncpg
import pytest

from pyramide import STOCK, Game
from pyramide_service.manager import GameManager
from pyramide_service.storage import (
    ENDED,
    PLAYING,
    WON,
    DailyTaken,
    GameRecord,
    GuildSettings,
    MoveConflict,
    Storage,
    copy,
    from_url,
    schema,
)
from pyramide_service.storage.postgres import PostgresStorage
from pyramide_service.storage.schema import columns
from tests.support.backends import raw, twin
from tests.support.deals import clear_kings_and_pairs, kings_and_pairs, play_stuck_line, stuck_game
from tests.support.manager_turns import deal, end, play

pytestmark = pytest.mark.backends("sqlite", "postgresql")

TASKS = 40
ROUNDS = 6  # each round of a task: a game dealt, drawn on, hinted, finished (a few dozen writes)
DAY = "2026-12-01"


@dataclass
class Ledger:
    """What the database acknowledged, and what it refused."""

    games: dict[int, tuple[int, int, str, int]] = field(default_factory=dict)  # id -> channel, owner, status, moves
    hints: dict[int, int] = field(default_factory=dict)
    messages: dict[int, int] = field(default_factory=dict)
    settings: dict[int, GuildSettings] = field(default_factory=dict)
    names: dict[int, str] = field(default_factory=dict)
    dailies: dict[int, int] = field(default_factory=dict)  # player -> the game of their one attempt
    refused_daily_channels: set[int] = field(default_factory=set)
    races: dict[int, tuple[int, int]] = field(default_factory=dict)  # race -> the two players' games
    writes: int = 0
    refusals: int = 0


async def one_task(index: int, manager: GameManager, storage: Storage, ledger: Ledger) -> None:
    rng = random.Random(index)
    guild = 1000 + index % 7
    owner = 500 + index
    for round_ in range(ROUNDS):
        channel = index * 100 + round_
        async with manager.turn(channel) as turn:
            live = await turn.start(guild_id=guild, owner_id=owner, game=Game.from_number(index * 31 + round_))
        game_id = live.record.id
        ledger.games[game_id] = (channel, owner, PLAYING, 0)
        ledger.writes += 1
        draws = rng.randrange(3, 15)
        for _ in range(draws):
            async with manager.turn(channel) as turn:
                await turn.apply(lambda g: g.tap(STOCK), request=rng.getrandbits(60))
            ledger.games[game_id] = (channel, owner, PLAYING, ledger.games[game_id][3] + 1)
            ledger.writes += 1
            if rng.random() < 0.3:
                if await storage.add_hint(game_id, rng.getrandbits(60)):
                    ledger.hints[game_id] = ledger.hints.get(game_id, 0) + 1
                ledger.writes += 1
            if rng.random() < 0.15:  # a stale board: a move at a place already stored is refused whole
                stale = replace(live.record, score=999, moves=999)
                with pytest.raises(MoveConflict):
                    await storage.append_action(game_id, 0, "stock", 1.0, stale)
                ledger.refusals += 1
        message = rng.getrandbits(50)
        await storage.set_message(game_id, message)
        ledger.messages[game_id] = message
        settings = GuildSettings(rng.random() < 0.5, rng.random() < 0.5, rng.randrange(1, 60), rng.random() < 0.5)
        if index < 7:  # one writer per server, so its last acknowledged settings are known
            await storage.save_settings(guild, settings)
            ledger.settings[guild] = settings
        name = f"player {owner} r{round_}"
        await storage.remember_name(owner, name)
        ledger.names[owner] = name
        ledger.writes += 3
        if round_ < ROUNDS - 1:  # the last game of each task stays in play
            async with manager.turn(channel) as turn:
                await turn.end(ENDED)
            ledger.games[game_id] = (channel, owner, ENDED, ledger.games[game_id][3])
            ledger.writes += 1
        await asyncio.sleep(0)


async def one_daily(index: int, manager: GameManager, ledger: Ledger) -> None:
    """A player opens the day's daily in two channels at the same moment: one attempt counts."""
    owner = 500 + index
    channels = (90_000 + index * 2, 90_001 + index * 2)

    async def open_in(channel: int) -> int | None:
        async with manager.turn(channel) as turn:
            try:
                live = await turn.start(guild_id=1000, owner_id=owner, game=Game.from_number(77), daily=DAY)
            except DailyTaken:
                ledger.refused_daily_channels.add(channel)
                ledger.refusals += 1
                return None
        ledger.games[live.record.id] = (channel, owner, PLAYING, 0)
        ledger.writes += 1
        return live.record.id

    opened = [game for game in await asyncio.gather(*(open_in(c) for c in channels)) if game is not None]
    assert len(opened) == 1, opened
    ledger.dailies[owner] = opened[0]


async def one_race(index: int, storage: Storage, ledger: Ledger) -> None:
    """Two players of a race clear their games at the same moment: the database picks one winner."""
    players = (700 + index * 2, 701 + index * 2)
    records = []
    for offset, player in enumerate(players):
        record = GameRecord(0, 1000, 80_000 + index * 2 + offset, player, "PY1-N-AAAAAAS", "N", created_at=1.0)
        records.append(await storage.create_game(record))
    racers = [(player, record.id) for player, record in zip(players, records, strict=True)]
    race_id = await storage.create_race(1000, 70_000 + index, "PY1-N-AAAAAAS", 1.0, racers)
    ledger.races[race_id] = (records[0].id, records[1].id)
    records = [replace(record, status=WON, finished_at=2.0, seconds=1.0) for record in records]
    await asyncio.gather(*(storage.finish_game(record) for record in records))
    for record in records:
        ledger.games[record.id] = (record.channel_id, record.owner_id, WON, 0)
    ledger.writes += 5


async def test_concurrent_writes_are_never_lost_nor_half_applied(database_url):
    storage = from_url(database_url)
    await storage.open()
    ledger = Ledger()
    try:
        manager = GameManager(storage)
        await asyncio.gather(
            *(one_task(i, manager, storage, ledger) for i in range(TASKS)),
            *(one_daily(i, manager, ledger) for i in range(TASKS // 2)),
            *(one_race(i, storage, ledger) for i in range(TASKS // 4)),
        )
    finally:
        await storage.close()
    assert ledger.writes > 2000 and ledger.refusals > 30

    reopened = twin(storage)
    await reopened.open()
    try:
        violations = []
        for game_id, (channel, owner, status, moves) in ledger.games.items():
            stored = await reopened.game(game_id)
            if stored is None:
                violations.append(f"game {game_id}: acknowledged, then lost")
                continue
            if (stored.channel_id, stored.owner_id, stored.status) != (channel, owner, status):
                violations.append(f"game {game_id}: {stored.channel_id, stored.owner_id, stored.status}")
            if len(stored.actions) != moves or stored.moves != moves:
                violations.append(f"game {game_id}: {len(stored.actions)} actions, {stored.moves} moves, not {moves}")
            if stored.hints != ledger.hints.get(game_id, 0):
                violations.append(f"game {game_id}: {stored.hints} hints, not {ledger.hints.get(game_id, 0)}")
            if game_id in ledger.messages and stored.message_id != ledger.messages[game_id]:
                violations.append(f"game {game_id}: message {stored.message_id}")
        for guild, settings in ledger.settings.items():
            if await reopened.settings(guild) != settings:
                violations.append(f"server {guild}: settings {await reopened.settings(guild)}")
        for channel in ledger.refused_daily_channels:
            if await reopened.live_game(channel) is not None:
                violations.append(f"channel {channel}: a refused daily left a game")
        for owner, game_id in ledger.dailies.items():
            attempt = await reopened.daily_attempt(DAY, owner)
            if attempt is None or attempt.game_id != game_id:
                violations.append(f"player {owner}: attempt {attempt}")
        for race_id, (first, second) in ledger.races.items():
            race = await reopened.race(race_id)
            owners = {(await reopened.game(first)).owner_id, (await reopened.game(second)).owner_id}
            if race is None or race.winner_id not in owners or race.finished_at is None:
                violations.append(f"race {race_id}: {race}")
        assert violations == []
    finally:
        await reopened.close()


@pytest.mark.backends("sqlite")
async def test_a_read_sees_every_write_acknowledged_before_it(tmp_path):
    """A read started after a write was acknowledged sees it, even while other reads are under way on the
    same connection (no read is served from an older snapshot)."""
    storage = from_url(str(tmp_path / "pyramide.db"))
    await storage.open()
    try:
        manager = GameManager(storage)
        lives = [await deal(manager, guild_id=1, channel_id=c, owner_id=9, game=Game.from_number(c)) for c in range(30)]

        async def finish_then_read(index: int) -> str:
            live = lives[index]
            async with manager.turn(live.record.channel_id) as turn:
                await turn.end(ENDED)
            stored = await storage.game(live.record.id)
            return stored.status if stored else "lost"

        async def keep_reading() -> None:
            for _ in range(200):
                await storage.leaderboard(1, None, 10, 0)
                await storage.live_game(1_000)

        statuses, *_ = await asyncio.gather(
            asyncio.gather(*(finish_then_read(i) for i in range(30))), keep_reading(), keep_reading()
        )
        assert statuses == [ENDED] * 30
    finally:
        await storage.close()


# ------------------------------------------------------------------------------- one schema
async def described_columns(storage: Storage) -> dict[str, list[str]]:
    """The tables and columns the database itself holds, in their order."""
    if isinstance(storage, PostgresStorage):
        found = await raw(
            storage,
            "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'"
            " AND table_name != 'pyramide_schema' ORDER BY table_name, ordinal_position",
        )
        tables: dict[str, list[str]] = {}
        for table, column in found:
            tables.setdefault(table, []).append(column)
        return tables
    names = [r[0] for r in await raw(storage, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    return {name: [r[1] for r in await raw(storage, f"PRAGMA table_info({name})")] for name in names}


async def index_names(storage: Storage) -> set[str]:
    if isinstance(storage, PostgresStorage):
        found = await raw(storage, "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")
        return {r[0] for r in found if not r[0].endswith(("_pkey", "_key"))}
    found = await raw(storage, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
    return {r[0] for r in found}


async def test_the_database_holds_exactly_the_described_schema_and_the_copy_knows_every_column(storage):
    """One description of the schema: what a new database holds is what the schema module says, and the
    copy command's table list and the game codec are that description."""
    assert await described_columns(storage) == {table.name: list(columns(table.name)) for table in schema.TABLES}
    assert await index_names(storage) == {index.name for index in schema.INDEXES if index.until is None}
    assert {table: [name for name, _ in found] for table, found in copy.TABLES.items()} == {
        table.name: list(columns(table.name)) for table in schema.TABLES
    }


async def test_a_database_migrated_from_version_1_has_the_schema_of_a_new_one(database_url, storage):
    """Step by step from the first version, a database ends up with the same tables, columns and indexes
    as one made new (every step derived from the one description)."""
    fresh = await described_columns(storage), await index_names(storage)
    await storage.close()
    if isinstance(storage, PostgresStorage):
        connection = await asyncpg.connect(database_url)
        try:
            await connection.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
            await connection.execute(";\n".join(schema.migration(1, "postgresql")))
            await connection.execute(schema.POSTGRES_VERSION_TABLE)
            await connection.execute("INSERT INTO pyramide_schema VALUES (1)")
        finally:
            await connection.close()
    else:
        Path(database_url).unlink()
        with sqlite3.connect(database_url) as db:
            db.executescript(";\n".join(schema.migration(1, "sqlite")) + ";\nPRAGMA user_version = 1;")
    old = twin(storage)
    await old.open()
    try:
        assert (await described_columns(old), await index_names(old)) == fresh
    finally:
        await old.close()
    await storage.open()  # (the fixture closes it)


async def test_a_race_nobody_cleared_is_over_in_the_transaction_that_closes_its_last_game(storage):
    """The race ends when its last game in play is closed, nobody having cleared it: decided by the database
    with that game, not by the cog afterwards (a process stopping in between leaves no race open)."""
    records = [
        await storage.create_game(GameRecord(0, 1000, 60_000 + n, player, "PY1-N-AAAAAAS", "N", created_at=1.0))
        for n, player in enumerate((801, 802))
    ]
    race_id = await storage.create_race(1000, 70_999, "PY1-N-AAAAAAS", 1.0, [(r.owner_id, r.id) for r in records])
    records[0] = replace(records[0], status=ENDED, finished_at=2.0, seconds=1.0)
    await storage.finish_game(records[0])
    assert (await storage.race(race_id)).finished_at is None  # the other still plays
    records[1] = replace(records[1], status=ENDED, finished_at=3.0, seconds=2.0)
    await storage.finish_game(records[1])
    race = await storage.race(race_id)
    assert race.finished_at == 3.0 and race.winner_id is None
    assert (await storage.race_stats(1000, 801)).played == 1


# ------------------------------------------------------------------------------ races ending at once
RACES = 240
# How each race's two games end: both cleared, nobody cleared (given up, or stuck), one of each.
ENDINGS = (("clear", "clear"), ("give up", "give up"), ("clear", "give up"), ("give up", "clear"), ("stuck", "stuck"))


def _ending(index: int) -> tuple[str, str]:
    kind = ENDINGS[index % 4]
    return ENDINGS[4] if index % 20 == 1 else kind  # a few races both stuck (a long line), most quick


def _line(kind: str) -> Game:
    """The game a player plays, all but its last move made: the last one clears it, or sticks it (a
    player who gives up has made no move)."""
    game = stuck_game() if kind == "stuck" else kings_and_pairs()
    if kind == "clear":
        clear_kings_and_pairs(game)
    elif kind == "stuck":
        play_stuck_line(game)
    return game


async def _race_ending_at_once(index: int, manager: GameManager, storage: Storage, gate: asyncio.Semaphore) -> dict:
    """A race whose two players' last moves arrive at the same moment; what was acknowledged."""
    kinds = _ending(index)
    players = (10_000 + index * 2, 10_001 + index * 2)
    channels = (200_000 + index * 2, 200_001 + index * 2)
    lines = [_line(kind) for kind in kinds]
    async with gate:
        lives = []
        for player, channel, kind in zip(players, channels, kinds, strict=True):
            fresh = stuck_game() if kind == "stuck" else kings_and_pairs()
            lives.append(await deal(manager, guild_id=3000, channel_id=channel, owner_id=player, game=fresh))
        race_id = await storage.create_race(
            3000,
            300_000 + index,
            lives[0].record.code,
            1.0,
            [(p, live.record.id) for p, live in zip(players, lives, strict=True)],
        )
        acknowledged: dict = {"race": race_id, "games": {}, "kinds": kinds, "players": players}

        async def all_but_last(channel: int, kind: str, line: Game) -> list:
            actions = line.actions if kind == "give up" else line.actions[:-1]
            for action in actions:
                await play(manager, channel, lambda g, a=action: g.tap(a), request=random.getrandbits(62))
            return actions

        played = await asyncio.gather(*(all_but_last(c, k, g) for c, k, g in zip(channels, kinds, lines, strict=True)))

        async def last(channel: int, kind: str, line: Game) -> tuple[str, int]:
            if kind == "give up":
                live = await end(manager, channel, ENDED)
                return ENDED, len(live.record.actions)
            result = await play(manager, channel, lambda g: g.tap(line.actions[-1]), request=random.getrandbits(62))
            assert result.finished
            return result.live.record.status, len(line.actions)

        ends = await asyncio.gather(*(last(c, k, g) for c, k, g in zip(channels, kinds, lines, strict=True)))
    for live, (status, moves), actions in zip(lives, ends, played, strict=True):
        acknowledged["games"][live.record.id] = (live.record.owner_id, status, moves)
        assert moves >= len(actions)
    return acknowledged


async def test_races_whose_last_moves_arrive_at_once_all_end_with_the_right_winner(storage):
    """Both players' last moves of a race at the same moment, in hundreds of races: both cleared, nobody
    cleared (given up or stuck), one of each. Every race is over, won by one who cleared it (nobody when
    nobody did), and every acknowledged game is stored as it was acknowledged."""
    manager = GameManager(storage)
    gate = asyncio.Semaphore(40)
    races = await asyncio.gather(*(_race_ending_at_once(i, manager, storage, gate) for i in range(RACES)))

    reopened = twin(storage)
    await reopened.open()
    try:
        wrong = []
        for acknowledged in races:
            race = await reopened.race(acknowledged["race"])
            clearers = {owner for owner, status, _ in acknowledged["games"].values() if status == WON}
            if race is None or race.finished_at is None:
                wrong.append(f"race {acknowledged['race']} ({acknowledged['kinds']}): left open")
            elif (race.winner_id is None) != (not clearers) or (clearers and race.winner_id not in clearers):
                wrong.append(f"race {acknowledged['race']} ({acknowledged['kinds']}): won by {race.winner_id}")
            for game_id, (owner, status, moves) in acknowledged["games"].items():
                stored = await reopened.game(game_id)
                if stored is None or (stored.owner_id, stored.status, len(stored.actions)) != (owner, status, moves):
                    wrong.append(f"game {game_id}: {stored and (stored.status, len(stored.actions))}")
        assert wrong == []
        played = [
            await reopened.race_stats(3000, player) for acknowledged in races for player in acknowledged["players"]
        ]
        assert all(stats.played == 1 for stats in played)
        assert sum(stats.won for stats in played) == sum(
            1 for acknowledged in races if "clear" in acknowledged["kinds"]
        )
    finally:
        await reopened.close()


async def test_a_race_nobody_cleared_is_over_when_its_last_two_games_are_closed_at_once(storage):
    """The concurrent twin of the test above it: both games of a race closed unwon at the same moment, by
    two transactions at once; the race is over (each one's check must see the other's commit)."""
    races = []
    for index in range(60):
        records = [
            await storage.create_game(
                GameRecord(0, 1000, 61_000 + index * 2 + n, player, "PY1-N-AAAAAAS", "N", created_at=1.0)
            )
            for n, player in enumerate((901 + index * 2, 902 + index * 2))
        ]
        race_id = await storage.create_race(
            1000, 71_000 + index, "PY1-N-AAAAAAS", 1.0, [(r.owner_id, r.id) for r in records]
        )
        records = [replace(record, status=ENDED, finished_at=2.0, seconds=1.0) for record in records]
        races.append((race_id, records))
    await asyncio.gather(*(storage.finish_game(record) for _, records in races for record in records))
    open_races = [race_id for race_id, _ in races if (await storage.race(race_id)).finished_at is None]
    assert open_races == []


async def test_a_player_forgotten_while_racing_leaves_no_race_open(storage):
    """Forget-me for one player of each race at the moment the other player gives up: the race is over
    (its last game in play went with the forgotten player), and nothing of the forgotten player is left."""
    races = []
    for index in range(40):
        forgotten, other = 20_000 + index, 21_000 + index
        records = [
            await storage.create_game(
                GameRecord(0, 1000, 62_000 + index * 2 + n, p, "PY1-N-AAAAAAS", "N", created_at=1.0)
            )
            for n, p in enumerate((forgotten, other))
        ]
        race_id = await storage.create_race(
            1000, 72_000 + index, "PY1-N-AAAAAAS", 1.0, [(r.owner_id, r.id) for r in records]
        )
        records[1] = replace(records[1], status=ENDED, finished_at=2.0, seconds=1.0)
        races.append((race_id, forgotten, records[1]))
    both = [(storage.finish_game(record), storage.forget_player(forgotten)) for _, forgotten, record in races]
    await asyncio.gather(*(work for index, pair in enumerate(both) for work in pair[:: 1 - 2 * (index % 2)]))
    for race_id, forgotten, record in races:
        race = await storage.race(race_id)
        assert race.finished_at is not None and race.winner_id is None, race
        assert race.players == ((record.owner_id, record.id),)
        assert await raw(storage, "SELECT id FROM games WHERE owner_id = ?", forgotten) == []


async def test_a_forgotten_race_winner_leaves_no_id_and_the_race_stays_decided(storage):
    """Forget-me of a race's winner: no row keeps their id (the race is over, won by nobody), and the
    other player, still playing, cannot win the race afterwards by clearing."""
    winner, other = 23_001, 23_002
    records = [
        await storage.create_game(GameRecord(0, 1000, 66_000 + n, p, "PY1-N-AAAAAAS", "N", created_at=1.0))
        for n, p in enumerate((winner, other))
    ]
    race_id = await storage.create_race(1000, 76_000, "PY1-N-AAAAAAS", 1.0, [(r.owner_id, r.id) for r in records])
    records[0] = replace(records[0], status=WON, finished_at=2.0, seconds=1.0)
    await storage.finish_game(records[0])
    assert (await storage.race(race_id)).winner_id == winner
    await storage.forget_player(winner)
    race = await storage.race(race_id)
    assert race.winner_id is None and race.finished_at == 2.0
    assert await raw(storage, "SELECT id FROM races WHERE winner_id = ?", winner) == []
    records[1] = replace(records[1], status=WON, finished_at=3.0, seconds=2.0)
    await storage.finish_game(records[1])
    race = await storage.race(race_id)
    assert race.winner_id is None and race.finished_at == 2.0
    assert (await storage.race_stats(1000, other)).won == 0


async def test_a_server_rejoined_while_its_data_is_purged_keeps_it(postgres_url):
    """PostgreSQL (READ COMMITTED): the bot rejoins a server (its departure deleted) while the purge of
    departed servers runs, having listed that server already; the server keeps its games and settings."""
    storage = from_url(postgres_url)
    await storage.open()
    try:
        record = await storage.create_game(GameRecord(0, 4000, 64_000, 7, "PY1-N-AAAAAAS", "N", created_at=1.0))
        await storage.save_settings(4000, GuildSettings(idle_minutes=7))
        await storage.guild_left(4000, 1.0)
        rejoin = await asyncpg.connect(postgres_url)
        try:
            transaction = rejoin.transaction()
            await transaction.start()
            await rejoin.execute("SELECT * FROM departures WHERE guild_id = 4000 FOR UPDATE")
            purge = asyncio.ensure_future(storage.purge_departed(100.0))
            while not await rejoin.fetchval(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
            ):
                await asyncio.sleep(0.02)  # the purge waits for the departure's row
            await rejoin.execute("DELETE FROM departures WHERE guild_id = 4000")  # what guild_joined does
            await transaction.commit()
            assert await purge == []
        finally:
            await rejoin.close()
        assert await storage.game(record.id) is not None
        assert await storage.settings(4000) == GuildSettings(idle_minutes=7)
    finally:
        await storage.close()


async def test_two_processes_dealing_in_one_channel_at_once_leave_one_game_in_play(storage):
    """Two processes deal in the same channel at the same moment (each found no game there): the unique
    index on the channel's game in play keeps one; the other's deal is refused whole."""
    other = twin(storage)
    await other.open()
    try:
        for channel in range(65_000, 65_030):
            deals = [
                store.create_game(GameRecord(0, 1000, channel, owner, "PY1-N-AAAAAAS", "N", created_at=1.0))
                for store, owner in ((storage, 1), (other, 2))
            ]
            results = await asyncio.gather(*deals, return_exceptions=True)
            refused = [r for r in results if isinstance(r, BaseException)]
            assert len(refused) == 1 and isinstance(refused[0], sqlite3.IntegrityError | asyncpg.UniqueViolationError)
            assert len(await raw(storage, "SELECT id FROM games WHERE channel_id = ?", channel)) == 1
    finally:
        await other.close()
