"""SQLite storage through aiosqlite: WAL journal, schema migrated with PRAGMA user_version.

Two connections: writes go through one, reads through the other, so in WAL mode a read never
queues behind a write that waits for a lock. A write that finds the database locked (another
process) waits at most ``BUSY_MS`` per try, ``WRITE_TRIES`` times, then gives up with
``StorageUnavailable``: well inside Discord's time for an answer. A finished game's actions are
packed into one small value (``games.log``) and its rows in ``actions`` deleted.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from . import (
    BROKEN,
    FINISHED,
    PLAYING,
    DailyAttempt,
    DailyRow,
    DailyTaken,
    GameRecord,
    GuildSettings,
    LeaderRow,
    MoveConflict,
    RaceRecord,
    RaceStats,
    ResultRow,
    StorageError,
    StorageUnavailable,
)
from .codec import COLUMNS, FIELDS, decode_action, encode_action, pack_log, unpack_log

__all__ = ["MIGRATIONS", "SCHEMA_VERSION", "SQLiteStorage", "backup", "pack_log", "unpack_log"]

T = TypeVar("T")
BUSY_MS = 400  # how long one try waits for another connection's write lock
WRITE_TRIES = 3
OPEN_WAIT = 30.0  # seconds to wait at start for another process creating or migrating the database

# Each entry moves the schema from version i to i + 1. Never edit a released entry: add one.
MIGRATIONS: list[str] = [
    # 1: games, their actions, per-server settings
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        owner_id INTEGER NOT NULL,
        code TEXT NOT NULL,
        rules TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'playing',
        score INTEGER NOT NULL DEFAULT 0,
        moves INTEGER NOT NULL DEFAULT 0,
        removed INTEGER NOT NULL DEFAULT 0,
        message_id INTEGER,
        created_at REAL NOT NULL,
        started_at REAL,
        finished_at REAL,
        seconds REAL,
        locale TEXT
    );
    CREATE UNIQUE INDEX games_one_live_per_channel ON games(channel_id) WHERE status = 'playing';
    CREATE TABLE actions (
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        action TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;
    CREATE TABLE settings (
        guild_id INTEGER PRIMARY KEY,
        error_help INTEGER NOT NULL DEFAULT 1,
        anyone_can_play INTEGER NOT NULL DEFAULT 0
    );
    """,
    # 2: hints, the daily challenge, and the indexes the statistics need
    """
    ALTER TABLE games ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN daily TEXT;
    ALTER TABLE games ADD COLUMN counted INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX games_by_player ON games(guild_id, owner_id, finished_at)
        WHERE status != 'playing';
    CREATE INDEX games_by_guild ON games(guild_id, finished_at, owner_id, status, seconds, moves)
        WHERE status != 'playing';
    CREATE INDEX games_by_daily ON games(daily, guild_id) WHERE daily IS NOT NULL;
    CREATE UNIQUE INDEX games_one_counted_daily ON games(daily, owner_id) WHERE counted = 1;
    CREATE INDEX games_daily_by_player ON games(owner_id, daily) WHERE counted = 1;
    """,
    # 3: a finished game's actions packed into one value (5 bits an action, see pack_log)
    """
    ALTER TABLE games ADD COLUMN log BLOB;
    """,
    # 4: daily attempts kept apart from the statistics a reset deletes; the deployment's secrets
    """
    CREATE TABLE daily_attempts (
        day TEXT NOT NULL,
        player_id INTEGER NOT NULL,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        game_id INTEGER NOT NULL,
        opened_at REAL NOT NULL,
        status TEXT,
        seconds REAL,
        moves INTEGER NOT NULL DEFAULT 0,
        hints INTEGER NOT NULL DEFAULT 0,
        removed INTEGER NOT NULL DEFAULT 0,
        picture TEXT,
        finished_at REAL,
        PRIMARY KEY (day, player_id)
    ) WITHOUT ROWID;
    CREATE INDEX daily_attempts_by_guild ON daily_attempts(day, guild_id);
    CREATE INDEX daily_attempts_by_game ON daily_attempts(game_id);
    INSERT INTO daily_attempts (day, player_id, guild_id, channel_id, game_id, opened_at, status, seconds,
                                moves, hints, removed, finished_at)
        SELECT daily, owner_id, guild_id, channel_id, id, created_at, status, seconds, moves, hints, removed,
               finished_at
        FROM games WHERE counted = 1 AND daily IS NOT NULL;
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    DROP INDEX games_one_counted_daily;
    """,
    # 5: servers the bot was removed from, whose data goes after a grace period
    """
    CREATE TABLE departures (guild_id INTEGER PRIMARY KEY, left_at REAL NOT NULL);
    CREATE INDEX games_by_owner ON games(owner_id);
    """,
    # 6: the names players go by, for leaderboards that read well on every client
    """
    CREATE TABLE players (player_id INTEGER PRIMARY KEY, name TEXT NOT NULL);
    """,
    # 7: how long a game may sit idle before anyone in the channel may replace it
    """
    ALTER TABLE settings ADD COLUMN idle_minutes INTEGER NOT NULL DEFAULT 15;
    """,
    # 8: new games in a thread of their own by default
    """
    ALTER TABLE settings ADD COLUMN new_in_thread INTEGER NOT NULL DEFAULT 0;
    """,
    # 9: races between friends: one deal, a game each, the first to clear the pyramid wins
    """
    CREATE TABLE races (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        message_id INTEGER,
        code TEXT NOT NULL,
        created_at REAL NOT NULL,
        winner_id INTEGER,
        finished_at REAL
    );
    CREATE TABLE race_players (
        race_id INTEGER NOT NULL REFERENCES races(id) ON DELETE CASCADE,
        player_id INTEGER NOT NULL,
        game_id INTEGER NOT NULL UNIQUE REFERENCES games(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        PRIMARY KEY (race_id, player_id)
    );
    CREATE INDEX races_by_guild ON races(guild_id);
    """,
    # 10: the interaction that made a move, once: a press delivered to two processes is applied once
    """
    ALTER TABLE actions ADD COLUMN request INTEGER;
    CREATE UNIQUE INDEX actions_once_per_request ON actions(request) WHERE request IS NOT NULL;
    """,
    # 11: the interaction of a game's last hint: a hint press delivered to two processes is counted once
    """
    ALTER TABLE games ADD COLUMN hint_request INTEGER;
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)


def backup(source: str | Path, target: str | Path) -> int:
    """Copy a database with SQLite's online backup API: a consistent copy even while the bot writes
    to it (a plain file copy of a WAL database may not be). Returns the number of pages copied."""
    source, target = Path(source), Path(target)
    if not source.is_file():
        raise StorageError(f"there is no database at {source}")
    if target.exists():
        raise StorageError(f"{target} exists already: choose a new name for the backup")
    try:
        with contextlib.closing(sqlite3.connect(source)) as db, contextlib.closing(sqlite3.connect(target)) as copy:
            db.backup(copy)
            pages = int(copy.execute("PRAGMA page_count").fetchone()[0])
    except sqlite3.Error as error:
        target.unlink(missing_ok=True)
        raise StorageError(f"cannot back up {source} to {target}: {error}") from None
    return pages


def _statements(script: str) -> list[str]:
    """The statements of a migration, one by one (so that they run inside one transaction)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return [statement for statement in statements if statement]


