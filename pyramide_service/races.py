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
