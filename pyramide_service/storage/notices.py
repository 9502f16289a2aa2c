"""How the processes of a deployment tell each other that a channel's stored game changed: ``Notices``.

Each process keeps engines of the games it plays in memory and shows them on open pages; a change another
process stored makes them behind. SQLite is one process's database, so there is no one to tell: its
``Notices`` do nothing. PostgreSQL's (``postgres_notices``) announce each change with ``NOTIFY`` and hear the
others' with ``LISTEN``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

Heard = Callable[[int], None]  # another process changed this channel's game
Missed = Callable[[], None]  # the other processes' changes of a while are unknown (the line was lost)


class Notices:
    """One process's line to the others (none: SQLite). ``hearing`` is set while every other process's
    change reaches this one (always, with no other process)."""

    def __init__(self) -> None:
        self.hearing = asyncio.Event()

    def announce(self, channel_id: int) -> None:
        """Tell the other processes, in the background, that the channel's stored game changed."""

    def listen(self, heard: Heard, missed: Missed) -> None:
        """Hear the other processes' changes from now on, until ``close``."""
        self.hearing.set()

    async def close(self) -> None:
        self.hearing.clear()
