"""What a player's pictures show beyond their statistics: the achievements they unlocked with how rare
each is, and their month of dailies, by ids and values."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from pyramide.daily import day_key, month_bounds

from .stats import day_streaks
from .storage import DailyAttempt, Storage
from .storage.achievements import Rarity, Unlocked


@dataclass(frozen=True)
class Achievements:
    unlocked: list[Unlocked]
    rarity: Rarity  # among the server's players (everyone's outside servers)


@dataclass(frozen=True)
class DailyMonth:
    attempts: list[DailyAttempt]  # the month of ``day``, up to its last day
    day_streak: tuple[int, int]  # current and best run of days


class Profiles:
    """The achievements' and the dailies' reads for a player's pictures, over ``storage``."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def achievements(self, player_id: int, guild_id: int | None) -> Achievements:
        """What ``player_id`` unlocked, and each achievement's rarity in ``guild_id`` (``None``: everywhere)."""
        return Achievements(await self.storage.unlocked(player_id), await self.storage.rarity(guild_id))

    async def unlocked(self, player_id: int) -> list[Unlocked]:
        """What ``player_id`` unlocked, each with the game that unlocked it."""
        return await self.storage.unlocked(player_id)

    async def daily_month(self, player_id: int, day: date) -> DailyMonth:
        first, last = month_bounds(day.year, day.month)
        attempts = await self.storage.daily_month(player_id, day_key(first), day_key(last))
        return DailyMonth(attempts, day_streaks(await self.storage.daily_days(player_id), day))
