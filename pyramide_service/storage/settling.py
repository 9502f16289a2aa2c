"""A write of unknown outcome, settled and looked up (docs/storage-invariants.md): once the database answers
again, the write is made unable to take effect (``settle``) and what it would have left is read by its key
(a move by its place and interaction, an event by its server, starter and start time). Until then it is
neither "done" nor "not done"."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar

from ..stored import StorageOutcomeUnknown, StorageUnavailable

T = TypeVar("T")
# How long a write of unknown outcome is looked up for, once the database answers again, before the player
# is told "not sure" (the interaction was deferred meanwhile: Discord waits).
RESOLVE_SECONDS = 8.0


class Settles(Protocol):
    async def settle(self, unknown: StorageOutcomeUnknown) -> None: ...


async def look_up(
    storage: Settles, unknown: StorageOutcomeUnknown, read: Callable[[], Awaitable[T]], resolve_seconds: float
) -> T:
    """``unknown`` settled, then ``read()``: what the write left. Retried while the database does not answer;
    raises ``unknown`` itself when it did not answer within ``resolve_seconds``."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + resolve_seconds
    pause = 0.1
    while True:
        try:
            await storage.settle(unknown)
            return await read()
        except StorageOutcomeUnknown:  # (reads and settling never are; a defensive stop)
            raise unknown from None
        except StorageUnavailable:
            if loop.time() + pause >= deadline:
                raise unknown from None
            await asyncio.sleep(pause)
            pause = min(pause * 2, 1.0)
