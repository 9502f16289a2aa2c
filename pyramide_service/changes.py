"""Who is told that something changed, after its change is stored: ``Changes``, the one subscription.

The application publishes each change once it is committed: ``play`` after a press (a move, a game's end,
a counted hint), ``opening`` after a deal (and the end of the game it replaced), a race's give-up like any
game's end, ``events`` once an event's results are claimed. None of them names a listener. The faces
subscribe what follows (the race scoreboards, the events' announcements, the Activity's pages) when they
start and unsubscribe when they stop; a surface that shows one channel subscribes to that channel only.

Across the processes of a deployment the storage carries the game changes (``storage.notices``: PostgreSQL's
``NOTIFY``/``LISTEN``; SQLite, one process's database, needs none): a change another process stored drops
this process's engine of the game (``GameManager.outdated``: its next press plays on the stored game) and
is told here as ``ChangedElsewhere``; when the line is lost and made again, every engine is dropped and
``ChangesMissed`` is told (what was announced meanwhile is unknown). It runs from the start, whether or
not the Activity is served. A listener's failure is logged and never fails what was changed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from pyramide.i18n import DEFAULT

from .storage import PLAYING, GameRecord, GameStatus, Storage
from .tasks import Supervised

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class GameChanged:
    """A game of this process was stored changed: its channel, the board version it is now at, whether it is
    finished (and how), the server event it is a deal of, the language of whoever changed it (the words of
    a scoreboard it redraws), and whether it was just dealt (nothing of it played yet)."""

    game_id: int
    channel_id: int
    version: int
    finished: bool
    status: GameStatus
    event_id: int | None
    lang: str
    dealt: bool = False

    @classmethod
    def of(cls, record: GameRecord, version: int, lang: str) -> GameChanged:
        """A move's (or an end's, a counted hint's) change of ``record``'s game, as stored."""
        finished = record.status != PLAYING
        return cls(record.id, record.channel_id, version, finished, record.status, record.event_id, lang)

    @classmethod
    def dealt_of(cls, record: GameRecord, version: int, lang: str) -> GameChanged:
        """A game just dealt, in play, nothing of it played yet (a deal, a party's boards)."""
        return cls(record.id, record.channel_id, version, False, PLAYING, record.event_id, lang, True)


@dataclass(frozen=True, slots=True)
class ChangedElsewhere:
    """Another process stored a change of the channel's game (only the channel is known)."""

    channel_id: int


@dataclass(frozen=True, slots=True)
class EventFinal:
    """An event's results are out (it ended or was cancelled): its announcement changes no more."""

    event_id: int


@dataclass(frozen=True, slots=True)
class ChangesMissed:
    """The line to the other processes was lost and made again: any channel's game may have changed meanwhile
    (told to every listener, of every channel)."""


Change = GameChanged | ChangedElsewhere | EventFinal | ChangesMissed
Listener = Callable[[Change], Awaitable[None]]


class Engines(Protocol):
    """What keeps engines of games in memory (``GameManager``): told when another process moved them; it
    tells in turn of the games it closed on no one's request (``closed_alone``, set here)."""

    closed_alone: Callable[[GameRecord, int], None]

    def outdated(self, channel_id: int | None = None) -> None: ...


class Changes:
    """The application's one subscription (one a bot): whoever changed something publishes it once it is
    stored; every listener, here and (for a game's change) in the other processes, hears it."""

    def __init__(self, storage: Storage, engines: Engines) -> None:
        self.engines = engines
        self.notices = storage.notices()
        self._everywhere: list[Listener] = []
        self._by_channel: dict[int, list[Listener]] = {}
        self._telling = Supervised("changes heard from other processes, games closed alone")
        engines.closed_alone = self._closed_alone

    @property
    def hearing(self) -> asyncio.Event:
        """Set while the other processes' changes reach this one (always, on SQLite, once listening)."""
        return self.notices.hearing

    def subscribe(self, listener: Listener, channel_id: int | None = None) -> Callable[[], None]:
        """Tell ``listener`` of every change (of ``channel_id``'s game only, when given); returns the call
        that unsubscribes it."""
        kept = self._everywhere if channel_id is None else self._by_channel.setdefault(channel_id, [])
        kept.append(listener)

        def unsubscribe() -> None:
            if listener in kept:
                kept.remove(listener)
            if channel_id is not None and not kept and self._by_channel.get(channel_id) is kept:
                del self._by_channel[channel_id]

        return unsubscribe

    async def publish(self, change: Change) -> None:
        """Tell every listener of ``change`` (stored already), and the other processes of a game's."""
        if isinstance(change, GameChanged):
            self.notices.announce(change.channel_id)
        await self._tell(change)

    async def _tell(self, change: Change) -> None:
        if isinstance(change, ChangesMissed):
            here = [listener for listeners in list(self._by_channel.values()) for listener in listeners]
        else:
            here = self._by_channel.get(change.channel_id, []) if not isinstance(change, EventFinal) else []
        for listener in (*self._everywhere, *here):
            try:
                await listener(change)
            except Exception:  # the change is stored and answered whatever a listener does with it
                log.exception("a listener of %s failed", change)

    def listen(self) -> None:
        """Hear the other processes' changes, from the bot's start until ``close``."""
        self.notices.listen(self._heard, self._missed)

    def _closed_alone(self, record: GameRecord, version: int) -> None:
        # (told once the lock the engines closed it under is let go, as every change)
        change = GameChanged.of(record, version, record.locale or DEFAULT)
        self._telling.spawn(self.publish(change), f"game {record.id} closed")

    def _heard(self, channel_id: int) -> None:
        self.engines.outdated(channel_id)  # before any listener reads the game again
        self._telling.spawn(self._tell(ChangedElsewhere(channel_id)), f"channel {channel_id}")

    def _missed(self) -> None:
        self.engines.outdated()  # every engine, before any listener reads a game again
        self._telling.spawn(self._tell(ChangesMissed()), "changes missed")

    async def close(self) -> None:
        await self.notices.close()
        await self._telling.close()
