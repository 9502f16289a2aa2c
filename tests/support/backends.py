"""Storages on either backend, for tests that open a second one or reach past the interface."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pyramide_service.storage import Storage, from_url, schema
from pyramide_service.storage.postgres import PostgresStorage
from pyramide_service.storage.sqlite import SQLiteStorage
from pyramide_service.storage.units import Tx, postgres_sql


def twin(storage: Storage) -> Storage:
    """A second storage on the same database, as another process would open it (not yet open)."""
    if isinstance(storage, PostgresStorage):
        return from_url(storage.url)
    assert isinstance(storage, SQLiteStorage)
    return from_url(storage.path)


async def raw(storage: Storage, statement: str, *args: object) -> list[tuple]:
    """Run SQL straight on a storage's database (``?`` placeholders on both backends), committed; the rows
    it returns. For tests that damage or inspect what is stored."""
    if isinstance(storage, PostgresStorage):
        async with storage.pool.acquire() as connection:
            return [tuple(row) for row in await connection.fetch(postgres_sql(statement), *args)]
    assert isinstance(storage, SQLiteStorage)

    async def run(db: Tx) -> list[tuple]:  # a unit of the writer's next group, committed with it
        return [tuple(row) for row in await db.rows(statement, *args)]

    return await storage._write(run, several=True, long=False, retry=False)


@contextmanager
def schema_before(path: Path, version: int) -> Iterator[sqlite3.Connection]:
    """A SQLite file at the schema just before ``version`` (as a bot of that time left it), open to be
    filled with rows of that time; committed and closed at the end of the block."""
    with sqlite3.connect(path) as db:
        for step in range(1, version):
            for statement in schema.migration(step, "sqlite"):
                db.execute(statement)
        db.execute(f"PRAGMA user_version = {version - 1}")
        yield db
    db.close()
