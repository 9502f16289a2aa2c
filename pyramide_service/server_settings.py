"""The servers' settings as the cogs read them: from storage once, then kept (they change only through
this bot, by ``save``). Outside servers a channel's own settings are kept under its id."""

from __future__ import annotations

from pyramide.bounded import LRU

from .inputs import valid_settings
from .storage import GameRecord, GuildSettings, Storage

KEPT = 10_000  # servers whose settings are kept in memory; the least recently read goes first
OUTSIDE_SERVERS = 0  # the guild id of the games played in DMs and group DMs


def settings_key(record: GameRecord) -> int:
    """Whose settings rule a game: its server's, or outside servers its channel's own (a group DM has no
    server setting; ``/pyramide new anyone:`` sets who may play in it)."""
    return record.guild_id if record.guild_id != OUTSIDE_SERVERS else record.channel_id


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
