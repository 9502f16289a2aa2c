"""Storages on either backend, for tests that open a second one or reach past the interface."""

from __future__ import annotations

from pyramide.storage import Storage
from pyramide.storage.postgres import PostgresStorage
from pyramide.storage.sqlite import SQLiteStorage


def open_storage(where: str) -> Storage:
    """A storage (not yet open) on a SQLite file or a PostgreSQL URL."""
    if where.startswith("postgresql://"):
        return PostgresStorage(where)
    return SQLiteStorage(where)


def twin(storage: Storage) -> Storage:
    """A second storage on the same database, as another process would open it (not yet open)."""
    if isinstance(storage, PostgresStorage):
        return PostgresStorage(storage.url)
    assert isinstance(storage, SQLiteStorage)
    return SQLiteStorage(storage.path)


async def raw(storage: Storage, statement: str, *args: object) -> list[tuple]:
    """Run SQL straight on a storage's database (``?`` placeholders on both backends), committed; the rows
    it returns. For tests that damage or inspect what is stored."""
    if isinstance(storage, PostgresStorage):
        parts = statement.split("?")
        numbered = parts[0] + "".join(f"${i}{part}" for i, part in enumerate(parts[1:], start=1))
        async with storage.pool.acquire() as connection:
            return [tuple(row) for row in await connection.fetch(numbered, *args)]
    assert isinstance(storage, SQLiteStorage)
    async with storage.db.execute(statement, args) as cursor:
        rows = [tuple(row) for row in await cursor.fetchall()]
    await storage.db.commit()
    return rows
