"""Server events' storage on both databases, with a second storage on the same database as another process
would open it: the rules that span rows hold under concurrency (READ COMMITTED on PostgreSQL), decided by
constraints and row locks, not by reads."""

import asyncio
from dataclasses import replace

import pytest

from pyramide_service.storage import EventOver, EventStart, EventTaken, GameRecord
from tests.support.backends import raw, twin

pytestmark = pytest.mark.backends("sqlite", "postgresql")

GUILD, CHANNEL = 1, 2
DEAL = (("PY1-N-AAAAAAS", "AAAAAAS"), ("PY1-N-AAAAABA", "AAAAABA"))


async def start(storage, name: str = "Cup", at: float = 100.0, ends: float = 10_000.0):
    return await storage.create_event(EventStart(GUILD, CHANNEL, name, "N", None, DEAL, 9, at, ends))


def entry(player: int, deal: int, event_id: int, at: float = 200.0, channel: int = 50) -> GameRecord:
    return GameRecord(
        id=0,
        guild_id=GUILD,
        channel_id=channel,
        owner_id=player,
        code=DEAL[deal][0],
        rules="N",
        created_at=at,
        started_at=at,
        event_id=event_id,
        event_deal=deal,
    )


@pytest.fixture
async def other(storage):
    second = twin(storage)
    await second.open()
    yield second
    await second.close()


async def test_two_starts_racing_for_the_last_slot_make_one_event(storage, other):
    await start(storage, "A")
    await start(storage, "B")
    made = await asyncio.gather(start(storage, "C"), start(other, "D"), start(other, "E"))
    assert sum(event_id is not None for event_id in made) == 1  # three running at most
    assert len([e for e in await storage.events_of_guild(GUILD) if e.running]) == 3
    first = (await storage.events_of_guild(GUILD))[-1]
    await storage.end_event(first.id, 500.0)
    assert await start(other, "F") is not None  # an ended event frees its slot


async def test_one_entry_a_player_and_a_deal_even_from_two_processes(storage, other):
    event_id = await start(storage)
    found = await asyncio.gather(
        storage.create_game(entry(7, 0, event_id, channel=50)),
        other.create_game(entry(7, 0, event_id, channel=51)),
        return_exceptions=True,
    )
    assert sorted(type(f).__name__ for f in found) == ["EventTaken", "GameRecord"]
    assert [e.position for e in await storage.event_entries(event_id, 7)] == [0]
    taken = next(f for f in found if isinstance(f, GameRecord))
    assert await storage.live_game(taken.channel_id) is not None
    loser = 51 if taken.channel_id == 50 else 50
    assert await storage.live_game(loser) is None  # the refused one left no game behind
    await storage.create_game(entry(7, 1, event_id, channel=52))  # the next deal is another key


async def test_the_end_is_decided_once_and_freezes_what_is_in_play(storage, other):
    event_id = await start(storage)
    playing = await storage.create_game(entry(7, 0, event_id))
    await raw(storage, "UPDATE games SET removed = 6, score = 60 WHERE id = ?", playing.id)
    ends = await asyncio.gather(storage.end_event(event_id, 900.0), other.end_event(event_id, 900.0))
    assert sorted(e is None for e in ends) == [False, True]  # one caller ended it
    standings = next(e for e in ends if e is not None)
    assert [(s.player_id, s.removed, s.score, s.seconds) for s in standings] == [(7, 6, 60, 700.0)]
    playing = replace(playing, status="won", finished_at=950.0, removed=28, seconds=750.0)
    await storage.finish_game(playing)  # finished after the end: its entry stays as it was frozen
    assert [(s.removed, s.seconds) for s in await storage.event_standings(event_id)] == [(6, 700.0)]
    with pytest.raises(EventOver):
        await storage.create_game(entry(8, 0, event_id, at=1000.0))  # no deal opens once it is over
    claims = await asyncio.gather(storage.claim_announcement(event_id, 1.0), other.claim_announcement(event_id, 1.0))
    assert sorted(claims) == [False, True]  # and its results are posted by one process


async def test_a_deal_opened_after_the_deadline_is_refused_and_a_cancel_keeps_no_results(storage):
    event_id = await start(storage, ends=300.0)
    with pytest.raises(EventOver):
        await storage.create_game(entry(7, 0, event_id, at=301.0))
    game = await storage.create_game(entry(7, 0, event_id, at=250.0))
    with pytest.raises(EventTaken):
        await storage.create_game(entry(7, 0, event_id, at=260.0, channel=60))
    game = replace(game, status="ended", finished_at=280.0, removed=3, seconds=30.0)
    await storage.finish_game(game)
    assert [s.removed for s in await storage.event_standings(event_id)] == [3]
    assert await storage.end_event(event_id, 400.0, cancelled=True) == []
    assert await storage.event_standings(event_id) == []
    assert (await storage.event(event_id)).cancelled
    assert await storage.is_running_deal(DEAL[0][1]) is False


async def test_a_claim_given_back_is_claimed_again_by_one_caller_and_a_posted_one_stays(storage, other):
    event_id = await start(storage)
    await storage.end_event(event_id, 900.0)
    assert await storage.claim_announcement(event_id, 1.0)
    await storage.release_announcement(event_id)  # the post was lost on the way
    assert [e for e, _ in await storage.due_events(1000.0)] == [event_id]
    claims = await asyncio.gather(storage.claim_announcement(event_id, 2.0), other.claim_announcement(event_id, 2.0))
    assert sorted(claims) == [False, True]
    await storage.set_event_results(event_id, 77)
    await storage.release_announcement(event_id)  # posted: nothing to give back
    assert (await storage.event(event_id)).announced_at == 2.0
