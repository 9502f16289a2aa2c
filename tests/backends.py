"""Storages on either backend, for tests that open a second one or reach past the interface."""

from __future__ import annotations

from pyramide.storage import Storage, from_url
from pyramide.storage.postgres import PostgresStorage
from pyramide.storage.sqlite import SQLiteStorage
from pyramide.storage.units import Tx, postgres_sql


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
