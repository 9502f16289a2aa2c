"""Crediting players' histories to their achievements in the background.

A player whose finished games predate the achievements is credited lazily: the first ``/pyramide stats``
or ``/pyramide achievements`` (or a finished game) starts a task that credits their history a chunk at a
time (``Storage.credit_history``: one short transaction each, the fold run between its statements, on
either backend), yielding to the event loop between chunks, so a server with a million
stored games never blocks a press. One task per player at most; whoever makes a ``Credits`` closes it.
"""

from __future__ import annotations

import asyncio
import logging

from .ending import daily_tier_of
from .storage import Storage
from .storage.achievements import CHUNK

log = logging.getLogger(__name__)

__all__ = ["Credits", "daily_tier_of"]  # (the daily's tier is ``ending``'s rule, passed to storage from here)


class Credits:
    """The running credit tasks, one per player."""

    def __init__(self, storage: Storage, chunk: int = CHUNK) -> None:
        self.storage = storage
        self.chunk = chunk
        self._tasks: dict[int, asyncio.Task[None]] = {}

    def ensure(self, player_id: int) -> asyncio.Task[None]:
        """Start crediting ``player_id``'s history unless it is being credited already."""
        task = self._tasks.get(player_id)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._credit(player_id), name=f"credit-{player_id}")
            self._tasks[player_id] = task
            task.add_done_callback(lambda done: self._done(player_id, done))
        return task

    async def credited(self, player_id: int) -> bool:
        """Whether the player's whole history is credited; if not, its crediting is started."""
        if await self.storage.history_credited(player_id):
            return True
        self.ensure(player_id)
        return False

    async def _credit(self, player_id: int) -> None:
        while not await self.storage.credit_history(player_id, daily_tier_of, self.chunk):
            await asyncio.sleep(0)  # other work between chunks

    def _done(self, player_id: int, task: asyncio.Task[None]) -> None:
        if self._tasks.get(player_id) is task:
            del self._tasks[player_id]
        if not task.cancelled() and task.exception() is not None:
            log.error("crediting player %s's achievements failed", player_id, exc_info=task.exception())

    @property
    def running(self) -> int:
        return len(self._tasks)

    async def close(self) -> None:
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
