"""SQLite connections through aiosqlite's public API, as the storage uses them (``sqlite``): a connection
with its one cursor and its lock, the writer's pipe, and a unit's transaction (``units.Tx``) over them."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Coroutine, Iterable, Sequence
from dataclasses import dataclass
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
    not needed (``execute``) is held and sent on with the next call that is awaited, or at the unit's end.
    On the reader each statement is awaited. ``one``: the unit may run a single statement (a read outside a
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

    async def rows(self, sql: str, *args: Any) -> Sequence[Sequence[Any]]:
        self._next()
        call = _fetch_all(self._connection, sql, args)
        return list(await (self._pipe.call(call) if self._pipe is not None else call))

    async def row(self, sql: str, *args: Any) -> Sequence[Any] | None:
        found = await self.rows(sql, *args)
        return found[0] if found else None

    async def value(self, sql: str, *args: Any) -> Any:
        found = await self.row(sql, *args)
        return found[0] if found is not None else None

    async def changed(self, sql: str, *args: Any) -> int:
        self._next()
        call = self._cursor.execute(sql, args)
        await (self._pipe.call(call) if self._pipe is not None else call)
        return self._cursor.rowcount  # (nothing else was sent on the cursor since: the unit waited for it)

    async def execute(self, sql: str, *args: Any, conflict: Exception | None = None) -> None:
        self._next()
        if self._pipe is not None:
            self._pipe.hold(sql, args, conflict)
        elif conflict is not None:
            await _refused_as(conflict, self._cursor.execute(sql, args))
        else:
            await self._cursor.execute(sql, args)

    async def many(self, sql: str, args: Sequence[Sequence[Any]]) -> None:
        self._next()
        if self._pipe is not None:
            self._pipe.hold_many(sql, args)
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


_DML = ("INSERT", "UPDATE", "DELETE", "REPLACE")


@dataclass(slots=True)
class _Held:
    """Statements not yet handed to the thread: one SQL with its rows of arguments (several: run as one
    ``executemany``, one call), and what a broken key raises instead of the driver's error."""

    sql: str
    args: list[Sequence[Any]]
    conflict: Exception | None
    many: bool = False


