"""A player's figures, a server's leaderboard, and the statistics' reset and forget-me: what the Discord
layer asks of the stored results, by ids and values (the figures themselves: ``stats``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from .stats import PlayerStats, day_streaks, player_stats
from .storage import EventStats, LeaderRow, RaceStats, ResultRow, Storage


@dataclass(frozen=True)
class PlayerRecord:
    """A player's finished games where their statistics are kept, and what follows from them."""

    rows: list[ResultRow]  # oldest first
    stats: PlayerStats
    day_streak: tuple[int, int]  # the daily challenge: current and best run of days
    races: RaceStats
    events: EventStats


@dataclass(frozen=True)
class LeaderboardPage:
    page: int  # from 0, within the pages there are
    pages: int  # at least 1
    total: int  # players ranked
    rows: list[LeaderRow]
    rank: int | None  # the asking player's, if ranked


class Records:
    """The statistics' reads and deletions over ``storage``."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def player(self, stats_id: int, player_id: int, day: date) -> PlayerRecord | None:
        """A player's record where ``stats_id`` keeps it (a server, or their own outside servers) as of
        ``day``; ``None`` before their first finished game there."""
        rows = await self.storage.results(stats_id, player_id)
        if not rows:
            return None
        streak = day_streaks(await self.storage.daily_days(player_id), day)
        races = await self.storage.race_stats(stats_id, player_id)
        events = await self.storage.event_stats(stats_id, player_id)
        return PlayerRecord(rows, player_stats(rows), streak, races, events)

    async def leaderboard(
        self, guild_id: int, since: float | None, page: int, size: int, player_id: int, rules: str | None = None
    ) -> LeaderboardPage:
        """Page ``page`` (brought within the pages there are) of a server's leaderboard since ``since``
        (``rules``: one rule set only), and where ``player_id`` ranks."""
        total = await self.storage.leaderboard_size(guild_id, since, rules)
        pages = max(1, -(-total // size))
        page = min(max(page, 0), pages - 1)
        rows = await self.storage.leaderboard(guild_id, since, size, page * size, rules)
        rank = await self.storage.leaderboard_rank(guild_id, since, player_id, rules)
        return LeaderboardPage(page, pages, total, rows, rank)

    async def reset(self, guild_id: int, player_id: int | None) -> int:
        """Delete a server's statistics (one player's, or everyone's); how many games went."""
        return await self.storage.reset_stats(guild_id, player_id)

    async def forget(self, player_id: int) -> tuple[int, list[int]]:
        """Delete a player's games and statistics everywhere: how many games went, and the channels whose
        game in play went with them."""
        return await self.storage.forget_player(player_id)
