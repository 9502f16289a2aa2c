"""The party race in the page (issue #48): the Activity's adapter onto ``pyramide_service.parties``.

A page asks to start a party (``party``, with the deal form's options: a winnable deal when it names none),
to join one during its countdown (``join``), and a racer's End is their give-up. Every page of the channel
is sent the party as it stands (``view``): its countdown and who joined, then each rival's count of cards
removed and a small picture of their pyramid, then the podium; a racer's own board is their seat's game,
drawn as any game, and their taps, undos and hints are played there (``seated``: the session moved to the
seat). A move in a seat is heard through the one subscription like any move (``channel_of`` names the
instance's channel, whose pages are sent the party again), on every process; the countdown's end and the
time limit are each a timer here, and any page's look does the same after a restart."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable
from typing import Any

from pyramide import Game
from pyramide.bounded import LRU
from pyramide.i18n import t
from pyramide_discord.host import Host
from pyramide_service import PLAYING
from pyramide_service import parties as pt
from pyramide_service.manager import Live
from pyramide_service.seats import is_seat

from .dealer import Dealer
from .party_channel import PartyChannel, podium_png
from .position import game_view, seconds_played
from .presses import Reply
from .sessions import Session

log = logging.getLogger(__name__)
KINDS = frozenset({"party", "join"})


class PartyDesk:
    def __init__(self, bot: Host, dealer: Dealer, clock: Any, changed: Callable[[int], None]) -> None:
        self.bot = bot
        self.dealer = dealer
        self.clock = clock
        self.changed = changed  # the channel's pages to be sent again (the viewers')
        self._seats: LRU[int, int] = LRU(20_000)  # a seat -> the instance's channel
        self._states: LRU[str, pt.State] = LRU(5_000)  # an instance -> its party as last read
        self._timers: dict[str, tuple[float, asyncio.Task[None]]] = {}
        self._langs: LRU[str, str] = LRU(5_000)  # an instance -> its starter's language (the channel's words)
        # A racer's board as their pages draw it, worked out once a position and language (every page of the
        # instance is sent the party after each move: the racers whose board did not change are not drawn
        # again), and the finished games of racers (they change no more: not read and replayed for each look).
        self._boards: LRU[tuple[int, str], tuple[tuple[Any, ...], dict[str, Any]]] = LRU(20_000)
        self._finished: LRU[int, Live] = LRU(20_000)
        self.channel = PartyChannel(bot, changed)
        # An instance's party as read since the last change heard of its channel (``stale``): the pages of a
        # burst (a move's answer, then every page of the instance) share one read, under way or done.
        self._reads: LRU[str, tuple[int, asyncio.Task[pt.State]]] = LRU(5_000)
        self._read_in: LRU[int, set[str]] = LRU(5_000)  # a channel -> its instances whose read is kept

    def channel_of(self, channel_id: int) -> int:
        """The channel whose pages show ``channel_id``'s game: a seat's instance channel, else itself."""
        return self._seats.get(channel_id) or channel_id

    def seated(self, session: Session) -> Session:
        """The session as its player's presses go: into their seat while they race in the instance's party,
        unless the page sits in a seat of the player's own already (today's daily: "Today's daily" took it
        there, the table takes it back to the race; the attempt stays theirs, in its seat)."""
        if is_seat(session.channel_id):
            return session
        mine = self._racing(session)
        return dataclasses.replace(session, channel_id=mine.seat) if mine is not None else session

    def _racing(self, session: Session) -> pt.Standing | None:
        """The player's place in the instance's party while it runs (their board is then their seat's game;
        once it is over, everyone is back at the table, under the podium)."""
        state = self._states.get(session.instance_id)
        return state.of(session.user_id) if isinstance(state, pt.Party) and not state.over else None

    async def close(self) -> None:
        for _at, task in self._timers.values():
            task.cancel()
        await asyncio.gather(*(task for _at, task in self._timers.values()), return_exceptions=True)
        await self.channel.close()

    # ------------------------------------------------------------------ asking
    async def route(self, session: Session, kind: str, asked: dict[str, Any], lang: str) -> Reply | Session:
        """A party's message answered; else the session the press plays in (a racer's: their seat, where
        End is giving up)."""
        if kind in KINDS:
            return await self.act(session, kind, asked, lang)
        seated = self.seated(session)
        if seated is not session and kind == "end":
            return await self.give_up(session, lang)
        return seated

    async def act(self, session: Session, kind: str, asked: dict[str, Any], lang: str) -> Reply:
        parties, racer = self.bot.parties, pt.Racer(session.user_id, session.name, lang)
        if kind == "join":
            joined = await parties.join(session.instance_id, racer)
            return self._told(session, joined, lang)
        options = dict(asked["options"])
        if not {"code", "difficulty", "winnable"} & options.keys():
            options["winnable"] = True  # (a party's default: a deal somebody can win)
        chosen = await self.dealer.chosen(options, lang)
        if isinstance(chosen, Reply):
            return chosen
        game: Game = chosen[0]
        self._langs.put(session.instance_id, lang)
        started = await parties.start(session.instance_id, session.channel_id, session.guild_id, racer, game)
        return self._told(session, started, lang)

    async def give_up(self, session: Session, lang: str) -> Reply:
        given = await self.bot.parties.give_up(session.instance_id, session.user_id, lang)
        match given:
            case pt.GaveUp(party):
                self._keep(session.instance_id, party)
                return Reply([t(lang, "party.gave_up")])
            case pt.NotRacing(party):
                self._keep(session.instance_id, party)
        return Reply([t(lang, "party.not_racing")], stale=True)

    def _told(self, session: Session, outcome: pt.StartOutcome | pt.JoinOutcome, lang: str) -> Reply:
        match outcome:
            case pt.Gathered(gathering):
                self._keep(session.instance_id, gathering)
                self.changed(session.channel_id)
                return Reply()
            case pt.AlreadyGathering(gathering):
                self._keep(session.instance_id, gathering)
                self.changed(session.channel_id)  # (every page shows the countdown it joins)
                return Reply([t(lang, "party.gathering")])
            case pt.Full():
                return Reply([t(lang, "party.full", players=pt.MAX_PLAYERS)])
            case pt.Running(party):
                self._keep(session.instance_id, party)
                return Reply([t(lang, "party.running")])
            case pt.NoParty():
                return Reply([t(lang, "party.none")], stale=True)

    # ------------------------------------------------------------------ showing
    def stale(self, channel_id: int) -> None:
        """Something of the channel changed (a racer's move, here or heard from another process, a join, a
        timer): its instances' parties are read again at their next look."""
        for instance_id in self._read_in.pop(channel_id) or ():
            self._reads.pop(instance_id)

    async def _state(self, instance_id: str, channel_id: int) -> pt.State:
        """The instance's party as read since the last change of its channel (``channel_id``), else read now;
        read again when its countdown or its time ran out meanwhile (``Parties.state`` moves it on)."""
        kept, known = self._reads.get(instance_id), self._read_in.get(channel_id) or set()
        heard = kept is not None and kept[0] == channel_id and instance_id in known  # (else: a change may be unheard)
        if kept is not None and heard and not kept[1].done():
            return await asyncio.shield(kept[1])
        if kept is not None and heard and self._current(kept[1]):
            return kept[1].result()  # (at once: no turn of the loop)
        read = asyncio.get_running_loop().create_task(self.bot.parties.state(instance_id))
        self._reads.put(instance_id, (channel_id, read))
        self._read_in.put(channel_id, known | {instance_id})
        read.add_done_callback(lambda done: self._dropped(instance_id, done))
        return await asyncio.shield(read)

    def _current(self, read: asyncio.Task[pt.State]) -> bool:
        state, now = read.result(), self.clock()
        if isinstance(state, pt.Gathering):
            return now < state.starts_at
        return not isinstance(state, pt.Party) or state.over or now < state.ends_at

    def _dropped(self, instance_id: str, read: asyncio.Task[pt.State]) -> None:
        """A failed read is not kept (the next look reads again)."""
        if read.cancelled() or read.exception() is not None:
            kept = self._reads.get(instance_id)
            if kept is not None and kept[1] is read:
                self._reads.pop(instance_id)

    async def view(self, instance_id: str, channel_id: int) -> dict[str, Any] | None:
        """The instance's party as every page of it draws it (the same for all: no card of anyone's), its
        channel ``channel_id``."""
        state = await self._state(instance_id, channel_id)
        self._keep(instance_id, state)
        now = self.clock()
        match state:
            case pt.Gathering():
                racers = [{"id": str(r.player_id), "name": r.name} for r in state.racers]
                starts_in = max(0.0, state.starts_at - now)
                return {"phase": "gathering", "starts_in": round(starts_in, 1), "racers": racers}
            case pt.Party():
                rivals = [
                    {
                        "id": str(s.player_id),
                        "name": s.name,
                        "removed": s.removed,
                        "status": s.status,
                        "place": s.place,
                        "left": "".join("1" if left else "0" for left in s.left),
                    }
                    for s in state.standings
                ]
                winner = str(state.winner_id) if state.winner_id is not None else None
                phase = "over" if state.over else "racing"
                return {
                    "phase": phase,
                    "ends_in": round(max(0.0, state.ends_at - now)),
                    "winner": winner,
                    "rivals": rivals,
                    # Discord refused the bot's posts there: the podium is the players' to share (#48)
                    "untold": await self.channel.refused(state.race.id),
                }
        return None

    async def podium(self, instance_id: str, lang: str) -> bytes | None:
        """The podium picture of the instance's party once it is over (the page's share-moment dialog)."""
        state = await self.bot.parties.state(instance_id)
        self._keep(instance_id, state)
        if not isinstance(state, pt.Party) or not state.over:
            return None
        return await podium_png(state, lang)

    async def dress(self, message: dict[str, Any], session: Session, party: dict[str, Any] | None, lang: str) -> None:
        """Add the party to a page's state; a racer's board is their seat's game."""
        message["party"] = party
        if is_seat(session.channel_id):  # (the page plays its daily: the party shows beside it)
            return
        mine = self._racing(session)
        if mine is None:
            return
        live = await self._seat_game(mine)
        if live is None:
            return
        message["game"] = self._board(live, lang)
        message["ending"] = []
        message["you"] = {**message["you"], "plays": mine.playing}

    def _board(self, live: Live, lang: str) -> dict[str, Any]:
        """The seat's game as its page draws it (``game_view``), its clock read now; a stored position's
        worked out once (its stored actions name it: they are only ever appended)."""
        game, record, now = live.game, live.record, self.clock()
        if len(game.actions) != len(record.actions):  # (a move being stored: not kept)
            return game_view(live, game, lang, now)
        at = (len(record.actions), record.status, game.started_at, game.finished_at)
        kept = self._boards.get((record.id, lang))
        if kept is None or kept[0] != at:
            kept = self._boards.put((record.id, lang), (at, game_view(live, game, lang, now)))
        return {**kept[1], "seconds": seconds_played(game, now)}

    async def _seat_game(self, mine: pt.Standing) -> Live | None:
        """The racer's game: its engine here (read at once, not copied), else as stored."""
        live = self.bot.manager.held(mine.seat) or await self.bot.manager.snapshot(mine.seat)
        if live is not None and live.record.id == mine.game_id:
            return live
        finished = self._finished.get(mine.game_id)
        if finished is not None:
            return finished
        record = await self.bot.manager.record(mine.game_id)
        if record is None:
            return None
        try:
            game = await asyncio.to_thread(Game.replay, record.code, record.actions)
        except (ValueError, TypeError):
            return None
        game.started_at, game.finished_at = record.started_at, record.finished_at
        live = Live(record, game)
        if record.status != PLAYING:
            self._finished.put(record.id, live)
        return live

    def _keep(self, instance_id: str, state: pt.State) -> None:
        """Remember the party, name its seats, and wake up at its next moment (the deal, the time limit)."""
        self._states.put(instance_id, state)
        match state:
            case pt.Gathering():
                self._wake(instance_id, state.channel_id, state.starts_at)
            case pt.Party():
                for standing in state.standings:
                    self._seats.put(standing.seat, state.race.channel_id)
                if not state.over:
                    self._wake(instance_id, state.race.channel_id, state.ends_at)
                self.channel.tell(instance_id, state, self._langs.get(instance_id) or "en")

    def _wake(self, instance_id: str, channel_id: int, at: float) -> None:
        timer = self._timers.get(instance_id)
        if timer is not None and timer[0] == at:
            return
        if timer is not None and timer[1] is not asyncio.current_task():
            timer[1].cancel()
        task = asyncio.get_running_loop().create_task(self._at(instance_id, channel_id, at))
        self._timers[instance_id] = (at, task)
        task.add_done_callback(lambda done: self._forget(instance_id, done))

    def _forget(self, instance_id: str, done: asyncio.Task[None]) -> None:
        timer = self._timers.get(instance_id)
        if timer is not None and timer[1] is done:
            del self._timers[instance_id]

    async def _at(self, instance_id: str, channel_id: int, at: float) -> None:
        while self.clock() < at:  # (a second at most at a time: the clock may be moved, as the tests do)
            await asyncio.sleep(min(1.0, at - self.clock()) + 0.01)
        try:
            self._keep(instance_id, await self.bot.parties.state(instance_id))  # the deal, or the time limit
        except Exception:
            log.exception("the party of instance %s could not go on", instance_id)
        self.changed(channel_id)
