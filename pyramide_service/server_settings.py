"""The servers' settings as the cogs read them: from storage once, then kept (they change only through
this bot, by ``save``). Outside servers a channel's own settings are kept under its id."""

from __future__ import annotations

from pyramide.bounded import LRU

from .inputs import valid_settings
from .storage import GuildSettings, Storage

KEPT = 10_000  # servers whose settings are kept in memory; the least recently read goes first


class ServerSettings:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._kept: LRU[int, GuildSettings] = LRU(KEPT)

    async def get(self, guild_id: int) -> GuildSettings:
        settings = self._kept.get(guild_id)
        if settings is None:
            settings = self._kept.put(guild_id, await self.storage.settings(guild_id))
        return settings

    def cached(self, guild_id: int) -> GuildSettings | None:
        """The settings if they are in memory (no query: for a decision that cannot wait)."""
        return self._kept.get(guild_id)

    async def save(self, guild_id: int, settings: GuildSettings) -> None:
        valid_settings(settings)  # never stored outside the commands' limits, whoever made them
        self._kept.pop(guild_id)
        await self.storage.save_settings(guild_id, settings)
        self._kept.put(guild_id, settings)
