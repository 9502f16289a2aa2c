"""One live engine per channel, each behind its own lock, every action stored before it is answered.

``GameManager.turn(channel_id)`` is the one way into a channel's game: it takes the channel's lock,
loads the game (from memory or storage), and hands out a ``Turn`` to check, apply, store and answer
inside that lock, so answers leave in the order the moves were made. The solver's questions go to the
solver service (``pyramide_service.solving``) the manager is given; only the hints' count is kept here.
Beside it: ``gates`` (the channels' locks), ``moves`` (a move stored, or looked up after a write of unknown
outcome) and ``live`` (the game a turn hands out, and the refusals on the way in).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace

from pyramide.daily import clearing_picture
from pyramide.effects import Effect, GameResult
from pyramide.errors import GameError as GameError
from pyramide.game import Game, InvalidAction
from pyramide.solver import Hint

from .credits import Credits
from .ending import record_tier
from .gates import Gate, holding
from .live import ActResult as ActResult
from .live import BrokenGame as BrokenGame
from .live import Live as Live
from .live import NoGame as NoGame
from .live import StaleBoard as StaleBoard
from .live import owed_by as owed_by
from .moves import store
from .owed import OwedVerdicts
from .solving import SolverBusy, SolverService
from .storage import (
    BROKEN,
    ENDED,
    STUCK,
    WON,
    GameRecord,
    GameStatus,
    MoveConflict,
    Storage,
    StorageOutcomeUnknown,
    UnreadableGame,
)
from .storage.settling import RESOLVE_SECONDS

log = logging.getLogger(__name__)


@dataclass
class Turn:
    """One request's exclusive use of a channel's game, inside the channel's lock.

    ``live`` is the game in play (``None`` when there is none); ``broken`` is a stored game that
    could not be replayed and was closed on the way in; ``closed`` a game finished by its last stored move
    but closed only when loaded again (the process stopped in between): its ending, with what it unlocked,
    was never shown, so the flow shows it (handed to one turn, once)."""

    manager: GameManager
    channel_id: int
    live: Live | None = None
    broken: BrokenGame | None = None
    # Whether the caller shows the ending of a game it closes, and so pays the perfect loss the game owes
    # once the verdict is known (``play`` does); a game closed otherwise (replaced, given up) owes none.
    pays_verdicts: bool = False
    closed: Live | None = None

    def holds(self, game_id: int) -> bool:
        """Whether the game in play is ``game_id``."""
        return self.live is not None and self.live.record.id == game_id

    async def apply(self, action: Callable[[Game], Effect], *, request: int | None = None) -> ActResult:
        """Apply ``action`` to the game in play and store it before returning. ``request`` (a Discord
        interaction id) is stored with it, once: the same press delivered to two processes is applied once."""
        if self.live is None:
            raise NoGame()
        result = await self.manager._apply(self.live, action, request, owe=self.pays_verdicts)
        if result.finished:
            self.live = None
        return result

    async def end(self, status: GameStatus = ENDED) -> Live:
        """End the game in play (recorded with ``status``)."""
        if self.live is None:
            raise NoGame()
        live = self.live
        await self.manager._finish(live, status, owe=self.pays_verdicts)
        self.live = None
        return live

    async def start(
        self,
        *,
        guild_id: int,
        owner_id: int,
        game: Game,
        daily: str | None = None,
        locale: str | None = None,
        ending: GameStatus = ENDED,
        event: tuple[int, int] | None = None,
    ) -> Live:
        """Deal ``game`` here; a game in play is ended first, recorded as ``ending`` (the caller asked or
        checked: its starter or a moderator ended it, or it was idle and someone else replaced it).

        With ``daily`` this is the player's counted attempt at that day: its clock starts now, not at
        the first move, and a second one raises ``DailyTaken`` (a database constraint). With ``event``
        (event, deal) it is the player's one counted attempt at that deal of a server event, timed alike
        (``EventTaken`` for a second one, ``EventOver`` once the event is over)."""
        if self.live is not None:
            await self.end(ending)
        manager = self.manager
        now = manager.clock()
        record = GameRecord(
            id=0,
            guild_id=guild_id,
            channel_id=self.channel_id,
            owner_id=owner_id,
            code=game.code,
            rules=game.rules.token,
            daily=daily,
            counted=daily is not None,
            created_at=now,
            started_at=now if daily is not None or event is not None else None,
            locale=locale,
            event_id=event[0] if event is not None else None,
            event_deal=event[1] if event is not None else None,
        )
        record = await manager.storage.create_game(record)
        game.started_at = record.started_at
        self.live = manager._keep(Live(record, game))
        return self.live


class GameManager:
    """Holds the engines of the channels being played: at most ``max_live`` (least recently used
    dropped first, reloaded from storage on demand), and those idle for ``idle_seconds``. Hints are
    asked of ``solver`` (without one, every hint is refused as busy)."""

    def __init__(
        self,
        storage: Storage,
        *,
        clock: Callable[[], float] = time.time,
        idle_seconds: float = 1800.0,
        max_live: int = 2000,
        monotonic: Callable[[], float] = time.monotonic,
        solver: SolverService | None = None,
        resolve_seconds: float = RESOLVE_SECONDS,
    ) -> None:
        self.storage = storage
        self.solver = solver
        self.clock = clock  # wall time, for what is recorded
        self.monotonic = monotonic  # for idleness: immune to clock changes
        self.idle_seconds = idle_seconds
        self.max_live = max_live
        self._live: OrderedDict[int, Live] = OrderedDict()  # least recently used first
        self._used: dict[int, float] = {}
        self._gates: dict[int, Gate] = {}
        self.resolve_seconds = resolve_seconds
        # Channels whose last write had an unknown outcome that is not settled yet: settled before the
        # channel's game is loaded again, so that what is loaded can no longer change under it.
        self._unsettled: dict[int, StorageOutcomeUnknown] = {}
        # Games closed when loaded (finished by their last stored move before a stop), until a turn of their
        # channel shows their ending: a load outside a turn (``live``) leaves it to the next turn.
        self._closed_on_load: dict[int, Live] = {}
        # Told of each game closed here on no one's request (one that cannot be replayed, one its last stored
        # move finished before a stop), with its version: the one subscription (``Changes``) sets it.
        self.closed_alone: Callable[[GameRecord, int], None] = _nobody
        # Channels another process changed while a turn held or awaited them: their engines are reloaded from
        # storage by the next load (``outdated``).
        self._outdated: set[int] = set()
        # Histories being credited to their achievements (closed by the manager's owner: close()).
        self.credits = Credits(storage)
        # Perfect losses owed by finished games, paid once their deal's verdict is known (closed likewise).
        self.owed = OwedVerdicts(storage, solver)

    async def close(self) -> None:
        await self.credits.close()
        await self.owed.close()

    # ---------------------------------------------------------------- the way in
    @asynccontextmanager
    async def turn(self, channel_id: int) -> AsyncIterator[Turn]:
        """The channel's lock, and its game loaded: everything a request does to a game happens in here."""
        async with holding(self._gates, channel_id):
            await self._settle(channel_id)
            turn = Turn(self, channel_id)
            try:
                try:
                    turn.live = await self._load(channel_id)
                except BrokenGame as broken:
                    turn.broken = broken
                turn.closed = self._closed_on_load.pop(channel_id, None)
                yield turn
            except StorageOutcomeUnknown as unknown:  # (a move, a deal, a game closed on the way in)
                self._unsettled[channel_id] = unknown
                self.forget(channel_id)
                raise

    def outdated(self, channel_id: int | None = None) -> None:
        """Another process stored a change of the channel's game (of any channel's, ``None``: changes may have
        been missed), so the engine kept here is behind: it is dropped, and the next turn loads the stored
        game. While a turn holds or awaits the channel it is dropped at the next load instead (a turn already
        playing on it finds out by its write's conflict, as always)."""
        for channel in list(self._live) if channel_id is None else [channel_id]:
            if self.busy(channel):
                self._outdated.add(channel)
            else:
                self.forget(channel)

    def busy(self, channel_id: int) -> bool:
        """Whether a request holds or waits for the channel's game."""
        return channel_id in self._gates

    def peek(self, channel_id: int) -> Live | None:
        """The channel's engine if it is in memory (no loading, no lock): for guesses only."""
        return self._live.get(channel_id)

    def held(self, channel_id: int) -> Live | None:
        """The channel's engine in memory while nothing says it is behind the stored game (no other process's
        change of it heard since): no loading, no lock, no copy; for readers that only read it at once."""
        return None if channel_id in self._outdated else self._live.get(channel_id)

    @property
    def live_count(self) -> int:
        return len(self._live)

    @property
    def lock_count(self) -> int:
        return len(self._gates)

    # ----------------------------------------------------------------- loading
    async def live(self, channel_id: int) -> Live | None:
        """The game in play in a channel, from memory, or loaded from storage under the channel's lock
        (after the turn holding it, if any: a load never replaces the engine a turn is using)."""
        live = self._live.get(channel_id)
        if live is not None and channel_id not in self._outdated:
            self._touch(channel_id)
            return live
        async with holding(self._gates, channel_id):
            await self._settle(channel_id)
            return await self._load(channel_id)

    async def _settle(self, channel_id: int) -> None:
        """Settle the channel's last write of unknown outcome, if any (raises ``StorageUnavailable`` while
        the database does not answer): the game is then loaded as it will stay."""
        unknown = self._unsettled.get(channel_id)
        if unknown is None:
            return
        await self.storage.settle(unknown)
        self._unsettled.pop(channel_id, None)
        self.forget(channel_id)

    async def snapshot(self, channel_id: int) -> Live | None:
        """The game in play as it is now, for readers that must not wait for a turn (autocomplete, the
        deal code): the engine in memory, else a copy rebuilt from storage that is not kept, and whose
        loading writes nothing (a game that cannot be replayed, or was won by its last stored move, is
        left for the next turn to close)."""
        live = self._live.get(channel_id)
        if live is not None and channel_id not in self._outdated:
            return Live(live.record, live.game.copy())
        record = await self.storage.live_game(channel_id)
        if record is None or isinstance(record, UnreadableGame):
            return None
        try:
            game = Game.replay(record.code, record.actions)
        except (InvalidAction, ValueError, TypeError):
            return None
        game.started_at = record.started_at
        return Live(record, game) if game.outcome is None else None

    async def _load(self, channel_id: int) -> Live | None:
        """The game in play, from memory or rebuilt from storage; the channel's lock is held."""
        if channel_id in self._outdated:
            self._outdated.discard(channel_id)
            self.forget(channel_id)
        live = self._live.get(channel_id)
        if live is not None:
            self._touch(channel_id)
            return live
        found = await self.storage.live_game(channel_id)
        if found is None:
            return None
        record = found.record if isinstance(found, UnreadableGame) else found
        try:
            if isinstance(found, UnreadableGame):
                raise ValueError(found.reason)
            game = Game.replay(record.code, record.actions)
        except (InvalidAction, ValueError, TypeError) as error:
            await self._close_broken(record, str(error))
            raise BrokenGame(record, str(error)) from error
        game.started_at = record.started_at
        game.finished_at = record.finished_at
        live = Live(record, game)
        if game.outcome is not None:
            # The last move was stored but the process stopped before the game was closed (or answered): the
            # perfect loss it may be is paid in the background.
            await self._finish(live, WON if game.outcome is GameResult.WON else STUCK, owe=True)
            if live.owes_verdict:
                self.owed.follow(owed_by(live.record))
            self._closed_on_load[channel_id] = live
            self.closed_alone(live.record, game.version)
            return None
        return self._keep(live)

    async def _close_broken(self, record: GameRecord, reason: str) -> None:
        log.error(
            "game %s in channel %s cannot be replayed (%s): closed as broken", record.id, record.channel_id, reason
        )
        now = self.clock()
        closed = replace(record, status=BROKEN, finished_at=now, seconds=0.0, actions=())
        await self.storage.finish_game(closed)
        self.closed_alone(closed, len(record.actions))

    async def record(self, game_id: int) -> GameRecord | None:
        return await self.storage.game(game_id)

    async def last_action_at(self, game_id: int) -> float | None:
        """When the game's last action was stored (``None``: no action yet)."""
        return await self.storage.last_action_at(game_id)

    # ---------------------------------------------------------------- applying
    async def _apply(
        self, live: Live, action: Callable[[Game], Effect], request: int | None = None, *, owe: bool = False
    ) -> ActResult:
        game = live.game
        event = action(game)
        try:
            live.record = await store(self.storage, live, self.clock(), request, self.resolve_seconds)
        except MoveConflict as conflict:
            # Another process holding this shard for a moment (a rolling restart) stored a move here
            # first: this one is refused as played on a stale board; the next request reloads the game.
            self.forget(live.record.channel_id)
            raise StaleBoard() from conflict
        except BaseException:
            # What is not stored must not be answered: forget the engine, storage is the truth.
            self.forget(live.record.channel_id)
            raise
        game.started_at = live.record.started_at
        finished = False
        if game.outcome is not None:
            await self._finish(live, WON if game.outcome is GameResult.WON else STUCK, owe=owe)
            finished = True
        return ActResult(event, live, finished, game.copy())

    async def _finish(self, live: Live, status: GameStatus, *, owe: bool = False) -> None:
        """Close a game: stored first, then memory follows (a failed write changes nothing in memory). With
        ``owe``, a game that was not won owes its perfect loss until the verdict on its deal is known."""
        record, game = live.record, live.game
        now = self.clock()
        closed = replace(
            record,
            status=status,
            score=game.score,
            moves=game.moves,
            removed=game.removed,
            finished_at=now,
            seconds=now - record.started_at if record.started_at is not None else 0.0,
            picture=clearing_picture(record.code, record.actions) if record.counted else None,
        )
        tier = record_tier(record, self.solver)  # for the achievements, and the ending's words
        try:
            finish = await self.storage.finish_game(closed, tier=tier, owe=owe)
        except BaseException:
            self.forget(record.channel_id)
            raise
        # (the hints as counted now: one may have landed meanwhile, outside the lock)
        live.record, live.tier = replace(finish.record, hints=live.record.hints), tier
        live.unlocked, live.owes_verdict = finish.unlocked, finish.owes_verdict
        game.finished_at = closed.finished_at
        if finish.unlocked is None and status != BROKEN:
            self.credits.ensure(record.owner_id)  # a history from before the achievements: in the background
        self.forget(record.channel_id)

    # ------------------------------------------------------------------ solver
    async def hint(self, live: Live, game: Game, *, request: int | None = None) -> Hint:
        """A hint for ``game`` (a snapshot of ``live``'s position) from the solver service, counted for the
        game once per interaction ``request`` (a press delivered to two processes counts once). Raises
        ``SolverBusy`` when too many hints wait."""
        if self.solver is None:
            raise SolverBusy()
        known = await self.solver.hint(live.record.id, game)
        if await self.storage.add_hint(live.record.id, request):
            live.record = replace(live.record, hints=live.record.hints + 1)
        return known

    # ---------------------------------------------------------------- memory
    def _keep(self, live: Live) -> Live:
        channel_id = live.record.channel_id
        self._live[channel_id] = live
        self._touch(channel_id)
        if len(self._live) > self.max_live:
            self._shrink(self.max_live)
        return live

    def _touch(self, channel_id: int) -> None:
        self._live.move_to_end(channel_id)
        self._used[channel_id] = self.monotonic()

    def _shrink(self, size: int) -> None:
        """Drop least recently used engines until ``size`` are left; never one a request is using."""
        for channel_id in list(self._live):
            if len(self._live) <= size:
                break
            if not self.busy(channel_id):
                self.forget(channel_id)

    def evict_idle(self) -> int:
        """Drop engines idle for longer than ``idle_seconds`` (they reload from storage on demand)."""
        limit = self.monotonic() - self.idle_seconds
        idle = [c for c in self._live if self._used.get(c, 0.0) < limit and not self.busy(c)]
        for channel_id in idle:
            self.forget(channel_id)
        return len(idle)

    def forget(self, channel_id: int) -> None:
        """Drop a channel's engine from memory (as after a restart)."""
        self._live.pop(channel_id, None)
        self._used.pop(channel_id, None)


def _nobody(record: GameRecord, version: int) -> None:
    return None
