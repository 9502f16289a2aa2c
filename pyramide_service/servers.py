"""The servers the bot is in, as their data's lifetime sees them: a server the bot left keeps its data for a
grace period (back within it, nothing is lost), then it is deleted; and the database's upkeep."""

from __future__ import annotations

from .storage import Storage


class Servers:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def left(self, guild_id: int, at: float) -> None:
        await self.storage.guild_left(guild_id, at)

    async def joined(self, guild_id: int) -> None:
        await self.storage.guild_joined(guild_id)

    async def purge_departed(self, before: float) -> list[int]:
        """Delete the data of the servers left before ``before``; which servers they were."""
        return await self.storage.purge_departed(before)

    async def compact(self) -> None:
        await self.storage.compact()
