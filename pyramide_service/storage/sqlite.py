"""SQLite storage: WAL journal, schema migrated with PRAGMA user_version.

Two plain ``sqlite3`` connections, each used only by a thread of its own that the storage owns (fed by
a queue): writes go through one, reads through the other, so in WAL mode a read never
queues behind a write that waits for a lock. Every unit of work (``queries``) runs whole in its
connection's thread, as one function, in one hop: a read in one snapshot, taken after every write
acknowledged before it; a write in a transaction that holds nothing of any other write. The writes
waiting at one moment share one transaction and one commit (group commit), each under a savepoint of
its own, so that one failing is rolled back alone. A write that finds the database locked (another
process) waits at most ``BUSY_MS`` per try, ``WRITE_TRIES`` times, then gives up with
``StorageUnavailable``: well inside Discord's time for an answer. A finished game's actions are packed
into one small value (``games.log``) and its rows in ``actions`` deleted.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from queue import SimpleQueue
from typing import Any, TypeVar

from . import GameRecord, MoveConflict, StorageError, StorageUnavailable
from . import schema as schema_
from .events import EventQueries
from .queries import PROBE, SQLStorage, Step, Unit

__all__ = ["SCHEMA_VERSION", "SQLiteStorage", "backup"]

T = TypeVar("T")
BUSY_MS = 400  # how long one try waits for another connection's write lock
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


def _locked(error: sqlite3.Error) -> bool:
    return isinstance(error, sqlite3.OperationalError) and ("locked" in str(error) or "busy" in str(error))


def _step(connection: sqlite3.Connection, step: Step) -> Any:
    if step.mode == "many":
        connection.executemany(step.sql, step.args)
        return None
    cursor = connection.execute(step.sql, step.args)
    try:  # the cursor is closed before anything else runs: no statement keeps an old snapshot open
        if step.mode == "all":
            return cursor.fetchall()
        if step.mode == "one":
            return cursor.fetchone()
        if step.mode == "value":
            found = cursor.fetchone()
            return found[0] if found is not None else None
        return cursor.rowcount
    finally:
        cursor.close()


def _drive(connection: sqlite3.Connection, unit: Unit) -> Any:
    """Run a unit to its end on ``connection`` (in the connection's thread)."""
    if isinstance(unit, Step):
        return _step(connection, unit)
    program = unit()
    try:
        step = next(program)
        while True:
            step = program.send(_step(connection, step))
    except StopIteration as done:
        return done.value
    finally:
        program.close()


def _read(connection: sqlite3.Connection, unit: Unit) -> Any:
    """A read: one statement, or a program of several in one read transaction (one snapshot)."""
    if isinstance(unit, Step) or connection.in_transaction:
        return _drive(connection, unit)
    connection.execute("BEGIN")
    try:
        return _drive(connection, unit)
    finally:
        connection.rollback()


def _commit_units(connection: sqlite3.Connection, units: list[Unit]) -> list[tuple[bool, Any]]:
    """In the writer's thread: every unit under its own savepoint, then one commit. A unit that fails is
    rolled back to its savepoint alone (its error is its outcome); "database is locked" fails the whole
    group, which is retried whole."""
    outcomes: list[tuple[bool, Any]] = []
    connection.execute("BEGIN IMMEDIATE")
    try:
        for unit in units:
            connection.execute("SAVEPOINT unit")
            try:
                result = _drive(connection, unit)
            except sqlite3.Error as error:
                if _locked(error):
                    raise
                connection.execute("ROLLBACK TO unit")
                outcomes.append((False, error))
            except Exception as error:  # DailyTaken, MoveConflict, a bug: this unit only
                connection.execute("ROLLBACK TO unit")
                outcomes.append((False, error))
            else:
                outcomes.append((True, result))
            connection.execute("RELEASE unit")
        connection.commit()
    except BaseException:
        connection.rollback()
        raise
    return outcomes


def _execute(connection: sqlite3.Connection, sql: str) -> None:
    connection.execute(sql).close()


def _script(connection: sqlite3.Connection, sql: str) -> None:
    connection.executescript(sql).close()


def _user_version(connection: sqlite3.Connection) -> int:
    return int(connection.execute("PRAGMA user_version").fetchone()[0])


def _migrate(connection: sqlite3.Connection, path: str, file: Path | None, target: int) -> int:
    """Bring the schema up to ``target``, one transaction a version; returns the version found before."""
    found = _user_version(connection)
    if found > SCHEMA_VERSION:
        raise StorageError(
            f"the database {path} has schema {found}, newer than this bot ({SCHEMA_VERSION}): "
            "run the newer bot, or restore a backup"
        )
    backed_up = found == 0 or file is None
    for version in range(found, target):
        # Under the write lock, the version read again: another process starting at the same moment may
        # have taken this step already.
        connection.execute("BEGIN IMMEDIATE")
        try:
            if _user_version(connection) > version:
                connection.rollback()
                continue
            if not backed_up:  # only the process that migrates copies the database first
                assert file is not None
                stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
                backup(file, file.with_name(f"{file.name}.schema{version}-{stamp}.bak"))  # WAL lets it read
                backed_up = True
            for statement in schema_.migration(version + 1, "sqlite"):
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {version + 1}")
            connection.commit()
        except BaseException:
            connection.rollback()
            raise
    return found


def _connect(path: str, read_only: bool) -> sqlite3.Connection:
    connection = sqlite3.connect(path, uri=path.startswith("file:"), timeout=BUSY_MS / 1000)
    try:
        connection.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        connection.execute("PRAGMA foreign_keys = ON")
        if read_only:
            connection.execute("PRAGMA query_only = ON")
    except BaseException:
        connection.close()
        raise
    return connection


class _Connection:
    """A ``sqlite3`` connection and the one thread that makes it, uses it and closes it (sqlite3 objects
    stay in the thread that made them). ``run`` hands a function to that thread: whatever it does on the
    connection happens in one hop, with no other coroutine's statement in between, because nothing else
    runs there meanwhile. Work runs in the order it was handed over, and to its end even when the
    coroutine that handed it over is cancelled meanwhile (a write's outcome is then unknown to it, never
    half done). A plain queue and thread rather than an executor: a hop costs about half the CPU."""

    def __init__(self, name: str) -> None:
        self._work: SimpleQueue[tuple[asyncio.Future[Any], Callable[..., Any], tuple[Any, ...]] | None] = SimpleQueue()
        self._thread = threading.Thread(target=self._serve, name=f"pyramide-sqlite-{name}", daemon=True)
        self._thread.start()
        self._connection: sqlite3.Connection | None = None

    def _serve(self) -> None:
        while (item := self._work.get()) is not None:
            future, work, args = item
            try:
                result = work(*args)
            except BaseException as error:  # handed back to the coroutine that awaits it
                _hand_back(future, _fail, error)
            else:
                _hand_back(future, _succeed, result)

    async def open(self, path: str, *, read_only: bool = False) -> None:
        self._connection = await self._in_thread(_connect, path, read_only)

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        if self._connection is None:
            raise RuntimeError("storage is not open")
        return await self._in_thread(work, self._connection, *args)

    async def _in_thread(self, work: Callable[..., T], *args: Any) -> T:
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._work.put((future, work, args))
        return await future

    async def close(self) -> None:
        """Close the connection in its thread (after the work already handed over), then end the thread."""
        connection, self._connection = self._connection, None
        try:
            if connection is not None:
                await self._in_thread(connection.close)
        finally:
            self._work.put(None)


def _hand_back(future: asyncio.Future[Any], deliver: Callable[[asyncio.Future[Any], Any], None], value: Any) -> None:
    try:  # (not contextlib.suppress: this runs once a statement, and a plain try costs nothing)
        future.get_loop().call_soon_threadsafe(deliver, future, value)
    except RuntimeError:  # the event loop is closed: nobody waits for the answer any more
        return


def _succeed(future: asyncio.Future[Any], result: Any) -> None:
    if not future.done():  # not cancelled meanwhile
        future.set_result(result)


def _fail(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


def _check(connection: sqlite3.Connection) -> str:
    """Check a freshly opened database and set its journal: returns the journal mode it runs in."""
    problems = [str(r[0]) for r in connection.execute("PRAGMA quick_check").fetchall()]
    if problems != ["ok"]:
        raise StorageError(f"is damaged (integrity check: {problems[0][:200]})")
    if int(connection.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]) == 0:
        connection.execute("PRAGMA auto_vacuum = INCREMENTAL")  # only possible before any table
    mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()
    return str(mode[0]).lower() if mode else ""


def _probe(connection: sqlite3.Connection) -> None:
    """A write probe: a read-only file would otherwise fail only at the first move."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        connection.execute(PROBE)
    finally:
        connection.rollback()


class SQLiteStorage(SQLStorage, EventQueries):
    """The default storage: one SQLite file (``":memory:"`` works for experiments)."""

    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        """``path``: a file, ``":memory:"``, or a ``file:`` URI (``file:pyramide.db?mode=ro``)."""
        self.path = str(path)
        self.synchronous = synchronous
        self._db: _Connection | None = None
        self._reader: _Connection | None = None
        self._grouped: list[tuple[Unit, asyncio.Future[Any]]] = []
        self._committer: asyncio.Task[None] | None = None

    @property
    def db(self) -> _Connection:
        if self._db is None:
            raise RuntimeError("storage is not open")
        return self._db

    @property
    def reader(self) -> _Connection:
        return self._reader or self.db

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
            self._db = _Connection("writer")
            await self._db.open(self.path)
            try:
                mode = await self._db.run(_check)
            except StorageError as error:
                raise StorageError(f"the database {where} {error}") from None
            await self._db.run(_execute, f"PRAGMA synchronous = {self.synchronous}")
            await self.migrate()
            await self._db.run(_probe)
            if self.path != ":memory:" and mode == "wal":
                self._reader = _Connection("reader")
                await self._reader.open(self.path, read_only=True)
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

    async def migrate(self, target: int = SCHEMA_VERSION) -> int:
        """Bring the schema up to ``target``; returns the version found before."""
        return await self.db.run(_migrate, self.path, self._file(), target)

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

        # executescript steps the pragma to its end (a cursor would free one page per step); it runs in
        # the writer's thread between two groups, never inside one.
        await self._retrying(lambda: self.db.run(_script, f"PRAGMA incremental_vacuum({int(pages)});"))

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

    async def _read(self, unit: Unit, *, long: bool = False) -> Any:
        return await self.reader.run(_read, unit)

    async def _write(self, unit: Unit, *, long: bool = False, retry: bool = True) -> Any:
        """Run ``unit`` in a transaction shared with the other writes waiting at that moment, and return
        once it is committed (group commit). In a busy bot, presses of many channels arrive together:
        they cost one trip to the writer's thread and one commit (one fsync) instead of one each."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._grouped.append((unit, future))
        if self._committer is None or self._committer.done():
            self._committer = asyncio.create_task(self._commit_groups())
        return await future

    async def _commit_groups(self) -> None:
        while self._grouped:
            group, self._grouped = self._grouped, []
            units = [unit for unit, _ in group]

            async def commit(units: list[Unit] = units) -> list[tuple[bool, Any]]:
                return await self.db.run(_commit_units, units)

            try:
                outcomes = await self._retrying(commit)
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

    async def append_action(
        self, game_id: int, seq: int, action: int | str, at: float, record: GameRecord, request: int | None = None
    ) -> None:
        try:
            await super().append_action(game_id, seq, action, at, record, request)
        except sqlite3.IntegrityError as error:  # (game_id, seq) or the request is stored: another process was first
            raise MoveConflict(f"game {game_id}: move {seq} was stored by another process") from error
