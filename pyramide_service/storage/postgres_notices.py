"""PostgreSQL's ``Notices``: each change is announced with ``NOTIFY`` after its commit (on a pooled
connection, in the background: a press never waits for it), and every process ``LISTEN``s on a connection
of its own, made again a second after it is lost; what was announced meanwhile is unknown (``missed``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable

import asyncpg

from ..tasks import Supervised
from .notices import Heard, Missed, Notices

log = logging.getLogger(__name__)
CHANNEL = "pyramide_games"  # PostgreSQL's notification channel
RECONNECT = 1.0  # seconds before the listening connection is made again after it was lost


class PostgresNotices(Notices):
    def __init__(self, url: str, pool: Callable[[], asyncpg.Pool]) -> None:
        super().__init__()
        self.url, self._pool = url, pool
        self.origin = secrets.token_hex(6)  # this process: its own announcements come back and are skipped
        self._announcing = Supervised("change notices")
        self._listening: asyncio.Task[None] | None = None

    def announce(self, channel_id: int) -> None:
        self._announcing.spawn(self._announce(channel_id), f"channel {channel_id}")

    async def _announce(self, channel_id: int) -> None:
        try:
            await self._pool().execute("SELECT pg_notify($1, $2)", CHANNEL, f"{self.origin}:{channel_id}")
        except Exception as error:  # the other processes miss one change; the next one carries it
            log.warning("could not announce a change of channel %s (%s)", channel_id, type(error).__name__)

    def listen(self, heard: Heard, missed: Missed) -> None:
        if self._listening is None:
            self._listening = asyncio.get_running_loop().create_task(self._listen(heard, missed))

    async def _listen(self, heard: Heard, missed: Missed) -> None:
        def notified(connection: object, pid: int, channel: str, payload: str) -> None:
            origin, _, channel_text = payload.partition(":")
            # (a seat's id is negative: ``pyramide_service.seats``)
            if origin != self.origin and channel_text.removeprefix("-").isdigit():
                heard(int(channel_text))

        failures, heard_before = 0, False
        while True:
            connection: asyncpg.Connection | None = None
            try:
                connection = await asyncpg.connect(self.url)
                lost = asyncio.Event()
                connection.add_termination_listener(_setter(lost))
                await connection.add_listener(CHANNEL, notified)
                if heard_before:  # what other processes changed while this one was not listening is unknown
                    missed()
                failures, heard_before = 0, True
                self.hearing.set()
                await lost.wait()
                self.hearing.clear()
                # (the database's own outage is told by storage: this one line only says what follows from it)
                log.info("the change notices lost their database connection; connecting again")
            except asyncio.CancelledError:
                if connection is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(connection.close(), 2)
                raise
            except Exception as error:
                failures += 1
                if failures == 1:  # once a run of failures: each second's retry would repeat it
                    log.warning("the change notices cannot listen (%s); trying again each second", type(error).__name__)
            await asyncio.sleep(RECONNECT)

    async def close(self) -> None:
        if self._listening is not None:
            self._listening.cancel()
            await asyncio.gather(self._listening, return_exceptions=True)
            self._listening = None
        self.hearing.clear()
        await self._announcing.wait()


def _setter(event: asyncio.Event) -> Callable[[object], None]:
    return lambda _connection: event.set()
