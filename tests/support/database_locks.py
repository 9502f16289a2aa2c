"""Another process holding the database, as a test makes it hold it: a write lock that a bot's write meets."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg

from tests.support.harness import Harness


@contextlib.asynccontextmanager
async def write_lock_held(h: Harness) -> AsyncIterator[Callable[[], Awaitable[None]]]:
    """What another process holding the database can do to a start's write, until the block ends: on SQLite
    the write lock (the write is refused busy), on PostgreSQL an exclusive lock on the event's deals (the
    write is sent and waits: its outcome is unknown to the bot)."""
    held: list[object] = []

    if h.db_path.startswith("postgresql://"):

        async def stall() -> None:
            connection = await asyncpg.connect(h.db_path)
            await connection.execute("BEGIN; LOCK TABLE event_deals IN ACCESS EXCLUSIVE MODE")
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
