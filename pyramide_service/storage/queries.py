"""Every query of Pyramide's storage, written once (``?`` placeholders, SQL that SQLite and PostgreSQL
both read), and every storage call as one unit of work over them.

A unit (``units``) is either one ``Step`` (a statement, its arguments and what to return) or a program: a generator
that yields steps and receives their results, so that a unit of several statements (a game and its daily
attempt, a finished game and its race) is written once and run by either backend in one transaction:
SQLite drives it synchronously in its writer's thread (no other coroutine's statement can come between
its statements), PostgreSQL on one pooled connection. ``SQLStorage`` implements the ``Storage``
interface on top; a backend only says how to run a read and a write (``_read``, ``_write``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from . import (
    BROKEN,
    FINISHED,
    WON,
    DailyAttempt,
    DailyTaken,
    GameRecord,
    GuildSettings,
    RaceRecord,
    RaceStats,
    StorageOutcomeUnknown,
    achievements,
    events,
    owed,
)
from .codec import COLUMNS, decode_action, encode_action, game_record, pack_log, unpack_log
from .rights import GUILD_JOINED, GUILD_LEFT, forget_player, purge_departed
from .standings import StandingsQueries
from .styles import StyleQueries
from .units import Program, Step, Unit, changed, many, postgres_sql, row, rows, scalar

# What the backends take from here besides the class.
__all__ = ["PROBE", "STORE_MOVE_IN_ONE", "Program", "SQLStorage", "Step", "Unit", "postgres_sql", "scalar"]

# ------------------------------------------------------------------------------------------ games
INSERT_GAME = (
    "INSERT INTO games (guild_id, channel_id, owner_id, code, rules, status, daily, counted, created_at,"
    " started_at, locale, event_id, event_deal) VALUES (?, ?, ?, ?, ?, 'playing', ?, ?, ?, ?, ?, ?, ?) RETURNING id"
)
OPEN_ATTEMPT = (
    "INSERT INTO daily_attempts (day, player_id, guild_id, channel_id, game_id, opened_at)"
    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING"
)
ATTEMPT = (
    "SELECT day, player_id, guild_id, channel_id, game_id, opened_at, status, seconds, moves, hints, removed,"
    " picture FROM daily_attempts WHERE day = ? AND player_id = ?"
)
LOAD_LIVE = f"SELECT {COLUMNS}, log FROM games WHERE channel_id = ? AND status = 'playing'"
LOAD_GAME = f"SELECT {COLUMNS}, log FROM games WHERE id = ?"
GAME_ACTIONS = "SELECT action FROM actions WHERE game_id = ? ORDER BY seq"
INSERT_ACTION = "INSERT INTO actions (game_id, seq, action, at, request) VALUES (?, ?, ?, ?, ?)"
UPDATE_TOTALS = "UPDATE games SET score = ?, moves = ?, removed = ?, started_at = ? WHERE id = ?"
# PostgreSQL stores a move in one statement (one round trip): the action, unless its place or its
# interaction is stored already (then nothing is returned), and the totals.
STORE_MOVE_IN_ONE = (
    "WITH stored AS (INSERT INTO actions (game_id, seq, action, at, request) VALUES (?, ?, ?, ?, ?)"
    " ON CONFLICT DO NOTHING RETURNING game_id)"
    " UPDATE games SET score = ?, moves = ?, removed = ?, started_at = ? WHERE id = (SELECT game_id FROM stored)"
    " RETURNING id"
)
LAST_ACTION_AT = "SELECT MAX(at) FROM actions WHERE game_id = ?"
MOVE_AT = "SELECT action, request FROM actions WHERE game_id = ? AND seq = ?"
SET_MESSAGE = "UPDATE games SET message_id = ? WHERE id = ?"
ADD_HINT = (
    "UPDATE games SET hints = hints + 1, hint_request = ? WHERE id = ?"
    " AND (CAST(? AS BIGINT) IS NULL OR hint_request IS NULL OR hint_request <> ?)"
)
CLOSE_GAME = (
    "UPDATE games SET status = ?, score = ?, moves = ?, removed = ?, finished_at = ?, seconds = ?, started_at = ?,"
    " log = ? WHERE id = ? AND status = 'playing'"
)
DROP_ACTIONS = "DELETE FROM actions WHERE game_id = ?"
CLOSE_ATTEMPT = (
    "UPDATE daily_attempts SET status = ?, seconds = ?, moves = ?, hints = ?, removed = ?, picture = ?,"
    " finished_at = ? WHERE game_id = ? AND status IS NULL"
)
GAME_COUNTED = "SELECT counted FROM games WHERE id = ?"
# The race row of a game, locked (an update that changes nothing): whoever closes a game of a race takes
# it before deciding anything about the race, so that on PostgreSQL (READ COMMITTED) the second of two
# games closed at once waits for the first one's commit, and its checks (fresh snapshots, statements
# after this one) see it. SQLite serialises writers anyway. (SQLite has no SELECT ... FOR UPDATE.)
LOCK_RACE_OF_GAME = (
    "UPDATE races SET finished_at = finished_at WHERE id = (SELECT race_id FROM race_players WHERE game_id = ?)"
)
# The first clear of a race's game wins it, in the transaction that closes the game.
WIN_RACE_OF_GAME = (
    "UPDATE races SET winner_id = ?, finished_at = ? WHERE winner_id IS NULL AND finished_at IS NULL"
    " AND id = (SELECT race_id FROM race_players WHERE game_id = ?)"
)
# A race whose last game in play was just closed, nobody having cleared it, is over (nobody won it).
CLOSE_RACE_OF_GAME = (
    "UPDATE races SET finished_at = ? WHERE finished_at IS NULL"
    " AND id = (SELECT race_id FROM race_players WHERE game_id = ?)"
    " AND NOT EXISTS (SELECT 1 FROM race_players AS p JOIN games AS g ON g.id = p.game_id"
    " WHERE p.race_id = races.id AND g.status = 'playing')"
)
DISCARD_ATTEMPT = "DELETE FROM daily_attempts WHERE game_id = ?"
DISCARD_GAME = "DELETE FROM games WHERE id = ?"
STALE_DAILIES = "SELECT channel_id FROM games WHERE status = 'playing' AND counted AND daily < ?"

# --------------------------------------------------------------------------------------- settings
SETTINGS = "SELECT error_help, anyone_can_play, idle_minutes, new_in_thread FROM settings WHERE guild_id = ?"
SAVE_SETTINGS = (
    "INSERT INTO settings (guild_id, error_help, anyone_can_play, idle_minutes, new_in_thread)"
    " VALUES (?, ?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET error_help = excluded.error_help,"
    " anyone_can_play = excluded.anyone_can_play, idle_minutes = excluded.idle_minutes,"
    " new_in_thread = excluded.new_in_thread"
)

# ------------------------------------------------------------------------------------- statistics
REMEMBER_NAME = (
    "INSERT INTO players (player_id, name) VALUES (?, ?)"
    " ON CONFLICT (player_id) DO UPDATE SET name = excluded.name WHERE players.name != excluded.name"
)
# An event's deals stay with their event (its standings and the players' one attempt at each), as the
# daily attempts stay: a reset of the server's statistics deletes the other finished games.
RESET_GUILD = "DELETE FROM games WHERE guild_id = ? AND status != 'playing' AND event_id IS NULL"
RESET_PLAYER = "DELETE FROM games WHERE guild_id = ? AND status != 'playing' AND event_id IS NULL AND owner_id = ?"

# ------------------------------------------------------------------------------------------ meta
META = "SELECT value FROM meta WHERE key = ?"
SET_META = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
KEEP_META = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT DO NOTHING"

# ----------------------------------------------------------------------------------------- races
INSERT_RACE = "INSERT INTO races (guild_id, channel_id, code, created_at) VALUES (?, ?, ?, ?) RETURNING id"
INSERT_RACER = "INSERT INTO race_players (race_id, player_id, game_id, position) VALUES (?, ?, ?, ?)"
SET_RACE_MESSAGE = "UPDATE races SET message_id = ? WHERE id = ?"
RACE_OF_GAME = "SELECT race_id FROM race_players WHERE game_id = ?"
RACE = "SELECT id, guild_id, channel_id, message_id, code, created_at, winner_id, finished_at FROM races WHERE id = ?"
RACERS = "SELECT player_id, game_id FROM race_players WHERE race_id = ? ORDER BY position"
CLOSE_RACE = "UPDATE races SET finished_at = ? WHERE id = ? AND finished_at IS NULL"
RACE_STATS = (
    "SELECT COUNT(*), COUNT(*) FILTER (WHERE r.winner_id = p.player_id),"
    " MIN(g.seconds) FILTER (WHERE r.winner_id = p.player_id)"
    " FROM race_players p JOIN races r ON r.id = p.race_id JOIN games g ON g.id = p.game_id"
    " WHERE r.guild_id = ? AND p.player_id = ? AND r.finished_at IS NOT NULL"
)

PROBE = "UPDATE settings SET guild_id = guild_id WHERE 1 = 0"


# ---------------------------------------------------------------------------------------- programs
def _attempt(found: Sequence[Any]) -> DailyAttempt:
    return DailyAttempt(*found)


def create_game(record: GameRecord) -> Program[int]:
    game_id = yield scalar(
        INSERT_GAME,
        record.guild_id,
        record.channel_id,
        record.owner_id,
        record.code,
        record.rules,
        record.daily,
        record.counted,
        record.created_at,
        record.started_at,
        record.locale,
        record.event_id,
        record.event_deal,
    )
    yield from events.open_entry(record, int(game_id))  # an event's deal: the player's one attempt (a key)
    if record.daily is not None and record.counted:
        opened = yield changed(
            OPEN_ATTEMPT, record.daily, record.owner_id, record.guild_id, record.channel_id, game_id, record.created_at
        )
        if opened == 0:  # the player's attempt at that day is taken: nothing of this unit is kept
            raise DailyTaken(_attempt((yield row(ATTEMPT, record.daily, record.owner_id))))
    return int(game_id)


def load_game(sql: str, key: int) -> Program[GameRecord | None]:
    found = yield row(sql, key)
    if found is None:
        return None
    record = game_record(tuple(found)[:-1])
    log = found[-1]
    try:
        if log is not None:
            record.actions = unpack_log(bytes(log))
        else:
            record.actions = [decode_action(r[0]) for r in (yield rows(GAME_ACTIONS, record.id))]
    except (ValueError, TypeError) as error:
        record.damage = f"stored actions unreadable: {error}"
    return record


def store_move(
    game_id: int, seq: int, action: int | str, at: float, record: GameRecord, request: int | None
) -> Program[None]:
    """SQLite: the action (its place and its interaction are unique keys: another process's move there
    raises an integrity error, turned into ``MoveConflict`` by the backend), then the totals."""
    yield changed(INSERT_ACTION, game_id, seq, encode_action(action), at, request)
    yield changed(UPDATE_TOTALS, record.score, record.moves, record.removed, record.started_at, game_id)


def finish_game(record: GameRecord) -> Program[bool]:
    """Close a game (its actions packed into one value), its daily attempt and its race (won by a clear, or
    over once its last game in play is closed), in one transaction; returns whether the game is its
    player's counted daily attempt."""
    log = pack_log(record.actions) if record.status != BROKEN else None  # a broken log stays as found
    closed = yield changed(
        CLOSE_GAME,
        record.status,
        record.score,
        record.moves,
        record.removed,
        record.finished_at,
        record.seconds,
        record.started_at,
        log,
        record.id,
    )
    if log is not None:
        yield changed(DROP_ACTIONS, record.id)
    if record.daily is not None and record.counted:
        yield changed(
            CLOSE_ATTEMPT,
            record.status,
            record.seconds,
            record.moves,
            record.hints,
            record.removed,
            record.picture,
            record.finished_at,
            record.id,
        )
    yield from events.close_entry(record)  # an event's deal (after the game's row: game, event, then race)
    if closed:
        yield changed(LOCK_RACE_OF_GAME, record.id)  # (after the game's row: always game, then race)
    if closed and record.status == WON:
        yield changed(WIN_RACE_OF_GAME, record.owner_id, record.finished_at, record.id)
    elif closed:
        yield changed(CLOSE_RACE_OF_GAME, record.finished_at, record.id)
    counted = bool((yield scalar(GAME_COUNTED, record.id)))
    if closed:  # the player's achievements, in this transaction (a retry finds the game closed: none twice)
        record.unlocked = yield from achievements.credit_finished(record, counted)
    if closed and record.owes_verdict and record.status not in (WON, BROKEN):  # a perfect loss, once known
        yield from owed.owe_verdict(record)
    else:
        record.owes_verdict = False
    return counted


