"""Small notes a deployment keeps in its database, one text a key (which card emojis were uploaded, the hash
of the commands last pushed): read and written through here by the Discord layer."""

from __future__ import annotations

from .storage import Storage


class Notes:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def read(self, key: str) -> str | None:
        return await self.storage.meta(key)

    async def write(self, key: str, value: str) -> None:
        await self.storage.set_meta(key, value)
