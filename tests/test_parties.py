"""A party race of an Activity instance at the application level (``pyramide_service.parties``), on real
databases: gathered, joined during its countdown, dealt to every seat at once, played through the seats'
``Plays``, given up, ended by its time limit, ranked, counted as a race; two clears at one moment; a restart
in the middle, a begin stopped after its first seat; two processes on one database joining, beginning and
clearing at once; a begin that read a stale countdown; a start and a podium claim whose answers were lost;
a player in today's daily racing a party."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from pyramide_service.changes import Change, ChangedElsewhere, Changes, GameChanged
from pyramide_service.dailies import DailyAttempts, DailyDeals
from pyramide_service.daily_open import TodaysDaily
from pyramide_service.manager import GameManager
from pyramide_service.opening import AttemptTaken, Here, Opened, Player, SeatBoard
from pyramide_service.outcomes import Played
from pyramide_service.parties import (
    COUNTDOWN,
    TIME_LIMIT,
    Gathered,
    Gathering,
    GaveUp,
    Parties,
    Party,
    Racer,
    Running,
)
from pyramide_service.play import Plays, Press
from pyramide_service.seats import Seat
from pyramide_service.server_settings import ServerSettings
from pyramide_service.storage import ENDED, WON, Storage
from pyramide_service.storage.postgres import PostgresStorage
from pyramide_service.stored import StorageOutcomeUnknown
from tests.support.backends import raw, twin
from tests.support.deals import clear_kings_and_pairs_taps, kings_and_pairs

pytestmark = pytest.mark.backends("sqlite", "postgresql")

INSTANCE, CHANNEL, GUILD = "i-1468", 710_000_000_000_000_001, 1 << 40
NAMES = ("Ana", "Bo", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal")
EVERYONE = tuple(Racer(600_000_000_000_000_000 + n, name, "en") for n, name in enumerate(NAMES))
ANA, BO, CY, DEE = EVERYONE[:4]
requests = itertools.count(1)


class Table:
    """The application over one storage, on a clock the test moves."""

    def __init__(self, storage: Storage, now: list[float]) -> None:
        self.manager = GameManager(storage, clock=lambda: now[0])
        self.changes = changes = Changes(storage, self.manager)
        self.plays = Plays(self.manager, ServerSettings(storage), None, changes)  # type: ignore[arg-type]
        self.parties = Parties(self.manager, changes)

    async def tap(self, party: Party, racer: Racer, spot: int) -> Played:
        seat = party.of(racer.player_id)
        assert seat is not None
        return await self.tap_in(seat.seat, racer, spot)

    async def tap_in(self, seat: int, racer: Racer, spot: int) -> Played:
        press = Press(seat, racer.player_id, "en", request=next(requests))
        async with self.plays.play(press, lambda game: game.tap(spot)) as outcome:
            assert isinstance(outcome, Played)
            return outcome


async def gathered(table: Table, now: list[float], *racers: Racer) -> Party:
    started = await table.parties.start(INSTANCE, CHANNEL, GUILD, racers[0], kings_and_pairs())
    assert isinstance(started, Gathered)
    for racer in racers[1:]:
        assert isinstance(await table.parties.join(INSTANCE, racer), Gathered)
    now[0] += COUNTDOWN
    party = await table.parties.state(INSTANCE)
    assert isinstance(party, Party)
    return party


async def test_a_party_is_gathered_dealt_to_each_seat_at_once_played_ranked_and_counted(storage):
    now = [1_000_000.0]
    table = Table(storage, now)
    started = await table.parties.start(INSTANCE, CHANNEL, GUILD, ANA, kings_and_pairs())
    assert isinstance(started, Gathered) and started.gathering.starts_at == now[0] + COUNTDOWN
    assert isinstance(await table.parties.join(INSTANCE, BO), Gathered)
    joined = await table.parties.join(INSTANCE, CY)
    assert isinstance(joined, Gathered) and [r.name for r in joined.gathering.racers] == ["Ana", "Bo", "Cy"]
    assert isinstance(await table.parties.state(INSTANCE), Gathering)  # the countdown runs
    now[0] += COUNTDOWN
    party = await table.parties.state(INSTANCE)
    assert isinstance(party, Party) and len(party.race.players) == 3
    seats = {s.seat for s in party.standings}
    assert len(seats) == 3 and all(seat < 0 for seat in seats)  # a seat each, never a Discord channel
    records = [await storage.game(s.game_id) for s in party.standings]
    assert {r.code for r in records} == {kings_and_pairs().code} and {r.created_at for r in records} == {now[0]}
    late = await table.parties.join(INSTANCE, DEE)  # after the start: watches
    assert isinstance(late, Running) and late.party.of(DEE.player_id) is None
    assert isinstance(await table.parties.start(INSTANCE, CHANNEL, GUILD, DEE, kings_and_pairs()), Running)

    taps = clear_kings_and_pairs_taps()
    for spot in taps[:4]:
        await table.tap(party, CY, spot)
    for spot in taps:
        now[0] += 1
        played = await table.tap(party, BO, spot)
    assert played.live.record.status == WON
    gave_up = await table.parties.give_up(INSTANCE, ANA.player_id, "en")
    assert isinstance(gave_up, GaveUp) and gave_up.party.winner_id == BO.player_id and not gave_up.party.over
    assert [(s.name, s.removed) for s in gave_up.party.standings] == [("Bo", 28), ("Cy", 3), ("Ana", 0)]
    assert gave_up.party.of(CY.player_id).left[21] is False and gave_up.party.of(CY.player_id).left[0] is True
    now[0] += TIME_LIMIT  # Cy plays on until the party's time runs out
    over = await table.parties.state(INSTANCE)
    assert isinstance(over, Party) and over.over and [s.place for s in over.standings] == [1, 2, 3]
    assert [s.status for s in over.standings] == [WON, ENDED, ENDED]
    won, lost = await storage.race_stats(GUILD, BO.player_id), await storage.race_stats(GUILD, CY.player_id)
    assert (won.played, won.won, lost.played, lost.won) == (1, 1, 1, 0)  # a race of three, counted as one
    assert isinstance(await table.parties.start(INSTANCE, CHANNEL, GUILD, DEE, kings_and_pairs()), Gathered)


async def test_two_clears_at_the_same_moment_make_one_winner(storage):
    now = [1_000_000.0]
    table = Table(storage, now)
    party = await gathered(table, now, ANA, BO)
    taps = clear_kings_and_pairs_taps()
    for racer in (ANA, BO):
        for spot in taps[:-1]:
            await table.tap(party, racer, spot)
    last = await asyncio.gather(*(table.tap(party, racer, taps[-1]) for racer in (ANA, BO)))
    assert {p.live.record.status for p in last} == {WON}
    over = await table.parties.state(INSTANCE)
    assert isinstance(over, Party) and over.over and over.winner_id in (ANA.player_id, BO.player_id)
    assert over.standings[0].player_id == over.winner_id  # (the podium names the winner the database kept)
    stats = [await storage.race_stats(GUILD, r.player_id) for r in (ANA, BO)]
    assert sorted(s.won for s in stats) == [0, 1]


async def test_a_party_goes_on_after_a_restart_in_its_countdown_and_in_its_race(storage):
    now = [1_000_000.0]
    table = Table(storage, now)
    assert isinstance(await table.parties.start(INSTANCE, CHANNEL, GUILD, ANA, kings_and_pairs()), Gathered)
    taps = clear_kings_and_pairs_taps()
    first, second = twin(storage), twin(storage)  # the process started again, twice
    await first.open()
    try:
        restarted = Table(first, now)
        assert isinstance(await restarted.parties.join(INSTANCE, BO), Gathered)
        now[0] += COUNTDOWN
        party = await restarted.parties.state(INSTANCE)
        assert isinstance(party, Party) and len(party.standings) == 2
        await restarted.tap(party, ANA, taps[0])
    finally:
        await first.close()
    await second.open()
    try:
        again = Table(second, now)
        party = await again.parties.state(INSTANCE)
        assert isinstance(party, Party) and party.of(ANA.player_id).removed == 1
        for spot in taps[1:]:
            await again.tap(party, ANA, spot)
        assert isinstance(await again.parties.give_up(INSTANCE, BO.player_id, "en"), GaveUp)
    finally:
        await second.close()
    over = await table.parties.state(INSTANCE)
    assert isinstance(over, Party) and over.over and over.winner_id == ANA.player_id


class Stalling(Changes):
    """The one subscription of a process that stops (killed, cancelled) as soon as it tells of a first game
    dealt: what it dealt is stored, nothing after it."""

    def __init__(self, storage: Storage, manager: GameManager) -> None:
        super().__init__(storage, manager)
        self.dealt: list[GameChanged] = []
        self.stopped = asyncio.Event()

    async def publish(self, change: Change) -> None:
        assert isinstance(change, GameChanged)
        self.dealt.append(change)
        self.stopped.set()
        await asyncio.Event().wait()  # (until cancelled)


async def stored_party(storage: Storage, party: Party) -> None:
    """What the database holds of ``party`` is one race, its racers' games, each one game in play in its seat."""
    assert await raw(storage, "SELECT COUNT(*) FROM races") == [(1,)]
    assert await raw(storage, "SELECT COUNT(*) FROM race_players WHERE race_id = ?", party.race.id) == [
        (len(party.standings),)
    ]
    playing = await raw(storage, "SELECT id, channel_id FROM games WHERE status = 'playing' ORDER BY id")
    assert sorted(playing) == sorted((s.game_id, s.seat) for s in party.standings)  # (nothing else in play)