def discard_game(game_id: int) -> Program[None]:
    yield changed(DISCARD_GAME, game_id)  # (the game's row first, as finish_game takes it)
    yield changed(DISCARD_ATTEMPT, game_id)


def daily_secret(fresh: str) -> Program[str]:
    yield changed(KEEP_META, "daily_secret", fresh)
    return str((yield scalar(META, "daily_secret")))


def create_race(guild_id: int, channel_id: int, code: str, at: float, players: list[tuple[int, int]]) -> Program[int]:
    race_id = int((yield scalar(INSERT_RACE, guild_id, channel_id, code, at)))
    yield many(INSERT_RACER, [(race_id, player, game, position) for position, (player, game) in enumerate(players)])
    return race_id


def race(race_id: int) -> Program[RaceRecord | None]:
    found = yield row(RACE, race_id)
    if found is None:
        return None
    players = tuple((int(p), int(g)) for p, g in (yield rows(RACERS, race_id)))
    return RaceRecord(
        id=int(found[0]),
        guild_id=int(found[1]),
        channel_id=int(found[2]),
        message_id=int(found[3]) if found[3] is not None else None,
        code=str(found[4]),
        created_at=float(found[5]),
        players=players,
        winner_id=int(found[6]) if found[6] is not None else None,
        finished_at=float(found[7]) if found[7] is not None else None,
    )


