"""The players' styles as the cogs read them: from storage once, then kept (they change only through
this bot, by ``save`` and ``forget``), as the servers' settings are."""

from __future__ import annotations

import logging

from pyramide.bounded import LRU
from pyramide.style import DEFAULT, Style
from pyramide_service.storage import Storage, StorageUnavailable

log = logging.getLogger(__name__)

KEPT = 50_000  # players whose style is kept in memory (a few dozen bytes each); the least recently read goes first


class PlayerStyles:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._kept: LRU[int, Style] = LRU(KEPT)

    async def get(self, player_id: int) -> Style:
        """The player's style (the default one if they never chose another). While the database does not
        answer, the default one, not kept: a move already stored is shown, in today's look, rather than
        answered with an error (the next board asks again)."""
        style = self._kept.get(player_id)
        if style is None:
            try:
                found = await self.storage.player_style(player_id)
            except StorageUnavailable as error:
                log.warning("player %d's style not read (%s): drawn in the default style", player_id, error)
                return DEFAULT
            style = self._kept.put(player_id, found)
        return style

    async def save(self, player_id: int, style: Style) -> None:
        self._kept.pop(player_id)
        await self.storage.set_player_style(player_id, style)
        self._kept.put(player_id, style)

    def forget(self, player_id: int) -> None:
        """After forget-me deleted the stored style."""
        self._kept.pop(player_id)
