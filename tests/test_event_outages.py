"""An event start whose write stalls, on both databases: settled as a move of unknown outcome is (looked
up by its key once the database answers), so a start is either announced or said not started, and never
leaves a running event without its announcement holding one of the server's three slots."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from cogs.pyramide import events
from pyramide import Game
from tests.support.backends import raw
from tests.support.database_locks import write_lock_held
from tests.support.event_steps import DEALS, MODERATOR
from tests.support.harness import ADMIN, GUILD_ID, Harness
from tests.support.throwaway_postgres import Frozen, server_processes

pytestmark = pytest.mark.backends("sqlite", "postgresql")

NOT_STARTED = "The event was not started"


async def start(h: Harness, name: str = "December Cup") -> list:
    return await h.command(
        "/pyramide-admin event start", user=ADMIN, permissions=MODERATOR, name=name, deals=3, duration="2d"
    )


def stall_after_the_search(monkeypatch, stall: Callable[[], Awaitable[None]]) -> None:
    """``stall()`` runs once the event's deals are found, just before its write."""
    find = events.find_deals

    async def found_then_stalled(*args, **options):
        games = await find(*args, **options)
        await stall()
        return games

    monkeypatch.setattr(events, "find_deals", found_then_stalled)


async def running_events(h: Harness) -> list:
    return [e for e in await h.storage.events_of_guild(GUILD_ID) if e.running]


async def test_a_start_whose_write_stalls_starts_nothing_and_holds_no_slot(harness, fixed_deals, monkeypatch):
    h = harness
    async with write_lock_held(h) as stall:
        stall_after_the_search(monkeypatch, stall)
        sent = await start(h)
    words = " ".join(s.content or "" for s in sent)
    assert "has started" not in words and sent[-1].ephemeral, words
    if h.db_path.startswith("postgresql://"):  # sent, settled, looked up: not stored
        assert NOT_STARTED in words, words
    else:  # refused busy: never sent
        assert "busy" in words, words
    assert await running_events(h) == []
    assert await raw(h.storage, "SELECT COUNT(*) FROM event_deals") == [(0,)]
    monkeypatch.undo()
    monkeypatch.setattr(events, "find_deals", fixed_deals_finder())
    for name in ("One", "Two", "Three"):  # every slot is free: three start and are announced
        sent = await start(h, name)
        assert "has started" in sent[-1].content, [s.content for s in sent]
    assert all(e.message_id is not None for e in await running_events(h))
    assert len(await running_events(h)) == 3


def fixed_deals_finder():
    async def find(solver, rules, count, finder, lang):
        return [Game.from_code(game.code) for game in DEALS[:count]]

    return find


async def test_a_start_sent_as_the_server_froze_is_announced_or_said_not_started(postgres_url, workers, monkeypatch):
    """The server freezes as the start's write leaves and thaws a moment after the bot gave up waiting for
    it: the write is settled and looked up, and the moderator reads the truth either way; no running event
    is left unannounced."""
    monkeypatch.setattr(events, "find_deals", fixed_deals_finder())
    h = await Harness(postgres_url, workers=workers).start()
    try:
        if not server_processes(postgres_url):
            pytest.skip("the PostgreSQL server is not one this test can signal")
        frozen: list[Frozen] = []

        async def freeze() -> None:
            await h.storage.events_of_guild(GUILD_ID)  # (an idle connection in the pool: the write is sent)
            frozen.append(Frozen(server_processes(postgres_url)))
            asyncio.get_running_loop().call_later(3.0, frozen[0].thaw)

        stall_after_the_search(monkeypatch, freeze)
        try:
            sent = await start(h)
        finally:
            for one in frozen:
                one.thaw()
        words = " ".join(s.content or "" for s in sent)
        running = await running_events(h)
        if running:
            assert "has started" in words and len(running) == 1 and running[0].message_id is not None, words
        else:
            assert NOT_STARTED in words, words
        assert "Not sure your move" not in words
    finally:
        await h.stop()