def race_of_game(game_id: int) -> Program[RaceRecord | None]:
    race_id = yield scalar(RACE_OF_GAME, game_id)
    if race_id is None:
        return None
    return (yield from race(int(race_id)))


class SQLStorage(StandingsQueries, achievements.AchievementStorage, owed.OwedStorage, StyleQueries):
    """The ``Storage`` interface over the queries above and the standings' (``standings``). A backend
    runs units: ``_read`` (one consistent snapshot, never older than the last acknowledged write) and
    ``_write`` (one transaction: all of the unit or, on any error, none of it, and nothing of any other
    unit). ``long`` marks maintenance that may take longer than a press may wait; ``retry`` whether a
    unit may run again after a cut connection (every write here is idempotent or guarded by a key,
    except those that pass False)."""

    async def _read(self, unit: Unit, *, long: bool = False) -> Any:
        raise NotImplementedError

    async def _write(self, unit: Unit, *, long: bool = False, retry: bool = True) -> Any:
        raise NotImplementedError

    async def ping(self) -> None:
        await self._read(scalar("SELECT 1"))

    # ---------------------------------------------------------------------------------- games
    async def create_game(self, record: GameRecord) -> GameRecord:
        """Store a new game. A counted daily (``daily`` and ``counted`` set) opens the player's attempt at
        that day in the same transaction: its key makes it the only one, across processes; a second
        raises ``DailyTaken`` and stores nothing."""
        record.id = await self._write(lambda: create_game(record), retry=False)  # a retry could store it twice
        return record

    async def live_game(self, channel_id: int) -> GameRecord | None:
        found: GameRecord | None = await self._read(lambda: load_game(LOAD_LIVE, channel_id))
        return found

    async def game(self, game_id: int) -> GameRecord | None:
        found: GameRecord | None = await self._read(lambda: load_game(LOAD_GAME, game_id))
        return found

    async def append_action(
        self, game_id: int, seq: int, action: int | str, at: float, record: GameRecord, request: int | None = None
    ) -> None:
        """Store one action and the running totals in one transaction, committed before returning. If its
        place (game, seq) or its interaction is stored already, another process was first: nothing is
        written and ``MoveConflict`` is raised."""
        await self._write(lambda: store_move(game_id, seq, action, at, record, request))

    async def settle(self, unknown: StorageOutcomeUnknown) -> None:
        """Make sure a write of unknown outcome can no longer take effect (SQLite never leaves one: its
        writes run in this process, committed or rolled back before they return)."""

    async def move_at(self, game_id: int, seq: int) -> tuple[str, int | None] | None:
        """The move stored at a place of a game in play (its action, encoded, and its interaction), if any:
        how a move whose write had an unknown outcome is looked up once the write is settled."""
        found = await self._read(row(MOVE_AT, game_id, seq))
        return (str(found[0]), int(found[1]) if found[1] is not None else None) if found else None

    async def last_action_at(self, game_id: int) -> float | None:
        """When the game's last action was stored (``None``: no action yet)."""
        found = await self._read(scalar(LAST_ACTION_AT, game_id))
        return float(found) if found is not None else None

    async def set_message(self, game_id: int, message_id: int) -> None:
        await self._write(changed(SET_MESSAGE, message_id, game_id))

    async def discard_game(self, game_id: int) -> None:
        """Delete a game nobody saw (its board could not be posted), with its actions and daily attempt."""
        await self._write(lambda: discard_game(game_id))

    async def add_hint(self, game_id: int, request: int | None = None) -> bool:
        """Count a hint; one asked by interaction ``request`` counts once (a press delivered to two
        processes). Returns whether it was counted."""
        counted = await self._write(changed(ADD_HINT, request, game_id, request, request), retry=request is not None)
        return bool(counted == 1)

    async def finish_game(self, record: GameRecord) -> GameRecord:
        """Close a game, its actions packed into one value. A daily attempt is counted only if it is the
        player's first finished one that day, and a race is won by the first of its games to be cleared:
        each decided by the database in the transaction that closes the game."""
        assert record.status in FINISHED
        record.counted = await self._write(lambda: finish_game(record))  # every step of it is idempotent
        return record

    async def stale_dailies(self, day: str) -> list[int]:
        """Channels whose counted daily of a day before ``day`` is still played (it ends at midnight UTC)."""
        return [int(r[0]) for r in await self._read(rows(STALE_DAILIES, day))]

    # ------------------------------------------------------------------------------- settings
    async def settings(self, guild_id: int) -> GuildSettings:
        found = await self._read(row(SETTINGS, guild_id))
        if found is None:
            return GuildSettings()
        return GuildSettings(bool(found[0]), bool(found[1]), int(found[2]), bool(found[3]))

    async def save_settings(self, guild_id: int, settings: GuildSettings) -> None:
        await self._write(
            changed(
                SAVE_SETTINGS,
                guild_id,
                settings.error_help,
                settings.anyone_can_play,
                settings.idle_minutes,
                settings.new_in_thread,
            )
        )

    async def remember_name(self, player_id: int, name: str) -> None:
        """The name a player goes by (their display name), shown on leaderboards; kept up to date."""
        await self._write(changed(REMEMBER_NAME, player_id, name[:64]))

    async def daily_attempt(self, day: str, player_id: int) -> DailyAttempt | None:
        found = await self._read(row(ATTEMPT, day, player_id))
        return _attempt(found) if found else None

    async def reset_stats(self, guild_id: int, player_id: int | None) -> int:
        """Delete the finished games of a server (or of one player there); returns how many."""
        if player_id is None:
            return int(await self._write(changed(RESET_GUILD, guild_id), long=True))
        return int(await self._write(changed(RESET_PLAYER, guild_id, player_id), long=True))

    # ---------------------------------------------------------------------------- data rights
    async def guild_left(self, guild_id: int, at: float) -> None:
        await self._write(changed(GUILD_LEFT, guild_id, at))

    async def guild_joined(self, guild_id: int) -> None:
        await self._write(changed(GUILD_JOINED, guild_id))

    async def purge_departed(self, before: float) -> list[int]:
        """Delete every game, setting and daily attempt of the servers left before ``before``."""
        guilds: list[int] = await self._write(lambda: purge_departed(before), long=True)
        return guilds

    async def forget_player(self, player_id: int) -> tuple[int, list[int]]:
        """Delete a player's games on every server; their daily attempts stay in the day's totals but no
        longer name them. Returns how many games went, and the channels of those still in play."""
        forgotten: tuple[int, list[int]] = await self._write(lambda: forget_player(player_id), long=True)
        return forgotten

    async def meta(self, key: str) -> str | None:
        found = await self._read(scalar(META, key))
        return str(found) if found is not None else None

    async def set_meta(self, key: str, value: str) -> None:
        await self._write(changed(SET_META, key, value))

    async def daily_secret(self, fresh: str) -> str:
        """The deployment's daily secret: ``fresh`` is kept if none was stored yet."""
        return str(await self._write(lambda: daily_secret(fresh)))

    # ---------------------------------------------------------------------------------- races
    async def create_race(
        self, guild_id: int, channel_id: int, code: str, at: float, players: list[tuple[int, int]]
    ) -> int:
        return int(await self._write(lambda: create_race(guild_id, channel_id, code, at, players), retry=False))

    async def set_race_message(self, race_id: int, message_id: int) -> None:
        await self._write(changed(SET_RACE_MESSAGE, message_id, race_id))

    async def race_of_game(self, game_id: int) -> RaceRecord | None:
        found: RaceRecord | None = await self._read(lambda: race_of_game(game_id))
        return found

    async def race(self, race_id: int) -> RaceRecord | None:
        found: RaceRecord | None = await self._read(lambda: race(race_id))
        return found

    async def close_race(self, race_id: int, at: float) -> None:
        """Every player finished and nobody cleared the pyramid."""
        await self._write(changed(CLOSE_RACE, at, race_id))

    async def race_stats(self, guild_id: int, player_id: int) -> RaceStats:
        """Races on a server: played (finished), won, and the best winning time."""
        found = await self._read(row(RACE_STATS, guild_id, player_id))
        played, won, best = found if found else (0, 0, None)
        return RaceStats(int(played or 0), int(won or 0), float(best) if best is not None else None)