async def test_a_begin_stopped_after_its_first_seat_is_dealt_once_by_the_next_read(storage):
    now = [1_000_000.0]
    table = Table(storage, now)
    await table.parties.start(INSTANCE, CHANNEL, GUILD, ANA, kings_and_pairs())
    for racer in (BO, CY):
        await table.parties.join(INSTANCE, racer)
    now[0] += COUNTDOWN
    table.parties.changes = stalling = Stalling(storage, table.manager)
    begin = asyncio.create_task(table.parties.state(INSTANCE))
    await stalling.stopped.wait()
    begin.cancel()
    with pytest.raises(asyncio.CancelledError):
        await begin
    assert [g.channel_id for g in stalling.dealt] == [s.id for s in _seats(ANA)]  # Ana's seat dealt, no race
    assert await raw(storage, "SELECT COUNT(*) FROM races") == [(0,)]

    restarted = twin(storage)  # the process started again, on the same database
    await restarted.open()
    try:
        again = Table(restarted, now)
        party = await again.parties.state(INSTANCE)
        assert isinstance(party, Party) and [s.name for s in party.standings] == ["Ana", "Bo", "Cy"]
        assert party.of(ANA.player_id).game_id == stalling.dealt[0].game_id  # (kept: no game of hers left behind)
        await stored_party(restarted, party)
        assert await again.parties.state(INSTANCE) == party
    finally:
        await restarted.close()


