"""The game as a service, apart from Discord: storage (SQLite through aiosqlite, PostgreSQL through
asyncpg), the channels' manager, the solver service and its workers, crediting and statistics, the
dailies, races, server events and server settings. It stands over the library (``pyramide``) and under
the Discord layer (``cogs``, ``pyramide_bot``); its calls take ids and values, never a Discord object.

What the Discord layer reads of it (the records its services return, the failures it tells players
about, defined in ``stored``) is named here, so that no flow of the Discord layer needs to know how storage
is built; the Discord layer imports no storage (an import-linter contract)."""

import sqlite3

import asyncpg

from .storage.achievements import Rarity, Unlocked
from .stored import (
    ABANDONED,
    BROKEN,
    ENDED,
    PLAYING,
    STUCK,
    WON,
    DailyAttempt,
    DailyRow,
    DailyTaken,
    EventEntry,
    EventOver,
    EventRecord,
    EventStanding,
    EventStart,
    EventStats,
    EventTaken,
    GameRecord,
    GameStatus,
    GuildSettings,
    LeaderRow,
    RaceRecord,
    RaceStats,
    ResultRow,
    StorageError,
    StorageOutcomeUnknown,
    StorageUnavailable,
)

# A database's own failures that no storage call turned into one of the above (a bug, or a damaged file):
# counted as database errors in the metrics.
DATABASE_ERRORS = (sqlite3.Error, asyncpg.PostgresError)

__all__ = [
    "ABANDONED",
    "BROKEN",
    "DATABASE_ERRORS",
    "ENDED",
    "PLAYING",
    "STUCK",
    "WON",
    "DailyAttempt",
    "DailyRow",
    "DailyTaken",
    "EventEntry",
    "EventOver",
    "EventRecord",
    "EventStanding",
    "EventStart",
    "EventStats",
    "EventTaken",
    "GameRecord",
    "GameStatus",
    "GuildSettings",
    "LeaderRow",
    "RaceRecord",
    "RaceStats",
    "Rarity",
    "ResultRow",
    "StorageError",
    "StorageOutcomeUnknown",
    "StorageUnavailable",
    "Unlocked",
]
