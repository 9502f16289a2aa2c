"""Every change of a channel's game reaches this process's Activity pages within a second, whichever
process made it: within the process through the application's listeners (``Plays.listeners``, told after
each commit of a press or a deal, whichever view made it); across the processes of a deployment on PostgreSQL
each change is also announced with ``NOTIFY`` (after its commit), and every process ``LISTEN``s on a connection
of its own: it drops its engine of a game another process changed (so its next press plays on the stored game,
not on an engine that is behind) and tells its pages. SQLite is one process's database, so the direct way is
the only one there."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable

import asyncpg

from pyramide_service.listeners import Change, Listeners
from pyramide_service.manager import GameManager
from pyramide_service.storage import Storage
from pyramide_service.storage.postgres import PostgresStorage

log = logging.getLogger(__name__)
CHANNEL = "pyramide_games"  # PostgreSQL's notification channel
RECONNECT = 1.0  # seconds before the listening connection is made again after it was lost


class ChangeFeed:
    def __init__(self, storage: Storage, manager: GameManager, listeners: Listeners) -> None:
        self.storage = storage
        self.manager = manager
        self.origin = secrets.token_hex(6)  # this process: its own announcements come back and are skipped
        self.listeners: list[Callable[[int], None]] = []  # this process's Activity
        self._tasks: set[asyncio.Task[None]] = set()
        self._listening: asyncio.Task[None] | None = None
        self.hearing = asyncio.Event()  # set while the listening connection is up (tests wait on it)
        self._unsubscribe = listeners.subscribe(self._heard_here)

    @property
    def shared(self) -> bool:
        return isinstance(self.storage, PostgresStorage)

    def _tell(self, channel_id: int) -> None:
        for listener in self.listeners:
            listener(channel_id)

    async def _heard_here(self, change: Change) -> None:
        self.changed(change.channel_id)

    def changed(self, channel_id: int) -> None:
        """Tell the pages (and, on PostgreSQL, the other processes) that the channel's stored game changed."""
        self._tell(channel_id)
        if isinstance(self.storage, PostgresStorage):
            task = asyncio.get_running_loop().create_task(self._announce(self.storage, channel_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _announce(self, storage: PostgresStorage, channel_id: int) -> None:
        try:
            await storage.pool.execute("SELECT pg_notify($1, $2)", CHANNEL, f"{self.origin}:{channel_id}")
        except Exception as error:  # the pages of other processes miss one change; the next one carries it
            log.warning("could not announce a change of channel %s (%s)", channel_id, type(error).__name__)

    # ------------------------------------------------------------------ listening
    def listen(self) -> None:
        """Hear the other processes' changes (PostgreSQL; one connection of its own), from the bot's start: this
        process's engines follow a game another process moved, and its Activity's pages are told."""
        if isinstance(self.storage, PostgresStorage) and self._listening is None:
            self._listening = asyncio.get_running_loop().create_task(self._listen(self.storage.url))

    def _heard(self, connection: object, pid: int, channel: str, payload: str) -> None:
        origin, _, channel_text = payload.partition(":")
        if origin != self.origin and channel_text.isdigit():
            channel_id = int(channel_text)
            self.manager.outdated(channel_id)
            self._tell(channel_id)

    async def _listen(self, url: str) -> None:
        failures, heard_before = 0, False
        while True:
            connection: asyncpg.Connection | None = None
            try:
                connection = await asyncpg.connect(url)
                lost = asyncio.Event()
                connection.add_termination_listener(_setter(lost))
                await connection.add_listener(CHANNEL, self._heard)
                if heard_before:  # what other processes changed while this one was not listening is unknown
                    self.manager.outdated()
                failures, heard_before = 0, True
                self.hearing.set()
                await lost.wait()
                self.hearing.clear()
                # (the database's own outage is told by storage: this one line only says what follows from it)
                log.info("the change feed lost its database connection; connecting again")
            except asyncio.CancelledError:
                if connection is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(connection.close(), 2)
                raise
            except Exception as error:
                failures += 1
                if failures == 1:  # once a run of failures: each second's retry would repeat it
                    log.warning("the change feed cannot listen (%s); trying again each second", type(error).__name__)
            await asyncio.sleep(RECONNECT)

    async def close(self) -> None:
        self._unsubscribe()
        if self._listening is not None:
            self._listening.cancel()
            await asyncio.gather(self._listening, return_exceptions=True)
            self._listening = None
        await asyncio.gather(*self._tasks, return_exceptions=True)


def _setter(event: asyncio.Event) -> Callable[[object], None]:
    return lambda _connection: event.set()
