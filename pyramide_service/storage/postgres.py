"""PostgreSQL storage through asyncpg, for deployments of several processes on one database.

The schema and the operations are SQLite's (``schema``, ``units``): this module only runs them. The schema
version is kept in ``pyramide_schema``; processes starting together migrate one at a time under an
advisory lock. A unit of one statement runs alone (its own transaction), a unit of several in one
transaction (a read in one REPEATABLE READ snapshot).

Each move is one statement on a pooled connection: concurrent commits of many
channels share PostgreSQL's WAL flushes (its own group commit), so no grouping is done here. A storage
call on a player's path takes at most ``PRESS_TIMEOUT``, everything included (a connection over its
deadline is ended, not waited for). A call that sent nothing, or that the server refused, is
``StorageUnavailable`` (nothing was done); a write sent without an answer in time is
``StorageOutcomeUnknown`` (it may be stored: ``settle`` it, then look it up). A connection refused or
cut is tried again with a backoff within the deadline where that is safe; an outage is logged once,
with its duration, when it ends (``outage``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit

import asyncpg

from ..stored import StorageError, StorageOutcomeUnknown, StorageUnavailable
from . import redact
from . import schema as schema_
from .notices import Notices
from .outage import Outage
from .postgres_notices import PostgresNotices
from .queries import PROBE, Storage
from .units import Dialect, Work, postgres_sql

log = logging.getLogger(__name__)
T = TypeVar("T")
PRESS_TIMEOUT = 2.0  # seconds a statement on a player's path may take: an answer is due within 3
LONG_TIMEOUT = 120.0  # maintenance (purges, resets, migrations)
OPEN_WAIT = 30.0  # seconds to wait at start for a database server that is still starting
POOL_SIZE = 10
RETRY_PAUSE = 0.05  # seconds before a second try on a refused or cut connection, doubled each time
_MIGRATION_LOCK = 0x50_79_72_61  # pg_advisory_xact_lock key: one process migrates at a time

SCHEMA_VERSION = schema_.VERSION


# A connection the server or the network cut: it is replaced (and the work tried again where safe).
_CUT: tuple[type[BaseException], ...] = (
    OSError,
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.InternalClientError,  # a dying connection handed out before its end was noticed: nothing was sent
    asyncpg.OperatorInterventionError,  # the server shuts down, or an administrator ended the session
)
# A database too slow or too busy for a press: the player is told to try again, nothing was lost.
_SLOW: tuple[type[BaseException], ...] = (
    TimeoutError,
    asyncpg.TooManyConnectionsError,
    asyncpg.QueryCanceledError,
    asyncpg.DeadlockDetectedError,
    asyncpg.SerializationError,
)


class PostgresStorage(Storage):
    """Storage on a PostgreSQL database named by a ``postgresql://USER[:PASSWORD]@HOST:PORT/DBNAME`` URL."""

    def __init__(self, url: str, *, pool_size: int = POOL_SIZE) -> None:
        """Raises ``ValueError`` (without the password) for a URL that cannot name a database."""
        try:
            urlsplit(url).port  # noqa: B018 - a port that is not a number raises
        except ValueError:
            raise ValueError(f"not a valid PostgreSQL URL: {redact(url)[:80]}") from None
        self.url = url
        self.where = redact(url)
        self.pool_size = pool_size
        self._pool: asyncpg.Pool | None = None
        self.outage = Outage(self.where)

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise RuntimeError("storage is not open")
        return self._pool

    # --------------------------------------------------------------- opening
    async def open(self) -> None:
        """Connect, check and migrate. Raises ``StorageError`` naming the problem and the database (never
        its password). A server still starting (refusing connections) is waited for, up to ``OPEN_WAIT``."""
        deadline = time.monotonic() + OPEN_WAIT
        waiting = False
        while True:
            try:
                self._pool = await asyncpg.create_pool(
                    self.url, min_size=1, max_size=self.pool_size, command_timeout=LONG_TIMEOUT, reset=_keep_session
                )
                break
            except (OSError, asyncpg.CannotConnectNowError, TimeoutError) as error:
                if time.monotonic() > deadline:
                    raise StorageError(
                        f"cannot reach the database {self.where} (waited {OPEN_WAIT:.0f} s): {error}"
                    ) from None
                if not waiting:
                    log.warning("waiting for the database %s to accept connections: %s", self.where, error)
                    waiting = True
            except asyncpg.InvalidPasswordError:
                raise StorageError(f"the database {self.where} refused the user or password") from None
            except asyncpg.InvalidCatalogNameError:
                raise StorageError(f"the database {self.where} does not exist: create it first") from None
            except (asyncpg.PostgresError, asyncpg.InterfaceError, ValueError) as error:
                raise StorageError(f"cannot use the database {self.where}: {error}") from None
            await asyncio.sleep(0.3)
        self.outage.watch_asyncpg()
        try:
            await self.migrate()
            # A write probe: a read-only database (a standby, missing rights) would otherwise fail only at
            # the first move.
            async with self.pool.acquire() as connection, connection.transaction():
                await connection.execute(PROBE)
        except StorageError:
            await self.close()
            raise
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as error:
            await self.close()
            raise StorageError(f"cannot use the database {self.where}: {error}") from None

    async def migrate(self, target: int = SCHEMA_VERSION) -> int:
        """Bring the schema up to ``target``; returns the version found before. Each step is one
        transaction under an advisory lock, the version read again inside it."""
        async with self.pool.acquire() as connection:
            async with connection.transaction():  # (IF NOT EXISTS alone is not safe against a concurrent CREATE)
                await connection.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
                await connection.execute(schema_.POSTGRES_VERSION_TABLE)
            found = await self._version(connection)
            if found > SCHEMA_VERSION:
                raise StorageError(
                    f"the database {self.where} has schema {found}, newer than this bot ({SCHEMA_VERSION}): "
                    "run the newer bot, or restore a backup"
                )
            for version in range(found, target):
                async with connection.transaction():
                    await connection.execute("SELECT pg_advisory_xact_lock($1)", _MIGRATION_LOCK)
                    if await self._version(connection) > version:
                        continue  # another process took this step
                    for statement in schema_.migration(version + 1, "postgresql"):
                        await connection.execute(statement)
                    await connection.execute("DELETE FROM pyramide_schema")
                    await connection.execute("INSERT INTO pyramide_schema (version) VALUES ($1)", version + 1)
        return found

    @staticmethod
    async def _version(connection: asyncpg.Connection) -> int:
        return int(await connection.fetchval("SELECT COALESCE(MAX(version), 0) FROM pyramide_schema") or 0)

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        self.outage.unwatch_asyncpg()
        if pool is not None:
            try:
                await asyncio.wait_for(pool.close(), 10)
            except (TimeoutError, OSError, asyncpg.InterfaceError):
                pool.terminate()

    async def compact(self) -> None:
        """PostgreSQL's autovacuum gives space back by itself."""

    def notices(self) -> Notices:
        """``NOTIFY`` after each change, ``LISTEN`` on a connection of its own (``postgres_notices``)."""
        return PostgresNotices(self.url, lambda: self.pool)

    # ------------------------------------------------------------- plumbing
    async def _run(
        self,
        work: Callable[[asyncpg.Connection], Awaitable[T]],
        *,
        timeout: float = PRESS_TIMEOUT,
        retry: bool = True,
        write: bool = False,
    ) -> T:
        """Run ``work`` on a pooled connection, all of it within ``timeout`` seconds: the wait for a
        connection, the statements, tries again, and giving the connection back (one over its deadline is
        ended, never waited for). A connection refused or cut is tried again with a backoff within the
        deadline, when nothing was sent yet or when ``retry`` says the work may run twice (every write
        here is idempotent or guarded by a key, except those that pass False). Then:

        - nothing was sent (no connection in time, a refused one), or the server refused the work (a
          deadlock, a cancel): ``StorageUnavailable``, nothing was done;
        - a ``write`` was sent and no answer came (a stall, a cut): ``StorageOutcomeUnknown`` carrying
          the server session it was sent on, to be settled (``settle``) and looked up."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        begun = time.monotonic()
        pause = RETRY_PAUSE
        while True:
            try:
                connection = await self.pool.acquire(timeout=max(deadline - loop.time(), 0.001))
            except _SLOW as error:  # (before _CUT: a TimeoutError is an OSError too)
                self.outage.failed(type(error).__name__, begun)
                raise StorageUnavailable(f"the database {self.where} did not answer in time: {error!r}") from error
            except _CUT as error:  # refused or reset while connecting: nothing was sent
                self.outage.failed(type(error).__name__, begun)
                if loop.time() + pause < deadline:
                    await asyncio.sleep(pause)
                    pause *= 2
                    continue
                raise StorageUnavailable(f"the database {self.where} is unreachable: {type(error).__name__}") from error
            session = connection.get_server_pid()
            try:
                async with asyncio.timeout_at(deadline):
                    result = await work(connection)
            except TimeoutError as error:
                _end(connection)  # its cancel is not waited for: the deadline is the deadline
                self.outage.failed("no answer in time", begun)
                if write:
                    raise StorageOutcomeUnknown(
                        f"the database {self.where} did not answer a write in time", session
                    ) from error
                raise StorageUnavailable(f"the database {self.where} did not answer in time") from error
            except _SLOW as error:  # the server refused it: rolled back
                raise StorageUnavailable(f"the database {self.where} refused the work: {error!r}") from error
            except _CUT as error:
                _end(connection)
                self.outage.failed(type(error).__name__, begun)
                unsent = isinstance(error, asyncpg.InternalClientError)
                await self.pool.expire_connections()  # a restart or failover cut them all: new ones for all
                if (retry or unsent or not write) and loop.time() + pause < deadline:
                    await asyncio.sleep(pause)
                    pause *= 2
                    continue
                if write and not unsent:
                    raise StorageOutcomeUnknown(
                        f"the database {self.where} cut a write: {type(error).__name__}", session, cut=True
                    ) from error
                raise StorageUnavailable(f"the database {self.where} is unreachable: {type(error).__name__}") from error
            else:
                self.outage.answered()
                return result
            finally:
                await self.pool.release(connection)  # at once: the connection is idle, or ended above

    async def settle(self, unknown: StorageOutcomeUnknown) -> None:
        """Make sure the write of unknown outcome can no longer take effect: the server session it was sent
        on is ended if it still runs (its transaction committed already, or never will), and waited for.
        Raises ``StorageUnavailable`` while the database does not answer."""
        if unknown.session is None:
            return
        # (A backend pid is reused only after its process ended and many others started: within the
        # seconds this runs, a pid of this database that still runs is that session.)

        async def work(connection: asyncpg.Connection) -> bool:
            await connection.fetchval(
                "SELECT pg_terminate_backend(pid, $2) FROM pg_stat_activity WHERE pid = $1",
                unknown.session,
                int(PRESS_TIMEOUT * 500),
            )
            return await connection.fetchval("SELECT 1 FROM pg_stat_activity WHERE pid = $1", unknown.session) is None

        if not await self._run(work):
            raise StorageUnavailable(f"the session of a write on {self.where} is still running")

    async def _read(self, work: Work[T], *, several: bool, long: bool) -> T:
        """One statement alone, or several in one read-only snapshot (REPEATABLE READ)."""

        async def run(connection: asyncpg.Connection) -> T:
            if not several:
                return await work(_Tx(connection, one=True))
            async with connection.transaction(isolation="repeatable_read", readonly=True):
                return await work(_Tx(connection))

        return await self._run(run, timeout=LONG_TIMEOUT if long else PRESS_TIMEOUT)

    async def _write(self, work: Work[T], *, several: bool, long: bool, retry: bool) -> T:
        """One statement alone (its own transaction, one round trip), or several in one transaction."""

        async def run(connection: asyncpg.Connection) -> T:
            if not several:
                return await work(_Tx(connection, one=True))
            async with connection.transaction():
                return await work(_Tx(connection))

        return await self._run(run, timeout=LONG_TIMEOUT if long else PRESS_TIMEOUT, retry=retry, write=True)


@functools.cache
def _numbered(sql: str) -> str:
    return postgres_sql(sql)


class _Tx:
    """A unit's statements on one pooled connection (``?`` placeholders numbered for PostgreSQL). ``one``:
    the unit runs outside a transaction of its own, so a second statement is refused."""

    dialect: Dialect = "postgresql"
    conflicts: tuple[type[BaseException], ...] = (asyncpg.IntegrityConstraintViolationError,)

    def __init__(self, connection: asyncpg.Connection, *, one: bool = False) -> None:
        self._connection = connection
        self._one = one
        self._ran = False

    def _next(self, sql: str) -> str:
        if self._one:
            if self._ran:
                raise RuntimeError("a second statement in a unit declared of one: declare it several=True")
            self._ran = True
        return _numbered(sql)

    async def rows(self, sql: str, *args: Any) -> Sequence[Sequence[Any]]:
        found: list[Sequence[Any]] = await self._connection.fetch(self._next(sql), *args)
        return found

    async def row(self, sql: str, *args: Any) -> Sequence[Any] | None:
        found: Sequence[Any] | None = await self._connection.fetchrow(self._next(sql), *args)
        return found

    async def value(self, sql: str, *args: Any) -> Any:
        return await self._connection.fetchval(self._next(sql), *args)

    async def changed(self, sql: str, *args: Any) -> int:
        return _changed(await self._connection.execute(self._next(sql), *args))

    async def execute(self, sql: str, *args: Any, conflict: Exception | None = None) -> None:
        try:
            await self._connection.execute(self._next(sql), *args)
        except self.conflicts as error:
            if conflict is None:
                raise
            raise conflict from error

    async def many(self, sql: str, args: Sequence[Sequence[Any]]) -> None:
        await self._connection.executemany(self._next(sql), args)


async def _keep_session(connection: asyncpg.Connection) -> None:
    """A connection goes back to the pool as it is. asyncpg's default reset costs a round trip per use
    (RESET ALL, UNLISTEN, CLOSE ALL, advisory unlock); nothing here changes session state (the locks are
    transaction-scoped), and asyncpg still ends an open transaction itself."""


def _end(connection: asyncpg.Connection) -> None:
    """End a connection at once (no graceful close, no waiting for a cancel to be acknowledged)."""
    # (InterfaceError: the pool took it back already, having seen it closed; nothing is left to end.)
    with contextlib.suppress(asyncpg.InterfaceError):
        connection.terminate()


def _changed(status: str) -> int:
    """The row count of a command status ("UPDATE 1", "INSERT 0 1", "DELETE 3")."""
    tail = status.rsplit(" ", 1)[-1]
    return int(tail) if tail.isdigit() else 0
