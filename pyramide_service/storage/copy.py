"""Copy a whole Pyramide database to another one, SQLite or PostgreSQL, and verify it.

A server that outgrows SQLite moves to PostgreSQL without losing history:

    python -m pyramide.storage copy sqlite:///srv/pyramide/pyramide.db postgresql://pyramide@db:5432/pyramide

Both databases are first brought to this version's schema (the SQLite file is backed up before a
migration, as at every start). The source is read in one consistent snapshot; the target must be empty
and is written in one transaction, which commits only if every table holds as many rows as the source's:
a failed copy leaves the target as empty as it was. Stop the bot first, or moves made during the copy
stay behind in the source.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

import asyncpg

from . import Storage, from_url, schema
from .postgres import PostgresStorage
from .schema import BOOL, BYTES, INT, REAL, SERIAL, SNOWFLAKE, TEXT
from .sqlite import SQLiteStorage

BATCH = 5_000

# Every table and column, in an order that satisfies the foreign keys (the schema's). Kinds: i(nt),
# f(loat), t(ext), b(oolean: 0/1 in SQLite), y (bytes).
_KINDS = {SERIAL: "i", SNOWFLAKE: "i", INT: "i", REAL: "f", TEXT: "t", BOOL: "b", BYTES: "y"}
TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    table.name: tuple((column.name, _KINDS[column.kind]) for column in table.columns) for table in schema.TABLES
}


class CopyError(RuntimeError):
    """The copy cannot be made (a non-empty target, a count that does not match); nothing was written."""


def _converter(kind: str, to_postgres: bool) -> Callable[[Any], Any]:
    if kind == "i":
        return int
    if kind == "f":
        return float
    if kind == "t":
        return str
    if kind == "y":
        return bytes
    return bool if to_postgres else int  # "b"


def _converters(table: str, to_postgres: bool) -> list[Callable[[Any], Any]]:
    return [_converter(kind, to_postgres) for _, kind in TABLES[table]]


def _convert(rows: Iterable[Iterable[Any]], converters: list[Callable[[Any], Any]]) -> list[tuple[Any, ...]]:
    return [
        tuple(None if value is None else convert(value) for value, convert in zip(row, converters, strict=True))
        for row in rows
    ]


async def _read(source: Storage, snapshot: Any, table: str) -> AsyncIterator[list[tuple[Any, ...]]]:
    """The rows of a table of the source, in batches."""
    columns = ", ".join(name for name, _ in TABLES[table])
    if isinstance(source, SQLiteStorage):
        cursor = snapshot.execute(f"SELECT {columns} FROM {table}")
        while batch := cursor.fetchmany(BATCH):
            yield batch
        return
    async for batch in _postgres_batches(snapshot, f"SELECT {columns} FROM {table}"):
        yield batch


async def _postgres_batches(connection: asyncpg.Connection, query: str) -> AsyncIterator[list[tuple[Any, ...]]]:
    batch: list[tuple[Any, ...]] = []
    async for row in connection.cursor(query, prefetch=BATCH):
        batch.append(tuple(row))
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


async def _count(target: Any, table: str) -> int:
    if isinstance(target, sqlite3.Connection):
        return int(target.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
    return int(await target.fetchval(f"SELECT COUNT(*) FROM {table}"))


async def copy(source_url: str, target_url: str, say: Callable[[str], None] = print) -> dict[str, int]:
    """Copy every table from ``source_url`` to the empty database ``target_url``; returns the rows copied
    per table. Raises ``CopyError`` (``StorageError`` for a database that cannot be opened)."""
    source, target = from_url(source_url), from_url(target_url)
    if source_url == target_url:
        raise CopyError("the source and the target are the same database")
    await source.open()
    try:
        await target.open()
        try:
            return await _copy(source, target, say)
        finally:
            await target.close()
    finally:
        await source.close()


async def _copy(source: Storage, target: Storage, say: Callable[[str], None]) -> dict[str, int]:
    copied: dict[str, int] = {}
    snapshot, release = await _snapshot(source)
    try:
        expected = {table: await _count(snapshot, table) for table in TABLES}
        writer, finish = await _writer(target)
        try:
            for table in TABLES:
                if await _count(writer, table):
                    raise CopyError(f"the target already holds {table}: copy into an empty database")
            for table in TABLES:
                converters = _converters(table, isinstance(target, PostgresStorage))
                columns = [name for name, _ in TABLES[table]]
                copied[table] = 0
                async for batch in _read(source, snapshot, table):
                    rows = _convert(batch, converters)
                    try:
                        await _write(writer, table, columns, rows)
                    except (sqlite3.Error, asyncpg.PostgresError) as error:
                        raise CopyError(f"the target refused the rows of {table}, nothing was kept: {error}") from None
                    copied[table] += len(rows)
            if isinstance(target, PostgresStorage):  # new games and races are numbered after the copied ones
                for table in ("games", "races"):
                    await writer.execute(
                        f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), COALESCE(MAX(id), 0) + 1, false)"
                        f" FROM {table}"
                    )
            found = {table: await _count(writer, table) for table in TABLES}
            if found != expected or copied != expected:
                wrong = [t for t in TABLES if not found[t] == copied[t] == expected[t]]
                raise CopyError(
                    "the copy does not match, nothing was kept: "
                    + ", ".join(f"{t} {expected[t]} in the source, {found[t]} copied" for t in wrong)
                )
            await finish(True)
        except BaseException:
            await finish(False)
            raise
    finally:
        await release()
    for table in TABLES:
        say(f"{table:15} {copied[table]:>10} rows, verified")
    return copied


async def _snapshot(source: Storage) -> tuple[Any, Callable[[], Any]]:
    """A connection reading the source as it was at one moment, and how to let it go."""
    if isinstance(source, SQLiteStorage):
        connection = sqlite3.connect(source.path, isolation_level=None)
        connection.execute("BEGIN")  # a WAL read transaction: one consistent view of the file

        async def release_sqlite() -> None:
            connection.execute("COMMIT")
            connection.close()

        return connection, release_sqlite
    assert isinstance(source, PostgresStorage)
    pg = await asyncpg.connect(source.url)
    transaction = pg.transaction(isolation="repeatable_read", readonly=True)
    await transaction.start()

    async def release_postgres() -> None:
        await transaction.rollback()
        await pg.close()

    return pg, release_postgres


async def _writer(target: Storage) -> tuple[Any, Callable[[bool], Any]]:
    """A connection in one transaction on the target, and how to end it (commit or roll back)."""
    if isinstance(target, SQLiteStorage):
        connection = sqlite3.connect(target.path, isolation_level=None)
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute("BEGIN IMMEDIATE")

        async def end_sqlite(keep: bool) -> None:
            connection.execute("COMMIT" if keep else "ROLLBACK")
            connection.close()

        return connection, end_sqlite
    assert isinstance(target, PostgresStorage)
    pg = await asyncpg.connect(target.url)
    transaction = pg.transaction()
    await transaction.start()

    async def end_postgres(keep: bool) -> None:
        try:
            if keep:
                await transaction.commit()
            else:
                await transaction.rollback()
        finally:
            await pg.close()

    return pg, end_postgres


async def _write(writer: Any, table: str, columns: list[str], rows: list[tuple[Any, ...]]) -> None:
    if isinstance(writer, sqlite3.Connection):
        marks = ", ".join("?" for _ in columns)
        writer.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)
        return
    await writer.copy_records_to_table(table, records=rows, columns=columns)
