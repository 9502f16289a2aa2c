"""Persistence: what is stored (the records, ``pyramide_service.stored``) and the operations on it (``Storage``), each
written once (``units``) and run by either backend: SQLite through aiosqlite is the embedded default,
PostgreSQL (asyncpg) serves deployments of several processes; ``from_url`` picks one by its URL.

The application's services and the game manager see ``Storage`` and the records, never a backend; the
cogs see neither ``Storage`` nor this package.
"""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from ..stored import (
    ABANDONED,
    BROKEN,
    ENDED,
    FINISHED,
    PLAYING,
    STUCK,
    WON,
    DailyAttempt,
    DailyRow,
    DailyTaken,
    EventEntry,
    EventNotStarted,
    EventOver,
    EventRecord,
    EventStanding,
    EventStart,
    EventStartUnknown,
    EventStats,
    EventTaken,
    Finish,
    GameRecord,
    GameStatus,
    GuildSettings,
    LeaderRow,
    MoveConflict,
    RaceRecord,
    RaceStats,
    ResultRow,
    StorageError,
    StorageOutcomeUnknown,
    StorageUnavailable,
    UnreadableGame,
)
from .queries import Storage

__all__ = [
    "ABANDONED",
    "BROKEN",
    "ENDED",
    "FINISHED",
    "PLAYING",
    "POSTGRES_PREFIXES",
    "SQLITE_PREFIX",
    "STUCK",
    "WON",
    "DailyAttempt",
    "DailyRow",
    "DailyTaken",
    "EventEntry",
    "EventNotStarted",
    "EventOver",
    "EventRecord",
    "EventStanding",
    "EventStart",
    "EventStartUnknown",
    "EventStats",
    "EventTaken",
    "Finish",
    "GameRecord",
    "GameStatus",
    "GuildSettings",
    "LeaderRow",
    "MoveConflict",
    "RaceRecord",
    "RaceStats",
    "ResultRow",
    "Storage",
    "StorageError",
    "StorageOutcomeUnknown",
    "StorageUnavailable",
    "UnreadableGame",
    "from_url",
    "redact",
    "sqlite_path",
]

SQLITE_PREFIX = "sqlite:///"
POSTGRES_PREFIXES = ("postgresql://", "postgres://")


def sqlite_path(url: str) -> str | None:
    """The file of a ``sqlite:///ABSOLUTE/PATH`` URL (``None`` for another URL)."""
    if url.startswith(SQLITE_PREFIX) and len(url) > len(SQLITE_PREFIX):
        return "/" + url[len(SQLITE_PREFIX) :].lstrip("/")
    return None


def from_url(url: str) -> Storage:
    """The storage a URL names: ``sqlite:///ABSOLUTE/PATH`` or ``postgresql://USER[:PASSWORD]@HOST:PORT/DB``;
    a plain path (or ``file:`` URI, or ``:memory:``) is a SQLite database. Raises ``ValueError`` (never
    showing a password) for another kind of URL."""
    path = sqlite_path(url)
    if path is None and "://" not in url:
        path = url
    if path is not None:
        from .sqlite import SQLiteStorage

        return SQLiteStorage(path)
    if url.startswith(POSTGRES_PREFIXES):
        from .postgres import PostgresStorage

        return PostgresStorage(url)
    raise ValueError(
        f"must look like sqlite:///ABSOLUTE/PATH or postgresql://USER@HOST:PORT/DBNAME, not {redact(url)[:60]!r}"
    )


def redact(url: str) -> str:
    """A database URL as it may be printed and logged: without its password, whether it is in the
    address (``user:password@host``) or a query parameter (``?password=...``, as libpq reads it)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url.split("://", 1)[0] + "://…"  # unreadable: nothing of it but its kind
    fields = parts.query.split("&") if parts.query else []
    hidden = ["password=***" if unquote(f.split("=", 1)[0]).lower() == "password" else f for f in fields]
    if parts.password is None and hidden == fields:
        return url
    if parts.password is not None:
        netloc = parts.netloc.rsplit("@", 1)[1]
        user = parts.username or ""
        parts = parts._replace(netloc=f"{user}:***@{netloc}")
    return parts._replace(query="&".join(hidden)).geturl()
