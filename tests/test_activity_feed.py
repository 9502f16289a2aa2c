"""A change of a channel's game reaches the Activity's pages whichever process made it: within a process
through the application's one subscription (``pyramide_service.changes``: both databases), and through
PostgreSQL's LISTEN/NOTIFY (the storage's ``notices``) from another process's commit (here a second
storage, manager and table on the same database, as a second process has them). Every process listens,
so the one holding a server's shard plays its next board press on a game the Activity's process moved
(two bots on one database, one Hub)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import cast

import pytest
from aiohttp import web

from pyramide import Game
from pyramide_bot.activity.presses import PagePresses, Reply
from pyramide_bot.activity.sessions import Session
from pyramide_bot.activity.viewers import Viewer, Viewers
from pyramide_service.changes import Change, ChangedElsewhere, Changes, ChangesMissed, GameChanged
from pyramide_service.manager import GameManager
from pyramide_service.outcomes import Played, Stale
from pyramide_service.play import Plays, Press
from pyramide_service.server_settings import ServerSettings
from pyramide_service.solving import SolverService
from pyramide_service.storage import Storage, from_url
from pyramide_service.workers import Workers
from tests.support.backends import raw
from tests.support.deals import kings_and_pairs
from tests.support.harness import CHANNEL_ID, GUILD_ID, OWNER, Harness, Hub, start
from tests.support.manager_turns import deal

pytestmark = pytest.mark.backends("sqlite", "postgresql")

CHANNEL, GUILD, PLAYER = 710_000_000_000_000_001, 1 << 40, 600_000_000_000_000_001
PRESS = Press(CHANNEL, PLAYER, "en")


def table_of(storage: Storage, workers: Workers) -> Plays:
    solver = SolverService(workers)
    manager = GameManager(storage, solver=solver)
    return Plays(manager, ServerSettings(storage), solver, Changes(storage, manager))


def pages(changes: Changes) -> tuple[asyncio.Queue[int], Callable[[], None]]:
    """The channels whose game changed, as the Activity's pages are told of them; and how to stop."""
    told: asyncio.Queue[int] = asyncio.Queue()

    async def hear(change: Change) -> None:
        if isinstance(change, GameChanged | ChangedElsewhere):
            told.put_nowait(change.channel_id)

    return told, changes.subscribe(hear)


def tap(spot: int) -> Callable[[Game], object]:
    return lambda game: game.tap(spot)


async def heard(told: asyncio.Queue[int]) -> int:
    return await asyncio.wait_for(told.get(), 1.0)  # within a second


async def test_a_change_reaches_the_listeners_of_its_own_process(storage: Storage, workers: Workers) -> None:
    table = table_of(storage, workers)
    told, unsubscribe = pages(table.changes)
    await deal(table.manager, guild_id=GUILD, channel_id=CHANNEL, owner_id=PLAYER, game=kings_and_pairs())
    async with table.play(PRESS, tap(21)) as outcome:
        assert isinstance(outcome, Played)
    assert await heard(told) == CHANNEL
    assert told.empty()
    unsubscribe()
    async with table.play(PRESS, tap(22)):  # a listener gone is told nothing
        pass
    assert told.empty()


async def test_a_change_in_another_process_reaches_the_activity(
    storage: Storage, database_url: str, workers: Workers
) -> None:
    if not database_url.startswith("postgresql://"):
        pytest.skip("SQLite is one process's database: the direct way above is the only one")
    activity = table_of(storage, workers)
    told, _ = pages(activity.changes)
    activity.changes.listen()
    other_storage = from_url(database_url)
    await other_storage.open()
    other = table_of(other_storage, workers)
    try:
        await asyncio.wait_for(activity.changes.hearing.wait(), 5)
        live = await deal(other.manager, guild_id=GUILD, channel_id=CHANNEL, owner_id=PLAYER, game=kings_and_pairs())
        # The Activity's process plays a move. The other, not listening here, with the game in memory finds it
        # by its write's conflict (as a turn under way when the NOTIFY comes does), then plays on the truth.
        async with activity.play(PRESS, tap(21)):
            pass
        assert await heard(told) == CHANNEL  # (its own, told directly)
        async with other.play(PRESS, tap(22)) as outcome:
            assert isinstance(outcome, Stale)
        async with other.play(PRESS, tap(22)) as outcome:
            assert isinstance(outcome, Played)
            assert outcome.snapshot.pyramid[21] is None
        assert await heard(told) == CHANNEL  # the other process's move, through NOTIFY
        # The Activity's process heard it: its engine of the game is dropped, and the next turn loads the truth.
        async with activity.manager.turn(CHANNEL) as turn:
            assert turn.live is not None and turn.live.game.selected == 22
        stored = await storage.game(live.record.id)
        assert stored is not None and stored.actions == (21, 22)
    finally:
        await other.changes.close()
        await activity.changes.close()
        await other_storage.close()


