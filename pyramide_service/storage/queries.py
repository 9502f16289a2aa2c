"""Every query of Pyramide's storage on games, races, settings and meta, written once (``?``
placeholders, SQL that SQLite and PostgreSQL both read), the operations over them (``units``), and
``Storage``: every operation, of these and of the other aggregates (standings, achievements, events,
data rights), on one class that a backend completes with how it runs a unit (``sqlite``, ``postgres``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..stored import (
    BROKEN,
    FINISHED,
    WON,
    DailyAttempt,
    DailyTaken,
    Finish,
    GameRecord,
    GuildSettings,
    MoveConflict,
    RaceRecord,
    RaceStats,
    StorageOutcomeUnknown,
    UnreadableGame,
)
from . import achievements, events, owed
from .achievements import AchievementStorage
from .codec import COLUMNS, decode_action, encode_action, game_record, pack_log, unpack_log
from .events import EventQueries
from .leaderboards import LeaderboardQueries
from .notices import Notices
from .rights import DataRights
from .styles import StyleQueries
from .units import Tx, read, write

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
# SQLite stores a move in one statement through a view whose trigger writes the action and the totals
# (schema.SQLITE_ONLY); its key or foreign key refuses a move stored already or of a game gone.
STORE_MOVE = (
    "INSERT INTO moves (game_id, seq, action, at, request, score, moves, removed, started_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
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
SWAP_META = "UPDATE meta SET value = ? WHERE key = ? AND value = ?"
# The meta row locked (an update that changes nothing), as LOCK_RACE_OF_GAME locks a race: on PostgreSQL
# (READ COMMITTED) a second caller waits for the first one's commit, and its next statement sees it.
LOCK_META = "UPDATE meta SET value = value WHERE key = ?"

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


# ------------------------------------------------------------------------------------------ parts
def _attempt(found: Sequence[Any]) -> DailyAttempt:
    return DailyAttempt(*found)


async def _load_game(db: Tx, found: Sequence[Any] | None) -> GameRecord | UnreadableGame | None:
    if found is None:
        return None
    row, log = tuple(found)[:-1], found[-1]
    try:
        if log is not None:
            actions = tuple(unpack_log(bytes(log)))
        else:
            actions = tuple(decode_action(r[0]) for r in await db.rows(GAME_ACTIONS, row[0]))  # (row[0]: its id)
    except (ValueError, TypeError) as error:
        return UnreadableGame(game_record(row), f"stored actions unreadable: {error}")
    return game_record(row, actions)


async def _insert_race(
    db: Tx, guild_id: int, channel_id: int, code: str, at: float, players: list[tuple[int, int]]
) -> int:
    race_id = int(await db.value(INSERT_RACE, guild_id, channel_id, code, at))
    await db.many(INSERT_RACER, [(race_id, player, game, place) for place, (player, game) in enumerate(players)])
    return race_id


async def _load_race(db: Tx, race_id: int) -> RaceRecord | None:
    found = await db.row(RACE, race_id)
    if found is None:
        return None
    players = tuple((int(p), int(g)) for p, g in await db.rows(RACERS, race_id))
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


class Storage(LeaderboardQueries, AchievementStorage, EventQueries, DataRights, owed.OwedStorage, StyleQueries):
    """Everything the bot stores: every operation, each written once over a ``Tx`` (``units``); a backend
    subclass says how a unit runs (``_read``, ``_write``) and opens, closes and compacts its database."""

    async def open(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    async def compact(self) -> None:
        raise NotImplementedError

    async def settle(self, unknown: StorageOutcomeUnknown) -> None:
        """Make sure a write of unknown outcome can no longer take effect (SQLite never leaves one: its
        writes run in this process, committed or rolled back before they return)."""

    def notices(self) -> Notices:
        """The line to the deployment's other processes, made once by whoever tells them of changes (none:
        SQLite is one process's database)."""
        return Notices()

    @read()
    async def ping(self, db: Tx) -> None:
        await db.value("SELECT 1")

    # ---------------------------------------------------------------------------------- games
    @write(several=True, retry=False)  # a retry could store it twice
    async def create_game(self, db: Tx, record: GameRecord) -> GameRecord:
        """Store a new game. A counted daily (``daily`` and ``counted`` set) opens the player's attempt at
        that day in the same transaction: its key makes it the only one, across processes; a second
        raises ``DailyTaken`` and stores nothing."""
        game_id = int(
            await db.value(
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
        )
        await events.open_entry(db, record, game_id)  # an event's deal: the player's one attempt (a key)
        if record.daily is not None and record.counted:
            opened = await db.changed(
                OPEN_ATTEMPT,
                record.daily,
                record.owner_id,
                record.guild_id,
                record.channel_id,
                game_id,
                record.created_at,
            )
            if opened == 0:  # the player's attempt at that day is taken: nothing of this unit is kept
                taken = await db.row(ATTEMPT, record.daily, record.owner_id)
                assert taken is not None
                raise DailyTaken(_attempt(taken))
        return replace(record, id=game_id)

    @read(several=True)
    async def live_game(self, db: Tx, channel_id: int) -> GameRecord | UnreadableGame | None:
        """The channel's game in play, or why its stored actions cannot be read."""
        return await _load_game(db, await db.row(LOAD_LIVE, channel_id))

    @read(several=True)
    async def game(self, db: Tx, game_id: int) -> GameRecord | None:
        """A game by its id (one whose stored actions cannot be read with none)."""
        found = await _load_game(db, await db.row(LOAD_GAME, game_id))
        return found.record if isinstance(found, UnreadableGame) else found

    @write(retry=False)  # a second try would find it stored: unknown instead
    async def append_action(
        self,
        db: Tx,
        game_id: int,
        seq: int,
        action: int | str,
        at: float,
        record: GameRecord,
        request: int | None = None,
    ) -> None:
        """Store one action and the running totals in one transaction, committed before returning. If its
        place (game, seq) or its interaction is stored already, another process was first (or the game is
        gone): nothing is written and ``MoveConflict`` is raised.

        The one place the databases differ: both store a move in one statement, PostgreSQL with
        ``ON CONFLICT`` (nothing returned: taken), SQLite through a view's trigger (its key raises), sent on
        without waiting for its answer (a lone move runs in autocommit, one call to the writer's thread)."""
        totals = (record.score, record.moves, record.removed, record.started_at)
        if db.dialect == "sqlite":
            taken = MoveConflict(f"game {game_id}: move {seq} was stored by another process, or the game is gone")
            await db.execute(STORE_MOVE, game_id, seq, encode_action(action), at, request, *totals, conflict=taken)
            return
        try:
            stored = await db.value(STORE_MOVE_IN_ONE, game_id, seq, encode_action(action), at, request, *totals)
        except db.conflicts as error:  # the game is gone
            raise MoveConflict(f"game {game_id}: move {seq} cannot be stored: {error}") from error
        if stored is None:
            raise MoveConflict(f"game {game_id}: move {seq} was stored by another process")

    @read()
    async def move_at(self, db: Tx, game_id: int, seq: int) -> tuple[str, int | None] | None:
        """The move stored at a place of a game in play (its action, encoded, and its interaction), if any:
        how a move whose write had an unknown outcome is looked up once the write is settled."""
        found = await db.row(MOVE_AT, game_id, seq)
        return (str(found[0]), int(found[1]) if found[1] is not None else None) if found else None

    @read()
    async def last_action_at(self, db: Tx, game_id: int) -> float | None:
        """When the game's last action was stored (``None``: no action yet)."""
        found = await db.value(LAST_ACTION_AT, game_id)
        return float(found) if found is not None else None

    @write()
    async def set_message(self, db: Tx, game_id: int, message_id: int) -> None:
        await db.execute(SET_MESSAGE, message_id, game_id)

    @write(several=True)
    async def discard_game(self, db: Tx, game_id: int) -> None:
        """Delete a game nobody saw (its board could not be posted), with its actions and daily attempt."""
        await db.execute(DISCARD_GAME, game_id)  # (the game's row first, as finish_game takes it)
        await db.execute(DISCARD_ATTEMPT, game_id)

    @write(retry=lambda game_id, request=None: request is not None)  # (a request guards it: may run again)
    async def add_hint(self, db: Tx, game_id: int, request: int | None = None) -> bool:
        """Count a hint; one asked by interaction ``request`` counts once (a press delivered to two
        processes). Returns whether it was counted."""
        return await db.changed(ADD_HINT, request, game_id, request, request) == 1

    @write(several=True)  # every step of it is idempotent
    async def finish_game(self, db: Tx, record: GameRecord, *, tier: str | None = None, owe: bool = False) -> Finish:
        """Close a game (its actions packed into one value), its daily attempt and its race (won by a
        clear, or over once its last game in play is closed), in one transaction. A daily attempt is
        counted only if it is the player's first finished one that day, and a race is won by the first of
        its games to be cleared: each decided by the database in the transaction that closes the game.
        The player's achievements are credited with it (``tier``: the deal's difficulty, when known); with
        ``owe``, a game that was not won owes its perfect loss until the verdict on its deal is known."""
        assert record.status in FINISHED
        log = pack_log(record.actions) if record.status != BROKEN else None  # a broken log stays as found
        closed = await db.changed(
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
            await db.execute(DROP_ACTIONS, record.id)
        if record.daily is not None and record.counted:
            await db.execute(
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
        await events.close_entry(db, record)  # an event's deal (after the game's row: game, event, then race)
        if closed:
            await db.execute(LOCK_RACE_OF_GAME, record.id)  # (after the game's row: always game, then race)
        if closed and record.status == WON:
            await db.execute(WIN_RACE_OF_GAME, record.owner_id, record.finished_at, record.id)
        elif closed:
            await db.execute(CLOSE_RACE_OF_GAME, record.finished_at, record.id)
        record = replace(record, counted=bool(await db.value(GAME_COUNTED, record.id)))
        unlocked: tuple[str, ...] | None = ()
        if closed:  # the player's achievements, in this transaction (a retry finds the game closed: none twice)
            unlocked = await achievements.credit_finished(db, record, tier)
        owes = bool(closed) and owe and record.status not in (WON, BROKEN) and await owed.owe_verdict(db, record)
        return Finish(record, unlocked, owes)  # (owes: a perfect loss, once known)

    @read()
    async def stale_dailies(self, db: Tx, day: str) -> list[int]:
        """Channels whose counted daily of a day before ``day`` is still played (it ends at midnight UTC)."""
        return [int(r[0]) for r in await db.rows(STALE_DAILIES, day)]

    # ------------------------------------------------------------------------------- settings
    @read()
    async def settings(self, db: Tx, guild_id: int) -> GuildSettings:
        found = await db.row(SETTINGS, guild_id)
        if found is None:
            return GuildSettings()
        return GuildSettings(bool(found[0]), bool(found[1]), int(found[2]), bool(found[3]))

    @write()
    async def save_settings(self, db: Tx, guild_id: int, settings: GuildSettings) -> None:
        values = (settings.error_help, settings.anyone_can_play, settings.idle_minutes, settings.new_in_thread)
        await db.execute(SAVE_SETTINGS, guild_id, *values)

    @write()
    async def remember_name(self, db: Tx, player_id: int, name: str) -> None:
        """The name a player goes by (their display name), shown on leaderboards; kept up to date."""
        await db.execute(REMEMBER_NAME, player_id, name[:64])

    @read()
    async def daily_attempt(self, db: Tx, day: str, player_id: int) -> DailyAttempt | None:
        found = await db.row(ATTEMPT, day, player_id)
        return _attempt(found) if found else None

    @write(long=True)
    async def reset_stats(self, db: Tx, guild_id: int, player_id: int | None) -> int:
        """Delete the finished games of a server (or of one player there); returns how many."""
        if player_id is None:
            return await db.changed(RESET_GUILD, guild_id)
        return await db.changed(RESET_PLAYER, guild_id, player_id)

    @read()
    async def meta(self, db: Tx, key: str) -> str | None:
        found = await db.value(META, key)
        return str(found) if found is not None else None

    @write()
    async def set_meta(self, db: Tx, key: str, value: str) -> None:
        await db.execute(SET_META, key, value)

    @write()
    async def swap_meta(self, db: Tx, key: str, old: str | None, new: str) -> bool:
        """Compare-and-set: ``key`` is set to ``new`` only if it holds ``old`` (``None``: only if it holds
        nothing); returns whether it was. The database decides between callers on every process (one
        statement: PostgreSQL re-checks its condition on the row another caller just committed)."""
        if old is None:
            return await db.changed(KEEP_META, key, new) == 1
        return await db.changed(SWAP_META, new, key, old) == 1

    @write(several=True)
    async def daily_secret(self, db: Tx, fresh: str) -> str:
        """The deployment's daily secret: ``fresh`` is kept if none was stored yet."""
        await db.execute(KEEP_META, "daily_secret", fresh)
        return str(await db.value(META, "daily_secret"))

    # ---------------------------------------------------------------------------------- races
    @write(several=True, retry=False)
    async def create_race(
        self, db: Tx, guild_id: int, channel_id: int, code: str, at: float, players: list[tuple[int, int]]
    ) -> int:
        return await _insert_race(db, guild_id, channel_id, code, at, players)

    @write(several=True, retry=False)
    async def create_race_in_meta(
        self,
        db: Tx,
        key: str,
        old: str,
        value: Callable[[int], str],
        race: tuple[int, int, str, float, list[tuple[int, int]]],
    ) -> int | None:
        """``create_race(*race)`` and ``key`` set to ``value(race_id)`` in one transaction, only if ``key``
        still holds ``old`` (its row locked first: of two callers at once, on any process, the second finds
        the first one's value and stores nothing). The race's id, or ``None`` when nothing was stored."""
        await db.execute(LOCK_META, key)
        if await db.value(META, key) != old:
            return None
        race_id = await _insert_race(db, *race)
        await db.execute(SET_META, key, value(race_id))
        return race_id

    @write()
    async def set_race_message(self, db: Tx, race_id: int, message_id: int) -> None:
        await db.execute(SET_RACE_MESSAGE, message_id, race_id)

    @read(several=True)
    async def race_of_game(self, db: Tx, game_id: int) -> RaceRecord | None:
        race_id = await db.value(RACE_OF_GAME, game_id)
        return await _load_race(db, int(race_id)) if race_id is not None else None

    @read(several=True)
    async def race(self, db: Tx, race_id: int) -> RaceRecord | None:
        return await _load_race(db, race_id)

    @write()
    async def close_race(self, db: Tx, race_id: int, at: float) -> None:
        """Every player finished and nobody cleared the pyramid."""
        await db.execute(CLOSE_RACE, at, race_id)

    @read()
    async def race_stats(self, db: Tx, guild_id: int, player_id: int) -> RaceStats:
        """Races on a server: played (finished), won, and the best winning time."""
        found = await db.row(RACE_STATS, guild_id, player_id)
        played, won, best = found if found else (0, 0, None)
        return RaceStats(int(played or 0), int(won or 0), float(best) if best is not None else None)
