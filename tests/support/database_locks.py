"""Another process holding the database, as a test makes it hold it: a write lock that a bot's write meets."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg

from tests.support.harness import Harness


@contextlib.asynccontextmanager
async def write_lock_held(h: Harness, table: str = "event_deals") -> AsyncIterator[Callable[[], Awaitable[None]]]:
    """What another process holding the database can do to a write, until the block ends: on SQLite the
    write lock (the write is refused busy), on PostgreSQL an exclusive lock on ``table`` (the event's deals
    for a start, the games for a move: the write is sent and waits, its outcome unknown to the bot; a read
    of that table waits too). SQLite's write lock leaves reads alone (WAL: a reader is never blocked)."""
    held: list[object] = []

    if h.db_path.startswith("postgresql://"):

        async def stall() -> None:
            connection = await asyncpg.connect(h.db_path)
            await connection.execute(f"BEGIN; LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
            held.append(connection)

    else:

        async def stall() -> None:
            connection = sqlite3.connect(h.db_path, timeout=0, isolation_level=None)
            connection.execute("BEGIN IMMEDIATE")
            held.append(connection)

    try:
        yield stall
    finally:
        for connection in held:
            if isinstance(connection, asyncpg.Connection):
                await connection.close()
            else:
                assert isinstance(connection, sqlite3.Connection)
                connection.rollback()
                connection.close()