async def test_a_lost_line_to_the_other_processes_tells_every_page_to_read_again(
    storage: Storage, database_url: str, workers: Workers
) -> None:
    if not database_url.startswith("postgresql://"):
        pytest.skip("SQLite is one process's database: there is no line to lose")
    activity = table_of(storage, workers)
    everywhere: asyncio.Queue[Change] = asyncio.Queue()
    of_channel: asyncio.Queue[Change] = asyncio.Queue()
    activity.changes.subscribe(_put(everywhere))
    activity.changes.subscribe(_put(of_channel), CHANNEL)  # (a surface showing one channel)
    activity.changes.listen()
    try:
        await asyncio.wait_for(activity.changes.hearing.wait(), 5)
        await raw(storage, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'")
        for told in (everywhere, of_channel):  # once the line is made again (a second later)
            assert isinstance(await asyncio.wait_for(told.get(), 5), ChangesMissed)
    finally:
        await activity.changes.close()


def _put(told: asyncio.Queue[Change]) -> Callable[[Change], Awaitable[None]]:
    async def hear(change: Change) -> None:
        told.put_nowait(change)

    return hear


async def test_a_board_press_after_an_activity_move_in_another_process_just_works(
    postgres_url: str, workers: Workers
) -> None:
    """Two bots on one PostgreSQL database, as two processes of a cluster: one holds the server's shard (every
    press of the channel reaches it, its engine of the game in memory), the other serves the Activity. The
    Activity's move reaches the shard's process within a second, and the next press on the board, which the
    Activity's process edited, plays on the stored game: not answered out of date, not drawn again."""
    hub = Hub()
    shard = await Harness(postgres_url, hub, workers=workers).start()
    serving = await Harness(postgres_url, hub, clock=shard.now, workers=workers).start()
    assert shard.bot is not None and serving.bot is not None
    page = PagePresses(serving.bot)
    try:
        hearing = (shard.bot.changes.hearing.wait(), serving.bot.changes.hearing.wait())
        await asyncio.wait_for(asyncio.gather(*hearing), 5)
        await start(shard, kings_and_pairs().code)
        await shard.press(shard.board_button("K♠"))
        told, _ = pages(shard.bot.changes)
        session = Session(OWNER, "Ana", GUILD_ID, CHANNEL_ID, "i-1-gc", shard.now[0] + 3600)
        reply = await page.move(session, "22", 1, "en")  # A♠ selected, in the Activity
        assert not reply.stale, reply.words
        assert await heard(told) == CHANNEL_ID
        await page.edits.settle()  # the board follows the Activity (the serving process's bot-token edit)
        sent = await shard.press(shard.board_button("Q♠"))  # the board's button, pressed on the shard's process
        assert "A♠ + Q♠ removed" in sent[-1].content, [s.content for s in sent]
        record = await shard.storage.live_game(CHANNEL_ID)
        assert record is not None and record.actions == (21, 22, 23)
    finally:
        await page.close()
        await serving.stop()
        await shard.stop()
    assert hub.invalid == [], hub.invalid


async def test_a_change_told_just_as_a_burst_of_sends_ends_is_sent_as_well() -> None:
    """The pages of a channel are sent its position once per burst of changes; a change told in the very turn
    of the loop where the burst's sending ends is sent too (it once fell between the sending task's end and
    the done callback that forgot it, and a page waited for it forever)."""

    class Told(Viewers):
        def __init__(self) -> None:
            super().__init__(cast(PagePresses, None), time.time)
            self.sends: list[int] = []

        async def send(self, channel_id: int, only: Viewer | None = None, reply: Reply | None = None) -> None:
            self.sends.append(channel_id)
            if len(self.sends) == 1:  # another move's change, told as this send ends
                asyncio.get_running_loop().call_soon(self.changed, channel_id)

    class Open:
        closed = False

    viewers = Told()
    page = Viewer(
        cast(web.WebSocketResponse, Open()), Session(PLAYER, "Ana", GUILD, CHANNEL, "i-1", time.time() + 60), "en"
    )
    viewers.join(page)
    try:
        viewers.changed(CHANNEL)
        async with asyncio.timeout(2):
            while len(viewers.sends) < 2:
                await asyncio.sleep(0.01)
        assert viewers.sends == [CHANNEL, CHANNEL]
    finally:
        viewers.leave(page)