@asynccontextmanager
async def two_processes(storage: Storage) -> AsyncIterator[tuple[Table, Table, list[float]]]:
    """The application on two processes of one database (a second storage on it), on one clock."""
    now = [1_000_000.0]
    other = twin(storage)
    await other.open()
    try:
        yield Table(storage, now), Table(other, now), now
    finally:
        await other.close()


async def test_two_processes_join_begin_and_clear_at_once_as_the_database_decides(storage):
    async with two_processes(storage) as (one, two, now):
        await one.parties.start(INSTANCE, CHANNEL, GUILD, ANA, kings_and_pairs())
        joins = [(one, two)[n % 2].parties.join(INSTANCE, racer) for n, racer in enumerate(EVERYONE[1:])]
        assert all(isinstance(joined, Gathered) for joined in await asyncio.gather(*joins))
        gathering = await two.parties.state(INSTANCE)
        assert isinstance(gathering, Gathering) and {r.name for r in gathering.racers} == set(NAMES)  # none lost

        now[0] += COUNTDOWN  # both processes read the countdown that ran out at once
        first, second = await asyncio.gather(one.parties.state(INSTANCE), two.parties.state(INSTANCE))
        assert isinstance(first, Party) and isinstance(second, Party) and first.race.id == second.race.id
        assert {s.game_id for s in first.standings} == {s.game_id for s in second.standings}
        await stored_party(storage, first)

        taps = clear_kings_and_pairs_taps()
        for table, racer in ((one, ANA), (two, BO)):  # each racer's moves made on a process of their own
            for spot in taps[:-1]:
                await table.tap(first, racer, spot)
        last = await asyncio.gather(one.tap(first, ANA, taps[-1]), two.tap(first, BO, taps[-1]))
        assert {p.live.record.status for p in last} == {WON}
        seen = [await table.parties.state(INSTANCE) for table in (one, two)]
        winners = {party.winner_id for party in seen if isinstance(party, Party)}
        assert len(winners) == 1 and winners <= {ANA.player_id, BO.player_id}
        stats = [await storage.race_stats(GUILD, r.player_id) for r in (ANA, BO)]
        assert sorted(s.won for s in stats) == [0, 1]
        claims = await asyncio.gather(*(table.parties.claim_podium(INSTANCE) for table in (one, two, one, two)))
        assert sorted(claims) == [False, False, False, True]  # the channel told of the podium once