class Pipe:
    """The writer's calls, in order, with as few hand-offs to its thread as the answers allow.

    A statement whose answer nobody needs is held, and the same statement held again right after it joins
    it (one ``executemany``: the moves of a group, one call). Held statements are handed over with the next
    call that is awaited (``call``) or at the unit's end (``end``), without waiting for each answer: aiosqlite
    runs a connection's calls one after another in the order they were made, and each call here is made by
    a task of its own, the tasks started in the order they were sent. Waiting for one answer waits for every
    call sent before it, and raises the first failure among them.

    A unit alone (``begin``) has its ``BEGIN IMMEDIATE`` sent, and waited for, only before its first call
    to the thread; a unit that ends with one statement held and nothing sent runs it with no transaction at
    all (autocommit: a statement is atomic; one call instead of BEGIN, statement, COMMIT). Empty whenever
    the writer is free: whoever holds the writer ends with ``end``, ``flush`` or ``drain``."""

    def __init__(self, cursor: aiosqlite.Cursor) -> None:
        self._cursor = cursor
        self._held: list[_Held] = []
        self._sent: list[asyncio.Task[Any]] = []
        self._begin: str | None = None
        self._whole = False
        self.failed = False  # a call failed since the last ``clear`` (even if a unit caught its error)

    def clear(self, *, whole: bool = False) -> None:
        """A new stretch of work. ``whole``: a group sent whole, where any failure fails them all (a held
        statement then joins the same one held before it whatever its ``conflict``)."""
        self.failed = False
        self._whole = whole

    def begin(self, *, whole: bool = False) -> None:
        """A transaction to begin before the first call handed over (none if the unit ends first)."""
        self.clear(whole=whole)
        self._begin = "BEGIN IMMEDIATE"

    def hold(self, sql: str, args: Sequence[Any], conflict: Exception | None) -> None:
        last = self._held[-1] if self._held else None
        if (
            last is not None
            and last.sql == sql
            and (self._whole or last.conflict is conflict)
            and sql.lstrip()[:7].upper().startswith(_DML)
        ):
            last.args.append(args)
            last.many = True
        else:
            self._held.append(_Held(sql, [args], conflict))

    def hold_many(self, sql: str, args: Sequence[Sequence[Any]]) -> None:
        self._held.append(_Held(sql, list(args), None, many=True))

    async def _start(self) -> None:
        if self._begin is not None:
            statement, self._begin = self._begin, None
            await self._cursor.execute(statement)  # waited for: a try waits for a lock once, not once a statement

    async def _hand_over(self) -> None:
        await self._start()
        held, self._held = self._held, []
        loop = asyncio.get_running_loop()
        for statement in held:
            run = (
                self._cursor.executemany(statement.sql, statement.args)
                if statement.many
                else self._cursor.execute(statement.sql, statement.args[0])
            )
            self._sent.append(loop.create_task(_refused_as(statement.conflict, run) if statement.conflict else run))

    async def call(self, call: Coroutine[Any, Any, T]) -> T:
        """A call awaited after every call held or sent before it."""
        if not self._held and not self._sent:
            try:
                await self._start()
                return await call
            except BaseException:
                call.close()  # (if it never ran)
                self.failed = True
                raise
        try:
            await self._hand_over()
        except BaseException:
            call.close()
            raise
        task: asyncio.Task[T] = asyncio.get_running_loop().create_task(call)
        self._sent.append(task)
        await self.flush()
        return task.result()

    async def end(self) -> bool:
        """The unit's end: every statement held is handed over and answered. Returns whether a transaction
        is open (to commit): not when the unit ran at most one statement, alone, in autocommit."""
        if self._begin is not None:
            statement, self._begin = self._begin, None
            if not self._held:
                return False
            if len(self._held) == 1 and not self._held[0].many:
                (alone,), self._held = self._held, []
                run = self._cursor.execute(alone.sql, alone.args[0])
                await self.call(_refused_as(alone.conflict, run) if alone.conflict else run)
                return False
            self._begin = statement
        await self.flush()
        return True

    async def flush(self) -> None:
        """Hand over every statement held and wait for every call sent; raise the first failure among them."""
        if self._held:
            await self._hand_over()
        sent, self._sent = self._sent, []
        for outcome in await asyncio.gather(*sent, return_exceptions=True):
            if isinstance(outcome, BaseException):
                self.failed = True
                raise outcome

    async def drain(self) -> bool:
        """Drop what is held and wait for every call sent, whatever its outcome (a unit that failed
        already). Returns whether a transaction may be open."""
        begun = self._begin is None
        self._held, self._begin = [], None
        sent, self._sent = self._sent, []
        await asyncio.gather(*sent, return_exceptions=True)
        return begun


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
        # Autocommit (no transaction sqlite3 would begin by itself): every transaction here is begun
        # explicitly, and a unit of one statement runs as one.
        connection = await aiosqlite.connect(
            path, uri=path.startswith("file:"), timeout=BUSY_MS / 1000, isolation_level=None
        )
        try:
            cursor = await connection.cursor()
            await cursor.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
            await cursor.execute("PRAGMA foreign_keys = ON")
            if read_only:
                await cursor.execute("PRAGMA query_only = ON")
        except BaseException:
            await connection.close()
            raise
        return cls(connection, cursor, None if read_only else Pipe(cursor))

    def tx(self, *, one: bool = False) -> Tx:
        return Tx(self, one=one)

    async def run(self, call: Coroutine[Any, Any, T]) -> T:
        """A call awaited after every call sent before it (through the pipe, if any)."""
        return await (self.pipe.call(call) if self.pipe is not None else call)

    async def statement(self, sql: str) -> None:
        await self.run(self.cursor.execute(sql))

    async def rollback(self) -> None:
        """Roll back, after every call sent (whatever its outcome); nothing to do for a unit that never
        began its transaction."""
        if self.pipe is not None and not await self.pipe.drain():
            return
        await self.run(self.connection.rollback())

    async def close(self) -> None:
        async with self.lock:  # after the unit it runs, if any
            await self.connection.close()