def _commit_group(
    connection: sqlite3.Connection, works: list[Callable[[sqlite3.Connection], None]]
) -> list[sqlite3.Error | None]:
    """In the writer's thread: each work under its own savepoint, then one commit. A "database is
    locked" error fails the whole group (it is retried whole); any other error fails its work only."""
    outcomes: list[sqlite3.Error | None] = []
    try:
        if not connection.in_transaction:
            connection.execute("BEGIN")
        for work in works:
            connection.execute("SAVEPOINT move")
            try:
                work(connection)
            except sqlite3.OperationalError as error:
                if "locked" in str(error) or "busy" in str(error):
                    raise
                connection.execute("ROLLBACK TO move")
                outcomes.append(error)
            except sqlite3.Error as error:
                connection.execute("ROLLBACK TO move")
                outcomes.append(error)
            else:
                outcomes.append(None)
            connection.execute("RELEASE move")
        connection.commit()
    except BaseException:
        connection.rollback()
        raise
    return outcomes


class SQLiteStorage:
    """The default storage: one SQLite file (``":memory:"`` works for experiments)."""

    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        """``path``: a file, ``":memory:"``, or a ``file:`` URI (``file:pyramide.db?mode=ro``)."""
        self.path = str(path)
        self.synchronous = synchronous
        self._db: aiosqlite.Connection | None = None
        self._reader: aiosqlite.Connection | None = None
        self._grouped: list[tuple[Callable[[sqlite3.Connection], None], asyncio.Future[None]]] = []
        self._committer: asyncio.Task[None] | None = None

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("storage is not open")
        return self._db

    @property
    def reader(self) -> aiosqlite.Connection:
        return self._reader or self.db

    async def _connect(self) -> aiosqlite.Connection:
        db = await aiosqlite.connect(self.path, uri=self.path.startswith("file:"), timeout=BUSY_MS / 1000)
        await db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        await db.execute("PRAGMA foreign_keys = ON")
        return db

    async def open(self) -> None:
        """Open, check and migrate the database. Raises ``StorageError`` naming the problem and the
        file when it cannot be used (not a database, newer schema, unreadable, read-only, damaged).

        Processes of a cluster start together: while another one creates or migrates the file (its
        write lock held), this one waits for it, up to ``OPEN_WAIT`` seconds."""
        deadline = time.monotonic() + OPEN_WAIT
        while True:
            try:
                await self._open()
                return
            except StorageError as error:
                await self.close()
                locked = "locked" in str(error) or "busy" in str(error)
                if not locked or time.monotonic() > deadline:
                    raise
            except BaseException:
                await self.close()
                raise
            await asyncio.sleep(0.2)

    async def _open(self) -> None:
        where = self.path
        try:
            self._db = await self._connect()
            async with self.db.execute("PRAGMA quick_check") as cursor:
                problems = [str(r[0]) for r in await cursor.fetchall()]
            if problems != ["ok"]:
                raise StorageError(f"the database {where} is damaged (integrity check: {problems[0][:200]})")
            if await self._fresh():
                await self.db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # only possible before any table
            async with self.db.execute("PRAGMA journal_mode = WAL") as cursor:
                mode = await cursor.fetchone()
            await self.db.execute(f"PRAGMA synchronous = {self.synchronous}")
            await self.migrate()
            # A write probe: a read-only file would otherwise fail only at the first move.
            await self.db.execute("BEGIN IMMEDIATE")
            await self.db.execute("UPDATE settings SET guild_id = guild_id WHERE 0")
            await self.db.rollback()
            if self.path != ":memory:" and mode and str(mode[0]).lower() == "wal":
                self._reader = await self._connect()
                await self._reader.execute("PRAGMA query_only = ON")
        except StorageError:
            raise
        except sqlite3.OperationalError as error:
            text = str(error)
            if "readonly" in text or "read-only" in text:
                raise StorageError(f"the database {where} is read-only: the bot must be able to write it") from None
            if "unable to open" in text:
                raise StorageError(
                    f"cannot open the database {where}: check the path and its folder's rights"
                ) from None
            raise StorageError(f"cannot use the database {where}: {text}") from None
        except sqlite3.DatabaseError as error:
            if "malformed" in str(error):
                raise StorageError(f"the database {where} is damaged ({error}): restore a backup") from None
            raise StorageError(f"{where} is not a SQLite database this bot can use ({error})") from None

    async def _fresh(self) -> bool:
        async with self.db.execute("SELECT COUNT(*) FROM sqlite_master") as cursor:
            row = await cursor.fetchone()
        return row is not None and int(row[0]) == 0

    async def migrate(self, target: int = SCHEMA_VERSION) -> int:
        """Bring the schema up to ``target``; returns the version found before."""
        async with self.db.execute("PRAGMA user_version") as cursor:
            row = await cursor.fetchone()
        found = int(row[0]) if row else 0
        if found > SCHEMA_VERSION:
            raise StorageError(
                f"the database {self.path} has schema {found}, newer than this bot ({SCHEMA_VERSION}): "
                "run the newer bot, or restore a backup"
            )
        backed_up = found == 0 or self._file() is None
        for version in range(found, target):
            # Under the write lock, the version read again: another process starting at the same moment
            # may have taken this step already.
            await self.db.execute("BEGIN IMMEDIATE")
            async with self.db.execute("PRAGMA user_version") as cursor:
                row = await cursor.fetchone()
            if row is not None and int(row[0]) > version:
                await self.db.rollback()
                continue
            try:
                if not backed_up:  # only the process that migrates copies the database first
                    await self._backup_before_migration(version)
                    backed_up = True
                for statement in _statements(MIGRATIONS[version]):
                    await self.db.execute(statement)
                await self.db.execute(f"PRAGMA user_version = {version + 1}")
                await self.db.commit()
            except BaseException:
                await self.db.rollback()
                raise
        return found

    def _file(self) -> Path | None:
        """The database's file, when it is a plain file (not memory, not a read-only URI)."""
        if self.path == ":memory:" or self.path.startswith("file:"):
            return None
        return Path(self.path)

    async def _backup_before_migration(self, found: int) -> Path:
        """A copy of the database as it is, next to it, before its schema changes."""
        path = self._file()
        assert path is not None
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        target = path.with_name(f"{path.name}.schema{found}-{stamp}.bak")
        # Read through a connection of its own: this one may hold the write lock (WAL lets readers in).
        await asyncio.to_thread(backup, path, target)
        return target

    async def close(self) -> None:
        if self._committer is not None:  # the moves already submitted are committed and answered first
            await asyncio.gather(self._committer, return_exceptions=True)
        for name in ("_reader", "_db"):
            connection = getattr(self, name)
            setattr(self, name, None)
            if connection is not None:
                try:
                    await connection.close()
                except Exception:
                    connection.stop()

    async def compact(self, pages: int = 256) -> None:
        """Give back up to ``pages`` free pages to the file system (incremental vacuum)."""

        # executescript steps the pragma to its end (a cursor would free one page per step)
        await self._write(lambda: self.db.executescript(f"PRAGMA incremental_vacuum({int(pages)});"))

    async def _write(self, work: Callable[[], Awaitable[T]]) -> T:
        """Run a write (its statements and commit), retried while another connection holds the lock."""
        for attempt in range(WRITE_TRIES):
            try:
                return await work()
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) and "busy" not in str(error):
                    raise
                if self.db.in_transaction:
                    await self.db.rollback()
                if attempt == WRITE_TRIES - 1:
                    raise StorageUnavailable(f"the database {self.path} stayed locked") from error
                await asyncio.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    # ------------------------------------------------------------------ games
    async def create_game(self, record: GameRecord) -> GameRecord:
        """Store a new game. A counted daily (``daily`` and ``counted`` set) opens the player's attempt
        at that day in the same transaction: the attempt's key makes it the only one, across processes;
        a second raises ``DailyTaken`` and stores nothing."""
        record.id = await self._write(lambda: self._insert_game(record))
        return record

    async def _insert_game(self, record: GameRecord) -> int:
        cursor = await self.db.execute(
            "INSERT INTO games (guild_id, channel_id, owner_id, code, rules, status, daily, counted, created_at,"
            " started_at, locale) VALUES (?, ?, ?, ?, ?, 'playing', ?, ?, ?, ?, ?)",
            (
                record.guild_id,
                record.channel_id,
                record.owner_id,
                record.code,
                record.rules,
                record.daily,
                int(record.counted),
                record.created_at,
                record.started_at,
                record.locale,
            ),
        )
        game_id = int(cursor.lastrowid or 0)
        if record.daily is not None and record.counted:
            opened = await self.db.execute(
                "INSERT INTO daily_attempts (day, player_id, guild_id, channel_id, game_id, opened_at) "
                "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (record.daily, record.owner_id, record.guild_id, record.channel_id, game_id, record.created_at),
            )
            if opened.rowcount == 0:
                await self.db.rollback()
                attempt = await self.daily_attempt(record.daily, record.owner_id)
                assert attempt is not None
                raise DailyTaken(attempt)
        await self.db.commit()
        return game_id

    def _record(self, row: aiosqlite.Row | tuple) -> GameRecord:
        data = dict(zip(FIELDS, row, strict=True))
        data["counted"] = bool(data["counted"])
        return GameRecord(**data)

    async def _load(self, where: str, args: tuple) -> GameRecord | None:
        async with self.reader.execute(f"SELECT {COLUMNS}, log FROM games WHERE {where}", args) as cursor:
            row = await cursor.fetchone()
        if row is None:
            return None
        record = self._record(tuple(row[:-1]))
        log = row[-1]
        try:
            if log is not None:
                record.actions = unpack_log(bytes(log))
                return record
            async with self.reader.execute(
                "SELECT action FROM actions WHERE game_id = ? ORDER BY seq", (record.id,)
            ) as cursor:
                rows = await cursor.fetchall()
            record.actions = [decode_action(r[0]) for r in rows]
        except (ValueError, TypeError) as error:
            record.damage = f"stored actions unreadable: {error}"
        return record

    async def live_game(self, channel_id: int) -> GameRecord | None:
        return await self._load("channel_id = ? AND status = 'playing'", (channel_id,))

    async def game(self, game_id: int) -> GameRecord | None:
        return await self._load("id = ?", (game_id,))

    async def append_action(
        self, game_id: int, seq: int, action: int | str, at: float, record: GameRecord, request: int | None = None
    ) -> None:
        """Store one action and the running totals in one transaction (committed before returning)."""

        def work(connection: sqlite3.Connection) -> None:
            connection.execute(
                "INSERT INTO actions (game_id, seq, action, at, request) VALUES (?, ?, ?, ?, ?)",
                (game_id, seq, encode_action(action), at, request),
            )
            connection.execute(
                "UPDATE games SET score = ?, moves = ?, removed = ?, started_at = ? WHERE id = ?",
                (record.score, record.moves, record.removed, record.started_at, game_id),
            )

        try:
            await self._group_commit(work)
        except sqlite3.IntegrityError as error:  # (game_id, seq) or the request is stored: another process was first
            raise MoveConflict(f"game {game_id}: move {seq} was stored by another process") from error

    async def _group_commit(self, work: Callable[[sqlite3.Connection], None]) -> None:
        """Run ``work`` in a transaction shared with the other moves waiting at that moment, and return
        once it is committed (group commit). In a busy bot, presses of many channels arrive together:
        they cost one trip to the writer's thread and one commit (one fsync) instead of one each. Each
        move runs under a savepoint of its own: one that fails (a sequence number already stored by
        another process) is rolled back alone and raises for its own press only."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._grouped.append((work, future))
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_groups())
        await future

    async def _commit_groups(self) -> None:
        while self._grouped:
            group, self._grouped = self._grouped, []
            works = [work for work, _ in group]

            async def commit(works: list[Callable[[sqlite3.Connection], None]] = works) -> list[sqlite3.Error | None]:
                return await self._in_writer_thread(_commit_group, works)

            try:
                outcomes = await self._write(commit)
            except BaseException as error:  # the whole transaction failed: every move of it
                for _, future in group:
                    if not future.done():
                        future.set_exception(error)
                if isinstance(error, asyncio.CancelledError):
                    raise
                continue
            for (_, future), outcome in zip(group, outcomes, strict=True):
                if future.done():  # its press was cancelled; the move is stored all the same
                    continue
                if outcome is None:
                    future.set_result(None)
                else:
                    future.set_exception(outcome)

    async def _in_writer_thread(self, work: Callable[..., T], *args: Any) -> T:
        """Run ``work`` with the writer's sqlite3 connection in aiosqlite's thread, in one hop.

        Every aiosqlite call is a round trip to its connection's thread; a press's write (insert, update,
        commit) made three, the largest share of a press's event-loop overhead. ``Connection._execute``
        is how aiosqlite's own methods run there; it is not public API, so the version is pinned by the
        lock files and every storage test goes through this path."""
        connection = self.db._conn
        return await self.db._execute(work, connection, *args)

    async def last_action_at(self, game_id: int) -> float | None:
        """When the game's last action was stored (``None``: no action yet)."""
        async with self.reader.execute("SELECT MAX(at) FROM actions WHERE game_id = ?", (game_id,)) as cursor:
            row = await cursor.fetchone()
        return float(row[0]) if row and row[0] is not None else None

    async def discard_game(self, game_id: int) -> None:
        """Delete a game nobody saw (its board could not be posted), with its actions and daily attempt."""

        async def work() -> None:
            await self.db.execute("DELETE FROM daily_attempts WHERE game_id = ?", (game_id,))
            await self.db.execute("DELETE FROM games WHERE id = ?", (game_id,))
            await self.db.commit()

        await self._write(work)

    async def set_message(self, game_id: int, message_id: int) -> None:
        await self._commit("UPDATE games SET message_id = ? WHERE id = ?", (message_id, game_id))

    async def add_hint(self, game_id: int, request: int | None = None) -> bool:
        """Count a hint; one asked by interaction ``request`` counts once (a press delivered to two
        processes). Returns whether it was counted."""
        changed = await self._commit(
            "UPDATE games SET hints = hints + 1, hint_request = ? WHERE id = ? "
            "AND (? IS NULL OR hint_request IS NULL OR hint_request != ?)",
            (request, game_id, request, request),
        )
        return changed == 1

    async def _commit(self, statement: str, args: tuple) -> int:
        """One statement in its own transaction; returns the rows it changed."""

        async def work() -> int:
            cursor = await self.db.execute(statement, args)
            await self.db.commit()
            return cursor.rowcount

        return await self._write(work)

    async def finish_game(self, record: GameRecord) -> GameRecord:
        """Close a game, its actions packed into one value. A daily attempt is counted only if it is the
        player's first finished one that day; the check and the write are one statement, so two
        attempts finishing together cannot both count."""
        assert record.status in FINISHED
        log = pack_log(record.actions) if record.status != BROKEN else None  # a broken log stays as found

        async def work() -> bool:
            await self.db.execute(
                "UPDATE games SET status = ?, score = ?, moves = ?, removed = ?, finished_at = ?, seconds = ?, "
                "started_at = ?, log = ? WHERE id = ? AND status = 'playing'",
                (
                    record.status,
                    record.score,
                    record.moves,
                    record.removed,
                    record.finished_at,
                    record.seconds,
                    record.started_at,
                    log,
                    record.id,
                ),
            )
            if log is not None:
                await self.db.execute("DELETE FROM actions WHERE game_id = ?", (record.id,))
            if record.daily is not None and record.counted:
                await self.db.execute(
                    "UPDATE daily_attempts SET status = ?, seconds = ?, moves = ?, hints = ?, removed = ?, "
                    "picture = ?, finished_at = ? WHERE game_id = ? AND status IS NULL",
                    (
                        record.status,
                        record.seconds,
                        record.moves,
                        record.hints,
                        record.removed,
                        record.picture,
                        record.finished_at,
                        record.id,
                    ),
                )
            async with self.db.execute("SELECT counted FROM games WHERE id = ?", (record.id,)) as cursor:
                row = await cursor.fetchone()
            await self.db.commit()
            return bool(row and row[0])

        record.counted = await self._write(work)
        return record

    # --------------------------------------------------------------- settings
    async def settings(self, guild_id: int) -> GuildSettings:
        async with self.reader.execute(
            "SELECT error_help, anyone_can_play, idle_minutes, new_in_thread FROM settings WHERE guild_id = ?",
            (guild_id,),
        ) as cursor:
            row = await cursor.fetchone()
        return GuildSettings(bool(row[0]), bool(row[1]), int(row[2]), bool(row[3])) if row else GuildSettings()

    async def save_settings(self, guild_id: int, settings: GuildSettings) -> None:
        await self._commit(
            "INSERT INTO settings (guild_id, error_help, anyone_can_play, idle_minutes, new_in_thread) "
            "VALUES (?, ?, ?, ?, ?) ON CONFLICT(guild_id) DO UPDATE SET error_help = excluded.error_help, "
            "anyone_can_play = excluded.anyone_can_play, idle_minutes = excluded.idle_minutes, "
            "new_in_thread = excluded.new_in_thread",
            (
                guild_id,
                int(settings.error_help),
                int(settings.anyone_can_play),
                settings.idle_minutes,
                int(settings.new_in_thread),
            ),
        )

    # ------------------------------------------------------------- statistics
    async def results(self, guild_id: int, player_id: int) -> list[ResultRow]:
        async with self.reader.execute(
            "SELECT status, score, moves, seconds, finished_at, daily, counted, hints FROM games "
            "WHERE guild_id = ? AND owner_id = ? AND status != 'playing' ORDER BY finished_at, id",
            (guild_id, player_id),
        ) as cursor:
            rows = await cursor.fetchall()
        return [ResultRow(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), r[7]) for r in rows]

    _STANDINGS = (
        "SELECT owner_id, COUNT(*) AS played, SUM(status = 'won') AS wins, "
        "MIN(CASE WHEN status = 'won' THEN seconds END) AS best, "
        "MIN(CASE WHEN status = 'won' THEN moves END) AS fewest, SUM(hints) AS hints "
        "FROM games WHERE guild_id = ? AND status != 'playing' AND finished_at >= ? AND (? IS NULL OR rules = ?) "
        "GROUP BY owner_id"
    )
    _ORDER = "wins DESC, best IS NULL, best, fewest IS NULL, fewest, owner_id"

    @staticmethod
    def _standing_args(guild_id: int, since: float | None, rules: str | None) -> tuple:
        return (guild_id, since if since is not None else float("-inf"), rules, rules)

    async def leaderboard(
        self, guild_id: int, since: float | None, limit: int, offset: int, rules: str | None = None
    ) -> list[LeaderRow]:
        """A page of a server's players by wins, best time, fewest moves (``rules``: one rule set only)."""
        async with self.reader.execute(
            f"SELECT s.owner_id, played, wins, best, fewest, hints, p.name FROM ({self._STANDINGS}) AS s "
            f"LEFT JOIN players AS p ON p.player_id = s.owner_id ORDER BY {self._ORDER} LIMIT ? OFFSET ?",
            (*self._standing_args(guild_id, since, rules), limit, offset),
        ) as cursor:
            rows = await cursor.fetchall()
        return [LeaderRow(r[0], r[1], r[2] or 0, r[3], r[4], r[5] or 0, r[6]) for r in rows]

    async def leaderboard_size(self, guild_id: int, since: float | None, rules: str | None = None) -> int:
        async with self.reader.execute(
            "SELECT COUNT(DISTINCT owner_id) FROM games WHERE guild_id = ? AND status != 'playing' "
            "AND finished_at >= ? AND (? IS NULL OR rules = ?)",
            self._standing_args(guild_id, since, rules),
        ) as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else 0

    async def leaderboard_rank(
        self, guild_id: int, since: float | None, player_id: int, rules: str | None = None
    ) -> int | None:
        """A player's place on that leaderboard (1 is first), or ``None`` when they are not on it."""
        async with self.reader.execute(
            f"SELECT place FROM (SELECT owner_id, ROW_NUMBER() OVER (ORDER BY {self._ORDER}) AS place "
            f"FROM ({self._STANDINGS})) WHERE owner_id = ?",
            (*self._standing_args(guild_id, since, rules), player_id),
        ) as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else None

    async def remember_name(self, player_id: int, name: str) -> None:
        """The name a player goes by (their display name), shown on leaderboards; kept up to date."""
        await self._commit(
            "INSERT INTO players (player_id, name) VALUES (?, ?) "
            "ON CONFLICT(player_id) DO UPDATE SET name = excluded.name WHERE name != excluded.name",
            (player_id, name[:64]),
        )

    async def daily_rows(self, day: str, guild_id: int) -> list[DailyRow]:
        """The day's finished counted attempts of a server: wins without hints, then wins with the fewest
        hints, then the others; within each, the shortest time, then the fewest moves."""
        async with self.reader.execute(
            "SELECT player_id, status, seconds, moves, hints FROM daily_attempts "
            "WHERE day = ? AND guild_id = ? AND status IS NOT NULL "
            "ORDER BY status = 'won' DESC, CASE WHEN status = 'won' THEN hints END, seconds IS NULL, seconds, "
            "moves, finished_at, player_id",
            (day, guild_id),
        ) as cursor:
            rows = await cursor.fetchall()
        return [DailyRow(r[0], r[1], r[2], r[3], r[4]) for r in rows]

    async def daily_totals(self, day: str) -> tuple[int, int]:
        async with self.reader.execute(
            "SELECT COUNT(*), COALESCE(SUM(status = 'won'), 0) FROM daily_attempts "
            "WHERE day = ? AND status IS NOT NULL",
            (day,),
        ) as cursor:
            row = await cursor.fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    async def daily_days(self, player_id: int) -> list[str]:
        async with self.reader.execute(
            "SELECT day FROM daily_attempts WHERE player_id = ? AND status IS NOT NULL ORDER BY day",
            (player_id,),
        ) as cursor:
            return [r[0] for r in await cursor.fetchall()]

    async def daily_attempt(self, day: str, player_id: int) -> DailyAttempt | None:
        async with self.db.execute(
            "SELECT day, player_id, guild_id, channel_id, game_id, opened_at, status, seconds, moves, hints, "
            "removed, picture FROM daily_attempts WHERE day = ? AND player_id = ?",
            (day, player_id),
        ) as cursor:
            row = await cursor.fetchone()
        return DailyAttempt(*row) if row else None

    async def daily_month(self, player_id: int, first_day: str, last_day: str) -> list[DailyAttempt]:
        """A player's daily attempts from ``first_day`` to ``last_day`` (both included), by day."""
        async with self.reader.execute(
            "SELECT day, player_id, guild_id, channel_id, game_id, opened_at, status, seconds, moves, hints, "
            "removed, picture FROM daily_attempts WHERE player_id = ? AND day >= ? AND day <= ? ORDER BY day",
            (player_id, first_day, last_day),
        ) as cursor:
            return [DailyAttempt(*row) for row in await cursor.fetchall()]

    async def stale_dailies(self, day: str) -> list[int]:
        """Channels whose counted daily of a day before ``day`` is still played (it ends at midnight UTC)."""
        async with self.reader.execute(
            "SELECT channel_id FROM games WHERE status = 'playing' AND counted = 1 AND daily < ?", (day,)
        ) as cursor:
            return [r[0] for r in await cursor.fetchall()]

    # ------------------------------------------------------------ data rights
    async def guild_left(self, guild_id: int, at: float) -> None:
        await self._commit(
            "INSERT INTO departures (guild_id, left_at) VALUES (?, ?) ON CONFLICT(guild_id) DO NOTHING", (guild_id, at)
        )

    async def guild_joined(self, guild_id: int) -> None:
        await self._commit("DELETE FROM departures WHERE guild_id = ?", (guild_id,))

    async def purge_departed(self, before: float) -> list[int]:
        """Delete every game, setting and daily attempt of the servers left before ``before``."""

        async def work() -> list[int]:
            async with self.db.execute("SELECT guild_id FROM departures WHERE left_at < ?", (before,)) as cursor:
                guilds = [int(r[0]) for r in await cursor.fetchall()]
            for guild_id in guilds:
                await self.db.execute("DELETE FROM games WHERE guild_id = ?", (guild_id,))
                await self.db.execute("DELETE FROM settings WHERE guild_id = ?", (guild_id,))
                await self.db.execute("DELETE FROM daily_attempts WHERE guild_id = ?", (guild_id,))
                await self.db.execute("DELETE FROM departures WHERE guild_id = ?", (guild_id,))
                await self.db.execute("DELETE FROM races WHERE guild_id = ?", (guild_id,))
            await self.db.commit()
            return guilds

        return await self._write(work)

    async def forget_player(self, player_id: int) -> tuple[int, list[int]]:
        """Delete a player's games on every server; their daily attempts stay in the day's totals but
        no longer name them. Returns how many games went, and the channels of those still in play."""

        async def work() -> tuple[int, list[int]]:
            async with self.db.execute(
                "SELECT channel_id FROM games WHERE owner_id = ? AND status = 'playing'", (player_id,)
            ) as cursor:
                channels = [int(r[0]) for r in await cursor.fetchall()]
            cursor = await self.db.execute("DELETE FROM games WHERE owner_id = ?", (player_id,))
            deleted = cursor.rowcount
            await self.db.execute("DELETE FROM players WHERE player_id = ?", (player_id,))
            await self.db.execute(
                "UPDATE daily_attempts SET player_id = -game_id, channel_id = 0 WHERE player_id = ?", (player_id,)
            )
            await self.db.commit()
            return deleted, channels

        return await self._write(work)

    async def ping(self) -> None:
        """Raises unless the database answers a query."""
        async with self.reader.execute("SELECT 1") as cursor:
            await cursor.fetchone()

    async def meta(self, key: str) -> str | None:
        async with self.reader.execute("SELECT value FROM meta WHERE key = ?", (key,)) as cursor:
            row = await cursor.fetchone()
        return str(row[0]) if row else None

    async def set_meta(self, key: str, value: str) -> None:
        await self._commit(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    async def daily_secret(self, fresh: str) -> str:
        """The deployment's daily secret: ``fresh`` is kept if none was stored yet."""
        await self._commit("INSERT INTO meta (key, value) VALUES ('daily_secret', ?) ON CONFLICT DO NOTHING", (fresh,))
        async with self.db.execute("SELECT value FROM meta WHERE key = 'daily_secret'") as cursor:
            row = await cursor.fetchone()
        assert row is not None
        return str(row[0])

    # ------------------------------------------------------------------ races
    async def create_race(
        self, guild_id: int, channel_id: int, code: str, at: float, players: list[tuple[int, int]]
    ) -> int:
        async def work() -> int:
            cursor = await self.db.execute(
                "INSERT INTO races (guild_id, channel_id, code, created_at) VALUES (?, ?, ?, ?)",
                (guild_id, channel_id, code, at),
            )
            race_id = int(cursor.lastrowid or 0)
            await self.db.executemany(
                "INSERT INTO race_players (race_id, player_id, game_id, position) VALUES (?, ?, ?, ?)",
                [(race_id, player, game, position) for position, (player, game) in enumerate(players)],
            )
            await self.db.commit()
            return race_id

        return await self._write(work)

    async def set_race_message(self, race_id: int, message_id: int) -> None:
        await self._commit("UPDATE races SET message_id = ? WHERE id = ?", (message_id, race_id))

    async def race_of_game(self, game_id: int) -> RaceRecord | None:
        async with self.reader.execute("SELECT race_id FROM race_players WHERE game_id = ?", (game_id,)) as cursor:
            row = await cursor.fetchone()
        return await self.race(int(row[0])) if row else None

    async def race(self, race_id: int) -> RaceRecord | None:
        async with self.reader.execute(
            "SELECT id, guild_id, channel_id, message_id, code, created_at, winner_id, finished_at"
            " FROM races WHERE id = ?",
            (race_id,),
        ) as cursor:
            row = await cursor.fetchone()
        if row is None:
            return None
        async with self.reader.execute(
            "SELECT player_id, game_id FROM race_players WHERE race_id = ? ORDER BY position", (race_id,)
        ) as cursor:
            players = tuple((int(p), int(g)) for p, g in await cursor.fetchall())
        return RaceRecord(
            id=int(row[0]),
            guild_id=int(row[1]),
            channel_id=int(row[2]),
            message_id=int(row[3]) if row[3] is not None else None,
            code=str(row[4]),
            created_at=float(row[5]),
            players=players,
            winner_id=int(row[6]) if row[6] is not None else None,
            finished_at=float(row[7]) if row[7] is not None else None,
        )

    async def win_race(self, race_id: int, player_id: int, at: float) -> bool:
        """Record ``player_id`` as the winner unless someone won first (one statement: across processes
        too, only the first clear wins). Returns whether this player is the winner."""
        changed = await self._commit(
            "UPDATE races SET winner_id = ?, finished_at = ? WHERE id = ? AND winner_id IS NULL",
            (player_id, at, race_id),
        )
        return changed == 1

    async def close_race(self, race_id: int, at: float) -> None:
        """Every player finished and nobody cleared the pyramid."""
        await self._commit("UPDATE races SET finished_at = ? WHERE id = ? AND finished_at IS NULL", (at, race_id))

    async def race_stats(self, guild_id: int, player_id: int) -> RaceStats:
        """Races on a server: played (finished), won, and the best winning time."""
        async with self.reader.execute(
            "SELECT COUNT(*), SUM(r.winner_id = p.player_id),"
            " MIN(CASE WHEN r.winner_id = p.player_id THEN g.seconds END)"
            " FROM race_players p JOIN races r ON r.id = p.race_id JOIN games g ON g.id = p.game_id"
            " WHERE r.guild_id = ? AND p.player_id = ? AND r.finished_at IS NOT NULL",
            (guild_id, player_id),
        ) as cursor:
            row = await cursor.fetchone()
        played, won, best = row if row else (0, 0, None)
        return RaceStats(int(played or 0), int(won or 0), float(best) if best is not None else None)

    async def reset_stats(self, guild_id: int, player_id: int | None) -> int:
        """Delete the finished games of a server (or of one player there); returns how many."""
        where = "guild_id = ? AND status != ?"
        args: tuple = (guild_id, PLAYING)
        if player_id is not None:
            where += " AND owner_id = ?"
            args += (player_id,)
        return await self._commit(f"DELETE FROM games WHERE {where}", args)