async def test_a_player_in_todays_daily_races_a_party_and_keeps_their_attempt(storage):
    now = [1_000_000.0]
    table = Table(storage, now)
    deals = DailyDeals(None, table.manager.clock)  # type: ignore[arg-type]
    todays = TodaysDaily(table.manager, deals, DailyAttempts(storage), table.changes, table.manager.clock)
    day = todays.today()
    deals.codes[day.day] = kings_and_pairs().code
    ana = Player(ANA.player_id, ANA.name, GUILD, "en")
    daily_seat = Seat.daily(CHANNEL, ANA.player_id, day.number).id
    assert isinstance(await todays.open(day, SeatBoard(), Here(daily_seat), ana), Opened)
    taps = clear_kings_and_pairs_taps()
    await table.tap_in(daily_seat, ANA, taps[0])

    party = await gathered(table, now, ANA, BO)  # Ana races with her daily open
    assert party.of(ANA.player_id).seat != daily_seat
    for spot in taps[:3]:
        await table.tap(party, ANA, spot)
    back = await todays.open(day, SeatBoard(), Here(CHANNEL), ana)  # "Today's daily": back to the attempt
    assert isinstance(back, AttemptTaken) and back.attempt.status is None and back.attempt.channel_id == daily_seat
    for spot in taps[1:]:
        played = await table.tap_in(daily_seat, ANA, spot)
    assert played.live.record.status == WON and played.live.record.daily == day.key

    now[0] += TIME_LIMIT
    over = await table.parties.state(INSTANCE)
    assert isinstance(over, Party) and over.over and over.of(ANA.player_id).removed == 3  # (her party board's own)
    done = await todays.open(day, SeatBoard(), Here(daily_seat), ana)
    assert isinstance(done, AttemptTaken) and done.attempt.status == WON and done.attempt.removed == 28
    assert await raw(storage, "SELECT COUNT(*) FROM daily_attempts WHERE player_id = ?", ANA.player_id) == [(1,)]
    races = await storage.race_stats(GUILD, ANA.player_id)
    assert (races.played, races.won) == (1, 0)  # the daily's clear is not the party's


def _seats(*racers: Racer) -> list[Seat]:
    return [Seat.party(CHANNEL, r.player_id, int((1_000_000.0 + COUNTDOWN) * 1000)) for r in racers]


async def test_a_begin_that_read_the_countdown_before_another_process_began_leaves_no_game_in_play(storage):
    """A process reads the countdown that ran out, then stalls; another begins the race, and a racer gives up
    (their seat has no game in play). The first goes on: it finds the race stored by the other, and deals
    nothing that stays in play (a game it dealt in the empty seat is taken back)."""
    async with two_processes(storage) as (one, two, now):
        other = two.manager.storage
        await one.parties.start(INSTANCE, CHANNEL, GUILD, ANA, kings_and_pairs())
        await one.parties.join(INSTANCE, BO)
        now[0] += COUNTDOWN
        read, go_on = asyncio.Event(), asyncio.Event()
        meta = other.meta

        async def stalls_after_its_first_read(key: str) -> str | None:
            value = await meta(key)
            if not read.is_set():
                read.set()
                await go_on.wait()
            return value

        other.meta = stalls_after_its_first_read  # type: ignore[method-assign]
        stale = asyncio.create_task(two.parties.state(INSTANCE))
        await read.wait()
        party = await one.parties.state(INSTANCE)
        assert isinstance(party, Party)
        assert isinstance(await one.parties.give_up(INSTANCE, ANA.player_id, "en"), GaveUp)
        go_on.set()
        seen = await stale
        assert isinstance(seen, Party) and seen.race.id == party.race.id
        bo = party.of(BO.player_id)
        assert bo is not None
        assert await raw(storage, "SELECT id, channel_id FROM games WHERE status = 'playing'") == [
            (bo.game_id, bo.seat)
        ]
        assert await raw(storage, "SELECT COUNT(*) FROM races") == [(1,)]


