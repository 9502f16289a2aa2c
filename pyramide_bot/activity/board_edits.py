"""The board message follows the Activity's moves, in coalesced edits.

An edit with the bot token counts against the channel's rate limit (unlike a press's answer, which
edits through the interaction), so a channel has at most one edit in flight and at least ``GAP`` seconds
between two: moves made meanwhile are drawn together by the next edit, which always shows the stored
position of its moment. The first move after a quiet spell is drawn at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from pyramide_discord.host import Host
from pyramide_service.seats import is_seat

log = logging.getLogger(__name__)
GAP = 1.0  # seconds between two edits of one channel's board

Draw = Callable[[int, list[str]], Awaitable[None]]


class BoardEdits:
    def __init__(self, bot: Host, draw: Draw, gap: float = GAP) -> None:
        self.bot = bot
        self._draw = draw
        self.gap = gap
        self._status: dict[int, list[str]] = {}  # channel -> the status lines of its latest move
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self.edited = 0  # edits made (for the tests and the bench)

    def want(self, channel_id: int, status: list[str]) -> None:
        """The channel's board should show its stored position (``status``: the latest move's lines)."""
        if is_seat(channel_id):  # a seat's board is the page alone
            return
        self._status[channel_id] = status
        if channel_id not in self._tasks:
            task = asyncio.get_running_loop().create_task(self._follow(channel_id))
            self._tasks[channel_id] = task
            task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("a board edit for the Activity failed", exc_info=task.exception())

    async def _follow(self, channel_id: int) -> None:
        try:
            while channel_id in self._status:
                status = self._status.pop(channel_id)
                try:
                    await self._draw(channel_id, status)
                    self.edited += 1
                except Exception:  # the next move tries again; the game itself is stored
                    log.exception("could not edit the board of channel %s", channel_id)
                await asyncio.sleep(self.gap)
        finally:
            self._tasks.pop(channel_id, None)

    async def settle(self) -> None:
        """Wait until every wanted edit is made (tests, a clean stop)."""
        while self._tasks:
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def close(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        self._tasks.clear()
