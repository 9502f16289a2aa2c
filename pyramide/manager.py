"""One live engine per channel, each behind its own lock, every action stored before it is answered."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from .events import Event, Outcome
from .game import Game, InvalidAction
from .solver import Hint, hint, wait_nodes
from .storage import ENDED, STUCK, WON, GameRecord, Storage

log = logging.getLogger(__name__)


class GameError(Exception):
    """A request that cannot be served; ``key`` names the message shown to the player."""

    key = "error"


class NoGame(GameError):
    key = "no_game"


class StaleBoard(GameError):
    key = "stale_board"


class GameExists(GameError):
    key = "game_exists"

    def __init__(self, live: Live) -> None:
        super().__init__(f"channel {live.record.channel_id} already has game {live.record.id}")
        self.live = live


class BrokenGame(GameError):
    key = "broken_game"


@dataclass
class Live:
    """A game in play: its stored record and its engine."""

    record: GameRecord
    game: Game
    last_used: float = 0.0

    @property
    def stored(self) -> int:
        return len(self.record.actions)


@dataclass(frozen=True)
class ActResult:
    event: Event
    live: Live
    finished: bool  # this action ended the game
    snapshot: Game  # the position right after the action, safe to draw while play goes on


class GameManager:
    """Holds the engines of the channels being played; idle ones are dropped and reloaded on demand."""

    def __init__(
        self,
        storage: Storage,
        *,
        clock: Callable[[], float] = time.time,
        idle_seconds: float = 1800.0,
        max_live: int = 2000,
    ) -> None:
        self.storage = storage
        self.clock = clock
        self.idle_seconds = idle_seconds
        self.max_live = max_live
        self._live: dict[int, Live] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    def lock(self, channel_id: int) -> asyncio.Lock:
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = self._locks[channel_id] = asyncio.Lock()
        return lock

    @property
    def live_count(self) -> int:
        return len(self._live)

    # ----------------------------------------------------------------- loading
    def _restore(self, record: GameRecord) -> Live:
        try:
            game = Game.replay(record.code, record.actions)
        except (InvalidAction, ValueError) as error:
            log.error("game %s cannot be replayed: %s", record.id, error)
            raise BrokenGame(str(error)) from error
        game.started_at = record.started_at
        game.finished_at = record.finished_at
        return Live(record, game, self.clock())

    async def live(self, channel_id: int) -> Live | None:
        """The game in play in a channel, from memory or rebuilt from storage."""
        live = self._live.get(channel_id)
        if live is None:
            record = await self.storage.live_game(channel_id)
            if record is None:
                return None
            live = self._restore(record)
            self._live[channel_id] = live
        live.last_used = self.clock()
        return live

    async def record(self, game_id: int) -> GameRecord | None:
        return await self.storage.game(game_id)

    # ---------------------------------------------------------------- commands
    async def start(
        self,
        *,
        guild_id: int,
        channel_id: int,
        owner_id: int,
        game: Game,
        daily: str | None = None,
        locale: str | None = None,
        replace: bool = False,
    ) -> Live:
        """Deal ``game`` in a channel. A running game there is kept (``GameExists``) unless ``replace``."""
        async with self.lock(channel_id):
            existing = await self.live(channel_id)
            if existing is not None:
                if not replace:
                    raise GameExists(existing)
                await self._finish(existing, ENDED)
            record = GameRecord(
                id=0,
                guild_id=guild_id,
                channel_id=channel_id,
                owner_id=owner_id,
                code=game.code,
                rules=game.rules.token,
                daily=daily,
                created_at=self.clock(),
                locale=locale,
            )
            record = await self.storage.create_game(record)
            live = Live(record, game, self.clock())
            self._live[channel_id] = live
            self._evict_if_full()
            return live

    async def act(
        self,
        channel_id: int,
        action: Callable[[Game], Event],
        *,
        game_id: int | None = None,
        version: int | None = None,
    ) -> ActResult:
        """``apply`` under the channel's lock."""
        async with self.lock(channel_id):
            return await self.apply(channel_id, action, game_id=game_id, version=version)

    async def apply(
        self,
        channel_id: int,
        action: Callable[[Game], Event],
        *,
        game_id: int | None = None,
        version: int | None = None,
    ) -> ActResult:
        """Apply ``action`` to the channel's game and store it before returning. Hold ``lock(channel_id)``.

        ``game_id`` and ``version`` come from a button: a press for another game or an
        older board is refused with ``StaleBoard`` and changes nothing."""
        live = await self.live(channel_id)
        if live is None:
            raise StaleBoard() if game_id is not None else NoGame()
        if game_id is not None and live.record.id != game_id:
            raise StaleBoard()
        if version is not None and version != live.game.version:
            raise StaleBoard()
        game = live.game
        event = action(game)
        try:
            await self._store(live)
        except BaseException:
            # What is not stored must not be answered: forget the engine, storage is the truth.
            self._live.pop(channel_id, None)
            raise
        finished = False
        if game.outcome is not None:
            await self._finish(live, WON if game.outcome is Outcome.WON else STUCK)
            finished = True
        return ActResult(event, live, finished, game.copy())

    async def _store(self, live: Live) -> None:
        game, record = live.game, live.record
        new = game.actions[live.stored :]
        now = self.clock()
        if record.started_at is None and game.moves > 0:
            record.started_at = game.started_at = now
        record.score, record.moves, record.removed = game.score, game.moves, game.removed
        for offset, action in enumerate(new):
            await self.storage.append_action(record.id, live.stored + offset, action, now, record)
        record.actions.extend(new)

    async def end(self, channel_id: int) -> Live:
        async with self.lock(channel_id):
            live = await self.live(channel_id)
            if live is None:
                raise NoGame()
            await self._finish(live, ENDED)
            return live

    async def add_hint(self, live: Live) -> Hint:
        """A hint for the current position, computed off the event loop on a copy of the game."""
        result = await asyncio.to_thread(hint, live.game.copy(), wait_nodes(live.game.rules))
        live.record.hints += 1
        await self.storage.add_hint(live.record.id)
        return result

    async def _finish(self, live: Live, status: str) -> None:
        record, game = live.record, live.game
        now = self.clock()
        record.status = status
        record.score, record.moves, record.removed = game.score, game.moves, game.removed
        record.finished_at = game.finished_at = now
        record.seconds = now - record.started_at if record.started_at is not None else 0.0
        await self.storage.finish_game(record)
        self._live.pop(record.channel_id, None)

    # ---------------------------------------------------------------- memory
    def evict_idle(self) -> int:
        """Drop engines idle for longer than ``idle_seconds`` (they reload from storage on demand)."""
        limit = self.clock() - self.idle_seconds
        dropped = 0
        for channel_id, live in list(self._live.items()):
            lock = self._locks.get(channel_id)
            if live.last_used < limit and not (lock and lock.locked()):
                del self._live[channel_id]
                self._locks.pop(channel_id, None)
                dropped += 1
        return dropped

    def _evict_if_full(self) -> None:
        if len(self._live) > self.max_live:
            self.evict_idle()

    def forget(self, channel_id: int) -> None:
        """Drop a channel's engine from memory (as after a restart)."""
        self._live.pop(channel_id, None)
