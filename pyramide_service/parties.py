"""A party race (issue #48): everyone in an Activity instance racing one deal, each on a board of their own.

A party is gathered (its starter's deal, a countdown of ``COUNTDOWN`` seconds during which anyone in the
instance joins), then begins: one game a player, the same cards, each in the player's seat (``seats.Seat.party``:
a place of their own in the instance, the channel id their game is stored under), stored as one race of N
players, the very race of ``/pyramide race`` (its statistics, leaderboards and race achievements; its winner
the first clear, decided by the database as the game closes, so two clears at the same moment cannot both
win). The others play on for their places until every game is over or ``TIME_LIMIT`` has passed, when the
games still in play are ended (recorded as ended). Moves, undos and hints are the seats' ``Plays``, as any
channel's.

The party's state is stored, never only held in memory: its gathering and then its race are one ``meta``
value of the instance, so a restart in the middle (the countdown included) goes on where it was, and every
process reads the same. Every change of state is decided by the database, whichever processes ask at once:
a compare-and-set of that value (``Storage.swap_meta``: a start, a join, the podium's claim; one that lost is
decided again on what won), and the begin's race stored with the value in one transaction that finds it
unchanged (``Storage.create_race_in_meta``: of two processes beginning at once, one race). The begin deals
the seats through ``opening.open_seats``, which keeps a seat's game dealt already: a begin stopped in the
middle (a process killed after some seats) or run by two processes at once ends with one game a seat. A
lock of each process's own only spares it racing itself. Each intent returns one value of a closed set,
its refusals included."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
from dataclasses import dataclass
from typing import Any

from pyramide import Game
from pyramide.bounded import LRU

from .changes import Changes, GameChanged
from .manager import GameManager, Live
from .opening import Player, open_seats, take_back
from .seats import Seat
from .storage import ENDED, PLAYING, WON, GameRecord, RaceRecord
from .storage.settling import RESOLVE_SECONDS, look_up
from .stored import StorageOutcomeUnknown

COUNTDOWN = 10.0  # seconds between a party's start and its deal: long enough to tap "Join"
TIME_LIMIT = 15 * 60.0  # seconds a party runs at most: the games still in play then are ended
MAX_PLAYERS = 8  # Discord's design guide: groups of 3 to 8 play together the most
KEPT = 20_000  # racers' games whose seat, finished record and pyramids are kept (a few hundred bytes each)


@dataclass(frozen=True, slots=True)
class Racer:
    player_id: int
    name: str
    lang: str


@dataclass(frozen=True, slots=True)
class Gathering:
    """A party gathering its players until ``starts_at``."""

    instance_id: str
    channel_id: int  # the instance's channel (where the channel is told)
    guild_id: int  # where its games are counted
    code: str  # the deal
    starts_at: float
    racers: tuple[Racer, ...]  # the starter first

    @property
    def starter_id(self) -> int:
        return self.racers[0].player_id

    @property
    def party_id(self) -> int:
        """The party's seats' key: its start, in milliseconds (one party at a time an instance)."""
        return int(self.starts_at * 1000)


@dataclass(frozen=True, slots=True)
class Standing:
    """A racer's place: cleared first, then more cards removed, then less time (from the party's start to
    the game's end, or to now while it is played)."""

    place: int  # 1 is the first
    player_id: int
    name: str
    game_id: int
    seat: int
    status: str
    removed: int
    hints: int
    seconds: float
    left: tuple[bool, ...]  # the 28 spots of the pyramid: whether each card is still there

    @property
    def playing(self) -> bool:
        return self.status == PLAYING


@dataclass(frozen=True, slots=True)
class Party:
    """A party that began: its race, its standings, and when it ends at the latest."""

    instance_id: str
    race: RaceRecord
    standings: tuple[Standing, ...]
    ends_at: float

    @property
    def over(self) -> bool:
        return not any(s.playing for s in self.standings)

    @property
    def winner_id(self) -> int | None:
        return self.race.winner_id

    def of(self, player_id: int) -> Standing | None:
        return next((s for s in self.standings if s.player_id == player_id), None)


State = Gathering | Party | None


@dataclass(frozen=True, slots=True)
class Begun:
    """(Inside: the countdown ran out and the race was stored, by this process or another: read again.)"""


# ----------------------------------------------------------------------------- outcomes
@dataclass(frozen=True, slots=True)
class Gathered:
    """The party was started (or joined): its countdown runs."""

    gathering: Gathering


@dataclass(frozen=True, slots=True)
class AlreadyGathering:
    """A party gathers already: join it instead."""

    gathering: Gathering


