"""PostgreSQL that stalls or goes away for a moment, against the real storage and the real discord.py
objects (tests/support/harness.py): a stalled server (its processes frozen with SIGSTOP, as a network stall
would) is answered within Discord's window and never with "nothing was played" for a move it may store;
a short outage (connections refused and cut, through a TCP relay the test turns off and on) is ridden
out by retries, and logged once, with its length, asyncpg's own pool warnings folded in."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from urllib.parse import urlsplit

import pytest

from pyramide import STOCK
from pyramide_service.storage import GameRecord, StorageOutcomeUnknown, StorageUnavailable
from pyramide_service.storage.postgres import PostgresStorage
from tests.support.backends import raw
from tests.support.deals import kings_and_pairs
from tests.support.harness import CHANNEL_ID, Harness, start
from tests.support.manager_turns import deal, play
from tests.support.throwaway_postgres import Frozen, free_port, server_processes


@contextlib.contextmanager
def frozen(url: str):
    """The PostgreSQL server of ``url`` frozen (every process of it stopped) until the block ends."""
    pids = server_processes(url)
    if not pids:
        pytest.skip("the PostgreSQL server is not one this test can signal")
    stopped = Frozen(pids)
    try:
        yield
    finally:
        stopped.thaw()


async def test_a_stalled_database_is_told_busy_or_unknown_within_discords_window(postgres_url):
    """A read that gets no answer is "busy" (nothing was done); a write that was sent and got no answer is
    of unknown outcome, never "not done"; both said before Discord's 3 s, the connection's cancel not
    waited for. Once the server answers again, the write is settled and found as it really is."""
    storage = PostgresStorage(postgres_url)
    await storage.open()
    try:
        record = await storage.create_game(GameRecord(0, 1, 2, 3, kings_and_pairs().code, "N", created_at=1.0))
        with frozen(postgres_url):
            started = time.monotonic()
            with pytest.raises(StorageUnavailable) as busy:
                await storage.live_game(2)
            assert not isinstance(busy.value, StorageOutcomeUnknown)
            assert time.monotonic() - started < 3.0
        await storage.close()  # a new pool for the write, its connection made before the next stall
        storage = PostgresStorage(postgres_url)
        await storage.open()
        with frozen(postgres_url):
            started = time.monotonic()
            with pytest.raises(StorageOutcomeUnknown) as unknown:
                await storage.append_action(record.id, 0, 27, 2.0, record, request=4242)
            assert time.monotonic() - started < 3.0
        await storage.settle(unknown.value)  # the write can no longer land: what is read now stays so
        found = await storage.move_at(record.id, 0)
        stored = await raw(storage, "SELECT request FROM actions WHERE game_id = ?", record.id)
        assert (found is not None) == (stored == [(4242,)])
        await asyncio.sleep(0.5)
        assert await raw(storage, "SELECT request FROM actions WHERE game_id = ?", record.id) == stored
    finally:
        await storage.close()


async def test_a_move_the_stalled_database_may_have_stored_is_told_not_sure_and_the_next_press_shows_it(
    postgres_url,
):
    """The move's write was sent as the server froze, and the server does not answer within the time the
    bot gives it: the player reads "not sure it was saved", never "nothing was played"; the next press
    shows the truth (the move, if it was stored; else it is played then)."""
    h = await Harness(postgres_url).start()
    try:
        h.bot.manager.resolve_seconds = 0.3
        await start(h, kings_and_pairs().code)
        await h.storage.live_game(CHANNEL_ID)  # (the pool holds an idle connection: the write will be sent)
        before = len(h.hub.sent)
        with frozen(postgres_url):
            pressing = asyncio.ensure_future(h.press(h.board_button("K♠")))
            # Answered while the server is still frozen (the press does not wait for it; the harness's
            # press does, for asyncpg's own reconnecting task).
            for _ in range(200):
                if any("Not sure" in (one.content or "") for one in h.hub.sent[before:]):
                    break
                await asyncio.sleep(0.05)
        sent = await pressing
        assert "Not sure your move was saved" in sent[-1].content and sent[-1].ephemeral
        assert "nothing was played" not in sent[-1].content
        await asyncio.sleep(0.5)  # the frozen write, if it is to land, has landed
        stored = await raw(h.storage, "SELECT COUNT(*) FROM actions")
        sent = await h.press(h.board_button("K♠"))
        text = " ".join(one.content or "" for one in sent)
        if stored == [(1,)]:
            assert "brought up to date" in text, text
        else:
            assert "K♠ removed" in text, text
        assert await raw(h.storage, "SELECT COUNT(*) FROM actions") == [(1,)]
        assert (await h.storage.live_game(CHANNEL_ID)).moves == 1
    finally:
        await h.stop()


class Relay:
    """A TCP relay from a port of its own to the PostgreSQL server: ``down()`` refuses new connections
    and cuts those open (as a restart does), ``up()`` listens again on the same port."""

    def __init__(self, target: str) -> None:
        parts = urlsplit(target)
        self.host, self.target_port = parts.hostname or "127.0.0.1", parts.port or 5432
        self.port = free_port()
        self.url = target.replace(f":{self.target_port}/", f":{self.port}/")
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    async def up(self) -> None:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", self.port)

    async def down(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()  # a reset, not a goodbye
        self._writers.clear()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._writers.add(writer)  # cut by a ``down()`` even while its upstream is still being reached
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(self.host, self.target_port)
        except OSError:
            writer.transport.abort()
            return
        if writer not in self._writers:  # the relay went down meanwhile: no connection outlives it
            upstream_writer.transport.abort()
            return
        self._writers.add(upstream_writer)

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, ConnectionError):  # (the other side was cut: this one ends too)
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.transport.abort()

        with contextlib.suppress(asyncio.CancelledError):  # (the loop ending while a connection is open)
            await asyncio.gather(pump(reader, upstream_writer), pump(upstream_reader, writer))


async def test_a_short_outage_is_ridden_out_by_retries_and_logged_once_with_its_length(postgres_url, caplog):
    """The database goes away for 0.3 s (connections refused and cut) while moves are played in many
    channels: every move is stored and acknowledged (a retry with a backoff, within the deadline), one
    warning tells the outage and its length, and asyncpg's pool warnings do not reach the log."""
    relay = Relay(postgres_url)
    await relay.up()
    h = await Harness(relay.url).start()
    try:
        channels = [CHANNEL_ID + n for n in range(6)]
        manager = h.bot.manager
        for n, channel in enumerate(channels):
            await deal(manager, guild_id=1, channel_id=channel, owner_id=50 + n, game=kings_and_pairs())
        caplog.clear()
        caplog.set_level(logging.INFO)

        async def outage() -> None:
            await asyncio.sleep(0.05)
            await relay.down()
            await asyncio.sleep(0.3)
            await relay.up()

        requests = iter(range(1, 1000))

        async def keep_playing(channel: int) -> int:
            played = 0
            for _ in range(12):
                await play(manager, channel, lambda g: g.tap(STOCK), request=next(requests))
                played += 1
                await asyncio.sleep(0.03)
            return played

        results = await asyncio.gather(outage(), *(keep_playing(c) for c in channels))
        played = results[1:]
        for channel, count in zip(channels, played, strict=True):
            stored = await raw(
                h.storage,
                "SELECT COUNT(*) FROM actions a JOIN games g ON g.id = a.game_id WHERE g.channel_id = ?",
                channel,
            )
            assert stored == [(count,)]
        warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert [r.name for r in warnings] == ["pyramide_service.storage.outage"], [r.getMessage() for r in warnings]
        assert "did not answer for" in warnings[0].getMessage()
        assert not [r for r in caplog.records if r.name.startswith("asyncpg")]
    finally:
        await h.stop()
        await relay.down()
