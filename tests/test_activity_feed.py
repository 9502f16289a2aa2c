"""A change of a channel's game reaches the Activity's pages whichever process made it: directly within a
process (both databases), and through PostgreSQL's LISTEN/NOTIFY from another process's commit (here a
second storage and manager on the same database, as a second process has them)."""

from __future__ import annotations

import asyncio

import pytest

from pyramide.manager import StaleBoard
from pyramide.storage import Storage, from_url
from pyramide_bot.activity import ChangeFeed, FollowedManager
from tests.deals import kings_and_pairs
from tests.play import deal

CHANNEL, GUILD, PLAYER = 710_000_000_000_000_001, 1 << 40, 600_000_000_000_000_001


async def heard(told: asyncio.Queue[int]) -> int:
    return await asyncio.wait_for(told.get(), 1.0)  # within a second


async def test_a_change_reaches_the_listeners_of_its_own_process(storage: Storage) -> None:
    manager = FollowedManager(storage)
    feed = ChangeFeed(storage, manager)
    told: asyncio.Queue[int] = asyncio.Queue()
    feed.listeners.append(told.put_nowait)
    await deal(manager, guild_id=GUILD, channel_id=CHANNEL, owner_id=PLAYER, game=kings_and_pairs())
    assert await heard(told) == CHANNEL
    async with manager.turn(CHANNEL) as turn:  # a turn that changes nothing tells nobody
        assert turn.live is not None
    async with manager.turn(CHANNEL) as turn:
        await turn.apply(lambda game: game.tap(21))
    assert await heard(told) == CHANNEL
    assert told.empty()
    await feed.close()


async def test_a_change_in_another_process_reaches_the_activity(storage: Storage, database_url: str) -> None:
    if not database_url.startswith("postgresql://"):
        return  # SQLite is one process's database: the direct way above is the only one
    activity = FollowedManager(storage)
    feed = ChangeFeed(storage, activity)
    told: asyncio.Queue[int] = asyncio.Queue()
    feed.listeners.append(told.put_nowait)
    feed.listen()
    other_storage = from_url(database_url)
    await other_storage.open()
    other = FollowedManager(other_storage)
    other_feed = ChangeFeed(other_storage, other)
    try:
        await asyncio.sleep(0.3)  # (the listening connection is made in the background)
        live = await deal(other, guild_id=GUILD, channel_id=CHANNEL, owner_id=PLAYER, game=kings_and_pairs())
        assert await heard(told) == CHANNEL
        # The Activity's process plays a move. The other, with the game in memory, finds it by its write's
        # conflict (as after a rolling restart: that press is answered as stale), then plays on the truth.
        async with activity.turn(CHANNEL) as turn:
            await turn.apply(lambda game: game.tap(21))
        assert await heard(told) == CHANNEL  # (its own, told directly)
        with pytest.raises(StaleBoard):
            async with other.turn(CHANNEL) as turn:
                await turn.apply(lambda game: game.tap(22))
        async with other.turn(CHANNEL) as turn:
            assert turn.live is not None and turn.live.game.pyramid[21] is None
            await turn.apply(lambda game: game.tap(22))
        assert await heard(told) == CHANNEL
        # The Activity's process heard it: its engine of the game is dropped, and the next turn loads the truth.
        async with activity.turn(CHANNEL) as turn:
            assert turn.live is not None and turn.live.game.selected == 22
        stored = await storage.game(live.record.id)
        assert stored is not None and stored.actions == [21, 22]
    finally:
        await other_feed.close()
        await feed.close()
        await other_storage.close()