@dataclass(frozen=True, slots=True)
class Full:
    gathering: Gathering


@dataclass(frozen=True, slots=True)
class Running:
    """A party is being played: a late player watches it (and may start the next one once it is over)."""

    party: Party


@dataclass(frozen=True, slots=True)
class NoParty:
    """Nothing gathers or runs in the instance."""


@dataclass(frozen=True, slots=True)
class NotRacing:
    """The player has no game in the running party (or it is over already)."""

    party: Party


@dataclass(frozen=True, slots=True)
class GaveUp:
    party: Party
    live: Live


StartOutcome = Gathered | AlreadyGathering | Running
JoinOutcome = Gathered | Full | Running | NoParty
GiveUpOutcome = GaveUp | NotRacing | NoParty


def key_of(instance_id: str) -> str:
    return f"party:{instance_id}"


class Parties:
    def __init__(self, manager: GameManager, changes: Changes) -> None:
        self.manager = manager
        self.storage = manager.storage
        self.changes = changes
        self._locks: dict[str, asyncio.Lock] = {}
        # What a look at a party needs of its games, kept so that it reads no game the engines hold up to date
        # (``_record``): a game -> its seat, a finished game -> its record (it changes no more), and a game at
        # so many stored actions -> which cards of its pyramid are left (actions are only ever appended).
        self._seats: LRU[int, int] = LRU(KEPT)
        self._over: LRU[int, GameRecord] = LRU(KEPT)
        self._lefts: LRU[tuple[int, int], tuple[bool, ...]] = LRU(KEPT)

    def _lock(self, instance_id: str) -> asyncio.Lock:
        lock = self._locks.get(instance_id)
        if lock is None:
            lock = self._locks[instance_id] = asyncio.Lock()
        return lock

    # ------------------------------------------------------------------------- intents
    async def start(self, instance_id: str, channel_id: int, guild_id: int, starter: Racer, game: Game) -> StartOutcome:
        """Start gathering a party on ``game``'s deal; its countdown starts now."""
        async with self._lock(instance_id):
            tried: Gathering | None = None
            while True:  # (until this process's change is the one stored, or the stored one refuses it)
                kept, state = await self._read(instance_id)
                if isinstance(state, Gathering):  # (``tried``: stored after all, its answer lost on the way)
                    return Gathered(state) if state == tried else AlreadyGathering(state)
                if isinstance(state, Party) and not state.over:
                    return Running(state)
                starts_at = self.manager.clock() + COUNTDOWN
                tried = Gathering(instance_id, channel_id, guild_id, game.code, starts_at, (starter,))
                if await self._keep(tried, kept):
                    return Gathered(tried)

    async def join(self, instance_id: str, racer: Racer) -> JoinOutcome:
        """Join the gathering party (joining twice is joining once)."""
        async with self._lock(instance_id):
            while True:  # (a join that lost to another one, on any process, joins what won)
                kept, state = await self._read(instance_id)
                if isinstance(state, Party) and not state.over:
                    return Running(state)
                if not isinstance(state, Gathering):
                    return NoParty()
                if any(r.player_id == racer.player_id for r in state.racers):
                    return Gathered(state)
                if len(state.racers) >= MAX_PLAYERS:
                    return Full(state)
                gathering = dataclasses.replace(state, racers=(*state.racers, racer))
                if await self._keep(gathering, kept):
                    return Gathered(gathering)

    async def state(self, instance_id: str) -> State:
        """The instance's party as it is now: a countdown that ran out begins the race (once), a party past
        its time limit ends its games still in play. ``None``: none gathers, none was played."""
        async with self._lock(instance_id):
            return await self._state(instance_id)

    async def give_up(self, instance_id: str, player_id: int, lang: str) -> GiveUpOutcome:
        """The player's own game of the running party ends (recorded as ended); the others play on."""
        async with self._lock(instance_id):
            state = await self._state(instance_id)
            if not isinstance(state, Party):
                return NoParty()
            mine = state.of(player_id)
            if mine is None or not mine.playing:
                return NotRacing(state)
            live = await self._end(mine)
            party = await self._party(instance_id, state.race.id)
            if party is None:
                return NoParty()
            return NotRacing(party) if live is None else GaveUp(party, live)

    async def show_at(self, race_id: int, message_id: int) -> None:
        """The party's scoreboard in its channel is ``message_id`` (kept up to date as a race's)."""
        await self.storage.set_race_message(race_id, message_id)

    async def claim_podium(self, instance_id: str) -> bool:
        """Whether the caller is the one to tell the channel of the party's end (once, restarts and every
        process included): the claim is stored with a mark of this call's own, so that a claim stored whose
        answer was lost on the way (the write tried again) is still this caller's."""
        claim = secrets.token_hex(8)
        async with self._lock(instance_id):
            while True:
                kept = await self.storage.meta(key_of(instance_id))
                data = json.loads(kept) if kept else {}
                if "race" not in data or data.get("podium"):
                    return data.get("podium") == claim
                if await self._swap(key_of(instance_id), kept, json.dumps({**data, "podium": claim})):
                    return True

    # ------------------------------------------------------------------------- inside
    async def _state(self, instance_id: str) -> State:
        return (await self._read(instance_id))[1]

    async def _read(self, instance_id: str) -> tuple[str | None, State]:
        """The stored value and the state it makes (a countdown that ran out begun, as stored then)."""
        while True:
            kept = await self.storage.meta(key_of(instance_id))
            state = await self._state_of(instance_id, kept)
            if not isinstance(state, Begun):
                return kept, state

    async def _state_of(self, instance_id: str, kept: str | None) -> State | Begun:
        if kept is None:
            return None
        data: dict[str, Any] = json.loads(kept)
        if "race" in data:
            names = _names(data)
            party = await self._party(instance_id, int(data["race"]), names)
            if party is not None and not party.over and self.manager.clock() >= party.ends_at:
                for standing in party.standings:
                    if standing.playing:
                        await self._end(standing)
                party = await self._party(instance_id, party.race.id, names)
            return party
        gathering = Gathering(
            instance_id,
            int(data["channel"]),
            int(data["guild"]),
            str(data["code"]),
            float(data["starts_at"]),
            tuple(Racer(int(p), str(n), str(lang)) for p, n, lang in data["racers"]),
        )
        if self.manager.clock() < gathering.starts_at:
            return gathering
        await self._begin(gathering, kept)
        return Begun()

    async def _keep(self, gathering: Gathering, kept: str | None) -> bool:
        """Store the gathering in place of ``kept``; whether it was (``False``: another change came first)."""
        data = {
            "channel": str(gathering.channel_id),
            "guild": str(gathering.guild_id),
            "code": gathering.code,
            "starts_at": gathering.starts_at,
            "racers": [[str(r.player_id), r.name, r.lang] for r in gathering.racers],
        }
        return await self._swap(key_of(gathering.instance_id), kept, json.dumps(data))

    async def _swap(self, key: str, kept: str | None, value: str) -> bool:
        """``key`` set to ``value`` if it still holds ``kept``; whether it was. A swap whose answer did not come
        (``StorageOutcomeUnknown``: sent, then a stall or a cut) is neither: it is settled, then looked up
        (the stored value is ``value``, or it is not), and raises only if the database stays away."""
        try:
            return await self.storage.swap_meta(key, kept, value)
        except StorageOutcomeUnknown as unknown:

            async def stored() -> bool:
                return await self.storage.meta(key) == value

            return await look_up(self.storage, unknown, stored, RESOLVE_SECONDS)

    async def _begin(self, gathering: Gathering, kept: str) -> None:
        """The deal dealt to every racer, each in their seat (``open_seats``: a seat dealt already by a begin
        stopped in the middle, or by another process now, keeps its game), and stored as one race of N
        players, as ``/pyramide race`` stores one, with the party's value, if that is still ``kept``
        (else another process stored its race first, with these very games: nothing is stored)."""
        game = Game.from_code(gathering.code)
        deals = [
            (
                Player(r.player_id, r.name, gathering.guild_id, r.lang).deal(game.copy()),
                Seat.party(gathering.channel_id, r.player_id, gathering.party_id).id,
            )
            for r in gathering.racers
        ]
        seated = await open_seats(self.manager, deals, changes=self.changes)
        dealt = [seat.live for seat in seated]
        names = {str(r.player_id): r.name for r in gathering.racers}
        race = (
            gathering.guild_id,
            gathering.channel_id,
            gathering.code,
            gathering.starts_at,
            [(live.record.owner_id, live.record.id) for live in dealt],
        )
        stored = await self.storage.create_race_in_meta(
            key_of(gathering.instance_id), kept, lambda race_id: json.dumps({"race": race_id, "names": names}), race
        )
        if stored is None:  # (another process stored its race first: a game this begin dealt anew is none of it)
            await self._take_back_strays(instance_id=gathering.instance_id, new=[s.live for s in seated if s.new])
            return
        for live, racer in zip(dealt, gathering.racers, strict=True):  # (dealt to the party now: its race stored)
            await self.changes.publish(GameChanged.dealt_of(live.record, live.game.version, racer.lang))

    async def _take_back_strays(self, instance_id: str, new: list[Live]) -> None:
        """Of the games a begin that lost dealt anew (in a seat whose race game was over already: a begin of
        a stale gathering), those outside the race stored take nothing away from anyone: they are taken back."""
        kept = await self.storage.meta(key_of(instance_id))
        data = json.loads(kept) if kept else {}
        race = await self.storage.race(int(data["race"])) if "race" in data else None
        in_race = {game_id for _player, game_id in race.players} if race is not None else set()
        for live in new:
            if live.record.id not in in_race:
                await take_back(self.manager, live)

    async def _party(self, instance_id: str, race_id: int, names: dict[str, str] | None = None) -> Party | None:
        """The party of race ``race_id`` as stored (its racers' ``names`` as the instance's meta keeps them,
        read when not given)."""
        race = await self.storage.race(race_id)
        if race is None:  # (a server's data removed meanwhile)
            return None
        if names is None:
            kept = await self.storage.meta(key_of(instance_id))
            names = _names(json.loads(kept)) if kept else {}
        now = self.manager.clock()
        rows: list[tuple[int, GameRecord]] = []
        for player_id, game_id in race.players:
            if str(player_id) not in names:  # (forgotten by forget-me: a record kept here is no more theirs)
                continue
            record = await self._record(game_id)
            if record is not None:
                rows.append((player_id, record))
        ranked = sorted(rows, key=lambda row: _rank(row[1], row[0] == race.winner_id, race.created_at, now))
        standings = tuple(
            Standing(
                place,
                player_id,
                names.get(str(player_id), str(player_id)),
                record.id,
                record.channel_id,
                str(record.status),
                record.removed,
                record.hints,
                _seconds(record, race.created_at, now),
                self._left(record),
            )
            for place, (player_id, record) in enumerate(ranked, start=1)
        )
        return Party(instance_id, race, standings, race.created_at + TIME_LIMIT)

    async def _record(self, game_id: int) -> GameRecord | None:
        """A racer's game as stored: the record of its engine while this process holds it up to date (every
        move here is stored before the engine's record follows; another process's change drops the engine,
        ``GameManager.outdated``), a finished game's as it was read (it changes no more), else read."""
        seat = self._seats.get(game_id)
        live = self.manager.held(seat) if seat is not None else None
        if live is not None and live.record.id == game_id:
            return live.record
        record = self._over.get(game_id) or await self.manager.record(game_id)
        if record is not None:
            self._seats.put(game_id, record.channel_id)
            if record.status != PLAYING:
                self._over.put(game_id, record)
        return record

    def _left(self, record: GameRecord) -> tuple[bool, ...]:
        """Which cards of the pyramid are left after the record's actions: as worked out before for as many
        actions, else from the engine in memory when it is at those very actions (a move's own process),
        else replayed from them."""
        key = (record.id, len(record.actions))
        left = self._lefts.get(key)
        if left is None:
            live = self.manager.held(record.channel_id)
            if live is not None and live.record.id == record.id and len(live.game.actions) == len(record.actions):
                left = tuple(card is not None for card in live.game.pyramid)
            else:
                left = _left(record)
            self._lefts.put(key, left)
        return left

    async def _end(self, standing: Standing) -> Live | None:
        async with self.manager.turn(standing.seat) as turn:
            if not turn.holds(standing.game_id):
                return None
            live = await turn.end(ENDED)
        await self.changes.publish(GameChanged.of(live.record, live.game.version, live.record.locale or "en"))
        return live


def _seconds(record: GameRecord, start: float, now: float) -> float:
    end = record.finished_at if record.finished_at is not None else now
    return max(0.0, end - start)


def _rank(record: GameRecord, winner: bool, start: float, now: float) -> tuple[int, int, int, float]:
    """The race's winner first (the database's decision: of two clears at one moment, the one it kept), then
    the other clears, then more cards removed, then less time."""
    return (0 if winner else 1, 0 if record.status == WON else 1, -record.removed, _seconds(record, start, now))


def _names(data: dict[str, Any]) -> dict[str, str]:
    """The racers' names as the instance's meta keeps them (by player id)."""
    return {str(player): str(name) for player, name in data.get("names", {}).items()}


def _left(record: GameRecord) -> tuple[bool, ...]:
    """The game's pyramid replayed from its stored actions."""
    try:
        pyramid = Game.replay(record.code, record.actions).pyramid
    except (ValueError, TypeError):
        return (True,) * 28
    return tuple(card is not None for card in pyramid)
