"""A player's press in a channel, as one call that returns one outcome: ``Table``.

A press is ids and values (``Press``): the channel, the player, the interaction that keys the stored move,
and for a button the game and board version it was drawn for and the message it was on; policy's inputs
are values too (the player's Manage Messages permission). ``Table.play`` (a tap, a draw, an undo: a move),
``Table.end`` and ``Table.hint`` run inside the channel's lock (``GameManager.turn``) and return an
``Outcome``: what the move did, the position to draw, and for a game it finished the ending's facts, each
worked out once where it is decided (``ending``); or why nothing was played (stale, not yours, no game).
After each commit the listeners are told what changed (``changes``), none of them by name."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from enum import StrEnum

from pyramide.achievements import PERFECT_LOSS
from pyramide.effects import Effect
from pyramide.game import Game, InvalidAction
from pyramide.solver import Hint

from .changes import Changes, GameChanged
from .ending import Ending, record_tier, share_line
from .manager import GameManager, Live, Turn, owed_by
from .server_settings import ServerSettings, settings_key
from .solving import SolverBusy, SolverService
from .storage import ABANDONED, ENDED, PLAYING, WON, GameRecord, GameStatus, GuildSettings

Move = Callable[[Game], Effect]
Slow = Callable[[], Awaitable[None]]  # called before a wait that may be long (the caller acknowledges)


async def _not_slow() -> None:
    return None


class Kind(StrEnum):
    PLAYED = "played"  # a move applied and stored
    ENDED = "ended"  # the game ended by the player (or a moderator)
    HINTED = "hinted"  # a hint for the position, which is still the board's
    NO_GAME = "no_game"
    BROKEN = "broken"  # the stored game could not be replayed: closed, the channel is free
    STALE = "stale"  # a button of another game or message: out of date
    REFRESH = "refresh"  # an older board on the game's own message: drawn again as it is now
    SHOW_FINISHED = "show_finished"  # the last message of a finished game: drawn again finished
    CLOSED_AT_LOAD = "closed_at_load"  # finished by its last stored move, closed when loaded again: shown once
    NOT_YOURS = "not_yours"  # another player's game, where only its starter plays
    MAY_NOT_END = "may_not_end"  # neither its starter nor a moderator
    MOVED_ON = "moved_on"  # the board moved on while a hint was worked out
    SOLVER_BUSY = "solver_busy"


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


@dataclass(frozen=True, slots=True)
class Outcome:
    kind: Kind
    live: Live | None = None  # the game (its record, as stored)
    snapshot: Game | None = None  # the position to draw, safe while play goes on
    effect: Effect | None = None  # what the move did
    ending: Ending | None = None  # a game this press finished (or a finished game drawn again)
    hint: Hint | None = None
    settings: GuildSettings | None = None  # the settings that rule the game, when they were read

    @property
    def finished(self) -> bool:
        return self.ending is not None


def may_end(record: GameRecord, player_id: int, manage_messages: bool) -> bool:
    """Who may end a game (or end it to deal another): its starter, or a moderator (Manage Messages)."""
    return player_id == record.owner_id or manage_messages


class Table:
    """Where the presses of every channel are played: over the manager (locks, engines, storage), the
    servers' settings (who may play) and the solver (verdicts, hints)."""

    def __init__(
        self, manager: GameManager, settings: ServerSettings, solver: SolverService, changes: Changes
    ) -> None:
        self.manager = manager
        self.storage = manager.storage
        self.settings = settings
        self.solver = solver
        self.changes = changes

    @asynccontextmanager
    async def play(self, press: Press, move: Move, *, slow: Slow = _not_slow) -> AsyncIterator[Outcome]:
        """Apply ``move`` to the channel's game and store it; a game it finished is closed and its ending
        worked out (``slow`` is called first when the verdict has to be waited for). The outcome is handed
        out inside the channel's lock, so that answers leave in the order the moves were made; the
        listeners are told once it is answered."""
        async with self.manager.turn(press.channel_id) as turn:
            checked = await self._check(turn, press, slow)
            if isinstance(checked, Outcome):
                yield checked
                return
            live, settings = checked
            stored = live.stored
            result = await turn.apply(move, request=press.request)
            ending = await self._ending(result.live, press.lang, slow) if result.finished else None
            try:
                yield Outcome(Kind.PLAYED, result.live, result.snapshot, result.event, ending, settings=settings)
            finally:
                if result.finished or result.live.stored != stored:
                    await self._publish(result.live, result.snapshot.version, press.lang)

    @asynccontextmanager
    async def end(self, press: Press, *, checked: bool = True, slow: Slow = _not_slow) -> AsyncIterator[Outcome]:
        """End the channel's game: its starter, or a moderator (``press.manage_messages``). A button's
        press is ``checked`` as a move is (its board, who may play) first; a typed command is not."""
        async with self.manager.turn(press.channel_id) as turn:
            found = await self._check(turn, press, slow) if checked else await self._here(turn, press, slow)
            if isinstance(found, Outcome):
                yield found
                return
            live = found[0]
            if not may_end(live.record, press.player_id, press.manage_messages):
                yield Outcome(Kind.MAY_NOT_END, live)
                return
            live = await turn.end()
            ending = await self._ending(live, press.lang, slow)
            try:
                yield Outcome(Kind.ENDED, live, live.game, ending=ending)
            finally:
                await self._publish(live, live.game.version, press.lang)

    async def may_replace(self, live: Live, player_id: int, manage_messages: bool) -> tuple[bool, GameStatus]:
        """Whether a player may end ``live`` to deal a new game, and how it is recorded: its starter or a
        moderator ends it; anyone in the channel may replace it once it sat idle past the server's limit
        (recorded as abandoned: played, not won)."""
        if may_end(live.record, player_id, manage_messages):
            return True, ENDED
        settings = await self.settings.get(settings_key(live.record))
        last = await self.manager.last_action_at(live.record.id) or live.record.created_at
        if (self.manager.clock() - last) / 60 >= settings.idle_minutes:
            return True, ABANDONED
        return False, ENDED

    @asynccontextmanager
    async def hint(self, press: Press, *, slow: Slow = _not_slow) -> AsyncIterator[Outcome]:
        """The two-phase hint: checked and snapshotted inside the lock, worked out outside it (other moves go
        on; ``slow`` is called before), and handed out inside it again: the hint if the board is still
        where it was asked, else ``MOVED_ON`` (with the game as it is now, when it is the same game)."""
        async with self.manager.turn(press.channel_id) as turn:
            checked = await self._check(turn, press, slow)
            if isinstance(checked, Outcome):
                yield checked  # (answered inside the lock, as every refusal)
            else:
                snapshot = checked[0].game.copy()
        if isinstance(checked, Outcome):
            return
        live, settings = checked
        await slow()
        try:
            suggestion = await self.manager.hint(live, snapshot, request=press.request)
        except SolverBusy:
            yield Outcome(Kind.SOLVER_BUSY, live)
            return
        async with self.manager.turn(press.channel_id) as turn:
            now = turn.live
            if now is None or now.record.id != live.record.id:
                yield Outcome(Kind.MOVED_ON)
                return
            try:
                if now.game.version != snapshot.version:
                    yield Outcome(Kind.MOVED_ON, now, now.game.copy())
                else:
                    yield Outcome(Kind.HINTED, now, snapshot, hint=suggestion, settings=settings)
            finally:  # its count of hints is stored
                await self._publish(now, now.game.version, press.lang)

    # ------------------------------------------------------------------ checks
    async def _none_here(self, turn: Turn, press: Press, slow: Slow) -> Outcome:
        """No game in play: a game closed at this load (the process stopped between its last stored move and
        its close) is shown with its ending and what it unlocked, once; else there is none, or it was broken."""
        closed = turn.closed
        if closed is not None:
            ending = await self._ending(closed, press.lang, slow)
            return Outcome(Kind.CLOSED_AT_LOAD, closed, closed.game.copy(), ending=ending)
        return Outcome(Kind.BROKEN if turn.broken is not None else Kind.NO_GAME)

    async def _here(self, turn: Turn, press: Press, slow: Slow) -> Outcome | tuple[Live, GuildSettings | None]:
        if turn.live is None:
            return await self._none_here(turn, press, slow)
        turn.pays_verdicts = True
        return turn.live, None

    async def _check(self, turn: Turn, press: Press, slow: Slow) -> Outcome | tuple[Live, GuildSettings]:
        """The game a press may act on, with the settings that rule it, or why not: a button's board must be
        the game's current one (an older one on the game's own message is drawn again, the last message of a
        finished game is shown finished), and the player its starter unless the server lets anyone play."""
        live = turn.live
        if press.game_id is None:
            if live is None:
                return await self._none_here(turn, press, slow)
        elif live is None or live.record.id != press.game_id:
            if turn.broken is not None and turn.broken.record.id == press.game_id:
                return Outcome(Kind.BROKEN)
            return await self._finished(press, slow) or Outcome(Kind.STALE)
        elif press.version != live.game.version:
            if press.message_id is not None and press.message_id == live.record.message_id:
                return Outcome(Kind.REFRESH, live, live.game.copy())
            return Outcome(Kind.STALE)
        settings = await self.settings.get(settings_key(live.record))
        if press.player_id != live.record.owner_id and not settings.anyone_can_play:
            return Outcome(Kind.NOT_YOURS, live, settings=settings)
        turn.pays_verdicts = True
        return live, settings

    async def _finished(self, press: Press, slow: Slow) -> Outcome | None:
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
        # The owed row before the achievements: a payment made in between (another process, a restart's
        # resume) is then found among the achievements, never missed by both reads.
        owed = await self.storage.owed_verdict(record.id)
        live = Live(record, game, unlocked=await self._unlocked_by(record), owes_verdict=owed is not None)
        ending = await self._ending(live, press.lang, slow, closed_now=False)
        return Outcome(Kind.SHOW_FINISHED, live, game, ending=ending)

    # ----------------------------------------------------------------- endings
    async def _ending(self, live: Live, lang: str, slow: Slow, *, closed_now: bool = True) -> Ending:
        """The facts of a finished game: the verdict (awaited at most ``solving.VERDICT_WAIT`` when not
        known), the perfect loss it owes paid with it, the tier its close worked out (``closed_now``; else
        worked out here: a game read back from storage), the share line."""
        record = live.record
        unlocked = list(live.unlocked or ())
        verdict = None
        if record.status != WON:
            verdict = self.solver.known_verdict(record.code)
            if verdict is None:
                await slow()
                verdict = await self.solver.verdict(record.code)
            owed = live.owes_verdict and PERFECT_LOSS not in unlocked
            # (paid elsewhere while this press waited for the verdict: another process, a restart's resume)
            paid = owed and await self.manager.owed.pay(owed_by(record), verdict)
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
