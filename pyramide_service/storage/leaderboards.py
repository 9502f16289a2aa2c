"""The leaderboards: a player's results, a server's leaderboards, the daily's rows, totals and ranks, and
a player's month of dailies. Read-only operations on finished games and attempts, each written once
(``?`` placeholders, SQL that SQLite and PostgreSQL both read, ``units``)."""

from __future__ import annotations

from typing import Any

from ..stored import DailyAttempt, DailyRow, LeaderRow, ResultRow
from .units import Backend, Tx, read

# ------------------------------------------------------------------------------------- statistics
RESULTS = (
    "SELECT status, score, moves, seconds, finished_at, daily, counted, hints FROM games"
    " WHERE guild_id = ? AND owner_id = ? AND status != 'playing' ORDER BY finished_at, id"
)
_STANDINGS = (
    "SELECT owner_id, COUNT(*) AS played, COUNT(*) FILTER (WHERE status = 'won') AS wins,"
    " MIN(seconds) FILTER (WHERE status = 'won') AS best, MIN(moves) FILTER (WHERE status = 'won') AS fewest,"
    " SUM(hints) AS hints FROM games WHERE guild_id = ? AND status != 'playing' AND finished_at >= ?"
    " AND (CAST(? AS TEXT) IS NULL OR rules = ?) GROUP BY owner_id"
)
_ORDER = "wins DESC, best IS NULL, best, fewest IS NULL, fewest, owner_id"
LEADERBOARD = (
    f"SELECT s.owner_id, played, wins, best, fewest, hints, p.name FROM ({_STANDINGS}) AS s"
    f" LEFT JOIN players AS p ON p.player_id = s.owner_id ORDER BY {_ORDER} LIMIT ? OFFSET ?"
)
LEADERBOARD_SIZE = (
    "SELECT COUNT(DISTINCT owner_id) FROM games WHERE guild_id = ? AND status != 'playing' AND finished_at >= ?"
    " AND (CAST(? AS TEXT) IS NULL OR rules = ?)"
)
LEADERBOARD_RANK = (
    f"SELECT place FROM (SELECT owner_id, ROW_NUMBER() OVER (ORDER BY {_ORDER}) AS place"
    f" FROM ({_STANDINGS}) AS s) AS ranked WHERE owner_id = ?"
)
# Wins without hints, then wins with the fewest hints, then the others; each by time, then moves.
_DAILY_ORDER = (
    "status = 'won' DESC, CASE WHEN status = 'won' THEN hints END NULLS FIRST, seconds IS NULL, seconds, moves,"
    " finished_at NULLS FIRST, player_id"
)
DAILY_ROWS = (
    "SELECT player_id, status, seconds, moves, hints FROM daily_attempts"
    f" WHERE day = ? AND guild_id = ? AND status IS NOT NULL ORDER BY {_DAILY_ORDER}"
)
DAILY_TOTALS = (
    "SELECT COUNT(*), COUNT(*) FILTER (WHERE status = 'won') FROM daily_attempts WHERE day = ? AND status IS NOT NULL"
)
# A player's place among everyone who finished the day's daily, anywhere (the order of DAILY_ROWS).
DAILY_RANK = (
    f"SELECT place FROM (SELECT player_id, ROW_NUMBER() OVER (ORDER BY {_DAILY_ORDER}) AS place"
    " FROM daily_attempts WHERE day = ? AND status IS NOT NULL) AS ranked WHERE player_id = ?"
)
DAILY_DAYS = "SELECT day FROM daily_attempts WHERE player_id = ? AND status IS NOT NULL ORDER BY day"
DAILY_MONTH = (
    "SELECT day, player_id, guild_id, channel_id, game_id, opened_at, status, seconds, moves, hints, removed,"
    " picture FROM daily_attempts WHERE player_id = ? AND day >= ? AND day <= ? ORDER BY day"
)


def _standing(guild_id: int, since: float | None, rules: str | None) -> tuple[Any, ...]:
    return (guild_id, since if since is not None else float("-inf"), rules, rules)


class LeaderboardQueries(Backend):
    """The standings' part of ``Storage``."""

    @read()
    async def results(self, db: Tx, guild_id: int, player_id: int) -> list[ResultRow]:
        found = await db.rows(RESULTS, guild_id, player_id)
        return [ResultRow(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6]), r[7]) for r in found]

    @read()
    async def leaderboard(
        self, db: Tx, guild_id: int, since: float | None, limit: int, offset: int, rules: str | None = None
    ) -> list[LeaderRow]:
        """A page of a server's players by wins, best time, fewest moves (``rules``: one rule set only)."""
        found = await db.rows(LEADERBOARD, *_standing(guild_id, since, rules), limit, offset)
        return [LeaderRow(r[0], r[1], r[2] or 0, r[3], r[4], int(r[5] or 0), r[6]) for r in found]

    @read()
    async def leaderboard_size(self, db: Tx, guild_id: int, since: float | None, rules: str | None = None) -> int:
        return int(await db.value(LEADERBOARD_SIZE, *_standing(guild_id, since, rules)) or 0)

    @read()
    async def leaderboard_rank(
        self, db: Tx, guild_id: int, since: float | None, player_id: int, rules: str | None = None
    ) -> int | None:
        """A player's place on that leaderboard (1 is first), or ``None`` when they are not on it."""
        place = await db.value(LEADERBOARD_RANK, *_standing(guild_id, since, rules), player_id)
        return int(place) if place is not None else None

    @read()
    async def daily_rows(self, db: Tx, day: str, guild_id: int) -> list[DailyRow]:
        """The day's finished counted attempts of a server, best first."""
        return [DailyRow(*r) for r in await db.rows(DAILY_ROWS, day, guild_id)]

    @read()
    async def daily_totals(self, db: Tx, day: str) -> tuple[int, int]:
        found = await db.row(DAILY_TOTALS, day)
        return (int(found[0]), int(found[1] or 0)) if found else (0, 0)

    @read()
    async def daily_rank(self, db: Tx, day: str, player_id: int) -> int | None:
        """The player's rank among everyone who finished the day's daily, in every place."""
        found = await db.row(DAILY_RANK, day, player_id)
        return int(found[0]) if found else None

    @read()
    async def daily_days(self, db: Tx, player_id: int) -> list[str]:
        return [str(r[0]) for r in await db.rows(DAILY_DAYS, player_id)]

    @read()
    async def daily_month(self, db: Tx, player_id: int, first_day: str, last_day: str) -> list[DailyAttempt]:
        """A player's daily attempts from ``first_day`` to ``last_day`` (both included), by day."""
        return [DailyAttempt(*found) for found in await db.rows(DAILY_MONTH, player_id, first_day, last_day)]
