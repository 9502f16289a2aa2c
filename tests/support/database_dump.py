"""Every table of a test's database, dumped as sorted rows: compared before and after an interaction, it
shows whether anything at all was stored (SQLite read through its own read-only connection, PostgreSQL
through asyncpg)."""

from __future__ import annotations

import contextlib
import sqlite3
from typing import Any

import asyncpg

Tables = dict[str, list[tuple[Any, ...]]]


async def dump(database_url: str) -> Tables:
    if database_url.startswith("postgresql://"):
        connection = await asyncpg.connect(database_url)
        try:
            names = await connection.fetch("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
            return {
                row[0]: sorted((tuple(r) for r in await connection.fetch(f'SELECT * FROM "{row[0]}"')), key=repr)
                for row in names
            }
        finally:
            await connection.close()
    with contextlib.closing(sqlite3.connect(f"file:{database_url}?mode=ro", uri=True)) as db:
        names = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: sorted(db.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr) for name in names}


def changed(before: Tables, after: Tables) -> dict[str, str]:
    """The tables whose rows differ, with a short account of how (for an assertion's message)."""
    return {
        name: f"{len(before.get(name, []))} rows -> {len(after.get(name, []))}, e.g. "
        f"{[r for r in after.get(name, []) if r not in before.get(name, [])][:2]!r:.300}"
        for name in before.keys() | after.keys()
        if before.get(name) != after.get(name)
    }
