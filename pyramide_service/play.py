"""A player's press in a channel, as one call that returns one outcome: ``Plays``.

A press is ids and values (``Press``): the channel, the player, the interaction that keys the stored move,
and for a button the game and board version it was drawn for and the message it was on; policy's inputs
are values too (the player's Manage Messages permission). ``Plays.play`` (a tap, a draw, an undo: a move),
``Plays.end`` and ``Plays.hint`` run inside the channel's lock (``GameManager.turn``) and hand out one value
of a closed set (``outcomes``): what the move did, the position to draw, and for a game it finished the
ending's facts, each worked out once where it is decided (``ending``); or why nothing was played (stale, not
yours, no game, the solver busy), a value as well, never an exception. A finished game's ending is read back
here too (``Plays.read_back``). After each commit the listeners are told what changed (``changes``), none
of them by name."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from pyramide.achievements import PERFECT_LOSS
from pyramide.effects import Effect
from pyramide.game import Game, InvalidAction
from pyramide.i18n import DEFAULT

from .admission import may_end
from .changes import Changes, GameChanged
from .ending import Ending, record_tier, share_line
from .manager import GameManager, Live, StaleBoard, Turn, owed_by
from .outcomes import (
    Broken,
    Busy,
    ClosedAtLoad,
    Ended,
    EndOutcome,
    GaveUp,
    GiveUpOutcome,
    Hinted,
    HintOutcome,
    MayNotEnd,
    MovedOn,
    MoveOutcome,
    NoGameHere,
    NotARacer,
    NotYours,
    Played,
    RaceOver,
    Redrawn,
    ShownFinished,
    Stale,
    Unplayed,
)
from .server_settings import ServerSettings, settings_key
from .solving import SolverBusy, SolverService
from .storage import ENDED, PLAYING, WON, GameRecord, GuildSettings

Move = Callable[[Game], Effect]
Slow = Callable[[], Awaitable[None]]  # called before a wait that may be long (the caller acknowledges)


async def _not_slow() -> None:
    return None


@dataclass(frozen=True, slots=True)
class Press:
    channel_id: int
    player_id: int
    lang: str  # the player's language (a daily's share line, the words of what the listeners redraw)
    request: int | None = None  # the interaction: the stored move's key, a hint counted once
    game_id: int | None = None  # a button's: the game and board version it was drawn for
    version: int | None = None
    message_id: int | None = None  # the message the button was on
    manage_messages: bool = False


class Plays:
    """Where the presses of every channel are played: over the manager (locks, engines, storage), the
    servers' settings (who may play) and the solver (verdicts, hints)."""

    def __init__(self, manager: GameManager, settings: ServerSettings, solver: SolverService, changes: Changes) -> None:
        self.manager = manager
        self.storage = manager.storage
        self.settings = settings
        self.solver = solver
        self.changes = changes

    @asynccontextmanager
    async def play(self, press: Press, move: Move, *, slow: Slow = _not_slow) -> AsyncIterator[MoveOutcome]:
        """Apply ``move`` to the channel's game and store it; a game it finished is closed and its ending
        worked out (``slow`` is called first when the verdict has to be waited for). The outcome is handed
        out inside the channel's lock, so that answers leave in the order the moves were made; the
        listeners are told once it is answered. A move another process stored first is ``Stale``."""
        async with self.manager.turn(press.channel_id) as turn:
            checked = await self._check(turn, press, slow)
            if not isinstance(checked, tuple):
                yield checked
                return
            live, settings = checked
            stored = live.stored
            try:
                result = await turn.apply(move, request=press.request)
            except StaleBoard:  # (the manager forgot its engine: the next press plays on the stored game)
                yield Stale()
                return
            ending = await self._ending(result.live, press.lang, slow) if result.finished else None
            try:
                yield Played(result.live, result.snapshot, result.event, settings, ending)
            finally:
                if result.finished or result.live.stored != stored:
                    await self._publish(result.live, result.snapshot.version, press.lang)

    @asynccontextmanager
    async def end(self, press: Press, *, checked: bool = True, slow: Slow = _not_slow) -> AsyncIterator[EndOutcome]:
        """End the channel's game: its starter, or a moderator (``press.manage_messages``). A button's
        press is ``checked`` as a move is (its board, who may play) first; a typed command is not."""
        async with self.manager.turn(press.channel_id) as turn:
            found = await self._check(turn, press, slow) if checked else await self._here(turn, press, slow)
            if not isinstance(found, tuple):
                yield found
                return
            live = found[0]
            if not may_end(live.record, press.player_id, press.manage_messages):
                yield MayNotEnd(live)
                return
            live = await turn.end()
            ending = await self._ending(live, press.lang, slow)
            try:
                yield Ended(live, ending)
            finally:
                await self._publish(live, live.game.version, press.lang)

    @asynccontextmanager
    async def hint(self, press: Press, *, slow: Slow = _not_slow) -> AsyncIterator[HintOutcome]:
        """The two-phase hint: checked and snapshotted inside the lock, worked out outside it (other moves go
        on; ``slow`` is called before), and handed out inside it again: the hint if the board is still
        where it was asked, else ``MovedOn`` (with the game as it is now, when it is the same game)."""
        async with self.manager.turn(press.channel_id) as turn:
            checked = await self._check(turn, press, slow)
            if not isinstance(checked, tuple):
                yield checked  # (answered inside the lock, as every refusal)
            else:
                snapshot = checked[0].game.copy()
        if not isinstance(checked, tuple):
            return
        live, settings = checked
        await slow()
        try:
            suggestion = await self.manager.hint(live, snapshot, request=press.request)
        except SolverBusy:
            yield Busy()
            return
        async with self.manager.turn(press.channel_id) as turn:
            now = turn.live
            if now is None or now.record.id != live.record.id:
                yield MovedOn()
                return
            try:
                if now.game.version != snapshot.version:
                    yield MovedOn(now, now.game.copy())
                else:
                    yield Hinted(now, snapshot, suggestion, settings)
            finally:  # its count of hints is stored
                await self._publish(now, now.game.version, press.lang)

    @asynccontextmanager
    async def give_up(
        self, race_id: int, guild_id: int | None, player_id: int, lang: str
    ) -> AsyncIterator[GiveUpOutcome]:
        """A race's "Give up": the presser's own game in the race ends (recorded as ended), handed out inside
        its channel's lock; the listeners are told (the race's scoreboard follows) once it is answered."""
        race = await self.storage.race(race_id)
        if race is None or race.guild_id != guild_id:
            yield Stale()
            return
        mine = next((game_id for player, game_id in race.players if player == player_id), None)
        if mine is None:
            yield NotARacer()
            return
        record = await self.manager.record(mine)
        if record is None or record.status != PLAYING or race.finished_at is not None:
            yield RaceOver()
            return
        async with self.manager.turn(record.channel_id) as turn:
            if not turn.holds(mine):
                yield RaceOver()
                return
            live = await turn.end(ENDED)
            try:
                yield GaveUp(live)
            finally:
                await self._publish(live, live.game.version, lang)

    # ------------------------------------------------------------------ upkeep
    async def expire_dailies(self, day: str) -> int:
        """End the counted dailies of days before ``day`` still in play: at midnight UTC they count as
        finished attempts ("gave up"); each is told to the listeners once its channel's lock is let go."""
        ended = 0
        for channel_id in await self.storage.stale_dailies(day):
            async with self.manager.turn(channel_id) as turn:
                live = turn.live
                if live is None or live.record.daily is None or live.record.daily >= day:
                    continue
                live = await turn.end()
            ended += 1
            await self._publish(live, live.game.version, live.record.locale or DEFAULT)
        return ended

    # ------------------------------------------------------------------ checks
    async def _none_here(self, turn: Turn, press: Press, slow: Slow) -> ClosedAtLoad | Broken | NoGameHere:
        """No game in play: a game closed at this load (the process stopped between its last stored move and
        its close) is shown with its ending and what it unlocked, once; else there is none, or it was broken."""
        closed = turn.closed
        if closed is not None:
            ending = await self._ending(closed, press.lang, slow)
            return ClosedAtLoad(closed, closed.game.copy(), ending)
        return Broken() if turn.broken is not None else NoGameHere()

    async def _here(self, turn: Turn, press: Press, slow: Slow) -> Unplayed | tuple[Live, GuildSettings | None]:
        if turn.live is None:
            return await self._none_here(turn, press, slow)
        turn.pays_verdicts = True
        return turn.live, None

    async def _check(self, turn: Turn, press: Press, slow: Slow) -> Unplayed | tuple[Live, GuildSettings]:
        """The game a press may act on, with the settings that rule it, or why not: a button's board must be
        the game's current one (an older one on the game's own message is drawn again, the last message of a
        finished game is shown finished), and the player its starter unless the server lets anyone play."""
        live = turn.live
        if press.game_id is None:
            if live is None:
                return await self._none_here(turn, press, slow)
        elif live is None or live.record.id != press.game_id:
            if turn.broken is not None and turn.broken.record.id == press.game_id:
                return Broken()
            return await self._finished(press, slow) or Stale()
        elif press.version != live.game.version:
            if press.message_id is not None and press.message_id == live.record.message_id:
                return Redrawn(live, live.game.copy())
            return Stale()
        settings = await self.settings.get(settings_key(live.record))
        if press.player_id != live.record.owner_id and not settings.anyone_can_play:
            return NotYours(live, settings)
        turn.pays_verdicts = True
        return live, settings

    async def _finished(self, press: Press, slow: Slow) -> ShownFinished | None:
        """A press on the last message of a finished game of this channel: the game, finished, to draw
        again with its ending (its first answer may have been lost: a press delivered to two processes, a
        restart); ``None`` for any other."""
        assert press.game_id is not None
        record = await self.manager.record(press.game_id)
        if (
            record is None
            or record.status == PLAYING
            or record.channel_id != press.channel_id
            or press.message_id is None
            or record.message_id != press.message_id
        ):
            return None
        try:
            game = Game.replay(record.code, record.actions)
        except (InvalidAction, ValueError, TypeError):
            return None
        live = Live(record, game)
        return ShownFinished(live, game, await self.read_back(live, press.lang, slow))

    # ----------------------------------------------------------------- endings
    async def read_back(self, live: Live, lang: str, slow: Slow | None = _not_slow) -> Ending:
        """The ending of a game finished earlier (by another press, another process), read back from storage:
        what it unlocked, what it still owes, the verdict (awaited as a press awaits it, or with ``slow``
        ``None`` only when it is known: a page drawn again waits for nothing)."""
        record = live.record
        # The owed row before the achievements: a payment made in between (another process, a restart's
        # resume) is then found among the achievements, never missed by both reads.
        if slow is not None:
            live.owes_verdict = await self.storage.owed_verdict(record.id) is not None
        live.unlocked = await self._unlocked_by(record)
        return await self._ending(live, lang, slow, closed_now=False)

    async def _ending(self, live: Live, lang: str, slow: Slow | None, *, closed_now: bool = True) -> Ending:
        """The facts of a finished game: the verdict (awaited at most ``solving.VERDICT_WAIT`` when not
        known, unless ``slow`` is ``None``), the perfect loss it owes paid with it, the tier its close worked
        out (``closed_now``; else worked out here: a game read back from storage), the share line."""
        record = live.record
        unlocked = list(live.unlocked or ())
        verdict = None
        if record.status != WON:
            verdict = self.solver.known_verdict(record.code)
            if verdict is None and slow is not None:
                await slow()
                verdict = await self.solver.verdict(record.code)
            owed = verdict is not None and live.owes_verdict and PERFECT_LOSS not in unlocked
            # (paid elsewhere while this press waited for the verdict: another process, a restart's resume)
            paid = owed and verdict is not None and await self.manager.owed.pay(owed_by(record), verdict)
            if paid or (owed and PERFECT_LOSS in await self._unlocked_by(record)):
                unlocked.append(PERFECT_LOSS)
        tier = live.tier if closed_now else record_tier(record, self.solver)
        share = share_line(record, record.picture, lang, tier) if record.daily is not None and record.counted else None
        return Ending(record, verdict, tier, tuple(unlocked), share)

    async def _unlocked_by(self, record: GameRecord) -> tuple[str, ...]:
        """The achievements ``record``'s game unlocked, as stored."""
        return tuple(u.key for u in await self.storage.unlocked(record.owner_id) if u.game_id == record.id)

    async def _publish(self, live: Live, version: int, lang: str) -> None:
        await self.changes.publish(GameChanged.of(live.record, version, lang))
