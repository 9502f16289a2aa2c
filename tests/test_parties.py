"""A party race of an Activity instance at the application level (``pyramide_service.parties``), on real
databases: gathered, joined during its countdown, dealt to every seat at once, played through the seats'
``Plays``, given up, ended by its time limit, ranked, counted as a race; two clears at one moment; a restart
in the middle."""

from __future__ import annotations

import asyncio
import itertools

import pytest

from pyramide_service.changes import Changes
from pyramide_service.manager import GameManager
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
from pyramide_service.server_settings import ServerSettings
from pyramide_service.storage import ENDED, WON, Storage
from tests.support.backends import twin
from tests.support.deals import clear_kings_and_pairs_taps, kings_and_pairs

pytestmark = pytest.mark.backends("sqlite", "postgresql")

INSTANCE, CHANNEL, GUILD = "i-1468", 710_000_000_000_000_001, 1 << 40
ANA, BO, CY, DEE = (Racer(600_000_000_000_000_000 + n, name, "en") for n, name in enumerate(("Ana", "Bo", "Cy", "Dee")))
requests = itertools.count(1)


class Table:
    """The application over one storage, on a clock the test moves."""

    def __init__(self, storage: Storage, now: list[float]) -> None:
        self.manager = GameManager(storage, clock=lambda: now[0])
        changes = Changes(storage, self.manager)
        self.plays = Plays(self.manager, ServerSettings(storage), None, changes)  # type: ignore[arg-type]
        self.parties = Parties(self.manager, changes)

    async def tap(self, party: Party, racer: Racer, spot: int) -> Played:
        seat = party.of(racer.player_id)
        assert seat is not None
        press = Press(seat.seat, racer.player_id, "en", request=next(requests))
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
    assert over.standings[0].player_id == over.winner_id or over.standings[0].seconds == over.standings[1].seconds
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
