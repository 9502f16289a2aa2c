"""SQLite connections through aiosqlite's public API, as the storage uses them (``sqlite``): a connection
with its one cursor and its lock, the writer's pipe, and a unit's transaction (``units.Tx``) over them."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Coroutine, Iterable, Sequence
from typing import Any, TypeVar

import aiosqlite

from .units import Dialect

T = TypeVar("T")
BUSY_MS = 400  # how long one try waits for another connection's write lock
CONFLICTS: tuple[type[BaseException], ...] = (sqlite3.IntegrityError,)


class Tx:
    """A unit's statements on one aiosqlite connection. Rows are read with ``execute_fetchall`` (the
    statement stepped to its end in the connection's thread: no cursor keeps an old snapshot open); a
    write's row count through the connection's one cursor, which lives and is reset in that thread.

    On the writer, every call goes through the connection's pipe (``Pipe``): a statement whose answer is
    not needed (``execute``) is sent on at once, and the next one that is awaited waits for it too. On the
    reader each statement is awaited. ``one``: the unit may run a single statement (a read outside a
    transaction)."""

    dialect: Dialect = "sqlite"
    conflicts: tuple[type[BaseException], ...] = CONFLICTS

    def __init__(self, connection: Connection, *, one: bool = False) -> None:
        self._connection = connection.connection
        self._cursor = connection.cursor
        self._pipe = connection.pipe
        self._one = one
        self._ran = False

    def _next(self) -> None:
        if self._one:
            if self._ran:
                raise RuntimeError("a second statement in a unit declared of one: declare it several=True")
            self._ran = True

    async def _call(self, call: Coroutine[Any, Any, T]) -> T:
        return await (self._pipe.call(call) if self._pipe is not None else call)

    async def rows(self, sql: str, *args: Any) -> Sequence[Sequence[Any]]:
        self._next()
        return list(await self._call(_fetch_all(self._connection, sql, args)))

    async def row(self, sql: str, *args: Any) -> Sequence[Any] | None:
        found = await self.rows(sql, *args)
        return found[0] if found else None

    async def value(self, sql: str, *args: Any) -> Any:
        found = await self.row(sql, *args)
        return found[0] if found is not None else None

    async def changed(self, sql: str, *args: Any) -> int:
        self._next()
        await self._call(self._cursor.execute(sql, args))
        return self._cursor.rowcount  # (nothing else was sent on the cursor since: the unit waited for it)

    async def execute(self, sql: str, *args: Any, conflict: Exception | None = None) -> None:
        self._next()
        call = _refused_as(conflict, self._cursor.execute(sql, args)) if conflict else self._cursor.execute(sql, args)
        if self._pipe is not None:
            self._pipe.send(call)
        else:
            await call

    async def many(self, sql: str, args: Sequence[Sequence[Any]]) -> None:
        self._next()
        if self._pipe is not None:
            self._pipe.send(self._cursor.executemany(sql, args))
        else:
            await self._cursor.executemany(sql, args)


def _try_open(path: str) -> None:
    sqlite3.connect(path, uri=path.startswith("file:"), timeout=BUSY_MS / 1000).close()


async def _fetch_all(connection: aiosqlite.Connection, sql: str, args: Sequence[Any]) -> Iterable[sqlite3.Row]:
    return await connection.execute_fetchall(sql, args)


async def _refused_as(conflict: Exception, call: Awaitable[Any]) -> None:
    try:
        await call
    except CONFLICTS as error:
        raise conflict from error


class Pipe:
    """The calls sent to the writer's thread, in order, without waiting for each answer: aiosqlite runs a
    connection's calls one after another in the order they were made, and each call here is made by a task
    of its own, the tasks started in the order they were sent. Waiting for one answer (``call``) waits for
    every call sent before it, and raises the first failure among them. Empty whenever the writer is free:
    whoever holds the writer ends with ``flush`` or ``drain``."""

    def __init__(self) -> None:
        self._sent: list[asyncio.Task[Any]] = []
        self.failed = False  # a call failed since the last ``clear`` (even if a unit caught its error)

    def clear(self) -> None:
        self.failed = False

    def send(self, call: Coroutine[Any, Any, Any]) -> None:
        self._sent.append(asyncio.get_running_loop().create_task(call))

    async def call(self, call: Coroutine[Any, Any, T]) -> T:
        task: asyncio.Task[T] = asyncio.get_running_loop().create_task(call)
        self._sent.append(task)
        await self.flush()
        return task.result()

    async def flush(self) -> None:
        """Wait for every call sent; raise the first failure among them."""
        sent, self._sent = self._sent, []
        for outcome in await asyncio.gather(*sent, return_exceptions=True):
            if isinstance(outcome, BaseException):
                self.failed = True
                raise outcome

    async def drain(self) -> None:
        """Wait for every call sent, whatever its outcome (a unit that failed already)."""
        sent, self._sent = self._sent, []
        await asyncio.gather(*sent, return_exceptions=True)


class Connection:
    """An aiosqlite connection, its one cursor for writes and control statements, the lock that gives it to
    one unit of work at a time, and (the writer's) its pipe."""

    def __init__(self, connection: aiosqlite.Connection, cursor: aiosqlite.Cursor, pipe: Pipe | None) -> None:
        self.connection = connection
        self.cursor = cursor
        self.pipe = pipe
        self.lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str, *, read_only: bool = False) -> Connection:
        # Opened once plainly first: a connect that aiosqlite fails leaves its thread to answer an event loop
        # that may be closed by then (a bot that cannot open its file exits), a traceback at exit.
        await asyncio.to_thread(_try_open, path)
        connection = await aiosqlite.connect(path, uri=path.startswith("file:"), timeout=BUSY_MS / 1000)
        try:
            cursor = await connection.cursor()
            await cursor.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
            await cursor.execute("PRAGMA foreign_keys = ON")
            if read_only:
                await cursor.execute("PRAGMA query_only = ON")
        except BaseException:
            await connection.close()
            raise
        return cls(connection, cursor, None if read_only else Pipe())

    def tx(self, *, one: bool = False) -> Tx:
        return Tx(self, one=one)

    async def run(self, call: Coroutine[Any, Any, T]) -> T:
        """A call awaited after every call sent before it (through the pipe, if any)."""
        return await (self.pipe.call(call) if self.pipe is not None else call)

    async def statement(self, sql: str) -> None:
        await self.run(self.cursor.execute(sql))

    async def rollback(self) -> None:
        """Roll back, after every call sent (whatever its outcome)."""
        if self.pipe is not None:
            await self.pipe.drain()
        await self.run(self.connection.rollback())

    async def close(self) -> None:
        async with self.lock:  # after the unit it runs, if any
            await self.connection.close()
