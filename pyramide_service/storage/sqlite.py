"""SQLite storage through aiosqlite (its public API only): WAL journal, schema migrated with PRAGMA
user_version.

Two connections, each with the thread aiosqlite gives it: writes go through one, reads through the
other, so in WAL mode a read never queues behind a write that waits for a lock. Each connection runs one
unit of work (``units``) at a time, from its first statement to its end, with no other coroutine's
statement in between: reads take the reader in turn (a read of several statements in one snapshot, taken
after every write acknowledged before it), and writes are run by one task, the committer. The writes
waiting at one moment share one transaction and one commit (group commit); should one fail, the group
runs again each under a savepoint of its own, so that the one failing is rolled back alone. A write that
finds the database locked (another process) waits at most ``BUSY_MS`` per try, ``WRITE_TRIES`` times, then
gives up with ``StorageUnavailable``: well inside Discord's time for an answer. A finished game's actions
are packed into one small value (``games.log``) and its rows in ``actions`` deleted.

Every call to a connection is a trip to its thread and back: the writer holds the statements whose answers
nobody awaits and hands them over together (``sqlite_connection.Pipe``), a lone move is one statement in
autocommit, a group's moves one ``executemany`` (docs/performance.md: what that costs a press and a group,
measured against running a whole unit in the thread in one go).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from ..stored import StorageError, StorageUnavailable
from . import schema as schema_
from .queries import PROBE, Storage
from .sqlite_connection import Connection, Tx
from .units import Work

__all__ = ["SCHEMA_VERSION", "SQLiteStorage", "backup"]

T = TypeVar("T")
WRITE_TRIES = 3
OPEN_WAIT = 30.0  # seconds to wait at start for another process creating or migrating the database
SCHEMA_VERSION = schema_.VERSION
OLDEST_SQLITE = (3, 35, 0)  # RETURNING (FILTER and NULLS FIRST are older)


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


def _locked(error: BaseException) -> bool:
    return isinstance(error, sqlite3.OperationalError) and ("locked" in str(error) or "busy" in str(error))


async def _user_version(db: Tx) -> int:
    return int(await db.value("PRAGMA user_version"))


async def _check(db: Tx) -> str:
    """Check a freshly opened database and set its journal: returns the journal mode it runs in."""
    problems = [str(r[0]) for r in await db.rows("PRAGMA quick_check")]
    if problems != ["ok"]:
        raise StorageError(f"is damaged (integrity check: {problems[0][:200]})")
    if int(await db.value("SELECT COUNT(*) FROM sqlite_master")) == 0:
        await db.execute("PRAGMA auto_vacuum = INCREMENTAL")  # only possible before any table
    mode = await db.value("PRAGMA journal_mode = WAL")
    return str(mode).lower() if mode else ""


class SQLiteStorage(Storage):
    """The default storage: one SQLite file (``":memory:"`` works for experiments)."""

    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        """``path``: a file, ``":memory:"``, or a ``file:`` URI (``file:pyramide.db?mode=ro``)."""
        self.path = str(path)
        self.synchronous = synchronous
        self._db: Connection | None = None
        self._reader: Connection | None = None
        self._grouped: list[tuple[Work[Any], asyncio.Future[Any]]] = []
        self._committer: asyncio.Task[None] | None = None

    @property
    def db(self) -> aiosqlite.Connection:
        """The writer's connection (for tests that trace its statements)."""
        return self._writer.connection

    @property
    def _writer(self) -> Connection:
        if self._db is None:
            raise RuntimeError("storage is not open")
        return self._db

    @property
    def _reading(self) -> Connection:
        return self._reader or self._writer

    async def open(self) -> None:
        """Open, check and migrate the database. Raises ``StorageError`` naming the problem and the
        file when it cannot be used (not a database, newer schema, unreadable, read-only, damaged).

        Processes of a cluster start together: while another one creates or migrates the file (its
        write lock held), this one waits for it, up to ``OPEN_WAIT`` seconds."""
        if sqlite3.sqlite_version_info < OLDEST_SQLITE:
            raise StorageError(
                f"SQLite {sqlite3.sqlite_version} is too old: this bot needs {'.'.join(map(str, OLDEST_SQLITE))}"
            )
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
            self._db = await Connection.open(self.path)
            try:
                mode = await _check(self._writer.tx())
            except StorageError as error:
                raise StorageError(f"the database {where} {error}") from None
            await self._writer.statement(f"PRAGMA synchronous = {self.synchronous}")
            await self.migrate()
            await self._probe()
            if self.path != ":memory:" and mode == "wal":
                self._reader = await Connection.open(self.path, read_only=True)
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

    async def _probe(self) -> None:
        """A write probe: a read-only file would otherwise fail only at the first move."""
        writer = self._writer
        await writer.statement("BEGIN IMMEDIATE")
        try:
            await writer.statement(PROBE)
        finally:
            await writer.rollback()

    async def migrate(self, target: int = SCHEMA_VERSION) -> int:
        """Bring the schema up to ``target`` in one transaction (a start stopped half-way leaves the file as
        it was, and a new file costs one commit, not one a version); returns the version found before."""
        writer = self._writer
        async with writer.lock:  # between two groups of writes
            db = writer.tx()
            found = await _user_version(db)
            if found > SCHEMA_VERSION:
                raise StorageError(
                    f"the database {self.path} has schema {found}, newer than this bot ({SCHEMA_VERSION}): "
                    "run the newer bot, or restore a backup"
                )
            if found >= target:
                return found
            # Under the write lock, the version read again: another process starting at the same moment may
            # have migrated the file already.
            await writer.statement("BEGIN IMMEDIATE")
            try:
                now = await _user_version(db)
                if now < target:
                    file = self._file()
                    if now > 0 and file is not None:  # only the process that migrates copies the database first
                        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
                        copy = file.with_name(f"{file.name}.schema{now}-{stamp}.bak")
                        await asyncio.to_thread(backup, file, copy)  # WAL lets it read
                    for version in range(now, target):
                        for statement in schema_.migration(version + 1, "sqlite"):
                            await db.execute(statement)
                    await db.execute(f"PRAGMA user_version = {target}")
                await writer.run(writer.connection.commit())
            except BaseException:
                await writer.rollback()
                raise
            return found

    def _file(self) -> Path | None:
        """The database's file, when it is a plain file (not memory, not a read-only URI)."""
        if self.path == ":memory:" or self.path.startswith("file:"):
            return None
        return Path(self.path)

    async def close(self) -> None:
        if self._committer is not None:  # the writes already submitted are committed and answered first
            await asyncio.gather(self._committer, return_exceptions=True)
        reader, db, self._reader, self._db = self._reader, self._db, None, None
        for connection in (reader, db):
            if connection is not None:
                await connection.close()

    async def compact(self, pages: int = 256) -> None:
        """Give back up to ``pages`` free pages to the file system (incremental vacuum)."""
        writer = self._writer

        # executescript steps the pragma to its end (a cursor would free one page per step); it runs
        # between two groups of writes, never inside one.
        async def vacuum() -> None:
            async with writer.lock:
                await writer.run(writer.cursor.executescript(f"PRAGMA incremental_vacuum({int(pages)});"))

        await self._retrying(vacuum)

    async def _retrying(self, work: Callable[[], Awaitable[T]]) -> T:
        """Run a write, tried again while another connection (another process) holds the lock."""
        for attempt in range(WRITE_TRIES):
            try:
                return await work()
            except sqlite3.OperationalError as error:
                if not _locked(error):
                    raise
                if attempt == WRITE_TRIES - 1:
                    raise StorageUnavailable(f"the database {self.path} stayed locked") from error
                await asyncio.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    async def _read(self, work: Work[T], *, several: bool, long: bool) -> T:
        """One statement as it is, several in one read transaction (one snapshot); one unit at a time on
        the reader, so that no statement of another lands inside a snapshot."""
        reader = self._reading
        async with reader.lock:
            if not several:
                return await work(reader.tx(one=True))
            # The BEGIN inside the try: a read cancelled while its BEGIN is in the reader's thread (the
            # statement runs all the same) must still end its snapshot, or every later read would fail.
            try:
                await reader.cursor.execute("BEGIN")
                return await work(reader.tx())
            finally:
                await reader.connection.rollback()

    async def _write(self, work: Work[T], *, several: bool, long: bool, retry: bool) -> T:
        """Run ``work`` in a transaction shared with the other writes waiting at that moment, and return
        once it is committed (group commit). In a busy bot, presses of many channels arrive together:
        they cost one transaction and one commit (one fsync) instead of one each."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._grouped.append((work, future))
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_groups())
        return await future

    async def _commit_groups(self) -> None:
        """The one task that writes: each group of the units waiting, whole, then the next. Work handed
        over runs to its end even when its caller is cancelled meanwhile (the write's outcome is then
        unknown to it, never half done)."""
        while self._grouped:
            group, self._grouped = self._grouped, []
            units = [work for work, _ in group]
            try:
                outcomes = await self._retrying(functools.partial(self._commit, units))
            except BaseException as error:  # the whole transaction failed: every unit of it
                for _, future in group:
                    if not future.done():
                        future.set_exception(error)
                if isinstance(error, asyncio.CancelledError):
                    raise
                continue
            for (_, future), (ok, result) in zip(group, outcomes, strict=True):
                if future.done():  # its caller was cancelled; the write is stored all the same
                    continue
                if ok:
                    future.set_result(result)
                else:
                    future.set_exception(result)

    async def _commit(self, units: list[Work[Any]]) -> list[tuple[bool, Any]]:
        """Every unit isolated from the others, then one commit. A unit that fails is rolled back alone (its
        error is its outcome); "database is locked" fails the whole group, which is retried whole.

        The group is first sent on whole, without waiting for the answers its units' bodies do not need, and
        with no savepoint: the same statement of several units is one call (``Pipe``), so presses arriving
        together cost three calls to the writer's thread (the BEGIN, their moves, the COMMIT) rather than
        one a statement. Should any unit fail, the transaction is rolled back whole and the group run again
        one unit at a time, each under a savepoint of its own, waited for before the savepoint is released or
        rolled back."""
        writer = self._writer
        async with writer.lock:
            if len(units) == 1:
                return [await self._alone(writer, units[0])]
            try:
                outcomes = await self._all_at_once(writer, units)
                if outcomes is None:
                    await writer.rollback()
                    await writer.statement("BEGIN IMMEDIATE")
                    outcomes = await self._one_by_one(writer, units)
                await writer.run(writer.connection.commit())
            except BaseException:
                await writer.rollback()
                raise
        return outcomes

    @staticmethod
    async def _alone(writer: Connection, work: Work[Any]) -> tuple[bool, Any]:
        """A group of one unit: its transaction is its isolation (a savepoint would isolate it from no
        other unit), so it runs with none; should it fail, the transaction is rolled back. A unit that
        runs one statement, awaiting nothing, runs it in autocommit: one call to the thread."""
        assert writer.pipe is not None
        try:
            writer.pipe.begin()
            try:
                result = await work(writer.tx())
                begun = await writer.pipe.end()
            except Exception as error:  # DailyTaken, MoveConflict, a key, a bug: nothing of it is kept
                if _locked(error):
                    raise
                await writer.rollback()
                return False, error
            if begun:
                await writer.run(writer.connection.commit())
        except BaseException:
            await writer.rollback()
            raise
        return True, result

    @staticmethod
    async def _all_at_once(writer: Connection, units: list[Work[Any]]) -> list[tuple[bool, Any]] | None:
        """The group sent on whole; None if a unit failed (none of it is to be kept then)."""
        assert writer.pipe is not None
        writer.pipe.begin(whole=True)
        results = []
        try:
            for work in units:
                results.append(await work(writer.tx()))
            await writer.pipe.flush()
        except Exception as error:
            if _locked(error):
                raise
            return None
        if writer.pipe.failed:  # a unit's body caught another's error: none of it is kept
            return None
        return [(True, result) for result in results]

    @staticmethod
    async def _one_by_one(writer: Connection, units: list[Work[Any]]) -> list[tuple[bool, Any]]:
        assert writer.pipe is not None
        writer.pipe.clear()
        outcomes: list[tuple[bool, Any]] = []
        for work in units:
            await writer.statement("SAVEPOINT unit")
            try:
                result = await work(writer.tx())
                await writer.pipe.flush()
            except Exception as error:  # DailyTaken, MoveConflict, a key, a bug: this unit only
                if _locked(error):
                    raise
                await writer.pipe.drain()
                await writer.statement("ROLLBACK TO unit")
                outcomes.append((False, error))
            else:
                outcomes.append((True, result))
            await writer.statement("RELEASE unit")
        return outcomes