async def test_a_start_and_a_podium_claim_stored_whose_answers_were_lost_are_still_the_callers(storage):
    """The database stores a party's start (then its podium's claim) and its answer does not come (a stall:
    ``StorageOutcomeUnknown``): the write is settled and looked up, never taken as not done, so the starter is
    told the countdown runs (not "a party is about to start: join it") and the channel is told of the podium."""
    now = [1_000_000.0]
    table = Table(storage, now)
    swap, lost = storage.swap_meta, []

    async def stored_then_answer_lost(key: str, kept: str | None, value: str) -> bool:
        done = await swap(key, kept, value)
        if not lost:
            lost.append(value)
            raise StorageOutcomeUnknown("the answer did not come in time")
        return done

    storage.swap_meta = stored_then_answer_lost  # type: ignore[method-assign]
    started = await table.parties.start(INSTANCE, CHANNEL, GUILD, ANA, kings_and_pairs())
    assert lost and isinstance(started, Gathered) and started.gathering.starter_id == ANA.player_id
    assert isinstance(await table.parties.join(INSTANCE, BO), Gathered)
    now[0] += COUNTDOWN
    party = await table.parties.state(INSTANCE)
    assert isinstance(party, Party)
    for racer in (ANA, BO):
        await table.parties.give_up(INSTANCE, racer.player_id, "en")
    lost.clear()
    assert await table.parties.claim_podium(INSTANCE) is True and lost  # its answer lost, still this caller's
    assert await table.parties.claim_podium(INSTANCE) is False  # and once


async def test_a_player_forgotten_leaves_no_name_in_a_party(storage):
    """``/pyramide forget-me``: a party gathering or raced keeps nothing of the player (their name was stored
    in it), and the others' party goes on."""
    now = [1_000_000.0]
    table = Table(storage, now)
    await table.parties.start(INSTANCE, CHANNEL, GUILD, ANA, kings_and_pairs())
    for racer in (BO, CY):
        await table.parties.join(INSTANCE, racer)
    await storage.forget_player(CY.player_id)
    gathering = await table.parties.state(INSTANCE)
    assert isinstance(gathering, Gathering) and [r.name for r in gathering.racers] == ["Ana", "Bo"]
    now[0] += COUNTDOWN
    party = await table.parties.state(INSTANCE)
    assert isinstance(party, Party) and [s.name for s in party.standings] == ["Ana", "Bo"]
    await storage.forget_player(BO.player_id)
    party = await table.parties.state(INSTANCE)
    assert isinstance(party, Party) and [s.name for s in party.standings] == ["Ana"]
    stored = await raw(storage, "SELECT value FROM meta WHERE key LIKE 'party:%'")
    assert stored and all("Bo" not in value and "Cy" not in value for (value,) in stored)


async def test_a_move_another_process_stored_shows_in_this_process_party_once_heard(storage):
    if not isinstance(storage, PostgresStorage):
        pytest.skip("SQLite is one process's database")
    now = [1_000_000.0]
    here = Table(storage, now)  # the process serving the instance's pages: it holds every seat's engine
    party = await gathered(here, now, ANA, BO)
    elsewhere = asyncio.Event()

    async def hear(change: Change) -> None:
        if isinstance(change, ChangedElsewhere):
            elsewhere.set()

    here.plays.changes.subscribe(hear)
    here.plays.changes.listen()
    other_storage = twin(storage)
    await other_storage.open()
    try:
        await asyncio.wait_for(here.plays.changes.hearing.wait(), 5)
        there = Table(other_storage, now)
        for spot in clear_kings_and_pairs_taps()[:3]:  # a king, then a pair selected and removed
            played = await there.tap(party, ANA, spot)
        await asyncio.wait_for(elsewhere.wait(), 5)
        seen = await here.parties.state(INSTANCE)
        assert isinstance(seen, Party) and seen.of(ANA.player_id).removed == 3
        assert seen.of(ANA.player_id).left == tuple(card is not None for card in played.snapshot.pyramid)
    finally:
        await here.plays.changes.close()
        await other_storage.close()
