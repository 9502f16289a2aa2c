"""Races as the Discord layer reads them, by ids and values: a race, and the race a game belongs to (a race
is opened by ``opening.open_race``; who won is decided by the database as its games close)."""

from __future__ import annotations

from .storage import Storage
from .stored import RaceRecord


class Races:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage

    async def race(self, race_id: int) -> RaceRecord | None:
        return await self.storage.race(race_id)

    async def race_of_game(self, game_id: int) -> RaceRecord | None:
        """The race ``game_id`` is played in; ``None`` for a game of no race."""
        return await self.storage.race_of_game(game_id)

    async def channel_refused(self, race_id: int) -> None:
        """Discord refused to tell the race's channel of it (the bot may not post there): the players are
        offered the podium to share themselves. Stored, so that a restart still offers it."""
        await self.storage.set_meta(_untold(race_id), "1")

    async def channel_told(self, race_id: int) -> None:
        """The race's channel was told of its end after all (its podium posted): nothing to share."""
        await self.storage.set_meta(_untold(race_id), "0")

    async def refused_channel(self, race_id: int) -> bool:
        """Whether the race's channel could not be told of it (``channel_refused``, and not ``channel_told``
        since)."""
        return await self.storage.meta(_untold(race_id)) == "1"


def _untold(race_id: int) -> str:
    return f"race:untold:{race_id}"
