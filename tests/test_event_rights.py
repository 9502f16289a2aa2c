"""What a server's reset and a player's forget-me do to events, on both databases: a reset keeps an event's
deals (its standings and each player's one attempt), forget-me keeps no id of the player, not even as the
event's starter, and takes its rows in the order an event's end does."""

import asyncio

import pytest

from tests.support.backends import raw
from tests.support.event_steps import MODERATOR, end_it, open_deal, start_event
from tests.support.harness import ADMIN, OWNER, STRANGER

pytestmark = pytest.mark.backends("sqlite", "postgresql")


async def test_a_reset_keeps_an_events_deals_and_their_one_attempt(harness, fixed_deals):
    event_id = await start_event(harness)
    await end_it(harness, await open_deal(harness, OWNER), OWNER)  # the first deal played
    await harness.command("new")  # and an ordinary game, finished, that the reset deletes
    await harness.command("end")
    sent = await harness.command("/pyramide-admin reset-stats", user=STRANGER, permissions=MODERATOR)
    await harness.press(sent[-1].button("Yes, delete"), user=STRANGER, permissions=MODERATOR)
    standings = await harness.storage.event_standings(event_id)
    assert [s.player_id for s in standings] == [OWNER]  # the event's standings keep the deal played
    entries = await harness.storage.event_entries(event_id, OWNER)
    assert [e.position for e in entries] == [0]
    thread = await open_deal(harness, OWNER)  # the next deal is the second: the first is not dealt again
    live = await harness.bot.manager.live(thread)
    assert live is not None and live.record.event_deal == 1
    await end_it(harness, thread, OWNER)
    entries = await harness.storage.event_entries(event_id, OWNER)
    assert [e.position for e in entries] == [0, 1]


async def test_forget_me_keeps_no_id_of_an_events_starter_or_player(harness, fixed_deals):
    event_id = await start_event(harness)  # started by ADMIN
    await end_it(harness, await open_deal(harness, ADMIN), ADMIN)
    sent = await harness.command("forget-me", user=ADMIN)
    await harness.press(sent[-1].button("Yes, delete my data"), user=ADMIN)
    assert await raw(harness.storage, "SELECT id FROM events WHERE created_by = ?", ADMIN) == []
    assert await raw(harness.storage, "SELECT event_id FROM event_entries WHERE player_id = ?", ADMIN) == []
    assert await harness.storage.event_standings(event_id) == []
    assert (await harness.storage.event(event_id)).ended_at is None  # the event itself goes on


async def test_forget_me_and_an_events_end_at_once_both_finish(harness, fixed_deals):
    """Forget-me of a player whose deal is in play, at the moment the event ends: both transactions take
    the deal's rows in one order (game, event, entry), so neither waits for the other for ever."""
    event_id = await start_event(harness)
    await open_deal(harness, STRANGER)  # in play
    await end_it(harness, await open_deal(harness, OWNER), OWNER)
    ended, forgotten = await asyncio.gather(
        harness.storage.end_event(event_id, harness.now[0]), harness.storage.forget_player(STRANGER)
    )
    assert ended is not None and forgotten[0] >= 1
    assert [s.player_id for s in await harness.storage.event_standings(event_id)] == [OWNER]
    assert await harness.storage.event_entries(event_id, STRANGER) == []
    assert (await harness.storage.event(event_id)).ended_at is not None
